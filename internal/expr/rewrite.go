package expr

import (
	"slices"
)

// Rewriting expressions for the optimizer (package opt): which columns an
// expression reads, replacing column references (to push a filter through
// a projection, or merge two projections), splitting and joining
// conjunctions, and telling deterministic expressions from the others.
//
// A rewritten expression is a shallow copy of the original with new
// operands: the operator, its conversions and its precomputed state are
// kept, so a replacement must have the exact type (nullability included)
// of the column it replaces. Expressions the rewriter does not know (a
// kind added later, a function whose rendering captured its arguments)
// are opaque: Substitute reports false when it would have to look inside
// one, and the optimizer leaves that part of the plan alone.

// Columns returns the input columns e reads, sorted, each once, and
// false when e holds an opaque expression (whose columns are unknown).
func Columns(e Expr) ([]int, bool) {
	var out []int
	known := true
	var visit func(Expr)
	visit = func(x Expr) {
		if x == nil {
			return
		}
		if c, ok := x.(*colExpr); ok {
			out = append(out, c.idx)
			return
		}
		kids, ok := operands(x)
		if !ok {
			known = false
			return
		}
		for _, k := range kids {
			visit(k)
		}
	}
	visit(e)
	slices.Sort(out)
	return slices.Compact(out), known
}

// Substitute returns e with every column reference i replaced by sub(i)
// (nil keeps the reference). It reports false when a replacement's type
// differs from the column's (a NOT NULL replacement may stand for a
// nullable column, not the other way round), or when e holds an opaque
// expression.
func Substitute(e Expr, sub func(i int) Expr) (Expr, bool) {
	if c, ok := e.(*colExpr); ok {
		r := sub(c.idx)
		if r == nil {
			return e, true
		}
		if t := r.Type(); !t.Same(c.t) || (c.t.NotNull && !t.NotNull) {
			return nil, false
		}
		return r, true
	}
	kids, ok := operands(e)
	if !ok {
		return nil, false
	}
	changed := false
	next := make([]Expr, len(kids))
	for i, k := range kids {
		if k == nil {
			continue
		}
		n, ok := Substitute(k, sub)
		if !ok {
			return nil, false
		}
		next[i] = n
		changed = changed || n != k
	}
	if !changed {
		return e, true
	}
	return withOperands(e, next), true
}

// IsOpaque reports whether the rewriter cannot look inside e or one of
// its operands.
func IsOpaque(e Expr) bool {
	_, known := Columns(e)
	return !known
}

// Conjuncts splits e at its top-level ANDs; nil for a nil e.
func Conjuncts(e Expr) []Expr {
	if e == nil {
		return nil
	}
	if l, ok := e.(*logicExpr); ok && !l.or {
		return append(Conjuncts(l.l), Conjuncts(l.r)...)
	}
	return []Expr{e}
}

// And joins conditions with AND, left to right; nil for none.
func And(es ...Expr) (Expr, error) {
	var out Expr
	for _, e := range es {
		if e == nil {
			continue
		}
		if out == nil {
			out = e
			continue
		}
		x, err := Binary("AND", out, e)
		if err != nil {
			return nil, err
		}
		out = x
	}
	return out, nil
}

// IsDeterministic reports whether e gives the same value every time it is
// evaluated on the same row: false when it calls RAND, UUID, NOW,
// CURRENT_TIMESTAMP, ... or holds an expression the rewriter does not
// know.
func IsDeterministic(e Expr) bool {
	det := true
	var visit func(Expr)
	visit = func(x Expr) {
		if x == nil || !det {
			return
		}
		kids, ok := operands(x)
		if !ok {
			_, isLit := x.(*litExpr)
			det = isLit
			return
		}
		if name := funcName(x); name != "" {
			if d, found := registry[name]; found && !d.info.Deterministic {
				det = false
				return
			}
		}
		for _, k := range kids {
			visit(k)
		}
	}
	visit(e)
	return det
}

// funcName returns the registry name of a function call.
func funcName(e Expr) string {
	switch x := e.(type) {
	case *fnExpr:
		return x.name
	case *varFnExpr:
		return x.name
	case *strictExpr:
		return x.name
	}
	return ""
}

// operands returns the operands of e (nil entries for absent optional
// ones) and whether the rewriter knows e. Column references and literals
// have none.
func operands(e Expr) ([]Expr, bool) {
	switch x := e.(type) {
	case *colExpr, *litExpr:
		return nil, true
	case *arithExpr:
		return []Expr{x.l, x.r}, true
	case *negExpr:
		return []Expr{x.e}, true
	case *caseExpr:
		kids := []Expr{x.operand, x.els}
		kids = append(kids, x.whens...)
		return append(kids, x.thens...), true
	case *castExpr:
		return []Expr{x.e}, true
	case *compExpr:
		return []Expr{x.l, x.r}, true
	case *distinctExpr:
		return []Expr{x.l, x.r}, true
	case *betweenExpr:
		return []Expr{x.e, x.lo, x.hi}, true
	case *inExpr:
		return append([]Expr{x.e}, x.list...), true
	case *ctorExpr:
		return x.args, true
	case *sinkColumnExpr:
		return []Expr{x.e}, true
	case *notNullFilter:
		return x.cols, true
	case *strictExpr:
		return x.args, true
	case *coalesceExpr:
		return x.args, true
	case *nullIfExpr:
		return []Expr{x.a, x.b}, true
	case *jsonValueExpr:
		return []Expr{x.j, x.path, x.onEmpty, x.onError}, true
	case *logicExpr:
		return []Expr{x.l, x.r}, true
	case *notExpr:
		return []Expr{x.e}, true
	case *isExpr:
		return []Expr{x.e}, true
	case *fnExpr:
		if x.render != nil {
			return nil, false // its rendering holds the original operands
		}
		return x.args, true
	case *varFnExpr:
		return x.args, true
	case *concatExpr:
		return x.args, true
	case *likeExpr:
		return []Expr{x.s, x.pat}, true
	case *similarExpr:
		return []Expr{x.s, x.pat}, true
	case *eltExpr:
		return x.args, true
	case *singleValueExpr:
		return []Expr{x.count, x.value}, true
	}
	return nil, false
}

// withOperands returns a copy of e with new operands, in the order
// operands returns them.
func withOperands(e Expr, k []Expr) Expr {
	switch x := e.(type) {
	case *arithExpr:
		c := *x
		c.l, c.r = k[0], k[1]
		return &c
	case *negExpr:
		c := *x
		c.e = k[0]
		return &c
	case *caseExpr:
		c := *x
		n := len(x.whens)
		c.operand, c.els = k[0], k[1]
		c.whens, c.thens = slices.Clone(k[2:2+n]), slices.Clone(k[2+n:])
		return &c
	case *castExpr:
		c := *x
		c.e = k[0]
		return &c
	case *compExpr:
		c := *x
		c.l, c.r = k[0], k[1]
		c.rlit, _ = c.r.(*litExpr)
		return &c
	case *distinctExpr:
		c := *x
		c.l, c.r = k[0], k[1]
		return &c
	case *betweenExpr:
		c := *x
		c.e, c.lo, c.hi = k[0], k[1], k[2]
		return &c
	case *inExpr:
		c := *x
		c.e, c.list = k[0], slices.Clone(k[1:])
		return &c
	case *ctorExpr:
		c := *x
		c.args = k
		return &c
	case *sinkColumnExpr:
		c := *x
		c.e = k[0]
		return &c
	case *notNullFilter:
		c := *x
		c.cols = k
		return &c
	case *strictExpr:
		c := *x
		c.args = k
		return &c
	case *coalesceExpr:
		c := *x
		c.args = k
		return &c
	case *nullIfExpr:
		c := *x
		c.a, c.b = k[0], k[1]
		return &c
	case *jsonValueExpr:
		c := *x
		c.j, c.path, c.onEmpty, c.onError = k[0], k[1], k[2], k[3]
		return &c
	case *logicExpr:
		c := *x
		c.l, c.r = k[0], k[1]
		return &c
	case *notExpr:
		c := *x
		c.e = k[0]
		return &c
	case *isExpr:
		c := *x
		c.e = k[0]
		return &c
	case *fnExpr:
		c := *x
		c.args = k
		return &c
	case *varFnExpr:
		c := *x
		c.args = k
		return &c
	case *concatExpr:
		c := *x
		c.args = k
		return &c
	case *likeExpr:
		c := *x
		c.s, c.pat = k[0], k[1]
		return &c
	case *similarExpr:
		c := *x
		c.s, c.pat = k[0], k[1]
		return &c
	case *eltExpr:
		c := *x
		c.args = k
		return &c
	case *singleValueExpr:
		c := *x
		c.count, c.value = k[0], k[1]
		return &c
	}
	panic("expr: withOperands of an expression operands does not know")
}

// IsLiteral reports whether e is a constant literal.
func IsLiteral(e Expr) bool {
	_, ok := e.(*litExpr)
	return ok
}

// Size returns the number of operators and operands in e; an opaque
// expression counts as large.
func Size(e Expr) int {
	if e == nil {
		return 0
	}
	kids, ok := operands(e)
	if !ok {
		return 1 << 20
	}
	n := 1
	for _, k := range kids {
		n += Size(k)
	}
	return n
}

// Canonical renders e with its column references by position ($0, $1,
// ...), so that two spellings of one expression over the same row (k + 1
// and t.k + 1) render alike. It reports false for an opaque expression.
func Canonical(e Expr) (string, bool) {
	x, ok := unnamed(e)
	if !ok {
		return "", false
	}
	return x.String(), true
}

// unnamed returns e with its column references rendered by position.
func unnamed(e Expr) (Expr, bool) {
	if c, ok := e.(*colExpr); ok {
		return &colExpr{idx: c.idx, t: c.t}, true
	}
	kids, ok := operands(e)
	if !ok {
		return nil, false
	}
	if len(kids) == 0 {
		return e, true
	}
	next := make([]Expr, len(kids))
	for i, k := range kids {
		if k == nil {
			continue
		}
		if next[i], ok = unnamed(k); !ok {
			return nil, false
		}
	}
	return withOperands(e, next), true
}
