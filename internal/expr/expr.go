package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Expr is a typed scalar expression.
//
// Expressions are immutable after construction and safe for concurrent use
// by multiple goroutines. All constructors type-check their arguments, so
// Eval only fails for data-dependent reasons (division by zero, a failing
// CAST, a row that is too short).
type Expr interface {
	// Type returns the result type, including its nullability. A NOT NULL
	// type guarantees that Eval never returns NULL without an error.
	Type() types.Type
	// Eval evaluates the expression over one row of positional values. The
	// row is not retained. Errors are *sqlerr.Error with code
	// sqlerr.Runtime.
	Eval(row []types.Value) (types.Value, error)
	// String renders the expression as SQL-like text for EXPLAIN, with
	// implicit conversions shown as CAST.
	String() string
}

// Operator precedence levels used by String to decide on parentheses.
// Larger binds tighter; leaf expressions and function calls are precAtom.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCompare // = <> < <= > >= IS BETWEEN IN LIKE
	precAdd     // + - ||
	precMul     // * / %
	precUnary   // unary minus
	precAtom
)

// precedencer is implemented by expressions that are not atoms.
type precedencer interface{ precedence() int }

func precOf(e Expr) int {
	if p, ok := e.(precedencer); ok {
		return p.precedence()
	}
	return precAtom
}

// paren renders e, wrapped in parentheses when it binds looser than min.
func paren(e Expr, min int) string {
	if precOf(e) < min {
		return "(" + e.String() + ")"
	}
	return e.String()
}

// operand renders the right operand of an infix or prefix operator. A
// leading '-' is parenthesized so that "a - -1" never renders as the SQL
// comment "a --1".
func operand(e Expr, min int) string {
	s := paren(e, min)
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

// joinExprs renders a comma-separated list.
func joinExprs(es []Expr) string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.String())
	}
	return b.String()
}

// typeErrorf returns a type-checking error (code TypeMismatch).
func typeErrorf(format string, args ...any) error {
	return sqlerr.Newf(sqlerr.TypeMismatch, format, args...)
}

// runtimeErrorf returns an evaluation error (code Runtime).
func runtimeErrorf(format string, args ...any) error {
	return sqlerr.Newf(sqlerr.Runtime, format, args...)
}

// errDivisionByZero reports integer, DECIMAL or interval division by
// zero. Errors are allocated per occurrence because callers may modify a
// *sqlerr.Error (At, WithHint).
func errDivisionByZero() error { return sqlerr.Newf(sqlerr.Runtime, "division by zero") }

// ---------------------------------------------------------------------------
// Column references.

type colExpr struct {
	idx  int
	name string
	t    types.Type
}

// Col returns a reference to the column at index of the input row, of type
// t. name is only used by String; an empty name renders as $index.
func Col(index int, name string, t types.Type) (Expr, error) {
	if index < 0 {
		return nil, sqlerr.Newf(sqlerr.Internal, "column index %d is negative", index)
	}
	if t.ID == types.TypeDescriptor {
		return nil, typeErrorf("column %s: DESCRIPTOR is not a column type", name)
	}
	return &colExpr{idx: index, name: name, t: t}, nil
}

func (c *colExpr) Type() types.Type { return c.t }

func (c *colExpr) Eval(row []types.Value) (types.Value, error) {
	if c.idx >= len(row) {
		return types.Null, sqlerr.Newf(sqlerr.Internal,
			"column %s: index %d out of range for a row of %d values", c, c.idx, len(row))
	}
	return row[c.idx], nil
}

func (c *colExpr) String() string {
	if c.name == "" {
		return "$" + strconv.Itoa(c.idx)
	}
	return c.name
}

// ---------------------------------------------------------------------------
// Literals.

type litExpr struct {
	v types.Value
	t types.Type
}

// Lit returns a constant of type t. The value must match the type: its kind
// must be the one the type uses (types.KindInt for all integer types, etc.),
// integers must be in range, and NULL needs a nullable type. DECIMAL values
// are rounded (HALF_UP) to the type's scale. Use types.Null with
// types.NullType for an untyped NULL literal.
func Lit(v types.Value, t types.Type) (Expr, error) {
	v, err := checkValue(v, t)
	if err != nil {
		return nil, err
	}
	return &litExpr{v: v, t: t}, nil
}

func (l *litExpr) Type() types.Type                        { return l.t }
func (l *litExpr) Eval([]types.Value) (types.Value, error) { return l.v, nil }
func (l *litExpr) String() string                          { return sqlLiteral(l.v, l.t) }

// checkValue validates v against t and normalizes DECIMAL scale.
func checkValue(v types.Value, t types.Type) (types.Value, error) {
	if v.IsNull() {
		if t.NotNull {
			return v, typeErrorf("NULL literal of NOT NULL type %s", typeString(t))
		}
		return v, nil
	}
	want, ok := kindOf(t.ID)
	if !ok || v.Kind() != want {
		return v, typeErrorf("literal of kind %d does not match type %s", v.Kind(), typeString(t))
	}
	switch {
	case t.IsInteger():
		if wrapInt(v.Int(), t.ID) != v.Int() {
			return v, typeErrorf("literal %d is out of range for %s", v.Int(), typeString(t))
		}
	case t.ID == types.TypeDecimal:
		d, err := roundDecimal(v.Decimal(), t)
		if err != nil {
			return v, typeErrorf("literal %s is out of range for %s", v.Decimal().Text('f'), typeString(t))
		}
		return types.NewDecimal(d), nil
	case t.ID == types.TypeArray:
		for _, e := range v.Array() {
			if _, err := checkValue(e, *t.Elem); err != nil {
				return v, err
			}
		}
	case t.ID == types.TypeRow:
		fs := v.Fields()
		if len(fs) != len(t.Fields) {
			return v, typeErrorf("ROW literal has %d fields, type %s has %d", len(fs), typeString(t), len(t.Fields))
		}
		for i, f := range fs {
			if _, err := checkValue(f, t.Fields[i].Type); err != nil {
				return v, err
			}
		}
	}
	return v, nil
}

// kindOf returns the physical value kind used for values of a type family.
func kindOf(id types.TypeID) (types.Kind, bool) {
	switch id {
	case types.TypeBoolean:
		return types.KindBool, true
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		return types.KindInt, true
	case types.TypeFloat, types.TypeDouble:
		return types.KindFloat, true
	case types.TypeDecimal:
		return types.KindDecimal, true
	case types.TypeChar, types.TypeVarChar:
		return types.KindString, true
	case types.TypeBinary, types.TypeVarBinary:
		return types.KindBytes, true
	case types.TypeDate:
		return types.KindDate, true
	case types.TypeTime:
		return types.KindTime, true
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		return types.KindTimestamp, true
	case types.TypeIntervalYearMonth:
		return types.KindIntervalMonths, true
	case types.TypeIntervalDayTime:
		return types.KindIntervalNanos, true
	case types.TypeArray:
		return types.KindArray, true
	case types.TypeMap, types.TypeMultiset:
		return types.KindMap, true
	case types.TypeRow:
		return types.KindRow, true
	}
	return 0, false
}

// wrapInt truncates v to the width of an integer type, the way Java
// narrows a long: TINYINT, SMALLINT and INT arithmetic overflows wrap
// around exactly as in Flink.
func wrapInt(v int64, id types.TypeID) int64 {
	switch id {
	case types.TypeTinyInt:
		return int64(int8(v))
	case types.TypeSmallInt:
		return int64(int16(v))
	case types.TypeInt:
		return int64(int32(v))
	}
	return v
}

// nullable returns t with NotNull set to notNull.
func withNull(t types.Type, notNull bool) types.Type {
	t.NotNull = notNull
	return t
}

// String of an operator for messages: upper case, quoted.
func quoteOp(op string) string { return fmt.Sprintf("'%s'", op) }

// ColumnOf returns the input column a column reference reads, and whether
// e is a column reference.
func ColumnOf(e Expr) (int, bool) {
	if c, ok := e.(*colExpr); ok {
		return c.idx, true
	}
	return 0, false
}
