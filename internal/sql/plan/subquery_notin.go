package plan

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// nullAwareAntiJoin plans x NOT IN (query) when x or the query's column
// may be NULL, with SQL's three-valued logic as Flink's null-aware anti
// join has it: an outer row is kept when no row of the query makes x = y
// TRUE or UNKNOWN. So a NULL x is kept only while the query is empty, and
// once the query returns a NULL no row is kept. The condition is not an
// equality, so the join has no key: both sides are kept in one group (as
// Flink's plan also does). lx is x over the outer row, of the common type
// t.
func nullAwareAntiJoin(f, r *frag, lx expr.Expr, t types.Type, pos sqlerr.Pos) error {
	width := len(f.rel.Columns())
	rc := r.sc.cols[0]
	rx, err := expr.Col(width, rc.name, rc.typ)
	if err != nil {
		return err
	}
	if rx, err = castKey(rx, t); err != nil {
		return positioned(err, pos, sqlerr.TypeMismatch)
	}
	eq, err := expr.Binary("=", lx, rx)
	if err != nil {
		return positioned(err, pos, sqlerr.TypeMismatch)
	}
	no, err := expr.Lit(types.NewBool(false), types.Boolean.NonNull())
	if err != nil {
		return err
	}
	cond, err := expr.Binary("IS DISTINCT FROM", eq, no)
	if err != nil {
		return err
	}
	jn := &Join{Left: f.rel, Right: r.rel, Kind: jobgraph.AntiJoin, Residual: cond, Subquery: true, Pos: pos}
	jn.UID = f.st.joinUID()
	jn.Cols = f.rel.Columns()
	f.rel = jn
	return nil
}
