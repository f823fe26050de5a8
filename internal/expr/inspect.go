package expr

import "github.com/eddy-sql/eddy/types"

// Inspecting expressions for the planner's pattern rules (Top-N bounds on
// a rank column, the time bounds of an interval join): the operator and
// operands of a comparison, a BETWEEN and an arithmetic operation, and the
// value of a constant expression.

// Comparison returns the operator ("=", "<>", "<", "<=", ">", ">=") and
// the operands of a comparison; ok is false for another expression.
func Comparison(e Expr) (op string, l, r Expr, ok bool) {
	c, isCmp := e.(*compExpr)
	if !isCmp {
		return "", nil, nil, false
	}
	return cmpOpNames[c.op], c.l, c.r, true
}

// BetweenOf returns the operands of x [NOT] BETWEEN lo AND hi; ok is false
// for another expression.
func BetweenOf(e Expr) (x, lo, hi Expr, not, ok bool) {
	b, isBetween := e.(*betweenExpr)
	if !isBetween {
		return nil, nil, nil, false, false
	}
	return b.e, b.lo, b.hi, b.not, true
}

// Arith returns the operator ('+', '-', '*', '/', '%') and the operands of
// an arithmetic operation, in the order they were written; ok is false for
// another expression.
func Arith(e Expr) (op byte, l, r Expr, ok bool) {
	a, isArith := e.(*arithExpr)
	if !isArith {
		return 0, nil, nil, false
	}
	if a.swap {
		return a.op, a.r, a.l, true
	}
	return a.op, a.l, a.r, true
}

// ConstValue evaluates an expression that reads no column and is
// deterministic (a literal, INTERVAL '1' HOUR, 2 + 3); ok is false
// otherwise, or when the evaluation fails.
func ConstValue(e Expr) (types.Value, bool) {
	cols, known := Columns(e)
	if !known || len(cols) > 0 || !IsDeterministic(e) {
		return types.Value{}, false
	}
	v, err := e.Eval(nil)
	if err != nil {
		return types.Value{}, false
	}
	return v, true
}
