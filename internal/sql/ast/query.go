package ast

import "github.com/eddy-sql/eddy/internal/sqlerr"

// Select is SELECT [DISTINCT] items [FROM from] [WHERE cond]
// [GROUP BY exprs] [HAVING cond] [ORDER BY items] [LIMIT n].
type Select struct {
	Loc
	// Hints are the query hints after SELECT (/*+ ... */); nil if none.
	Hints    []*Hint
	Distinct bool
	// Items are the select-list entries; a * or t.* is an item whose Expr
	// is a *Star.
	Items []*SelectItem
	// From is nil for SELECT without FROM.
	From    TableExpr
	Where   Expr
	GroupBy []Expr
	Having  Expr
	OrderBy []*OrderItem
	// Limit is the LIMIT expression (a literal in practice); nil if none.
	Limit Expr
	// Offset is the OFFSET expression (LIMIT n OFFSET m, OFFSET m ROWS
	// FETCH NEXT n ROWS ONLY); nil if none.
	Offset Expr
	// Windows are the definitions of the WINDOW clause.
	Windows []*NamedWindow
	// Qualify is the condition of QUALIFY (a filter on the results of
	// OVER calls); nil if none.
	Qualify Expr
}

// SelectItem is one entry of a select list: expr [AS alias], * or t.*.
type SelectItem struct {
	Expr Expr
	// Alias is nil when no alias was given.
	Alias *Ident
}

// Pos returns the position of the expression.
func (s *SelectItem) Pos() sqlerr.Pos { return s.Expr.Pos() }

// Star is * or qualifier.* in a select list. It never appears elsewhere
// (COUNT(*) is FuncCall.Star).
type Star struct {
	Loc
	// Qualifier is the table (alias) before .*; nil for a bare *.
	Qualifier *ObjectName
}

// Values is VALUES (a, b), (c, d). Every row is a *RowExpr.
type Values struct {
	Loc
	Rows []*RowExpr
}

// SetOpKind is a set operation.
type SetOpKind uint8

// The set operations.
const (
	Union     SetOpKind = iota // UNION
	Intersect                  // INTERSECT
	Except                     // EXCEPT (MINUS)
)

// String returns the keyword of the operation.
func (k SetOpKind) String() string { return [...]string{"UNION", "INTERSECT", "EXCEPT"}[k] }

// With is WITH name [(columns)] AS (query), ... followed by the query
// that may read the named queries (common table expressions).
type With struct {
	Loc
	CTEs []*CTE
	Body Query
}

// CTE is one named query of a WITH clause.
type CTE struct {
	Name *Ident
	// Columns rename the query's columns; empty keeps them.
	Columns []*Ident
	Query   Query
}

// Pos returns the position of the name.
func (c *CTE) Pos() sqlerr.Pos { return c.Name.Pos() }

// SetOp is left UNION [ALL] right [ORDER BY ...] [LIMIT n].
type SetOp struct {
	Kind SetOpKind
	// All is set for UNION ALL (no duplicate elimination).
	All         bool
	Left, Right Query
	// OpPos is the position of the UNION keyword.
	OpPos   sqlerr.Pos
	OrderBy []*OrderItem
	Limit   Expr
}

// Pos returns the position of the left operand.
func (s *SetOp) Pos() sqlerr.Pos { return s.Left.Pos() }

// NullOrder is the NULLS FIRST/LAST part of an ORDER BY item.
type NullOrder uint8

// The null orderings.
const (
	NullsDefault NullOrder = iota // not given
	NullsFirst                    // NULLS FIRST
	NullsLast                     // NULLS LAST
)

// OrderItem is expr [ASC|DESC] [NULLS FIRST|LAST].
type OrderItem struct {
	Expr Expr
	// Desc is set for DESC; ASC and no direction leave it false.
	Desc  bool
	Nulls NullOrder
}

// Pos returns the position of the expression.
func (o *OrderItem) Pos() sqlerr.Pos { return o.Expr.Pos() }

// Alias is [AS] name [(col, ...)] after a FROM source.
type Alias struct {
	Name *Ident
	// Columns renames the source's columns; nil when absent.
	Columns []*Ident
}

// Pos returns the position of the alias name.
func (a *Alias) Pos() sqlerr.Pos { return a.Name.Pos() }

// TableName is a table reference in FROM: name [[AS] alias].
type TableName struct {
	Name *ObjectName
	// AsOf is the time of FOR SYSTEM_TIME AS OF (a temporal join); nil
	// when absent.
	AsOf  Expr
	Alias *Alias
}

// Pos returns the position of the name.
func (t *TableName) Pos() sqlerr.Pos { return t.Name.Pos() }

// Subquery is (query) [[AS] alias] in FROM.
type Subquery struct {
	Loc   // the opening parenthesis
	Query Query
	Alias *Alias
}

// TableFunc is a table function call in FROM, written f(args),
// TABLE(f(args)) or LATERAL TABLE(f(args)), optionally aliased. Process
// table functions (PTFs) and window TVFs are called this way.
type TableFunc struct {
	Loc // the name, or TABLE / LATERAL when present
	// Lateral is set for LATERAL TABLE(...).
	Lateral bool
	// Wrapped is set when the call was written TABLE(f(...)).
	Wrapped bool
	// Name has one to three parts.
	Name *ObjectName
	Args []*Arg
	// Alias is nil when absent.
	Alias *Alias
}

// Unnest is UNNEST(x) [WITH ORDINALITY] [[AS] alias[(columns)]] in FROM:
// one row per element of an ARRAY (the fields of an array of ROWs), per
// entry of a MAP, per occurrence in a MULTISET.
type Unnest struct {
	Loc  // the UNNEST keyword
	Args []Expr
	// Ordinality is set for WITH ORDINALITY (a 1-based position column).
	Ordinality bool
	// Alias is nil when absent.
	Alias *Alias
}

// JoinType is the kind of a Join.
type JoinType uint8

// The join types.
const (
	CommaJoin JoinType = iota // FROM a, b
	InnerJoin                 // [INNER] JOIN
	LeftJoin                  // LEFT [OUTER] JOIN
	RightJoin                 // RIGHT [OUTER] JOIN
	FullJoin                  // FULL [OUTER] JOIN
	CrossJoin                 // CROSS JOIN
)

// String returns the SQL keywords of the join ("," for CommaJoin).
func (j JoinType) String() string {
	switch j {
	case CommaJoin:
		return ","
	case InnerJoin:
		return "JOIN"
	case LeftJoin:
		return "LEFT JOIN"
	case RightJoin:
		return "RIGHT JOIN"
	case FullJoin:
		return "FULL JOIN"
	case CrossJoin:
		return "CROSS JOIN"
	}
	return "?"
}

// Join is left JOIN right ON cond (or a comma or CROSS join, without ON).
// Joins are left-deep: Right is never a *Join.
type Join struct {
	Type        JoinType
	Left, Right TableExpr
	// On is nil for comma and cross joins.
	On Expr
	// JoinPos is the position of the join keyword (or comma).
	JoinPos sqlerr.Pos
}

// Pos returns the position of the left source.
func (j *Join) Pos() sqlerr.Pos { return j.Left.Pos() }

// Arg is one argument of a table function call: value or name => value.
type Arg struct {
	Loc // the name when named, else the value
	// Name is nil for a positional argument.
	Name *Ident
	// Value is a *TableArg, a *Descriptor, a *Default or a scalar
	// expression.
	Value Expr
}

// TableArg is a table argument: TABLE name or (query), optionally
// followed by PARTITION BY and ORDER BY.
type TableArg struct {
	Loc // the TABLE keyword, or the parenthesis of a query
	// Name is the table for TABLE name; nil for a query.
	Name *ObjectName
	// Query is the query of (query); nil for TABLE name.
	Query Query
	// PartitionBy are the partition columns (set semantics); nil for row
	// semantics.
	PartitionBy []*Ident
	// OrderBy are the ORDER BY items; nil if none.
	OrderBy []*OrderItem
}

// Descriptor is DESCRIPTOR(col, ...), a list of column names passed to a
// table function (e.g. on_time => DESCRIPTOR(ts)). Columns may be empty.
type Descriptor struct {
	Loc
	Columns []*Ident
}

// Default is the DEFAULT argument value.
type Default struct {
	Loc
}

func (*Select) stmtNode() {}
func (*Values) stmtNode() {}
func (*SetOp) stmtNode()  {}
func (*With) stmtNode()   {}

func (*Select) queryNode() {}
func (*Values) queryNode() {}
func (*SetOp) queryNode()  {}
func (*With) queryNode()   {}

func (*TableName) tableExprNode() {}
func (*Subquery) tableExprNode()  {}
func (*TableFunc) tableExprNode() {}
func (*Unnest) tableExprNode()    {}
func (*Join) tableExprNode()      {}

func (*Star) exprNode()       {}
func (*TableArg) exprNode()   {}
func (*Descriptor) exprNode() {}
func (*Default) exprNode()    {}
