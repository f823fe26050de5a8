package expr

import (
	"strings"

	"github.com/eddy-sql/eddy/types"
)

type caseExpr struct {
	operand Expr      // nil for a searched CASE
	cmps    []cmpFunc // operand comparators, simple CASE only
	whens   []Expr
	thens   []Expr
	els     Expr // nil: ELSE NULL
	t       types.Type
}

// Case returns a CASE expression. With a nil operand it is a searched CASE
// (CASE WHEN cond THEN ... END, conditions must be BOOLEAN); otherwise a
// simple CASE (CASE operand WHEN value THEN ... END, values must be
// comparable with the operand; a NULL operand matches nothing). els may
// be nil for ELSE NULL. The result type is the CommonType of the THEN and
// ELSE branches; branches are converted to it. Branches are evaluated
// lazily, so an untaken branch cannot fail.
func Case(operand Expr, whens, thens []Expr, els Expr) (Expr, error) {
	if len(whens) == 0 || len(whens) != len(thens) {
		return nil, errNilArg("CASE")
	}
	c := &caseExpr{operand: operand, whens: whens}
	for _, w := range whens {
		if w == nil {
			return nil, errNilArg("CASE")
		}
		if operand == nil {
			if !isBoolish(w.Type()) {
				return nil, typeErrorf("CASE WHEN condition must be BOOLEAN, not %s", typeString(w.Type()))
			}
			continue
		}
		cmp, ok := comparator(operand.Type(), w.Type())
		if !ok {
			return nil, typeErrorf("cannot compare %s with %s", typeString(operand.Type()), typeString(w.Type()))
		}
		c.cmps = append(c.cmps, cmp)
	}
	ts := make([]types.Type, 0, len(thens)+1)
	for _, t := range thens {
		if t == nil {
			return nil, errNilArg("CASE")
		}
		ts = append(ts, t.Type())
	}
	if els != nil {
		ts = append(ts, els.Type())
	} else {
		ts = append(ts, types.NullType)
	}
	t, ok := CommonType(ts...)
	if !ok {
		return nil, incompatible("CASE", ts)
	}
	c.t = t
	c.thens = make([]Expr, len(thens))
	for i, e := range thens {
		c.thens[i] = coerce(e, t)
	}
	if els != nil {
		c.els = coerce(els, t)
	}
	return c, nil
}

func (c *caseExpr) Type() types.Type { return c.t }

func (c *caseExpr) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if c.operand != nil {
		b.WriteString(" " + c.operand.String())
	}
	for i, w := range c.whens {
		b.WriteString(" WHEN " + w.String() + " THEN " + c.thens[i].String())
	}
	if c.els != nil {
		b.WriteString(" ELSE " + c.els.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (c *caseExpr) Eval(row []types.Value) (types.Value, error) {
	if c.operand == nil {
		for i, w := range c.whens {
			v, err := w.Eval(row)
			if err != nil {
				return types.Null, err
			}
			if !v.IsNull() && v.Bool() {
				return c.thens[i].Eval(row)
			}
		}
	} else {
		op, err := c.operand.Eval(row)
		if err != nil {
			return types.Null, err
		}
		for i, w := range c.whens {
			if op.IsNull() {
				break
			}
			v, err := w.Eval(row)
			if err != nil {
				return types.Null, err
			}
			if !v.IsNull() && c.cmps[i](op, v) == 0 {
				return c.thens[i].Eval(row)
			}
		}
	}
	if c.els == nil {
		return types.Null, nil
	}
	return c.els.Eval(row)
}
