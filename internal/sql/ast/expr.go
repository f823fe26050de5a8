package ast

import "github.com/eddy-sql/eddy/internal/sqlerr"

// ColumnRef is a column reference: a, t.a or a longer dotted path (the
// planner decides which parts name a table and which a nested field).
type ColumnRef struct {
	Parts []*Ident
}

// Pos returns the position of the first part.
func (c *ColumnRef) Pos() sqlerr.Pos { return c.Parts[0].Pos() }

// NumKind classifies a numeric literal.
type NumKind uint8

// The numeric literal kinds.
const (
	IntegerNum NumKind = iota // 42
	DecimalNum                // 1.0850 (exact)
	ApproxNum                 // 1e3, 1.5E-2 (approximate, DOUBLE)
)

// NumericLit is a numeric literal. A minus sign written directly before a
// number is folded into the literal (Text "-5").
type NumericLit struct {
	Loc
	// Text is the literal exactly as written (with the folded sign), so
	// that DECIMAL scale is preserved: "100.0", "1.0850".
	Text string
	Kind NumKind
}

// BoolLit is TRUE or FALSE.
type BoolLit struct {
	Loc
	Value bool
}

// NullLit is NULL.
type NullLit struct {
	Loc
}

// TypedLit is a date/time literal: DATE '...', TIME '...' or
// TIMESTAMP '...'. The parser does not check the string.
type TypedLit struct {
	Loc
	// Type is "DATE", "TIME" or "TIMESTAMP".
	Type  string
	Value string
}

// TimeUnit is an interval or EXTRACT unit in upper case, e.g. "SECOND".
type TimeUnit string

// Common time units. EXTRACT accepts more (QUARTER, WEEK, DOY, DOW,
// MILLISECOND, MICROSECOND, NANOSECOND, EPOCH, DECADE, CENTURY,
// MILLENNIUM, ISODOW, ISOYEAR).
const (
	Year   TimeUnit = "YEAR"
	Month  TimeUnit = "MONTH"
	Day    TimeUnit = "DAY"
	Hour   TimeUnit = "HOUR"
	Minute TimeUnit = "MINUTE"
	Second TimeUnit = "SECOND"
)

// IntervalLit is INTERVAL 'value' unit [TO unit], e.g.
// INTERVAL '5' SECOND or INTERVAL '2 03:04:05' DAY TO SECOND. Plural
// units (SECONDS) are accepted and stored singular.
type IntervalLit struct {
	Loc
	// Value is the quoted value, unchecked by the parser.
	Value string
	// Start is the leading unit.
	Start TimeUnit
	// End is the trailing unit of a range (DAY TO SECOND); "" if none.
	// The parser only accepts YEAR TO MONTH, DAY TO HOUR|MINUTE|SECOND,
	// HOUR TO MINUTE|SECOND and MINUTE TO SECOND.
	End TimeUnit
}

// UnaryOp is a prefix operator.
type UnaryOp uint8

// The prefix operators.
const (
	OpNot  UnaryOp = iota // NOT
	OpNeg                 // -
	OpPlus                // +
)

// String returns the operator's SQL text.
func (o UnaryOp) String() string {
	switch o {
	case OpNot:
		return "NOT"
	case OpNeg:
		return "-"
	case OpPlus:
		return "+"
	}
	return "?"
}

// Unary is op X.
type Unary struct {
	Loc // the operator
	Op  UnaryOp
	X   Expr
}

// BinaryOp is an infix operator.
type BinaryOp uint8

// The infix operators. != is parsed as OpNe.
const (
	OpOr            BinaryOp = iota // OR
	OpAnd                           // AND
	OpEq                            // =
	OpNe                            // <>
	OpLt                            // <
	OpLe                            // <=
	OpGt                            // >
	OpGe                            // >=
	OpConcat                        // ||
	OpAdd                           // +
	OpSub                           // -
	OpMul                           // *
	OpDiv                           // /
	OpMod                           // %
	OpIsDistinct                    // IS DISTINCT FROM
	OpIsNotDistinct                 // IS NOT DISTINCT FROM
)

var binaryOpText = [...]string{"OR", "AND", "=", "<>", "<", "<=", ">", ">=", "||", "+", "-", "*", "/", "%",
	"IS DISTINCT FROM", "IS NOT DISTINCT FROM"}

// String returns the operator's SQL text.
func (o BinaryOp) String() string {
	if int(o) < len(binaryOpText) {
		return binaryOpText[o]
	}
	return "?"
}

// IsComparison reports whether o is =, <>, <, <=, > or >=.
func (o BinaryOp) IsComparison() bool { return o >= OpEq && o <= OpGe }

// Binary is X op Y.
type Binary struct {
	Op    BinaryOp
	X, Y  Expr
	OpPos sqlerr.Pos
}

// Pos returns the position of the left operand.
func (b *Binary) Pos() sqlerr.Pos { return b.X.Pos() }

// IsKind is what an IS predicate tests.
type IsKind uint8

// The IS predicates.
const (
	IsNull       IsKind = iota // IS NULL
	IsTrue                     // IS TRUE
	IsFalse                    // IS FALSE
	IsUnknown                  // IS UNKNOWN
	IsJSON                     // IS JSON (VALUE)
	IsJSONScalar               // IS JSON SCALAR
	IsJSONArray                // IS JSON ARRAY
	IsJSONObject               // IS JSON OBJECT
)

// String returns the SQL text after IS [NOT].
func (k IsKind) String() string {
	switch k {
	case IsNull:
		return "NULL"
	case IsTrue:
		return "TRUE"
	case IsFalse:
		return "FALSE"
	case IsUnknown:
		return "UNKNOWN"
	case IsJSON:
		return "JSON"
	case IsJSONScalar:
		return "JSON SCALAR"
	case IsJSONArray:
		return "JSON ARRAY"
	case IsJSONObject:
		return "JSON OBJECT"
	}
	return "?"
}

// Is is X IS [NOT] NULL|TRUE|FALSE|UNKNOWN|JSON [VALUE|SCALAR|ARRAY|OBJECT].
type Is struct {
	X     Expr
	Not   bool
	What  IsKind
	IsPos sqlerr.Pos
}

// Pos returns the position of X.
func (e *Is) Pos() sqlerr.Pos { return e.X.Pos() }

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	X, Lo, Hi  Expr
	Not        bool
	BetweenPos sqlerr.Pos
}

// Pos returns the position of X.
func (e *Between) Pos() sqlerr.Pos { return e.X.Pos() }

// In is X [NOT] IN (list), or X [NOT] IN (query) when Query is set.
type In struct {
	X     Expr
	List  []Expr
	Query Query
	Not   bool
	InPos sqlerr.Pos
}

// GroupingKind is the kind of a grouping construct of GROUP BY.
type GroupingKind uint8

// The grouping constructs.
const (
	GroupingSets GroupingKind = iota // GROUPING SETS ((a, b), (a), ())
	Rollup                           // ROLLUP (a, b)
	Cube                             // CUBE (a, b)
)

// Grouping is GROUPING SETS (...), ROLLUP (...) or CUBE (...) in GROUP BY.
// For GROUPING SETS, Sets holds the sets; for ROLLUP and CUBE, Sets holds
// one list: the columns.
type Grouping struct {
	Loc
	Kind GroupingKind
	Sets [][]Expr
}

// Exists is EXISTS (query).
type Exists struct {
	Loc
	Query Query
}

// ScalarSubquery is (query) used as a value: one column, at most one row.
type ScalarSubquery struct {
	Loc
	Query Query
}

// Pos returns the position of X.
func (e *In) Pos() sqlerr.Pos { return e.X.Pos() }

// Like is X [NOT] LIKE Pattern [ESCAPE Escape].
type Like struct {
	X, Pattern Expr
	// Escape is nil when absent.
	Escape  Expr
	Not     bool
	LikePos sqlerr.Pos
	// Similar is set for X [NOT] SIMILAR TO Pattern (a SQL regular
	// expression).
	Similar bool
}

// Pos returns the position of X.
func (e *Like) Pos() sqlerr.Pos { return e.X.Pos() }

// Cast is CAST(X AS type) or TRY_CAST(X AS type).
type Cast struct {
	Loc
	X    Expr
	Type *TypeName
	// Try is set for TRY_CAST (NULL instead of an error on failure).
	Try bool
	// Resolved is set by the planner before binding: the session
	// environment of the conversion (its time zone); nil is none.
	Resolved any
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE ...] END.
type Case struct {
	Loc
	// Operand is the x of a simple CASE x WHEN v THEN ...; nil for a
	// searched CASE WHEN cond THEN ....
	Operand Expr
	Whens   []*When
	// Else is nil when absent.
	Else Expr
}

// When is one WHEN Cond THEN Result branch of a Case. For a simple CASE,
// Cond is the value compared with the operand.
type When struct {
	Loc
	Cond, Result Expr
}

// FuncCall is a scalar or aggregate function call: f(args),
// f(DISTINCT args), COUNT(*), or a niladic function such as
// CURRENT_TIMESTAMP.
type FuncCall struct {
	// Name has one to three parts; built-in names keep the case written.
	Name *ObjectName
	// Distinct is set for f(DISTINCT ...).
	Distinct bool
	// Star is set for f(*); Args is then empty.
	Star bool
	Args []Expr
	// Niladic is set for functions written without parentheses
	// (CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, LOCALTIME,
	// LOCALTIMESTAMP).
	Niladic bool
	// Overlaps is set for (s1, e1) OVERLAPS (s2, e2), the call
	// OVERLAPS(s1, e1, s2, e2).
	Overlaps bool
	// Filter is the condition of an aggregate call's FILTER (WHERE ...);
	// nil when there is none.
	Filter Expr
	// Nulls is "RESPECT" or "IGNORE" for ARRAY_AGG(x RESPECT NULLS) and
	// ARRAY_AGG(x IGNORE NULLS); "" when not written.
	Nulls string
	// OnNull is "NULL" or "ABSENT" for the ON NULL clause of
	// JSON_OBJECTAGG and JSON_ARRAYAGG; "" when not written.
	// JSON_OBJECTAGG([KEY] k VALUE v) has Args k and v.
	OnNull string
	// Over is the window of f(...) OVER (...) or OVER w; nil for a plain
	// call.
	Over *WindowSpec
	// Resolved is set by the planner when the name resolves to a
	// user-defined function (its binding); nil for built-ins. It is not
	// part of the syntax: Format ignores it.
	Resolved any
}

// Pos returns the position of the name.
func (f *FuncCall) Pos() sqlerr.Pos { return f.Name.Pos() }

// TimeUnitArg is a time unit written as a function argument:
// TIMESTAMPADD(DAY, 1, ts), TIMESTAMPDIFF(HOUR, a, b) and the unit of
// FLOOR(ts TO HOUR) / CEIL(ts TO HOUR), whose FuncCall holds it as the
// second argument.
type TimeUnitArg struct {
	Loc
	Unit TimeUnit
}

// JSONOn is an ON EMPTY or ON ERROR clause of JSON_VALUE, JSON_QUERY or
// JSON_EXISTS.
type JSONOn struct {
	// Kind is NULL, ERROR or DEFAULT (JSON_VALUE); NULL, ERROR, EMPTY
	// ARRAY or EMPTY OBJECT (JSON_QUERY); TRUE, FALSE, UNKNOWN or ERROR
	// (JSON_EXISTS).
	Kind    string
	Default Expr // for DEFAULT
}

// JSONCall is a JSON function with SQL/JSON clauses:
//
//	JSON_VALUE(x, path [RETURNING type] [{NULL | ERROR | DEFAULT e} ON EMPTY] [... ON ERROR])
//	JSON_QUERY(x, path [RETURNING type] [wrapper WRAPPER] [... ON EMPTY] [... ON ERROR])
//	JSON_EXISTS(x, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])
//	JSON_OBJECT([KEY] k VALUE v, ... [{NULL | ABSENT} ON NULL])
//	JSON_ARRAY(v, ... [{NULL | ABSENT} ON NULL])
type JSONCall struct {
	Loc
	Func string // JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_OBJECT or JSON_ARRAY
	// Args are x and path for JSON_VALUE, keys and values alternately for
	// JSON_OBJECT, the values for JSON_ARRAY.
	Args      []Expr
	Returning *TypeName
	// Wrapper is "", "WITHOUT ARRAY", "WITH CONDITIONAL ARRAY" or "WITH
	// UNCONDITIONAL ARRAY" (JSON_QUERY).
	Wrapper          string
	OnEmpty, OnError *JSONOn
	// OnNull is "", "NULL" or "ABSENT".
	OnNull string
}

// Extract is EXTRACT(unit FROM X).
type Extract struct {
	Loc
	Unit TimeUnit
	X    Expr
}

// RowExpr is ROW(a, b), or one parenthesised row of a VALUES list.
type RowExpr struct {
	Loc
	Values []Expr
}

// ArrayExpr is ARRAY[a, b].
type ArrayExpr struct {
	Loc
	Elems []Expr
}

// MapExpr is MAP[k1, v1, k2, v2]. Elems alternate keys and values; the
// parser guarantees an even, non-zero count.
type MapExpr struct {
	Loc
	Elems []Expr
}

// Subscript is X[Index] (array element or map value).
type Subscript struct {
	X, Index Expr
	// Lbrack is the position of '['.
	Lbrack sqlerr.Pos
}

// Pos returns the position of X.
func (s *Subscript) Pos() sqlerr.Pos { return s.X.Pos() }

func (*ColumnRef) exprNode()      {}
func (*Exists) exprNode()         {}
func (*Grouping) exprNode()       {}
func (*ScalarSubquery) exprNode() {}
func (*NumericLit) exprNode()     {}
func (*StringLit) exprNode()      {}
func (*BoolLit) exprNode()        {}
func (*NullLit) exprNode()        {}
func (*TypedLit) exprNode()       {}
func (*IntervalLit) exprNode()    {}
func (*Unary) exprNode()          {}
func (*Binary) exprNode()         {}
func (*Is) exprNode()             {}
func (*Between) exprNode()        {}
func (*In) exprNode()             {}
func (*Like) exprNode()           {}
func (*Cast) exprNode()           {}
func (*Case) exprNode()           {}
func (*FuncCall) exprNode()       {}
func (*Extract) exprNode()        {}
func (*TimeUnitArg) exprNode()    {}
func (*JSONCall) exprNode()       {}
func (*RowExpr) exprNode()        {}
func (*ArrayExpr) exprNode()      {}
func (*MapExpr) exprNode()        {}
func (*Subscript) exprNode()      {}
