package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// aggCall is one aggregate call, compiled.
type aggCall struct {
	fn       aggFunc
	args     []int
	distinct bool
	filter   int
	star     bool // COUNT(*): counts rows, NULL or not
}

// aggCalls are the compiled calls of an aggregating operator (GROUP BY,
// OVER): it adds rows to, and retracts them from, one accState per call,
// honouring FILTER and DISTINCT, and reads the calls' values.
type aggCalls struct {
	calls []aggCall
	// Scratch buffers reused across rows.
	args    []types.Value
	distKey []byte
}

// newAggCalls compiles specs over input rows of schema in.
func newAggCalls(specs []jobgraph.AggCall, in *types.Schema) (aggCalls, error) {
	var a aggCalls
	for i := range specs {
		c := &specs[i]
		fn, err := newAggFunc(c, in)
		if err != nil {
			return a, err
		}
		if c.Filter >= in.Len() {
			return a, fmt.Errorf("aggregate %s: filter column %d out of range", c.Func, c.Filter)
		}
		filter := c.Filter
		if filter < 0 {
			filter = -1
		}
		a.calls = append(a.calls, aggCall{fn: fn, args: c.Args, distinct: c.Distinct, filter: filter,
			star: c.Func == jobgraph.AggCountStar})
	}
	return a, nil
}

// step adds (or retracts) the row vals to every call's accumulator in
// accs (one per call).
func (a *aggCalls) step(accs []accState, vals []types.Value, retract bool) error {
	for i := range a.calls {
		c := &a.calls[i]
		if c.filter >= 0 {
			if f := vals[c.filter]; f.Kind() != types.KindBool || !f.Bool() {
				continue
			}
		}
		args := a.args[:0]
		null := false
		for _, x := range c.args {
			v := vals[x]
			null = null || v.IsNull()
			args = append(args, v)
		}
		a.args = args
		if null && !c.star {
			continue
		}
		s := &accs[i]
		if c.distinct && !a.distinctStep(s, args, retract) {
			continue
		}
		var err error
		if retract {
			err = c.fn.retract(s, args)
		} else {
			err = c.fn.add(s, args)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// distinctStep counts args in the call's distinct set and reports whether
// the inner function sees the row: when the count goes 0->1 (add) or
// 1->0 (retract). Retracting a value not in the set is ignored.
func (a *aggCalls) distinctStep(s *accState, args []types.Value, retract bool) bool {
	a.distKey = a.distKey[:0]
	for _, v := range args {
		a.distKey = types.AppendValue(a.distKey, v)
	}
	x := s.x()
	n := x.distinct[string(a.distKey)]
	switch {
	case !retract && n == 0:
		if x.distinct == nil {
			x.distinct = map[string]int64{}
		}
		x.distinct[string(a.distKey)] = 1
		return true
	case !retract:
		x.distinct[string(a.distKey)] = n + 1
		return false
	case n == 0:
		return false
	case n == 1:
		delete(x.distinct, string(a.distKey))
		return true
	}
	x.distinct[string(a.distKey)] = n - 1
	return false
}

// appendValues appends the value of every call over accs to dst.
func (a *aggCalls) appendValues(dst []types.Value, accs []accState) []types.Value {
	for i := range a.calls {
		dst = append(dst, a.calls[i].fn.value(&accs[i]))
	}
	return dst
}

// merge merges the accumulators src into dst, call by call, as if dst had
// accumulated src's rows after its own (session windows merging). A
// DISTINCT call adds to its inner function only the values dst had not
// seen.
func (a *aggCalls) merge(dst, src []accState) error {
	for i := range a.calls {
		c := &a.calls[i]
		d, s := &dst[i], &src[i]
		if !c.distinct {
			if err := c.fn.merge(d, s); err != nil {
				return err
			}
			continue
		}
		if s.ext == nil {
			continue
		}
		for k, n := range s.ext.distinct {
			x := d.x()
			if m, ok := x.distinct[k]; ok {
				x.distinct[k] = m + n
				continue
			}
			args, err := decodeDistinctKey([]byte(k), a.args[:0])
			if err != nil {
				return err
			}
			a.args = args
			if x.distinct == nil {
				x.distinct = map[string]int64{}
			}
			x.distinct[k] = n
			if err := c.fn.add(d, args); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeDistinctKey decodes the argument values distinctStep encoded.
func decodeDistinctKey(b []byte, dst []types.Value) ([]types.Value, error) {
	for len(b) > 0 {
		v, n, err := types.DecodeValue(b)
		if err != nil {
			return nil, fmt.Errorf("decoding aggregate state: %w", err)
		}
		dst = append(dst, v)
		b = b[n:]
	}
	return dst, nil
}
