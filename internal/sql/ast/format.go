package ast

import (
	"strconv"
	"strings"
)

// Format prints node as canonical single-line SQL. Statements are printed
// without a trailing semicolon. Parsing the result yields a tree that
// formats to the same text.
func Format(node Node) string {
	var p printer
	p.node(node)
	return p.String()
}

type printer struct {
	strings.Builder
}

func (p *printer) ws(parts ...string) {
	for _, s := range parts {
		p.WriteString(s)
	}
}

func (p *printer) ident(id *Ident) { p.WriteString(QuoteIdent(id.Name)) }

func (p *printer) str(s *StringLit) { p.WriteString(QuoteString(s.Value)) }

func (p *printer) identList(ids []*Ident) {
	for i, id := range ids {
		if i > 0 {
			p.WriteString(", ")
		}
		p.ident(id)
	}
}

func (p *printer) exprList(list []Expr) {
	for i, e := range list {
		if i > 0 {
			p.WriteString(", ")
		}
		p.expr(e)
	}
}

func (p *printer) options(opts []*Option) {
	p.WriteString(" WITH")
	p.optionList(opts)
}

// optionList prints (opts) after a blank.
func (p *printer) optionList(opts []*Option) {
	p.WriteString(" (")
	for i, o := range opts {
		if i > 0 {
			p.WriteString(", ")
		}
		p.ws(QuoteString(o.Key.Value), " = ", QuoteString(o.Value.Value))
	}
	p.WriteString(")")
}

func (p *printer) node(node Node) {
	switch n := node.(type) {
	case Statement:
		p.stmt(n)
	case Expr:
		p.expr(n)
	case TableExpr:
		p.tableExpr(n)
	case *Ident:
		p.ident(n)
	case *ObjectName:
		p.WriteString(n.String())
	case *TypeName:
		p.WriteString(n.Text)
	case *Option:
		p.ws(QuoteString(n.Key.Value), " = ", QuoteString(n.Value.Value))
	case *ColumnDef:
		p.columnDef(n)
	case *PrimaryKey:
		p.primaryKey(n)
	case *Watermark:
		p.watermark(n)
	case *Distribution:
		p.distribution(n)
	case *Resource:
		p.ws(n.Kind, " ", QuoteString(n.Path.Value))
	case *SelectItem:
		p.selectItem(n)
	case *OrderItem:
		p.orderItem(n)
	case *Alias:
		p.alias(n)
	case *Arg:
		p.arg(n)
	case *When:
		p.ws("WHEN ")
		p.expr(n.Cond)
		p.ws(" THEN ")
		p.expr(n.Result)
	}
}

func (p *printer) stmt(s Statement) {
	switch n := s.(type) {
	case Query:
		p.query(n)
	case *CreateTable:
		p.createTable(n)
	case *DropTable:
		p.WriteString("DROP ")
		if n.Temporary {
			p.WriteString("TEMPORARY ")
		}
		p.WriteString("TABLE ")
		p.ifExists(n.IfExists)
		p.WriteString(n.Name.String())
	case *CreateView:
		p.WriteString("CREATE ")
		if n.Temporary {
			p.WriteString("TEMPORARY ")
		}
		p.WriteString("VIEW ")
		p.ifNotExists(n.IfNotExists)
		p.WriteString(n.Name.String())
		if len(n.Columns) > 0 {
			p.WriteString(" (")
			for i, c := range n.Columns {
				if i > 0 {
					p.WriteString(", ")
				}
				p.WriteString(QuoteIdent(c.Name))
			}
			p.WriteString(")")
		}
		p.comment(n.Comment)
		p.WriteString(" AS ")
		p.query(n.Query)
	case *DropView:
		p.WriteString("DROP ")
		if n.Temporary {
			p.WriteString("TEMPORARY ")
		}
		p.WriteString("VIEW ")
		p.ifExists(n.IfExists)
		p.WriteString(n.Name.String())
	case *CreateFunction:
		p.createFunction(n)
	case *DropFunction:
		p.WriteString("DROP ")
		if n.Temporary {
			p.WriteString("TEMPORARY ")
		}
		if n.System {
			p.WriteString("SYSTEM ")
		}
		p.WriteString("FUNCTION ")
		p.ifExists(n.IfExists)
		p.WriteString(n.Name.String())
	case *CreateCatalog:
		p.WriteString("CREATE CATALOG ")
		p.ifNotExists(n.IfNotExists)
		p.ident(n.Name)
		p.comment(n.Comment)
		if len(n.Options) > 0 {
			p.options(n.Options)
		}
	case *DropCatalog:
		p.WriteString("DROP CATALOG ")
		p.ifExists(n.IfExists)
		p.ident(n.Name)
	case *CreateDatabase:
		p.WriteString("CREATE DATABASE ")
		p.ifNotExists(n.IfNotExists)
		p.WriteString(n.Name.String())
		p.comment(n.Comment)
		if len(n.Options) > 0 {
			p.options(n.Options)
		}
	case *DropDatabase:
		p.WriteString("DROP DATABASE ")
		p.ifExists(n.IfExists)
		p.WriteString(n.Name.String())
		if n.Cascade {
			p.WriteString(" CASCADE")
		}
	default:
		p.otherStmt(s)
	}
}

func (p *printer) otherStmt(s Statement) {
	switch n := s.(type) {
	case *Insert:
		if n.Overwrite {
			p.ws("INSERT OVERWRITE ", n.Table.String())
		} else {
			p.ws("INSERT INTO ", n.Table.String())
		}
		if n.Partition != nil {
			p.WriteString(" PARTITION (")
			for i, pv := range n.Partition {
				if i > 0 {
					p.WriteString(", ")
				}
				p.ws(QuoteIdent(pv.Name.Name), " = ")
				p.expr(pv.Value)
			}
			p.WriteString(")")
		}
		if n.Columns != nil {
			p.WriteString(" (")
			p.identList(n.Columns)
			p.WriteString(")")
		}
		p.WriteString(" ")
		p.query(n.Query)
		if n.OnConflict != NoConflictClause {
			p.ws(" ON CONFLICT ", n.OnConflict.String())
		}
	case *StatementSet:
		p.WriteString("EXECUTE STATEMENT SET BEGIN ")
		for _, ins := range n.Inserts {
			p.otherStmt(ins)
			p.WriteString("; ")
		}
		p.WriteString("END")
	case *BeginStatementSet:
		p.WriteString("BEGIN STATEMENT SET")
	case *EndStatementSet:
		p.WriteString("END")
	case *AlterTable:
		p.alterTable(n)
	case *Set:
		p.WriteString("SET")
		if n.Key != nil {
			p.ws(" ", QuoteString(n.Key.Value), " = ", QuoteString(n.Value.Value))
		}
	case *Reset:
		p.WriteString("RESET")
		if n.Key != nil {
			p.ws(" ", QuoteString(n.Key.Value))
		}
	case *UseCatalog:
		p.WriteString("USE CATALOG ")
		p.ident(n.Name)
	case *UseDatabase:
		p.ws("USE ", n.Name.String())
	case *Show:
		p.ws("SHOW ", n.What.String())
		if n.From != nil {
			p.ws(" FROM ", n.From.String())
		}
		if n.Like != nil {
			if n.NotLike {
				p.WriteString(" NOT")
			}
			p.ws(" LIKE ", QuoteString(n.Like.Value))
		}
	case *ShowCreateTable:
		p.ws("SHOW CREATE TABLE ", n.Name.String())
	case *Describe:
		p.WriteString("DESCRIBE ")
		if n.Extended {
			p.WriteString("EXTENDED ")
		}
		p.WriteString(n.Name.String())
	case *DescribeFunction:
		p.WriteString("DESCRIBE FUNCTION ")
		if n.Extended {
			p.WriteString("EXTENDED ")
		}
		p.WriteString(n.Name.String())
	case *Explain:
		p.WriteString("EXPLAIN ")
		if len(n.Details) > 0 {
			p.ws(strings.Join(n.Details, ", "), " ")
		}
		p.stmt(n.Statement)
	case *AddJar:
		p.ws("ADD JAR ", QuoteString(n.Path.Value))
	}
}

func (p *printer) ifExists(b bool) {
	if b {
		p.WriteString("IF EXISTS ")
	}
}

func (p *printer) ifNotExists(b bool) {
	if b {
		p.WriteString("IF NOT EXISTS ")
	}
}

func (p *printer) comment(c *StringLit) {
	if c != nil {
		p.ws(" COMMENT ", QuoteString(c.Value))
	}
}

func (p *printer) createTable(n *CreateTable) {
	p.WriteString("CREATE ")
	if n.OrReplace {
		p.WriteString("OR REPLACE ")
	}
	if n.Temporary {
		p.WriteString("TEMPORARY ")
	}
	p.WriteString("TABLE ")
	p.ifNotExists(n.IfNotExists)
	p.WriteString(n.Name.String())
	var elems []func()
	for _, c := range n.Columns {
		elems = append(elems, func() { p.columnDef(c) })
	}
	if n.PrimaryKey != nil && !n.PrimaryKey.Inline {
		elems = append(elems, func() { p.primaryKey(n.PrimaryKey) })
	}
	if n.Watermark != nil {
		elems = append(elems, func() { p.watermark(n.Watermark) })
	}
	if len(elems) > 0 {
		p.WriteString(" (")
		for i, f := range elems {
			if i > 0 {
				p.WriteString(", ")
			}
			f()
		}
		p.WriteString(")")
	}
	p.comment(n.Comment)
	if n.Distribution != nil {
		p.WriteString(" ")
		p.distribution(n.Distribution)
	}
	if len(n.PartitionedBy) > 0 {
		p.WriteString(" PARTITIONED BY (")
		for i, c := range n.PartitionedBy {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(QuoteIdent(c.Name))
		}
		p.WriteString(")")
	}
	if len(n.Options) > 0 {
		p.options(n.Options)
	}
	if n.Like != nil {
		p.ws(" LIKE ", n.Like.Source.String())
		if len(n.Like.Options) > 0 {
			p.WriteString(" (")
			for i, o := range n.Like.Options {
				if i > 0 {
					p.WriteString(" ")
				}
				p.ws(o.Mode, " ", o.Feature)
			}
			p.WriteString(")")
		}
	}
	if n.Query != nil {
		p.WriteString(" AS ")
		p.query(n.Query)
	}
}

func (p *printer) columnDef(c *ColumnDef) {
	p.ident(c.Name)
	switch c.Kind {
	case ComputedColumn:
		p.WriteString(" AS ")
		p.expr(c.Expr)
	default:
		p.ws(" ", c.Type.Text)
	}
	if c.Kind == MetadataColumn {
		p.WriteString(" METADATA")
		if c.MetadataKey != nil {
			p.ws(" FROM ", QuoteString(c.MetadataKey.Value))
		}
		if c.Virtual {
			p.WriteString(" VIRTUAL")
		}
	}
	if c.PrimaryKey {
		p.WriteString(" PRIMARY KEY NOT ENFORCED")
	}
	p.comment(c.Comment)
}

func (p *printer) primaryKey(k *PrimaryKey) {
	if k.Name != nil {
		p.WriteString("CONSTRAINT ")
		p.ident(k.Name)
		p.WriteString(" ")
	}
	p.WriteString("PRIMARY KEY (")
	p.identList(k.Columns)
	p.WriteString(") NOT ENFORCED")
}

func (p *printer) watermark(w *Watermark) {
	p.WriteString("WATERMARK FOR ")
	p.ident(w.Column)
	p.WriteString(" AS ")
	p.expr(w.Expr)
}

func (p *printer) distribution(d *Distribution) {
	p.WriteString("DISTRIBUTED")
	if len(d.Columns) > 0 {
		p.WriteString(" BY ")
		if d.Algorithm != "" {
			p.WriteString(d.Algorithm)
		}
		p.WriteString("(")
		p.identList(d.Columns)
		p.WriteString(")")
	}
	if d.Buckets > 0 {
		p.ws(" INTO ", strconv.Itoa(d.Buckets), " BUCKETS")
	}
}

func (p *printer) createFunction(n *CreateFunction) {
	p.WriteString("CREATE ")
	if n.Temporary {
		p.WriteString("TEMPORARY ")
	}
	if n.System {
		p.WriteString("SYSTEM ")
	}
	p.WriteString("FUNCTION ")
	p.ifNotExists(n.IfNotExists)
	p.ws(n.Name.String(), " AS ", QuoteString(n.Identifier.Value))
	if n.Language != "" {
		p.ws(" LANGUAGE ", n.Language)
	}
	for i, r := range n.Resources {
		if i == 0 {
			p.WriteString(" USING ")
		} else {
			p.WriteString(", ")
		}
		p.ws(r.Kind, " ", QuoteString(r.Path.Value))
	}
}

// schemaChange prints the elements of ALTER TABLE ... ADD or MODIFY
// after kw.
func (p *printer) schemaChange(kw string, ct *CreateTable, positions []string) {
	p.WriteString(kw)
	first := true
	sep := func() {
		if !first {
			p.WriteString(", ")
		}
		first = false
	}
	for i, c := range ct.Columns {
		sep()
		p.columnDef(c)
		switch pos := positions[i]; pos {
		case "":
		case "FIRST":
			p.WriteString(" FIRST")
		default:
			p.ws(" AFTER ", QuoteIdent(pos))
		}
	}
	if ct.PrimaryKey != nil && !ct.PrimaryKey.Inline {
		sep()
		p.primaryKey(ct.PrimaryKey)
	}
	if ct.Watermark != nil {
		sep()
		p.watermark(ct.Watermark)
	}
	p.WriteString(")")
}

func (p *printer) alterTable(n *AlterTable) {
	p.WriteString("ALTER TABLE ")
	p.ifExists(n.IfExists)
	p.WriteString(n.Name.String())
	switch {
	case n.Set != nil:
		p.WriteString(" SET")
		p.optionList(n.Set)
	case n.Reset != nil:
		p.WriteString(" RESET (")
		for i, k := range n.Reset {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(QuoteString(k.Value))
		}
		p.WriteString(")")
	case n.Add != nil:
		p.schemaChange(" ADD (", n.Add, n.AddPositions)
	case n.Modify != nil:
		p.schemaChange(" MODIFY (", n.Modify, n.ModifyPositions)
	case n.Drop != nil:
		p.WriteString(" DROP (")
		for i, c := range n.Drop {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(QuoteIdent(c.Name))
		}
		p.WriteString(")")
	case n.DropPrimaryKey:
		p.WriteString(" DROP PRIMARY KEY")
	case n.DropWatermark:
		p.WriteString(" DROP WATERMARK")
	case n.RenameColumn != nil:
		p.ws(" RENAME ", QuoteIdent(n.RenameColumn.Name), " TO ", QuoteIdent(n.RenameColumnTo.Name))
	case n.RenameTo != nil:
		p.ws(" RENAME TO ", n.RenameTo.String())
	}
}
