package plan

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// column is one column visible to expressions.
type column struct {
	qualifier string
	name      string
	typ       types.Type
	// hidden columns (OVER results and their inputs) are not part of *.
	hidden bool
}

// scope is the list of columns of the current relation, by position.
type scope struct {
	cols []column
	// subst maps the text of an expression (ast.Format) to the column
	// holding its value: the group expressions and aggregate calls after
	// a GROUP BY.
	subst map[string]int
	// grouped is the scope before a GROUP BY, to tell a column that is
	// not grouped from an unknown one.
	grouped *scope
	// groupKeys maps the canonical form (expr.Canonical over grouped) of
	// each group expression to its column, so that another spelling of it
	// (t.k + 1 for k + 1) is the group key too.
	groupKeys map[string]int
	// env is what function calls need from the statement (the clock of
	// CURRENT_TIMESTAMP, ...); zero uses defaultExprEnv.
	env expr.Env
	// inner, when positive, is the position of the first column of a
	// correlated subquery's own relation: a name both it and the outer
	// query have resolves to the subquery's, as SQL scoping says.
	inner int
	// times are the time kinds of the relation's columns, by position, when
	// known (CURRENT_WATERMARK needs a rowtime attribute); see withTimes.
	times []TimeKind
}

func scopeOf(s *types.Schema, qualifier string) *scope {
	sc := &scope{}
	for _, f := range s.Fields {
		sc.cols = append(sc.cols, column{qualifier: qualifier, name: f.Name, typ: f.Type})
	}
	return sc
}

func (s *scope) schema() *types.Schema {
	fields := make([]types.Field, len(s.cols))
	for i, c := range s.cols {
		fields[i] = types.Field{Name: c.name, Type: c.typ}
	}
	return types.NewSchema(fields...)
}

func (s *scope) names() []string {
	out := make([]string, len(s.cols))
	for i, c := range s.cols {
		out[i] = c.name
	}
	return out
}

// resolve finds a column reference: exact name first, then a unique
// case-insensitive match.
func (s *scope) resolve(ref *ast.ColumnRef) (int, error) {
	parts := ref.Parts
	name := parts[len(parts)-1].Name
	qual := ""
	if len(parts) > 1 {
		qual = parts[len(parts)-2].Name
	}
	match := func(fold bool) []int {
		var out []int
		for i, c := range s.cols {
			if qual != "" && c.qualifier != qual && !(fold && strings.EqualFold(c.qualifier, qual)) {
				continue
			}
			if c.name == name || (fold && strings.EqualFold(c.name, name)) {
				out = append(out, i)
			}
		}
		return out
	}
	found := s.shadow(match(false))
	if len(found) == 0 {
		found = s.shadow(match(true))
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		full := name
		if qual != "" {
			full = qual + "." + name
		}
		e := errAt(ref.Pos(), sqlerr.UnknownColumn, "Column '%s' not found in any table", full)
		if len(s.cols) > 0 {
			e.WithHint("available columns are: %s%s", strings.Join(s.names(), ", "), suggest(name, s.names()))
		}
		return 0, e
	}
	return 0, errAt(ref.Pos(), sqlerr.UnknownColumn, "Column '%s' is ambiguous", name).
		WithHint("qualify it with its table name or alias")
}

// groupKey returns the column of the group expression e spells, if it is
// one: e bound over the rows before the GROUP BY has the canonical form of
// a group expression. A plain column reference resolves by its name.
func (s *scope) groupKey(e ast.Expr) (int, bool) {
	if s.grouped == nil || len(s.groupKeys) == 0 {
		return 0, false
	}
	if _, isRef := e.(*ast.ColumnRef); isRef {
		return 0, false
	}
	if hasAggregate(e) || hasSubquery(e) {
		return 0, false
	}
	x, err := bindExpr(e, s.grouped)
	if err != nil {
		return 0, false
	}
	canon, ok := expr.Canonical(x)
	if !ok {
		return 0, false
	}
	i, ok := s.groupKeys[canon]
	return i, ok
}

// shadow keeps, of several matches, the subquery's own column when there
// is exactly one.
func (s *scope) shadow(found []int) []int {
	if s.inner <= 0 || len(found) < 2 {
		return found
	}
	var own []int
	for _, i := range found {
		if i >= s.inner {
			own = append(own, i)
		}
	}
	if len(own) == 1 {
		return own
	}
	return found
}

// suggest returns "; did you mean 'x'?" for a close name.
func suggest(name string, options []string) string {
	best, bestD := "", 3
	for _, o := range options {
		if d := sqlerr.Distance(strings.ToLower(name), strings.ToLower(o)); d < bestD {
			best, bestD = o, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean '" + best + "'?"
}
