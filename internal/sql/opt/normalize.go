package opt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Placing ChangelogNormalize (Flink's, reference §1.4). An upsert
// changelog has no -U rows and its deletes may carry only the key; an
// operator that needs the retractions (a filter, a select list that drops
// the key, an aggregate, a join, a set operation, a function argument that
// requires UPDATE_BEFORE or full deletes, a retract sink) reads it through
// a normalize that keeps the last row per key:
//
//   - an upsert table is normalized right after its scan (normalize/<input>),
//     under the calcs between it and the operator, once;
//   - the upsert output of a function is normalized by its upsert key right
//     below the operator (normalize/op/N, N counting the normalizes placed
//     before it in binding order) for aggregates, joins and set operations;
//     a filter or a function argument over it fails (the function would
//     have to emit -U rows itself).
//
// Placement visits the plan bottom-up, all inputs of an operator before
// the operator places its own normalizes, which is the order in which the
// binder used to place them: the uids stay those of earlier versions.

// placer places the normalizes of a plan.
type placer struct {
	// version is the plan version.
	version int
	// count is the number of normalizes placed so far.
	count int
	// ttl is 'table.exec.state.ttl' for the normalizes placed.
	ttl int64
	// done maps a visited node to its rebuilt copy.
	done map[plan.Rel]plan.Rel
	// retracted maps a consumer's input (with its preparing calcs) to the
	// rebuilt input delivering retractions.
	retracted map[plan.Rel]plan.Rel
}

func newPlacer() *placer {
	return &placer{done: map[plan.Rel]plan.Rel{}, retracted: map[plan.Rel]plan.Rel{}}
}

// visit returns r with the normalizes its operators need.
func (x *placer) visit(r plan.Rel) (plan.Rel, error) {
	if d, ok := x.done[r]; ok {
		return d, nil
	}
	d, err := x.place(r)
	if err != nil {
		return nil, err
	}
	x.done[r] = d
	return d, nil
}

// upsertError is the error of an operator that needs retractions from the
// upsert output of a function that has no upsert key.
type upsertError func() error

func (x *placer) place(r plan.Rel) (plan.Rel, error) {
	switch n := r.(type) {
	case *plan.Scan, *plan.Values:
		return r, nil
	case *plan.Calc:
		in, err := x.visit(n.In)
		if err != nil {
			return nil, err
		}
		c := *n
		c.In = in
		if n.Prepares {
			return &c, nil // its consumer normalizes below it
		}
		cl := plan.ChangelogOf(in)
		if n.Filter != nil && cl.Mode == jobgraph.Upsert {
			if cl.Source < 0 {
				exact := cl.Exact()
				return nil, errAt(n.FilterPos, sqlerr.ChangelogMismatch,
					"There is a changelog mismatch: WHERE over the output of function '%s' needs a retract changelog (UPDATE_BEFORE rows, to retract rows that stop matching), but the function produces an upsert changelog (%s: %s) keyed by (%s)",
					ptfName(cl), exact.Name(), exact, keyNames(in, cl.Key)).
					WithHint("filter inside the function, or let it answer a required UPDATE_BEFORE (ChangelogContext.Required) with a retract changelog")
			}
			c.In = x.normalizeSource(in, false)
			cl = plan.ChangelogOf(c.In)
		}
		if n.Project != nil && cl.Mode == jobgraph.Upsert && plan.RemapKey(cl.Key, n.Project) == nil {
			if cl.Source < 0 {
				return nil, errAt(n.Pos, sqlerr.ChangelogMismatch, "The select list drops the upsert key of the table function's output").
					WithHint("keep the key column(s) %s in the select list", keyNames(in, cl.Key))
			}
			c.In = x.normalizeSource(c.In, false)
		}
		return &c, nil
	case *plan.Aggregate:
		return x.retracting(n, func() error {
			return errAt(n.Pos, sqlerr.Unsupported, "Aggregating the upsert output of a table function is not supported yet").
				WithHint("let the function emit a retract changelog (with UPDATE_BEFORE)")
		})
	case *plan.Join:
		fail := func() error {
			return errAt(n.Pos, sqlerr.Unsupported, "Joining the upsert output of a table function is not supported yet").
				WithHint("let the function emit a retract changelog (with UPDATE_BEFORE)")
		}
		if n.Subquery {
			fail = func() error {
				return errAt(n.Pos, sqlerr.Unsupported, "A subquery over the upsert output of a table function is not supported yet")
			}
		}
		return x.retracting(n, fail)
	case *plan.Union:
		return x.retracting(n, func() error {
			return errAt(n.Pos, sqlerr.Unsupported, "%s of the upsert output of a table function is not supported yet", n.Op)
		})
	case *plan.Correlate:
		return x.retracting(n, func() error {
			return errAt(n.Pos, sqlerr.Unsupported, "A table function or UNNEST over the upsert output of a table function is not supported yet").
				WithHint("let the function emit a retract changelog (with UPDATE_BEFORE)")
		})
	case *plan.PTFCall:
		return x.placePTF(n)
	case *plan.WindowAggregate:
		return x.retracting(n, func() error {
			return errAt(n.Pos, sqlerr.Unsupported, "Aggregating the upsert output of a table function is not supported yet").
				WithHint("let the function emit a retract changelog (with UPDATE_BEFORE)")
		})
	case *plan.WindowJoin:
		return x.retracting(n, func() error {
			return errAt(n.Pos, sqlerr.Unsupported, "Joining the upsert output of a table function is not supported yet")
		})
	case *plan.WindowTVF:
		return x.visitInputs(n)
	case *plan.Limit:
		in, err := x.visit(n.In)
		if err != nil {
			return nil, err
		}
		if cl := plan.ChangelogOf(in); cl.Mode != jobgraph.Append && cl.Source < 0 {
			// Reading a table keeps the earlier behaviour (the first n
			// changes of its changelog); an updating result of an
			// operator would be cut in the middle of its updates.
			return nil, errAt(n.Pos, sqlerr.Unsupported, "LIMIT on an updating result (an aggregate, an outer join) is not supported yet: it would cut the changelog, not the result")
		}
		return n.WithInputs([]plan.Rel{in}), nil
	case *plan.Normalize:
		return x.visitInputs(n)
	}
	if d, ok, err := x.placeTime(r); ok {
		return d, err
	}
	return nil, fmt.Errorf("internal: cannot place normalizes in %T", r)
}

// retracting rebuilds n with every input delivering retractions
// (retractInputs).
func (x *placer) retracting(n plan.Rel, fail upsertError) (plan.Rel, error) {
	ins, err := x.retractInputs(n.Inputs(), fail)
	if err != nil {
		return nil, err
	}
	return n.WithInputs(ins), nil
}

// visitInputs rebuilds the one-input node n over its visited input.
func (x *placer) visitInputs(n plan.Rel) (plan.Rel, error) {
	in, err := x.visit(n.Inputs()[0])
	if err != nil {
		return nil, err
	}
	return n.WithInputs([]plan.Rel{in}), nil
}

// retractInputs makes each input deliver retractions to its consumer: it
// visits every input (below the calcs that prepare it for the consumer)
// before normalizing any, in port order.
func (x *placer) retractInputs(ins []plan.Rel, fail upsertError) ([]plan.Rel, error) {
	out := make([]plan.Rel, len(ins))
	for _, in := range ins {
		if _, ok := x.retracted[in]; ok {
			continue
		}
		if _, err := x.visit(boundary(in)); err != nil {
			return nil, err
		}
	}
	for i, in := range ins {
		if r, ok := x.retracted[in]; ok {
			out[i] = r
			continue
		}
		r, err := x.retract(in, fail)
		if err != nil {
			return nil, err
		}
		x.retracted[in] = r
		out[i] = r
	}
	return out, nil
}

// boundary returns the node below the preparing calcs of an input.
func boundary(r plan.Rel) plan.Rel {
	for {
		c, ok := r.(*plan.Calc)
		if !ok || !c.Prepares {
			return r
		}
		r = c.In
	}
}

// retract normalizes an input below its preparing calcs, if it is an
// upsert changelog.
func (x *placer) retract(r plan.Rel, fail upsertError) (plan.Rel, error) {
	if c, ok := r.(*plan.Calc); ok && c.Prepares {
		in, err := x.retract(c.In, fail)
		if err != nil {
			return nil, err
		}
		return c.WithInputs([]plan.Rel{in}), nil
	}
	in, err := x.visit(r)
	if err != nil {
		return nil, err
	}
	cl := plan.ChangelogOf(in)
	switch {
	case cl.Mode != jobgraph.Upsert:
		return in, nil
	case cl.Source >= 0:
		return x.normalizeSource(in, false), nil
	case len(cl.Key) == 0:
		return nil, fail()
	}
	x.count++
	return &plan.Normalize{In: in, Key: slices.Clone(cl.Key), StateTTL: x.ttl, UID: fmt.Sprintf("normalize/op/%d", x.count-1)}, nil
}

// placePTF delivers to each table argument of a call the changelog it
// asked for: an upsert table is normalized when the argument needs -U rows
// or full deletes (without -U rows when it needs only full deletes).
func (x *placer) placePTF(n *plan.PTFCall) (plan.Rel, error) {
	ins := make([]plan.Rel, len(n.Ins))
	for i, in := range n.Ins {
		v, err := x.visit(in)
		if err != nil {
			return nil, err
		}
		ins[i] = v
	}
	for _, t := range n.Spec.Tables {
		cl := plan.ChangelogOf(ins[t.Input])
		needsBefore := t.Delivered.Contains(types.UpdateBefore)
		needsFull := !t.Delivered.KeyOnlyDeletes() && t.Delivered.Contains(types.Delete)
		if !t.Delivered.IsInsertOnly() && cl.Mode == jobgraph.Upsert && cl.Source < 0 && needsBefore {
			return nil, errAt(n.Pos, sqlerr.ChangelogMismatch, "Can't generate a valid execution plan for the given query because of a changelog mismatch: function '%s' needs a retract changelog (with UPDATE_BEFORE), but its input is the upsert output of another function", n.Spec.Name).
				WithHint("declare the argument without REQUIRE_UPDATE_BEFORE, or let the first function emit a retract changelog")
		}
		if cl.Mode == jobgraph.Upsert && cl.Source >= 0 && (needsBefore || needsFull) {
			ins[t.Input] = x.normalizeSource(ins[t.Input], !needsBefore)
		}
	}
	return n.WithInputs(ins), nil
}

// normalizeSource puts a normalize keyed by the table's primary key right
// after the scan r reads through calcs, unless one is there.
func (x *placer) normalizeSource(r plan.Rel, dropUpdateBefore bool) plan.Rel {
	switch n := r.(type) {
	case *plan.Scan:
		x.count++
		return &plan.Normalize{In: n, Key: n.Key, DropUpdateBefore: dropUpdateBefore, StateTTL: x.ttl, UID: fmt.Sprintf("normalize/%d", n.Input)}
	case *plan.Normalize:
		return r
	case *plan.Calc, *plan.Limit:
		in := r.Inputs()[0]
		return r.WithInputs([]plan.Rel{x.normalizeSource(in, dropUpdateBefore)})
	}
	return r
}

func ptfName(cl plan.Changelog) string {
	if cl.PTF != nil {
		return cl.PTF.Name
	}
	return "?"
}

// keyNames names the key columns of r, for messages.
func keyNames(r plan.Rel, key []int) string {
	cols := r.Columns()
	var names []string
	for _, k := range key {
		names = append(names, cols[k].Name)
	}
	if len(names) == 0 {
		return "key"
	}
	return strings.Join(names, ", ")
}

func errAt(pos sqlerr.Pos, code sqlerr.Code, format string, a ...any) *sqlerr.Error {
	return sqlerr.Newf(code, format, a...).At(pos)
}
