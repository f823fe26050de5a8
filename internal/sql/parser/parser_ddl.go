package parser

import (
	"strconv"

	"github.com/eddy-sql/eddy/internal/sql/ast"
)

// create parses the CREATE statements.
func (p *parser) create() ast.Statement {
	t := p.next()
	if p.isKw("OR") && p.peek(1).is("REPLACE") {
		p.next()
		p.next()
		k := p.tok()
		temp := p.acceptKw("TEMPORARY")
		if !p.isKw("TABLE") {
			p.unsupported(k.pos, "CREATE OR REPLACE works for tables created from a query: CREATE OR REPLACE TABLE t AS SELECT ...",
				"CREATE OR REPLACE %s is not supported", p.tok().val)
		}
		p.next()
		ct := p.createTable(t, temp)
		ct.OrReplace = true
		if ct.IfNotExists {
			p.failf(ct.Pos(), "use either CREATE OR REPLACE TABLE or CREATE TABLE IF NOT EXISTS",
				"CREATE OR REPLACE TABLE cannot be combined with IF NOT EXISTS")
		}
		if ct.Query == nil {
			p.failf(ct.Name.Pos(), "add the query that fills the table: CREATE OR REPLACE TABLE t AS SELECT ...",
				"CREATE OR REPLACE TABLE needs AS SELECT: only tables created from a query can be replaced")
		}
		return ct
	}
	temp := p.acceptKw("TEMPORARY")
	var sys token
	if p.isKw("SYSTEM") {
		sys = p.next()
	} else {
		p.expect("SYSTEM")
	}
	k := p.tok()
	if sys.kind != tEOF && !k.is("FUNCTION") {
		p.wantKw("FUNCTION")
	}
	switch {
	case k.is("TABLE"):
		p.next()
		return p.createTable(t, temp)
	case k.is("FUNCTION"):
		p.next()
		return p.createFunction(t, temp, sys.kind != tEOF)
	case k.is("CATALOG") && !temp:
		p.next()
		c := &ast.CreateCatalog{Loc: at(t.pos), IfNotExists: p.ifNotExists(), Name: p.ident("a catalog name")}
		c.Comment, c.Options = p.commentWith()
		return c
	case k.is("DATABASE") && !temp:
		p.next()
		d := &ast.CreateDatabase{Loc: at(t.pos), IfNotExists: p.ifNotExists(), Name: p.databaseName()}
		d.Comment, d.Options = p.commentWith()
		return d
	case k.is("VIEW"):
		p.next()
		v := &ast.CreateView{Loc: at(t.pos), Temporary: temp, IfNotExists: p.ifNotExists(), Name: p.tableName()}
		if p.accept(tLParen) {
			for {
				v.Columns = append(v.Columns, p.ident("a column name"))
				if !p.accept(tComma) {
					break
				}
			}
			p.want(tRParen)
		}
		if p.acceptKw("COMMENT") {
			v.Comment = p.stringLit("a comment string", "")
		}
		p.wantKw("AS")
		v.Query = p.query()
		return v
	case k.is("OR"), k.is("MATERIALIZED"):
		p.unsupported(k.pos, "", "CREATE %s is not supported", k.val)
	}
	p.expect("TABLE")
	p.expect("FUNCTION")
	if !temp {
		p.expect("CATALOG")
		p.expect("DATABASE")
	}
	p.unexpected()
	return nil
}

// commentWith parses [COMMENT 'text'] [WITH (options)].
func (p *parser) commentWith() (*ast.StringLit, []*ast.Option) {
	var c *ast.StringLit
	var opts []*ast.Option
	if p.acceptKw("COMMENT") {
		c = p.stringLit("a comment string", "")
	}
	if p.acceptKw("WITH") {
		opts = p.options()
	}
	return c, opts
}

// drop parses the DROP statements.
func (p *parser) drop() ast.Statement {
	t := p.next()
	temp := p.acceptKw("TEMPORARY")
	sys := temp && p.acceptKw("SYSTEM")
	k := p.tok()
	switch {
	case k.is("TABLE") && !sys:
		p.next()
		return &ast.DropTable{Loc: at(t.pos), Temporary: temp, IfExists: p.ifExists(), Name: p.tableName()}
	case k.is("VIEW") && !sys:
		p.next()
		return &ast.DropView{Loc: at(t.pos), Temporary: temp, IfExists: p.ifExists(), Name: p.tableName()}
	case k.is("FUNCTION"):
		p.next()
		return &ast.DropFunction{Loc: at(t.pos), Temporary: temp, System: sys, IfExists: p.ifExists(), Name: p.functionName()}
	case k.is("CATALOG") && !temp:
		p.next()
		return &ast.DropCatalog{Loc: at(t.pos), IfExists: p.ifExists(), Name: p.ident("a catalog name")}
	case k.is("DATABASE") && !temp:
		p.next()
		d := &ast.DropDatabase{Loc: at(t.pos), IfExists: p.ifExists(), Name: p.databaseName()}
		if p.acceptKw("CASCADE") {
			d.Cascade = true
		} else {
			p.acceptKw("RESTRICT")
		}
		return d
	case k.is("VIEW"):
		p.unsupported(k.pos, "", "DROP VIEW is not supported")
	}
	if !sys {
		p.expect("TABLE")
	}
	p.expect("FUNCTION")
	if !temp {
		p.expect("CATALOG")
		p.expect("DATABASE")
	}
	p.unexpected()
	return nil
}

// createTable parses CREATE TABLE after the TABLE keyword.
func (p *parser) createTable(create token, temp bool) *ast.CreateTable {
	ct := &ast.CreateTable{Loc: at(create.pos), Temporary: temp, IfNotExists: p.ifNotExists()}
	ct.Name = p.tableName()
	hasElems := false
	if p.accept(tLParen) {
		hasElems = true
		p.tableElements(ct)
	}
	if p.acceptKw("COMMENT") {
		ct.Comment = p.stringLit("a comment string", "")
	}
	if p.isKw("DISTRIBUTED") {
		ct.Distribution = p.distribution()
	} else {
		p.expect("DISTRIBUTED")
	}
	if p.isKw("PARTITIONED") && p.peek(1).is("BY") {
		p.next()
		p.next()
		ct.PartitionedBy = p.parenIdents("a column name")
	} else {
		p.expect("PARTITIONED")
	}
	if p.acceptKw("WITH") {
		ct.Options = p.options()
	}
	if p.isKw("LIKE") {
		ct.Like = p.likeClause()
	} else if p.acceptKw("AS") {
		ct.Query = p.query()
	}
	switch t := p.tok(); {
	case t.kind == tSemi, t.kind == tEOF:
	case t.is("COMMENT"), t.is("DISTRIBUTED"), t.is("PARTITIONED"), t.is("WITH"), t.is("AS"), t.is("LIKE"):
		p.failf(t.pos, "write the clauses in this order: (columns) COMMENT '...' DISTRIBUTED ... PARTITIONED BY (...) WITH (...) LIKE t | AS SELECT ...",
			"unexpected %s: CREATE TABLE clause out of order", t.val)
	default:
		p.unexpected()
	}
	if !hasElems && ct.Query == nil && ct.Like == nil {
		p.failf(ct.Name.Pos(), "declare the columns, as in CREATE TABLE t (id INT, name STRING), or derive them from a query with CREATE TABLE t AS SELECT ...",
			"table %s has no columns", ct.Name)
	}
	return ct
}

// watermarkClause parses WATERMARK FOR col AS expr (the current token is
// WATERMARK) into ct, which may have only one.
func (p *parser) watermarkClause(ct *ast.CreateTable) {
	t := p.tok()
	if ct.Watermark != nil {
		p.fail(t.pos, "declare a single WATERMARK FOR clause", "a table can have only one watermark")
	}
	p.next()
	p.next()
	wm := &ast.Watermark{Loc: at(t.pos), Column: p.ident("a column name")}
	p.wantKw("AS")
	wm.Expr = p.expr()
	ct.Watermark = wm
}

// tableElements parses the column definitions and constraints after '('.
func (p *parser) tableElements(ct *ast.CreateTable) {
	for {
		t := p.tok()
		switch {
		case t.is("PRIMARY"), t.is("CONSTRAINT"):
			p.setPrimaryKey(ct, p.primaryKey(false))
		case t.is("WATERMARK") && p.peek(1).is("FOR"):
			p.watermarkClause(ct)
		case isIdent(t):
			ct.Columns = append(ct.Columns, p.columnDef(ct))
		default:
			p.expect("a column name")
			p.expect("PRIMARY KEY")
			p.expect("CONSTRAINT")
			p.expect("WATERMARK")
			p.unexpected()
		}
		if !p.accept(tComma) {
			p.want(tRParen)
			return
		}
	}
}

func (p *parser) setPrimaryKey(ct *ast.CreateTable, pk *ast.PrimaryKey) {
	if ct.PrimaryKey != nil {
		p.fail(pk.Pos(), "declare the key once, listing all its columns: PRIMARY KEY (a, b) NOT ENFORCED",
			"a table can have only one primary key")
	}
	ct.PrimaryKey = pk
}

// columnDef parses a physical, computed or metadata column.
func (p *parser) columnDef(ct *ast.CreateTable) *ast.ColumnDef {
	col := &ast.ColumnDef{Name: p.ident("a column name")}
	if p.acceptKw("AS") {
		col.Kind = ast.ComputedColumn
		col.Expr = p.expr()
	} else {
		col.Type = p.typeName()
		if p.acceptKw("METADATA") {
			col.Kind = ast.MetadataColumn
			if p.acceptKw("FROM") {
				col.MetadataKey = p.stringLit("a metadata key", "write the key as a string: METADATA FROM 'timestamp'")
			}
			col.Virtual = p.acceptKw("VIRTUAL")
		}
		if t := p.tok(); t.is("PRIMARY") || t.is("CONSTRAINT") {
			pk := p.primaryKey(true)
			pk.Columns = []*ast.Ident{{Loc: col.Name.Loc, Name: col.Name.Name}}
			p.setPrimaryKey(ct, pk)
			col.PrimaryKey = true
		} else {
			p.expect("PRIMARY KEY")
		}
	}
	if p.acceptKw("COMMENT") {
		col.Comment = p.stringLit("a comment string", "")
	}
	return col
}

// primaryKey parses [CONSTRAINT name] PRIMARY KEY [(cols)] NOT ENFORCED;
// the column list is absent when inline.
func (p *parser) primaryKey(inline bool) *ast.PrimaryKey {
	pk := &ast.PrimaryKey{Loc: at(p.tok().pos), Inline: inline}
	if p.acceptKw("CONSTRAINT") {
		pk.Name = p.ident("a constraint name")
	}
	p.wantKw("PRIMARY")
	p.wantKw("KEY")
	if !inline {
		pk.Columns = p.parenIdents("a column name")
	}
	const hint = "Eddy does not own the data, so it cannot enforce keys: write PRIMARY KEY (...) NOT ENFORCED"
	t := p.tok()
	switch {
	case t.is("NOT"):
		p.next()
		p.wantKw("ENFORCED")
	case t.is("ENFORCED"):
		p.fail(t.pos, hint, "ENFORCED primary keys are not supported")
	default:
		p.fail(t.pos, hint, "unexpected "+t.describe()+", expected NOT ENFORCED")
	}
	return pk
}

// distribution parses DISTRIBUTED BY [HASH|RANGE] (cols) [INTO n BUCKETS]
// and DISTRIBUTED INTO n BUCKETS.
func (p *parser) distribution() *ast.Distribution {
	d := &ast.Distribution{Loc: at(p.next().pos)}
	if p.acceptKw("BY") {
		switch {
		case p.acceptKw("HASH"):
			d.Algorithm = "HASH"
		case p.acceptKw("RANGE"):
			d.Algorithm = "RANGE"
		}
		d.Columns = p.parenIdents("a column name")
		if !p.acceptKw("INTO") {
			return d
		}
	} else {
		p.wantKw("INTO")
	}
	t := p.tok()
	n, err := strconv.Atoi(t.text)
	if t.kind != tNumber || err != nil || n <= 0 || n > 1<<31-1 || !isAllDigits(t.text) {
		p.fail(t.pos, "write e.g. DISTRIBUTED INTO 4 BUCKETS",
			"unexpected "+t.describe()+", expected a positive bucket count")
	}
	p.next()
	d.Buckets, d.BucketsPos = n, t.pos
	p.wantKw("BUCKETS")
	return d
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// options parses ('key' = 'value', ...) after WITH.
func (p *parser) options() []*ast.Option {
	const hint = "option keys and values are quoted strings: WITH ('connector' = 'kafka')"
	p.want(tLParen)
	var opts []*ast.Option
	seen := map[string]bool{}
	for {
		o := &ast.Option{Key: p.stringLit("an option key", hint)}
		if seen[o.Key.Value] {
			p.failf(o.Key.Pos(), "set each option once", "duplicate option '%s'", o.Key.Value)
		}
		seen[o.Key.Value] = true
		p.want(tEq)
		o.Value = p.stringLit("an option value", hint)
		opts = append(opts, o)
		if !p.accept(tComma) {
			p.want(tRParen)
			return opts
		}
	}
}

// createFunction parses CREATE FUNCTION after the FUNCTION keyword.
func (p *parser) createFunction(create token, temp, sys bool) *ast.CreateFunction {
	f := &ast.CreateFunction{Loc: at(create.pos), Temporary: temp, System: sys, IfNotExists: p.ifNotExists()}
	f.Name = p.functionName()
	p.wantKw("AS")
	f.Identifier = p.stringLit("the function identifier as a string",
		"write the implementation identifier as a string: CREATE FUNCTION f AS 'examples.F'")
	if p.acceptKw("LANGUAGE") {
		t := p.tok()
		switch {
		case t.is("JAVA"), t.is("SCALA"), t.is("PYTHON"), t.is("SQL"):
			p.next()
			f.Language, f.LanguagePos = t.val, t.pos
		default:
			for _, l := range []string{"JAVA", "SCALA", "PYTHON", "SQL"} {
				p.expect(l)
			}
			p.unexpected()
		}
	}
	if p.acceptKw("USING") {
		for {
			j := p.wantKw("JAR")
			path := p.stringLit("a JAR path", "write the path as a string: USING JAR '/path/to/file.jar'")
			f.Resources = append(f.Resources, &ast.Resource{Loc: at(j.pos), Kind: "JAR", Path: path})
			if !p.accept(tComma) {
				break
			}
		}
	}
	return f
}
