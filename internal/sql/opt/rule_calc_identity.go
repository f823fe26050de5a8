package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// calcIdentity removes what a calc does not do: a projection that passes
// every column on in order, and then the calc itself when it neither
// filters nor renames.
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
	if c.Project == nil && c.Filter == nil && sameNames(c.Cols, in) {
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
		if !ok || j != i || !x.Type().Same(in[i].Type) || x.Type().NotNull != in[i].Type.NotNull {
			return false
		}
	}
	return true
}

func sameNames(a, b []plan.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}
