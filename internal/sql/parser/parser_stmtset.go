package parser

import "github.com/eddy-sql/eddy/internal/sql/ast"

// statementSet parses EXECUTE STATEMENT SET BEGIN insert; [insert; ...]
// END.
func (p *parser) statementSet() *ast.StatementSet {
	t := p.tok()
	p.acceptKw("EXECUTE") // EXPLAIN STATEMENT SET has none
	p.wantKw("STATEMENT")
	p.wantKw("SET")
	p.wantKw("BEGIN")
	s := &ast.StatementSet{Loc: at(t.pos)}
	const hint = "a statement set holds INSERT INTO statements, each ended by ';': EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT ...; INSERT INTO b SELECT ...; END"
	for {
		for p.accept(tSemi) {
		}
		k := p.tok()
		if k.is("END") {
			if len(s.Inserts) == 0 {
				p.fail(k.pos, hint, "a statement set needs at least one INSERT statement")
			}
			p.next()
			return s
		}
		if !k.is("INSERT") {
			p.expect("INSERT")
			p.expect("END")
			p.unexpectedAs("", hint)
		}
		s.Inserts = append(s.Inserts, p.insert())
		if !p.isKw("END") {
			p.want(tSemi)
		}
	}
}

// alterTable parses ALTER TABLE [IF EXISTS] name { SET (options) |
// RESET (keys) | ADD element | ADD (elements) | MODIFY element |
// MODIFY (elements) | DROP [COLUMN] col | DROP (cols) | DROP PRIMARY KEY |
// DROP WATERMARK | RENAME col TO col2 | RENAME TO name }.
func (p *parser) alterTable() *ast.AlterTable {
	t := p.next()
	p.wantKw("TABLE")
	a := &ast.AlterTable{Loc: at(t.pos), IfExists: p.ifExists(), Name: p.tableName()}
	k := p.tok()
	a.Action = at(k.pos)
	switch {
	case k.is("SET"):
		p.next()
		a.Set = p.options()
	case k.is("RESET"):
		p.next()
		p.want(tLParen)
		for {
			a.Reset = append(a.Reset, p.stringLit("an option key", "quote the keys: ALTER TABLE t RESET ('k1', 'k2')"))
			if !p.accept(tComma) {
				break
			}
		}
		p.want(tRParen)
	case k.is("ADD"):
		p.next()
		a.Add = &ast.CreateTable{Loc: at(k.pos), Name: a.Name}
		a.AddPositions = p.alterElements(a.Add)
	case k.is("MODIFY"):
		p.next()
		a.Modify = &ast.CreateTable{Loc: at(k.pos), Name: a.Name}
		a.ModifyPositions = p.alterElements(a.Modify)
	case k.is("DROP"):
		p.next()
		p.alterDrop(a)
	case k.is("RENAME") && p.peek(1).is("TO"):
		p.next()
		p.next()
		a.RenameTo = p.tableName()
	case k.is("RENAME"):
		p.next()
		a.RenameColumn = p.ident("a column name")
		p.wantKw("TO")
		a.RenameColumnTo = p.ident("the new column name")
	default:
		for _, w := range []string{"SET", "RESET", "ADD", "MODIFY", "DROP", "RENAME"} {
			p.expect(w)
		}
		p.unexpected()
	}
	return a
}

// alterElements parses the element or parenthesized elements of ALTER
// TABLE ... ADD or MODIFY into ct and returns their column positions.
func (p *parser) alterElements(ct *ast.CreateTable) []string {
	if !p.accept(tLParen) {
		return p.alterElement(ct, nil)
	}
	var positions []string
	for {
		positions = p.alterElement(ct, positions)
		if !p.accept(tComma) {
			break
		}
	}
	p.want(tRParen)
	return positions
}

// alterDrop parses what follows ALTER TABLE ... DROP: [COLUMN] col,
// (cols), PRIMARY KEY or WATERMARK.
func (p *parser) alterDrop(a *ast.AlterTable) {
	t := p.tok()
	switch {
	case t.is("PRIMARY"):
		p.next()
		p.wantKw("KEY")
		a.DropPrimaryKey = true
	case t.is("WATERMARK"):
		p.next()
		a.DropWatermark = true
	case t.is("CONSTRAINT"):
		p.unsupported(t.pos, "Eddy does not keep constraint names: drop the primary key with ALTER TABLE ... DROP PRIMARY KEY",
			"ALTER TABLE ... DROP CONSTRAINT is not supported")
	case t.is("DISTRIBUTION"):
		p.unsupported(t.pos, "a table's distribution is fixed when it is created: create a new table (CREATE TABLE t2 DISTRIBUTED BY ... LIKE t)",
			"ALTER TABLE ... DROP DISTRIBUTION is not supported")
	case t.kind == tLParen:
		a.Drop = p.parenIdents("a column name")
	default:
		if t.is("COLUMN") && isIdent(p.peek(1)) {
			p.next()
		}
		if !isIdent(p.tok()) {
			p.expect("'('")
			p.expect("a column name")
			p.expect("PRIMARY KEY")
			p.expect("WATERMARK")
			p.unexpected()
		}
		a.Drop = []*ast.Ident{p.ident("a column name")}
	}
}

// alterElement parses one element of ALTER TABLE ... ADD: a column with
// an optional FIRST or AFTER col, a primary key or a watermark. It returns
// positions with the added column's position appended.
func (p *parser) alterElement(ct *ast.CreateTable, positions []string) []string {
	t := p.tok()
	switch {
	case t.is("PRIMARY"), t.is("CONSTRAINT"):
		p.setPrimaryKey(ct, p.primaryKey(false))
	case t.is("WATERMARK") && p.peek(1).is("FOR"):
		p.watermarkClause(ct)
	case isIdent(t):
		ct.Columns = append(ct.Columns, p.columnDef(ct))
		pos := ""
		if p.acceptKw("FIRST") {
			pos = "FIRST"
		} else if p.acceptKw("AFTER") {
			pos = p.ident("a column name").Name
		}
		positions = append(positions, pos)
	default:
		p.expect("a column name")
		p.expect("PRIMARY KEY")
		p.expect("WATERMARK")
		p.unexpected()
	}
	return positions
}

// likeClause parses LIKE source [( option ... )] of CREATE TABLE.
func (p *parser) likeClause() *ast.LikeClause {
	t := p.next()
	l := &ast.LikeClause{Loc: at(t.pos), Source: p.tableName()}
	if !p.accept(tLParen) {
		return l
	}
	for {
		m := p.tok()
		if !m.is("INCLUDING") && !m.is("EXCLUDING") && !m.is("OVERWRITING") {
			p.expect("INCLUDING")
			p.expect("EXCLUDING")
			p.expect("OVERWRITING")
			p.unexpected()
		}
		p.next()
		f := p.tok()
		ok := false
		for _, w := range []string{"ALL", "CONSTRAINTS", "DISTRIBUTION", "PARTITIONS", "GENERATED", "METADATA", "OPTIONS", "WATERMARKS"} {
			if f.is(w) {
				ok = true
			}
			p.expect(w)
		}
		if !ok {
			p.unexpected()
		}
		p.next()
		if m.is("OVERWRITING") && (f.is("ALL") || f.is("CONSTRAINTS") || f.is("DISTRIBUTION") || f.is("PARTITIONS")) {
			p.failf(m.pos, "OVERWRITING applies to GENERATED, METADATA, OPTIONS and WATERMARKS; use INCLUDING or EXCLUDING for "+f.val,
				"Illegal merging strategy 'OVERWRITING' for '%s' option.", f.val)
		}
		l.Options = append(l.Options, &ast.LikeOption{Loc: at(m.pos), Mode: m.val, Feature: f.val})
		if p.tok().kind == tRParen {
			p.next()
			return l
		}
	}
}
