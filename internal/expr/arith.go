package expr

import (
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// arithKind selects the evaluation strategy of an arithmetic node.
type arithKind uint8

const (
	arInt         arithKind = iota // integers, wrapping to the result width
	arFloat                        // FLOAT/DOUBLE (FLOAT results rounded to float32)
	arDecimal                      // DECIMAL via apd, rounded HALF_UP to the result scale
	arTsNanos                      // TIMESTAMP ± INTERVAL DAY TO SECOND
	arTsMonths                     // TIMESTAMP ± INTERVAL YEAR TO MONTH
	arDateNanos                    // DATE ± INTERVAL DAY TO SECOND (whole days)
	arDateMonths                   // DATE ± INTERVAL YEAR TO MONTH
	arTimeNanos                    // TIME ± INTERVAL DAY TO SECOND, modulo one day
	arIntervalAdd                  // INTERVAL ± INTERVAL of the same kind
	arIntervalMul                  // INTERVAL * integer
	arIntervalDiv                  // INTERVAL / integer
)

type arithExpr struct {
	op     byte // + - * / %
	kind   arithKind
	swap   bool // operands were given as (interval, datetime) or (integer, interval)
	l, r   Expr
	lt, rt types.Type // operand types, for DECIMAL conversion
	t      types.Type
}

// newArith type-checks l op r for op in + - * / %.
func newArith(op byte, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	bad := func() (Expr, error) {
		return nil, typeErrorf("cannot apply '%c' to arguments of type %s and %s",
			op, typeString(lt), typeString(rt))
	}
	// An untyped NULL takes the type of the other operand.
	dl, dr := lt, rt
	switch {
	case lt.ID == types.TypeNull && rt.ID == types.TypeNull:
		return bad()
	case lt.ID == types.TypeNull:
		dl = rt
	case rt.ID == types.TypeNull:
		dr = lt
	}
	a := &arithExpr{op: op, l: l, r: r, lt: dl, rt: dr}
	notNull := lt.NotNull && rt.NotNull
	switch {
	case dl.IsNumeric() && dr.IsNumeric():
		if op == '%' && (!isExact(dl) || !isExact(dr)) {
			return bad()
		}
		ct := commonNumeric(dl, dr)
		switch {
		case ct.ID == types.TypeDecimal:
			a.kind, a.t = arDecimal, decimalArithType(op, dl, dr)
		case isApprox(ct):
			a.kind, a.t = arFloat, ct
		default:
			a.kind, a.t = arInt, ct
		}
	default:
		if !a.temporal(dl, dr) {
			return bad()
		}
	}
	a.t.NotNull = notNull
	return a, nil
}

// temporal types datetime/interval arithmetic; it reports false if the
// operand types do not support op.
func (a *arithExpr) temporal(lt, rt types.Type) bool {
	if a.op == '+' && isInterval(lt) && !isInterval(rt) {
		// INTERVAL + datetime is datetime + INTERVAL.
		lt, rt, a.swap = rt, lt, true
	}
	switch {
	case (a.op == '+' || a.op == '-') && isInterval(rt):
		months := rt.ID == types.TypeIntervalYearMonth
		switch {
		case lt.IsTimestamp():
			a.kind, a.t = pick(months, arTsMonths, arTsNanos), types.Type{ID: lt.ID, Precision: lt.Precision}
		case lt.ID == types.TypeDate:
			a.kind, a.t = pick(months, arDateMonths, arDateNanos), types.Date
		case lt.ID == types.TypeTime && !months:
			a.kind, a.t = arTimeNanos, types.Type{ID: lt.ID, Precision: lt.Precision}
		case lt.ID == rt.ID:
			a.kind, a.t = arIntervalAdd, types.Type{ID: lt.ID, Precision: max(lt.Precision, rt.Precision)}
		default:
			return false
		}
		return true
	case a.op == '*' && isInterval(lt) && rt.IsInteger():
		a.kind, a.t = arIntervalMul, types.Type{ID: lt.ID, Precision: lt.Precision}
		return true
	case a.op == '*' && lt.IsInteger() && isInterval(rt):
		a.kind, a.t, a.swap = arIntervalMul, types.Type{ID: rt.ID, Precision: rt.Precision}, true
		return true
	case a.op == '/' && isInterval(lt) && rt.IsInteger():
		a.kind, a.t = arIntervalDiv, types.Type{ID: lt.ID, Precision: lt.Precision}
		return true
	}
	return false
}

func pick(c bool, a, b arithKind) arithKind {
	if c {
		return a
	}
	return b
}

func (a *arithExpr) Type() types.Type { return a.t }
func (a *arithExpr) precedence() int {
	if a.op == '+' || a.op == '-' {
		return precAdd
	}
	return precMul
}

func (a *arithExpr) String() string {
	p := a.precedence()
	r := paren(a.r, p+1)
	if a.op == '-' {
		r = operand(a.r, p+1)
	}
	return paren(a.l, p) + " " + string(a.op) + " " + r
}

func (a *arithExpr) Eval(row []types.Value) (types.Value, error) {
	x, err := a.l.Eval(row)
	if err != nil || x.IsNull() {
		return types.Null, err
	}
	y, err := a.r.Eval(row)
	if err != nil || y.IsNull() {
		return types.Null, err
	}
	switch a.kind {
	case arInt:
		return a.evalInt(x.Int(), y.Int())
	case arFloat:
		return a.evalFloat(x.Float(), y.Float()), nil
	case arDecimal:
		var bx, by apd.Decimal
		dx, err := toDecimal(x, a.lt, &bx)
		if err != nil {
			return types.Null, err
		}
		dy, err := toDecimal(y, a.rt, &by)
		if err != nil {
			return types.Null, err
		}
		return decimalArith(a.op, dx, dy, a.t)
	}
	if a.swap {
		x, y = y, x
	}
	return a.evalTemporal(x.Int(), y.Int())
}

func (a *arithExpr) evalInt(x, y int64) (types.Value, error) {
	var r int64
	switch a.op {
	case '+':
		r = x + y
	case '-':
		r = x - y
	case '*':
		r = x * y
	case '/':
		if y == 0 {
			return types.Null, errDivisionByZero()
		}
		r = x / y // Go, like Java, gives MinInt64 / -1 == MinInt64.
	case '%':
		if y == 0 {
			return types.Null, errDivisionByZero()
		}
		r = x % y
	}
	return types.NewInt(wrapInt(r, a.t.ID)), nil
}

func (a *arithExpr) evalFloat(x, y float64) types.Value {
	var r float64
	switch a.op {
	case '+':
		r = x + y
	case '-':
		r = x - y
	case '*':
		r = x * y
	case '/':
		r = x / y // IEEE 754: ±Infinity or NaN on division by zero, as in Java.
	}
	if a.t.ID == types.TypeFloat {
		r = float64(float32(r))
	}
	return types.NewFloat(r)
}

// evalTemporal computes datetime/interval arithmetic on the internal
// numbers (nanoseconds, days, months).
func (a *arithExpr) evalTemporal(x, y int64) (types.Value, error) {
	if a.op == '-' {
		y = -y
	}
	switch a.kind {
	case arTsNanos:
		r, ok := addInt64(x, y)
		if !ok {
			return types.Null, errTimestampRange()
		}
		return types.NewTimestamp(r), nil
	case arTsMonths:
		r, ok := addMonthsNanos(x, y)
		if !ok {
			return types.Null, errTimestampRange()
		}
		return types.NewTimestamp(r), nil
	case arDateNanos:
		return types.NewDate(x + y/nanosPerDay), nil
	case arDateMonths:
		return types.NewDate(addMonthsDays(x, y)), nil
	case arTimeNanos:
		return types.NewTime(floorMod(x+y%nanosPerDay, nanosPerDay)), nil
	case arIntervalAdd:
		return intervalValue(a.t, x+y), nil
	case arIntervalMul:
		return intervalValue(a.t, x*y), nil
	case arIntervalDiv:
		if y == 0 {
			return types.Null, errDivisionByZero()
		}
		return intervalValue(a.t, x/y), nil
	}
	return types.Null, runtimeErrorf("unsupported arithmetic")
}

func intervalValue(t types.Type, n int64) types.Value {
	if t.ID == types.TypeIntervalYearMonth {
		return types.NewIntervalMonths(n)
	}
	return types.NewInterval(time.Duration(n))
}

// addInt64 adds with overflow detection.
func addInt64(x, y int64) (int64, bool) {
	r := x + y
	// Overflow iff both operands have the same sign and the result does not.
	return r, (x >= 0) != (y >= 0) || (r >= 0) == (x >= 0)
}

func floorMod(x, m int64) int64 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}

func floorDiv(x, m int64) int64 {
	q := x / m
	if x%m != 0 && (x < 0) != (m < 0) {
		q--
	}
	return q
}

// ---------------------------------------------------------------------------
// Unary minus.

type negExpr struct {
	e Expr
	t types.Type
}

func newNeg(e Expr) (Expr, error) {
	t := e.Type()
	if !t.IsNumeric() && !isInterval(t) && t.ID != types.TypeNull {
		return nil, typeErrorf("cannot apply '-' to argument of type %s", typeString(t))
	}
	return &negExpr{e: e, t: t}, nil
}

func (n *negExpr) Type() types.Type { return n.t }
func (n *negExpr) precedence() int  { return precUnary }
func (n *negExpr) String() string   { return "-" + operand(n.e, precUnary) }

func (n *negExpr) Eval(row []types.Value) (types.Value, error) {
	v, err := n.e.Eval(row)
	if err != nil || v.IsNull() {
		return types.Null, err
	}
	switch v.Kind() {
	case types.KindInt:
		return types.NewInt(wrapInt(-v.Int(), n.t.ID)), nil
	case types.KindFloat:
		return types.NewFloat(-v.Float()), nil
	case types.KindDecimal:
		d := new(apd.Decimal).Neg(v.Decimal())
		if d.IsZero() {
			d.Negative = false
		}
		return types.NewDecimal(d), nil
	case types.KindIntervalMonths:
		return types.NewIntervalMonths(-v.Int()), nil
	case types.KindIntervalNanos:
		return types.NewInterval(-v.Duration()), nil
	}
	return types.Null, runtimeErrorf("cannot negate a value of kind %d", v.Kind())
}

// absValue implements ABS for the numeric type t (integers wrap like Java's
// Math.abs).
func absValue(v types.Value, t types.Type) types.Value {
	switch v.Kind() {
	case types.KindInt:
		if v.Int() < 0 {
			return types.NewInt(wrapInt(-v.Int(), t.ID))
		}
	case types.KindFloat:
		return types.NewFloat(math.Abs(v.Float()))
	case types.KindDecimal:
		if v.Decimal().Negative {
			return types.NewDecimal(new(apd.Decimal).Abs(v.Decimal()))
		}
	}
	return v
}
