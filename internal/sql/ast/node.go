package ast

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Node is implemented by every syntax tree node.
type Node interface {
	// Pos returns the position of the node's first character.
	Pos() sqlerr.Pos
}

// Statement is a complete SQL statement.
type Statement interface {
	Node
	stmtNode()
}

// Query is a statement that produces rows: *Select, *Values or *SetOp.
type Query interface {
	Statement
	queryNode()
}

// TableExpr is a source in a FROM clause: *TableName, *Subquery, *TableFunc
// or *Join.
type TableExpr interface {
	Node
	tableExprNode()
}

// Expr is a scalar expression. *TableArg, *Descriptor and *Default are
// Exprs only so that they can be the Value of an Arg; the parser never puts
// them anywhere else.
type Expr interface {
	Node
	exprNode()
}

// Loc records where a node starts. It is embedded in most nodes and
// provides their Pos method.
type Loc struct {
	// Start is the position of the node's first character.
	Start sqlerr.Pos
}

// Pos returns the start position.
func (l Loc) Pos() sqlerr.Pos { return l.Start }

// Ident is an identifier: a column, table, alias, argument or option name.
type Ident struct {
	Loc
	// Name is the identifier without backticks, in the case written.
	Name string
}

// ObjectName is a possibly qualified name of a table, function, database
// or catalog: `t`, `db.t` or `cat.db.t`. Parts is never empty.
type ObjectName struct {
	Parts []*Ident
}

// Pos returns the position of the first part.
func (n *ObjectName) Pos() sqlerr.Pos { return n.Parts[0].Pos() }

// Last returns the last (unqualified) part of the name.
func (n *ObjectName) Last() *Ident { return n.Parts[len(n.Parts)-1] }

// Names returns the parts as strings.
func (n *ObjectName) Names() []string {
	out := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		out[i] = p.Name
	}
	return out
}

// String returns the name as SQL, each part quoted when needed.
func (n *ObjectName) String() string {
	parts := make([]string, len(n.Parts))
	for i, p := range n.Parts {
		parts[i] = QuoteIdent(p.Name)
	}
	return strings.Join(parts, ".")
}

// StringLit is a character string literal such as 'abc'. A quote inside
// the literal is written twice.
type StringLit struct {
	Loc
	// Value is the literal's content, doubled quotes unescaped.
	Value string
}

// TypeName is a SQL data type as written in a column definition or a
// CAST, for example DECIMAL(10, 4) or ROW<status STRING> NOT NULL.
type TypeName struct {
	Loc
	// Text is the canonical text of the type: keywords in upper case,
	// single spaces, ROW(...) written as ROW<...>, field names quoted when
	// needed, and a trailing NOT NULL when the type is not nullable (an
	// explicit NULL is dropped).
	Text string
	// Type is Text parsed by types.ParseType.
	Type types.Type
}

// Option is one 'key' = 'value' pair of a WITH clause.
type Option struct {
	Key   *StringLit
	Value *StringLit
}

// Pos returns the position of the key.
func (o *Option) Pos() sqlerr.Pos { return o.Key.Pos() }
