package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// calcIdentity removes what a calc does not do: a projection that passes
// every column on in order, and then the calc itself when it does not
// filter (a calc that only renames columns does nothing: the names a
// query shows come from its scope, not from the plan's nodes).
func calcIdentity(r plan.Rel) plan.Rel {
	c, ok := r.(*plan.Calc)
	if !ok {
		return r
	}
	in := c.In.Columns()
	if c.Project != nil && isIdentity(c.Project, in) {
		n := *c
		n.Project = nil
		return &n
	}
	if c.Project == nil && c.Filter == nil {
		return c.In
	}
	return r
}

// isIdentity reports whether a projection passes the columns of in on, in
// order, with their types.
func isIdentity(project []expr.Expr, in []plan.Column) bool {
	if len(project) != len(in) {
		return false
	}
	for i, x := range project {
		j, ok := expr.ColumnOf(x)
		if !ok || j != i || !x.Type().Same(in[i].Type) {
			return false
		}
	}
	return true
}
