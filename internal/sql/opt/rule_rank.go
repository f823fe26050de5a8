package opt

import (
	"math"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/types"
)

// rankRule turns a filter on the column of a ranking function into a
// Top-N (Flink's FlinkLogicalRankRule): the conjuncts rn <= N, rn < N,
// rn = N, rn >= a, rn > a and rn BETWEEN a AND b bound the ranks, the
// other conjuncts stay in the calc above. The rank column is output only
// when the calc reads it (Flink's no-ranking-number optimisation). A
// ROW_NUMBER Top-1 without the rank column, ordered by one time attribute
// over an insert-only input, is a deduplication instead (Flink's
// StreamPhysicalDeduplicateRule): keep the first row for ASC, the last for
// DESC.
func rankRule(r plan.Rel) plan.Rel { return rankRuleWith(r, false) }

// rankRuleV3 is rankRule of plan version 3, which also ranks per SESSION
// window.
func rankRuleV3(r plan.Rel) plan.Rel { return rankRuleWith(r, true) }

func rankRuleWith(r plan.Rel, session bool) plan.Rel {
	c, ok := r.(*plan.Calc)
	if !ok || c.Filter == nil {
		return r
	}
	o, ok := c.In.(*plan.Over)
	if !ok || !o.HasRank || o.NoRankEnd {
		return r
	}
	rc := len(o.Cols) - 1
	start, end := int64(1), int64(math.MaxInt64)
	found := false
	var rest []expr.Expr
	for _, cj := range expr.Conjuncts(c.Filter) {
		if lo, hi, ok := rankBound(cj, rc); ok {
			start, end, found = max(start, lo), min(end, hi), true
			continue
		}
		rest = append(rest, cj)
	}
	if !found {
		return r
	}
	if end == math.MaxInt64 {
		// No rank end: the Over fails with Flink's message.
		no := *o
		no.NoRankEnd = true
		nc := *c
		nc.In = &no
		return &nc
	}
	outputRank := c.Project == nil
	for _, x := range append(append([]expr.Expr(nil), c.Project...), rest...) {
		cols, known := expr.Columns(x)
		if !known {
			return r
		}
		for _, i := range cols {
			outputRank = outputRank || i == rc
		}
	}
	if start > end {
		// An empty range: no row passes.
		none, err := expr.Lit(types.NewBool(false), types.Boolean.NonNull())
		if err != nil {
			return r
		}
		rest, start, end = append(rest, none), 1, 1
	}
	in := o.In
	rank := &plan.Rank{In: in, PartitionKeys: o.PartitionKeys, OrderBy: o.OrderBy, Func: o.Rank, Start: start, End: end,
		OutputRank: outputRank, StateTTL: o.StateTTL, UID: o.UID, Pos: o.Pos}
	for _, col := range in.Columns() {
		rank.Cols = append(rank.Cols, plan.Column{Name: col.Name, Type: col.Type})
	}
	if outputRank {
		rank.Cols = append(rank.Cols, o.Cols[rc])
	}
	var top plan.Rel = rank
	if wr := windowRank(rank, o, session); wr != nil {
		top = wr
	} else if d := dedupOf(rank); d != nil {
		top = d
	}
	filter, err := expr.And(rest...)
	if err != nil {
		return r
	}
	return &plan.Calc{In: top, Filter: filter, Project: c.Project, Cols: c.Cols, FilterPos: c.FilterPos, Pos: c.Pos}
}

// dedupOf returns the deduplication a ROW_NUMBER Top-1 without its rank
// column is when it is ordered by one time attribute over an insert-only
// input (Flink's StreamPhysicalDeduplicateRule), nil otherwise.
func dedupOf(rank *plan.Rank) *plan.Deduplicate {
	if !rank.IsTop1() || rank.Start != 1 || len(rank.OrderBy) != 1 || plan.ChangelogOf(rank.In).Mode != jobgraph.Append {
		return nil
	}
	k := rank.OrderBy[0]
	t := rank.In.Columns()[k.Col].Time
	if t == plan.NotTime {
		return nil
	}
	d := &plan.Deduplicate{In: rank.In, Keys: rank.PartitionKeys, KeepLast: k.Desc, TimeColumn: k.Col, StateTTL: rank.StateTTL,
		UID: "dedup/" + strings.TrimPrefix(rank.UID, "rank/"), Pos: rank.Pos}
	if t == plan.ProcTime {
		d.TimeColumn = -1
	}
	return d
}

// rankNumberPrune drops the rank column of a Top-N or window Top-N that
// the calc above it does not read (plan version 4). The rank rule decides whether to output
// the rank from the calc right above the ranking function; a projection
// further up that drops the rank merges into that calc only afterwards,
// and without this rule the Top-N kept a column nobody reads, and a Top-1
// by a time attribute stayed a Top-N instead of a deduplication: with rows
// of equal times the Top-N keeps the first (an ORDER BY proctime DESC
// under a GROUP BY did not keep the last row).
func rankNumberPrune(r plan.Rel) plan.Rel {
	c, ok := r.(*plan.Calc)
	if !ok || c.Project == nil {
		return r
	}
	var in plan.Rel
	switch rank := c.In.(type) {
	case *plan.Rank:
		if !rank.OutputRank || readsColumn(c, len(rank.Cols)-1) {
			return r
		}
		nr := *rank
		nr.OutputRank = false
		nr.Cols = rank.Cols[: len(rank.Cols)-1 : len(rank.Cols)-1] // the rank is the last column: the others keep their indexes
		in = &nr
		if d := dedupOf(&nr); d != nil {
			in = d
		}
	case *plan.WindowRank:
		if !rank.OutputRank || readsColumn(c, len(rank.Cols)-1) {
			return r
		}
		nr := *rank
		nr.OutputRank = false
		nr.Cols = rank.Cols[: len(rank.Cols)-1 : len(rank.Cols)-1]
		in = &nr
		if d := windowDedupOf(&nr); d != nil {
			in = d
		}
	default:
		return r
	}
	nc := *c
	nc.In = in
	return &nc
}

// readsColumn reports whether calc c's projection or filter may read
// column i of its input (true when that is not known).
func readsColumn(c *plan.Calc, i int) bool {
	for _, x := range append(append([]expr.Expr(nil), c.Project...), c.Filter) {
		if x == nil {
			continue
		}
		cols, known := expr.Columns(x)
		if !known {
			return true
		}
		for _, j := range cols {
			if j == i {
				return true
			}
		}
	}
	return false
}

// rankBound returns the ranks a conjunct on rank column rc allows.
func rankBound(e expr.Expr, rc int) (lo, hi int64, ok bool) {
	if x, l, h, not, isBetween := expr.BetweenOf(e); isBetween {
		if i, isCol := expr.ColumnOf(x); !isCol || i != rc || not {
			return 0, 0, false
		}
		a, ok1 := intConst(l)
		b, ok2 := intConst(h)
		return a, b, ok1 && ok2
	}
	op, l, r, isCmp := expr.Comparison(e)
	if !isCmp {
		return 0, 0, false
	}
	if i, isCol := expr.ColumnOf(r); isCol && i == rc {
		// N >= rn is rn <= N.
		l, r = r, l
		op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "<>": "<>"}[op]
	}
	if i, isCol := expr.ColumnOf(l); !isCol || i != rc {
		return 0, 0, false
	}
	n, isInt := intConst(r)
	if !isInt {
		return 0, 0, false
	}
	switch op {
	case "<=":
		return 1, n, true
	case "<":
		return 1, n - 1, true
	case "=":
		return n, n, true
	case ">=":
		return n, math.MaxInt64, true
	case ">":
		return n + 1, math.MaxInt64, true
	}
	return 0, 0, false
}

func intConst(e expr.Expr) (int64, bool) {
	if !e.Type().IsInteger() {
		return 0, false
	}
	v, ok := expr.ConstValue(e)
	if !ok || v.IsNull() {
		return 0, false
	}
	return v.Int(), true
}

// rankRules turn ranking functions into Top-N and deduplications in plans
// of version 1, which runs no other rules: no statement of version 1 has a
// ranking function (they came later), so this changes none of their plans,
// and a replacing statement planned with version 1 can still use them.
var rankRules = []rule{{"calc-merge", calcMerge}, {"rank", rankRule}}

// hasRanking reports whether a plan has a ranking function.
func hasRanking(r plan.Rel) bool {
	if o, ok := r.(*plan.Over); ok && o.HasRank {
		return true
	}
	for _, in := range r.Inputs() {
		if hasRanking(in) {
			return true
		}
	}
	return false
}

// windowRank returns a Top-N partitioned by the window of a window TVF,
// window aggregate or window join as a window Top-N, or as a window
// deduplication when it keeps one row per window and key by the window's
// time attribute (Flink's WindowRank and WindowDeduplicate); nil when the
// partition holds no window. Over a SESSION window (session, plan version
// 3) a Top-1 by the time attribute stays a window Top-N: Flink has no
// window deduplication after SESSION.
func windowRank(rank *plan.Rank, o *plan.Over, session bool) plan.Rel {
	w, keys, ok := plan.WindowPartition(rank.In, rank.PartitionKeys, session)
	if !ok {
		return nil
	}
	uid := strings.TrimPrefix(rank.UID, "rank/")
	wr := &plan.WindowRank{In: rank.In, Windowing: w, PartitionKeys: keys, OrderBy: rank.OrderBy, Func: rank.Func,
		Start: rank.Start, End: rank.End, OutputRank: rank.OutputRank, UID: "windowrank/" + uid, Pos: rank.Pos}
	if d := windowDedupOf(wr); d != nil {
		return d
	}
	// Insert-only: the time attributes (window_time) stay.
	wr.Cols = append([]plan.Column(nil), rank.In.Columns()...)
	if rank.OutputRank {
		wr.Cols = append(wr.Cols, o.Cols[len(o.Cols)-1])
	}
	return wr
}

// windowDedupOf returns the window deduplication a window Top-N is when it
// keeps one row per window and key by the window's time attribute without
// its rank column, nil otherwise. Flink has no window deduplication after
// SESSION windows, nor on processing time.
func windowDedupOf(wr *plan.WindowRank) *plan.WindowDedup {
	w := wr.Windowing
	if wr.Func != jobgraph.RowNumber || wr.End != 1 || wr.OutputRank || wr.Start != 1 || len(wr.OrderBy) != 1 ||
		w.Window.ProcTime() || w.Window.Kind == jobgraph.Session || !plan.IsWindowTime(wr.In, wr.OrderBy[0].Col, w.WindowStart) {
		return nil
	}
	return &plan.WindowDedup{In: wr.In, Windowing: w, Keys: wr.PartitionKeys, KeepLast: wr.OrderBy[0].Desc,
		TimeColumn: wr.OrderBy[0].Col, UID: "windowdedup/" + strings.TrimPrefix(wr.UID, "windowrank/"), Pos: wr.Pos}
}
