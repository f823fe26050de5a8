package expr

import "github.com/eddy-sql/eddy/types"

// Three-valued logic on small integers: 0 FALSE, 1 TRUE, 2 UNKNOWN (NULL).

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func and3(a, b int) int {
	switch {
	case a == 0 || b == 0:
		return 0
	case a == 2 || b == 2:
		return 2
	}
	return 1
}

// not3 returns v, negated if neg, as a BOOLEAN value.
func not3(v int, neg bool) types.Value {
	switch {
	case v == 2:
		return types.Null
	case neg:
		return types.NewBool(v == 0)
	}
	return types.NewBool(v == 1)
}

func isBoolish(t types.Type) bool { return t.ID == types.TypeBoolean || t.ID == types.TypeNull }

// logicExpr is AND or OR with SQL three-valued logic:
//
//	FALSE AND x = FALSE, TRUE AND NULL = NULL,
//	TRUE OR x = TRUE, FALSE OR NULL = NULL.
//
// The right operand is not evaluated when the left one decides the result
// (FALSE for AND, TRUE for OR), so it cannot raise an error then.
type logicExpr struct {
	or   bool
	l, r Expr
	t    types.Type
}

func newLogic(or bool, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if !isBoolish(lt) || !isBoolish(rt) {
		op := "AND"
		if or {
			op = "OR"
		}
		return nil, typeErrorf("cannot apply '%s' to arguments of type %s and %s", op, typeString(lt), typeString(rt))
	}
	return &logicExpr{or: or, l: l, r: r, t: withNull(types.Boolean, lt.NotNull && rt.NotNull)}, nil
}

func (e *logicExpr) Type() types.Type { return e.t }

func (e *logicExpr) precedence() int {
	if e.or {
		return precOr
	}
	return precAnd
}

func (e *logicExpr) String() string {
	op := " AND "
	if e.or {
		op = " OR "
	}
	p := e.precedence()
	return paren(e.l, p) + op + paren(e.r, p+1)
}

func (e *logicExpr) Eval(row []types.Value) (types.Value, error) {
	x, err := e.l.Eval(row)
	if err != nil {
		return types.Null, err
	}
	// The deciding value: FALSE for AND, TRUE for OR.
	decide := e.or
	if !x.IsNull() && x.Bool() == decide {
		return x, nil
	}
	y, err := e.r.Eval(row)
	if err != nil {
		return types.Null, err
	}
	switch {
	case !y.IsNull() && y.Bool() == decide:
		return y, nil
	case x.IsNull() || y.IsNull():
		return types.Null, nil
	}
	return types.NewBool(!decide), nil
}

// notExpr is NOT e: NOT NULL is NULL.
type notExpr struct{ e Expr }

func newNot(e Expr) (Expr, error) {
	if !isBoolish(e.Type()) {
		return nil, typeErrorf("cannot apply 'NOT' to argument of type %s", typeString(e.Type()))
	}
	return &notExpr{e: e}, nil
}

func (n *notExpr) Type() types.Type { return withNull(types.Boolean, n.e.Type().NotNull) }
func (n *notExpr) precedence() int  { return precNot }
func (n *notExpr) String() string   { return "NOT " + paren(n.e, precNot) }

func (n *notExpr) Eval(row []types.Value) (types.Value, error) {
	v, err := n.e.Eval(row)
	if err != nil || v.IsNull() {
		return types.Null, err
	}
	return types.NewBool(!v.Bool()), nil
}

// isKind is the predicate of an IS test.
type isKind uint8

const (
	isNull isKind = iota
	isNotNull
	isTrue
	isNotTrue
	isFalse
	isNotFalse
)

var isNames = [...]string{"IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"}

// isExpr is e IS [NOT] {NULL | TRUE | FALSE | UNKNOWN}; never NULL.
type isExpr struct {
	kind isKind
	e    Expr
}

func newIs(kind isKind, e Expr) (Expr, error) {
	if kind >= isTrue && !isBoolish(e.Type()) {
		return nil, typeErrorf("cannot apply '%s' to argument of type %s", isNames[kind], typeString(e.Type()))
	}
	return &isExpr{kind: kind, e: e}, nil
}

func (e *isExpr) Type() types.Type { return types.Boolean.NonNull() }
func (e *isExpr) precedence() int  { return precCompare }
func (e *isExpr) String() string   { return paren(e.e, precCompare+1) + " " + isNames[e.kind] }

func (e *isExpr) Eval(row []types.Value) (types.Value, error) {
	v, err := e.e.Eval(row)
	if err != nil {
		return types.Null, err
	}
	var r bool
	switch e.kind {
	case isNull:
		r = v.IsNull()
	case isNotNull:
		r = !v.IsNull()
	case isTrue:
		r = !v.IsNull() && v.Bool()
	case isNotTrue:
		r = v.IsNull() || !v.Bool()
	case isFalse:
		r = !v.IsNull() && !v.Bool()
	case isNotFalse:
		r = v.IsNull() || v.Bool()
	}
	return types.NewBool(r), nil
}
