package expr

import (
	"github.com/eddy-sql/eddy/types"
)

// (s1, e1) OVERLAPS (s2, e2), Calcite's convertOverlaps: an end that is an
// interval is start + interval, each period's ends are ordered, and the
// periods overlap when each ends at or after the other starts.

func init() {
	register("temporal", []funcDef{
		fdef("OVERLAPS", 4, 4, "(timepoint1, temporal1) OVERLAPS (timepoint2, temporal2) -> BOOLEAN",
			"Whether the two periods overlap (ends included); temporal may be an end point or an interval from the start.", newOverlaps),
	})
}

type overlapsExpr struct {
	Expr        // the expansion
	args []Expr // s1, e1, s2, e2 as written
}

func (o *overlapsExpr) String() string {
	return "(" + o.args[0].String() + ", " + o.args[1].String() + ") OVERLAPS (" + o.args[2].String() + ", " + o.args[3].String() + ")"
}

func newOverlaps(c *call) (Expr, error) {
	if err := c.want(aTemporal, aAny, aTemporal, aAny); err != nil {
		return nil, err
	}
	period := func(s, e Expr) (lo, hi Expr, err error) {
		if isInterval(e.Type()) {
			if e, err = Binary("+", s, e); err != nil {
				return nil, nil, err
			}
		} else if !aTemporal.accepts(e.Type()) {
			return nil, nil, argTypeError(c.name, c.args)
		}
		if lo, err = CallEnv(c.env, "LEAST", s, e); err != nil {
			return nil, nil, err
		}
		hi, err = CallEnv(c.env, "GREATEST", s, e)
		return lo, hi, err
	}
	lo1, hi1, err := period(c.args[0], c.args[1])
	if err != nil {
		return nil, err
	}
	lo2, hi2, err := period(c.args[2], c.args[3])
	if err != nil {
		return nil, err
	}
	a, err := Binary(">=", hi1, lo2)
	if err != nil {
		return nil, err
	}
	b, err := Binary(">=", hi2, lo1)
	if err != nil {
		return nil, err
	}
	x, err := Binary("AND", a, b)
	if err != nil {
		return nil, err
	}
	if x.Type().ID != types.TypeBoolean {
		return nil, argTypeError(c.name, c.args)
	}
	return &overlapsExpr{Expr: x, args: c.args}, nil
}
