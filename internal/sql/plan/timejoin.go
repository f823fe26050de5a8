package plan

import (
	"math"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Joins in time (decision 0026, reference §3.2, §3.3): a join whose
// condition bounds the difference of two time attributes of the same kind
// on both sides is an interval join; a join with FOR SYSTEM_TIME AS OF on
// its right table is an event-time temporal join.

// strictStep is what a strict bound (<, >) moves an inclusive one by:
// Flink's 1 ms.
const strictStep = int64(1e6)

// intervalJoin returns jn as an interval join when its residual bounds
// l.t - r.t from both sides, l.t and r.t time attributes of the same kind
// of the left and right input; nil otherwise. nl is the number of left
// columns.
func intervalJoin(jn *Join, nl int) *IntervalJoin {
	switch jn.Kind {
	case jobgraph.InnerJoin, jobgraph.LeftJoin, jobgraph.RightJoin, jobgraph.FullJoin:
	default:
		return nil
	}
	if jn.Residual == nil {
		return nil
	}
	lcols, rcols := jn.Left.Columns(), jn.Right.Columns()
	lower, upper := int64(math.MinInt64), int64(math.MaxInt64)
	lt, rt := -1, -1
	var rest []expr.Expr
	for _, c := range expr.Conjuncts(jn.Residual) {
		bounds, l, r, ok := timeBounds(c, nl, lcols, rcols)
		if ok && (lt < 0 || lt == l && rt == r) {
			lt, rt = l, r
			for _, b := range bounds {
				if b.upper {
					upper = min(upper, b.v)
				} else {
					lower = max(lower, b.v)
				}
			}
			continue
		}
		rest = append(rest, c)
	}
	if lt < 0 || lower == math.MinInt64 || upper == math.MaxInt64 || lcols[lt].Time != rcols[rt-nl].Time {
		return nil
	}
	residual, err := expr.And(rest...)
	if err != nil {
		return nil
	}
	ij := &IntervalJoin{Left: jn.Left, Right: jn.Right, Kind: jn.Kind, LeftKeys: jn.LeftKeys, RightKeys: jn.RightKeys,
		LeftTime: lt, RightTime: rt - nl, ProcTime: lcols[lt].Time == ProcTime, Lower: lower, Upper: upper,
		Residual: residual, UID: jn.UID, Pos: jn.Pos}
	// The time attributes of both sides stay time attributes.
	ij.Cols = slices.Clone(jn.Cols)
	for i := range ij.Cols {
		if i < nl {
			ij.Cols[i].Time = lcols[i].Time
		} else {
			ij.Cols[i].Time = rcols[i-nl].Time
		}
	}
	if lower > upper {
		// Flink plans an empty interval as a join that matches nothing;
		// so does the operator with a FALSE residual.
		none, _ := expr.Lit(types.NewBool(false), types.Boolean.NonNull())
		ij.Lower, ij.Upper = 0, 0
		ij.Residual, _ = expr.And(residual, none)
	}
	return ij
}

// timeBound is one bound of l.t - r.t: an upper (<=) or lower (>=) one.
type timeBound struct {
	upper bool
	v     int64
}

// timeBounds returns the bounds of l.t - r.t a conjunct sets, with the
// positions of the two time attributes (r in the joined row).
func timeBounds(c expr.Expr, nl int, lcols, rcols []Column) ([]timeBound, int, int, bool) {
	if x, lo, hi, not, ok := expr.BetweenOf(c); ok && !not {
		b1, l1, r1, ok1 := compareBounds(">=", x, lo, nl, lcols, rcols)
		b2, l2, r2, ok2 := compareBounds("<=", x, hi, nl, lcols, rcols)
		if !ok1 || !ok2 || l1 != l2 || r1 != r2 {
			return nil, 0, 0, false
		}
		return append(b1, b2...), l1, r1, true
	}
	op, a, b, ok := expr.Comparison(c)
	if !ok {
		return nil, 0, 0, false
	}
	return compareBounds(op, a, b, nl, lcols, rcols)
}

// compareBounds returns the bounds a op b sets on l.t - r.t.
func compareBounds(op string, a, b expr.Expr, nl int, lcols, rcols []Column) ([]timeBound, int, int, bool) {
	ca, oa, ok1 := timeTerm(a)
	cb, ob, ok2 := timeTerm(b)
	if !ok1 || !ok2 {
		return nil, 0, 0, false
	}
	isTime := func(i int) bool {
		if i < nl {
			return lcols[i].Time != NotTime
		}
		return i-nl < len(rcols) && rcols[i-nl].Time != NotTime
	}
	if !isTime(ca) || !isTime(cb) {
		return nil, 0, 0, false
	}
	// ca + oa op cb + ob, with ca the left time: l.t - r.t op ob - oa.
	switch {
	case ca < nl && cb >= nl:
	case cb < nl && ca >= nl:
		ca, cb, oa, ob = cb, ca, ob, oa
		op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}[op]
	default:
		return nil, 0, 0, false
	}
	d := ob - oa
	switch op {
	case "<=":
		return []timeBound{{true, d}}, ca, cb, true
	case "<":
		return []timeBound{{true, d - strictStep}}, ca, cb, true
	case ">=":
		return []timeBound{{false, d}}, ca, cb, true
	case ">":
		return []timeBound{{false, d + strictStep}}, ca, cb, true
	case "=":
		return []timeBound{{true, d}, {false, d}}, ca, cb, true
	}
	return nil, 0, 0, false
}

// timeTerm reads col, col + INTERVAL, INTERVAL + col or col - INTERVAL.
func timeTerm(e expr.Expr) (col int, offset int64, ok bool) {
	if i, isCol := expr.ColumnOf(e); isCol {
		return i, 0, true
	}
	op, l, r, isArith := expr.Arith(e)
	if !isArith || op != '+' && op != '-' {
		return 0, 0, false
	}
	if i, isCol := expr.ColumnOf(l); isCol {
		v, isConst := intervalConst(r)
		if !isConst {
			return 0, 0, false
		}
		if op == '-' {
			v = -v
		}
		return i, v, true
	}
	if i, isCol := expr.ColumnOf(r); isCol && op == '+' {
		v, isConst := intervalConst(l)
		return i, v, isConst
	}
	return 0, 0, false
}

func intervalConst(e expr.Expr) (int64, bool) {
	if e.Type().ID != types.TypeIntervalDayTime {
		return 0, false
	}
	v, ok := expr.ConstValue(e)
	if !ok || v.IsNull() {
		return 0, false
	}
	return v.Int(), true
}

// temporalJoin binds FOR SYSTEM_TIME AS OF of the right table of jn: an
// event-time temporal join of the left input with the versioned table on
// the right (reference §3.3), with Flink's errors otherwise.
func temporalJoin(jn *Join, asOf ast.Expr, lsc *scope, nl int) (*TemporalJoin, error) {
	if jn.Kind != jobgraph.InnerJoin && jn.Kind != jobgraph.LeftJoin {
		kind := map[jobgraph.JoinKind]string{jobgraph.RightJoin: "RIGHT", jobgraph.FullJoin: "FULL"}[jn.Kind]
		return nil, errAt(jn.Pos, sqlerr.Unsupported, "Temporal table join currently only supports INNER JOIN and LEFT JOIN, but was %s JOIN.", kind)
	}
	ref, isRef := asOf.(*ast.ColumnRef)
	lt := -1
	if isRef {
		if i, err := lsc.resolve(ref); err == nil {
			lt = i
		}
	}
	lcols, rcols := jn.Left.Columns(), jn.Right.Columns()
	if lt < 0 || lcols[lt].Time == NotTime {
		return nil, errAt(asOf.Pos(), sqlerr.Unsupported, "Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field").
			WithHint("write FOR SYSTEM_TIME AS OF a rowtime column of the left table, such as o.order_time")
	}
	if lcols[lt].Time == ProcTime {
		return lookupJoin(jn, lt, nl)
	}
	cl := ChangelogOf(jn.Right)
	if len(cl.Key) == 0 {
		return nil, errAt(jn.Pos, sqlerr.Unsupported, "Temporal Table Join requires primary key in versioned table, but no primary key can be found.").
			WithHint("declare PRIMARY KEY (...) NOT ENFORCED on the versioned table")
	}
	rt := -1
	for i, c := range rcols {
		if c.Time == RowTime {
			rt = i
			break
		}
	}
	if rt < 0 {
		return nil, errAt(jn.Pos, sqlerr.Unsupported, "Event-Time Temporal Table Join requires both primary key and row time attribute in versioned table, but no row time attribute can be found.").
			WithHint("declare a WATERMARK on the versioned table")
	}
	for _, k := range cl.Key {
		if !slices.Contains(jn.RightKeys, k) {
			var pk []string
			for _, k := range cl.Key {
				pk = append(pk, rcols[k].Name)
			}
			return nil, errAt(jn.Pos, sqlerr.Unsupported, "Temporal table's primary key [%s] must be included in the equivalence condition of temporal join.", strings.Join(pk, ", ")).
				WithHint("join ON the primary key of the versioned table")
		}
	}
	tj := &TemporalJoin{Left: jn.Left, Right: jn.Right, Kind: jn.Kind, LeftKeys: jn.LeftKeys, RightKeys: jn.RightKeys,
		LeftTime: lt, RightTime: rt, Residual: jn.Residual, UID: jn.UID, Pos: jn.Pos}
	// The left time attributes stay; the right ones are materialized.
	tj.Cols = slices.Clone(jn.Cols)
	for i := range nl {
		tj.Cols[i].Time = lcols[i].Time
	}
	return tj, nil
}

// lookupJoin is FOR SYSTEM_TIME AS OF a processing time: Flink's lookup
// join, each left row joined with the rows the right table holds by the
// equi key, never retracted (decision 0032). The right table is read as a
// bounded input and kept in state.
func lookupJoin(jn *Join, lt, nl int) (*TemporalJoin, error) {
	if len(jn.LeftKeys) == 0 {
		return nil, errAt(jn.Pos, sqlerr.Unsupported, "Temporal table join requires an equality condition on fields of the lookup table.").
			WithHint("join ON an equality between a left expression and a column of the lookup table")
	}
	tj := &TemporalJoin{Left: jn.Left, Right: jn.Right, Kind: jn.Kind, LeftKeys: jn.LeftKeys, RightKeys: jn.RightKeys,
		LeftTime: lt, RightTime: -1, Residual: jn.Residual, ProcTime: true, UID: jn.UID, Pos: jn.Pos}
	lcols := jn.Left.Columns()
	tj.Cols = slices.Clone(jn.Cols)
	for i := range nl {
		tj.Cols[i].Time = lcols[i].Time
	}
	for i := nl; i < len(tj.Cols); i++ {
		tj.Cols[i].Time = NotTime
	}
	return tj, nil
}

// checkLookupTable accepts the tables a lookup join can read: bounded
// filesystem tables (Flink's filesystem lookup source, which loads the
// file). Others get Flink's error for a processing-time temporal join
// against a table that is no lookup source.
func (p *Planner) checkLookupTable(tn *ast.TableName) error {
	if t, err := p.ResolveTable(tn.Name); err == nil && t.Connector() == "filesystem" {
		return nil
	}
	return errAt(tn.AsOf.Pos(), sqlerr.Unsupported, "Processing-time temporal join is not supported yet.").
		WithHint("a lookup join (FOR SYSTEM_TIME AS OF a processing time) reads a filesystem table; for another table join FOR SYSTEM_TIME AS OF an event-time attribute (a column with a WATERMARK)")
}
