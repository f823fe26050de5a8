package parser

import (
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

func at(pos sqlerr.Pos) ast.Loc { return ast.Loc{Start: pos} }

// isIdent reports whether t can be an identifier: quoted, or an unquoted
// word that is not reserved.
func isIdent(t token) bool {
	return t.kind == tQuoted || t.kind == tWord && !ast.IsReserved(t.val)
}

// ident parses an identifier; desc names it in errors ("a column name").
func (p *parser) ident(desc string) *ast.Ident {
	t := p.tok()
	if !isIdent(t) {
		p.expect(desc)
		p.unexpected()
	}
	p.next()
	if t.kind == tQuoted {
		return &ast.Ident{Loc: at(t.pos), Name: t.val}
	}
	return &ast.Ident{Loc: at(t.pos), Name: t.text}
}

// identList parses ident {, ident}.
func (p *parser) identList(desc string) []*ast.Ident {
	list := []*ast.Ident{p.ident(desc)}
	for p.accept(tComma) {
		list = append(list, p.ident(desc))
	}
	return list
}

// parenIdents parses ( ident {, ident} ).
func (p *parser) parenIdents(desc string) []*ast.Ident {
	p.want(tLParen)
	list := p.identList(desc)
	p.want(tRParen)
	return list
}

// objectName parses a dotted name of at most max parts; what is the kind
// of object ("table") and form its fully qualified form
// ("catalog.database.table").
func (p *parser) objectName(what string, max int, form string) *ast.ObjectName {
	n := &ast.ObjectName{Parts: []*ast.Ident{p.ident("a " + what + " name")}}
	for p.tok().kind == tDot {
		p.next()
		id := p.ident("a " + what + " name")
		if len(n.Parts) == max {
			p.failf(id.Pos(), "write the name as "+form,
				"too many name parts: a %s name has at most %d", what, max)
		}
		n.Parts = append(n.Parts, id)
	}
	return n
}

func (p *parser) tableName() *ast.ObjectName {
	return p.objectName("table", 3, "table, database.table or catalog.database.table")
}

func (p *parser) functionName() *ast.ObjectName {
	return p.objectName("function", 3, "function, database.function or catalog.database.function")
}

func (p *parser) databaseName() *ast.ObjectName {
	return p.objectName("database", 2, "database or catalog.database")
}

// stringLit parses a string literal; desc and hint are used in errors.
func (p *parser) stringLit(desc, hint string) *ast.StringLit {
	t := p.tok()
	if t.kind != tString {
		p.expect(desc)
		p.unexpectedAs(desc, hint)
	}
	p.next()
	return &ast.StringLit{Loc: at(t.pos), Value: t.val}
}

// ifNotExists parses an optional IF NOT EXISTS.
func (p *parser) ifNotExists() bool {
	if p.isKw("IF") && p.peek(1).is("NOT") {
		p.next()
		p.next()
		p.wantKw("EXISTS")
		return true
	}
	p.expect("IF NOT EXISTS")
	return false
}

// ifExists parses an optional IF EXISTS.
func (p *parser) ifExists() bool {
	if p.isKw("IF") && p.peek(1).is("EXISTS") {
		p.next()
		p.next()
		return true
	}
	p.expect("IF EXISTS")
	return false
}

// isQueryStart reports whether the tokens from peek(i) on start a query:
// SELECT, VALUES or WITH, possibly after opening parentheses.
func (p *parser) isQueryStart(i int) bool {
	for ; i < maxDepth; i++ {
		t := p.peek(i)
		switch {
		case t.is("SELECT"), t.is("VALUES"), t.is("WITH"):
			return true
		case t.kind != tLParen:
			return false
		}
	}
	return false
}
