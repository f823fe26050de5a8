package opt

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/stretchr/testify/require"
)

// harness plans statements against an in-memory catalog. Commands:
//
//	exec   run DDL (CREATE TABLE, CREATE VIEW, CREATE FUNCTION) and SET
//	uids [version=N]
//	       plan one query or INSERT (with plan version N) and print the
//	       uid and operator of every stateful node of its job, by uid
//	logical
//	       bind one query or INSERT and print its logical plan
//	explain [version=N]
//	       plan one query or INSERT (with plan version N) and print what
//	       EXPLAIN prints
//	rewrite [rules=name,...]
//	       bind and apply the rewrite rules (all, or those named) to a
//	       fixed point; print the plan, or "(unchanged)" and the plan
type harness struct {
	cat  *catalog.Catalog
	reg  *ptf.Registry
	sess *plan.Session
}

func newHarness(t *testing.T) *harness {
	cat, err := catalog.Open(nil, "")
	require.NoError(t, err)
	reg := ptf.NewRegistry()
	require.NoError(t, examples.Register(reg))
	return &harness{cat: cat, reg: reg, sess: &plan.Session{Catalog: catalog.DefaultCatalog, Database: catalog.DefaultDatabase, Config: map[string]string{}}}
}

func (h *harness) planner() *plan.Planner {
	return &plan.Planner{Catalog: h.cat, Registry: h.reg, Session: h.sess}
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "exec":
		stmts, err := parser.ParseScript(d.Input)
		if err != nil {
			return errString(err)
		}
		var out []string
		for _, st := range stmts {
			if err := h.exec(st); err != nil {
				out = append(out, errString(err))
				break
			}
			out = append(out, "ok")
		}
		return strings.Join(out, "\n") + "\n"
	case "uids":
		if d.HasArg("version") {
			var v int
			d.ScanArgs(t, "version", &v)
			saved := h.sess.PlanVersion
			h.sess.PlanVersion = v
			defer func() { h.sess.PlanVersion = saved }()
		}
		job, err := h.plan(d.Input)
		if err != nil {
			return errString(err)
		}
		return uids(job)
	case "explain":
		if d.HasArg("version") {
			var v int
			d.ScanArgs(t, "version", &v)
			saved := h.sess.PlanVersion
			h.sess.PlanVersion = v
			defer func() { h.sess.PlanVersion = saved }()
		}
		b, err := h.bind(d.Input)
		if err != nil {
			return errString(err)
		}
		q, err := Optimize(b)
		if err != nil {
			return errString(err)
		}
		return Explain(q, 1)
	case "logical":
		b, err := h.bind(d.Input)
		if err != nil {
			return errString(err)
		}
		return plan.Explain(b, plan.ExplainOptions{})
	case "rewrite":
		b, err := h.bind(d.Input)
		if err != nil {
			return errString(err)
		}
		before := plan.Explain(b, plan.ExplainOptions{})
		r := *b
		r.Root = rewrite(b.Root, rulesArg(t, d))
		after := plan.Explain(&r, plan.ExplainOptions{})
		if after == before {
			return "(unchanged)\n" + after
		}
		return after
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return ""
}

// exec runs one DDL or SET statement.
func (h *harness) exec(st ast.Statement) error {
	p := h.planner()
	switch s := st.(type) {
	case *ast.CreateTable:
		t, err := p.TableFromDDL(s, nil)
		if err != nil {
			return err
		}
		t.Log = t.FullName()
		return h.cat.CreateTable(t)
	case *ast.CreateView:
		b, err := p.BindSelect(s.Query)
		if err != nil {
			return err
		}
		q, err := Optimize(b)
		if err != nil {
			return err
		}
		t := &catalog.Table{Catalog: h.sess.Catalog, Database: h.sess.Database, Name: s.Name.Last().Name, View: ast.Format(s.Query)}
		for i, f := range q.Schema.Fields {
			name := f.Name
			if len(s.Columns) > 0 {
				name = s.Columns[i].Name
			}
			t.Columns = append(t.Columns, catalog.Column{Name: name, Type: catalog.Type{Type: f.Type}})
		}
		return h.cat.CreateTable(t)
	case *ast.CreateFunction:
		return h.cat.CreateFunction(&catalog.Function{Catalog: h.sess.Catalog, Database: h.sess.Database, Name: s.Name.Last().Name, ID: s.Identifier.Value})
	case *ast.Set:
		h.sess.Config[s.Key.Value] = s.Value.Value
		return nil
	}
	return fmt.Errorf("the harness cannot run %T", st)
}

// bind binds a query or an INSERT into its logical plan.
func (h *harness) bind(src string) (*plan.Bound, error) {
	st, err := parser.ParseStatement(src)
	if err != nil {
		return nil, err
	}
	p := h.planner()
	switch s := st.(type) {
	case ast.Query:
		return p.BindSelect(s)
	case *ast.Insert:
		t, err := p.ResolveTable(s.Table)
		if err != nil {
			return nil, err
		}
		return p.BindInsertWith(t, s.Columns, s.Query, s.Query.Pos(), plan.InsertOptionsOf(s))
	}
	return nil, fmt.Errorf("the harness cannot plan %T", st)
}

// plan plans a query or an INSERT into its job.
func (h *harness) plan(src string) (*jobgraph.Job, error) {
	b, err := h.bind(src)
	if err != nil {
		return nil, err
	}
	q, err := Optimize(b)
	if err != nil {
		return nil, err
	}
	return q.Job, nil
}

// rulesArg returns the rules named by rules=a,b (all by default).
func rulesArg(t *testing.T, d *datadriven.TestData) []rule {
	if !d.HasArg("rules") {
		return rulesOf(plan.LatestPlan)
	}
	var out []rule
	for _, a := range d.CmdArgs {
		if a.Key != "rules" {
			continue
		}
		for _, name := range strings.Split(strings.Join(a.Vals, ","), ",") {
			found := false
			for _, r := range rulesOf(plan.LatestPlan) {
				if r.name == name {
					out, found = append(out, r), true
				}
			}
			if !found {
				t.Fatalf("unknown rule %s", name)
			}
		}
	}
	return out
}

// uids lists the stateful nodes of a job by uid.
func uids(job *jobgraph.Job) string {
	var lines []string
	for _, n := range job.Nodes {
		switch n.Op.(type) {
		case *jobgraph.Calc, *jobgraph.Union, *jobgraph.Values:
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %s", n.UID, strings.TrimPrefix(fmt.Sprintf("%T", n.Op), "*jobgraph.")))
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "(no stateful operators)\n"
	}
	return strings.Join(lines, "\n") + "\n"
}

func errString(err error) string {
	if se, ok := err.(*sqlerr.Error); ok {
		return fmt.Sprintf("error (%s) at %s: %s\n", se.Code, se.Pos, se.Message)
	}
	return "error: " + err.Error() + "\n"
}

func TestExplain(t *testing.T) {
	datadriven.Walk(t, "testdata/explain", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, newHarness(t).run)
	})
}

func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, newHarness(t).run)
	})
}

// TestUIDs runs the uid files with the latest plan version and with plan
// version 1: the rewrite rules keep every uid.
func TestUIDs(t *testing.T) {
	datadriven.Walk(t, "testdata/uids", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, newHarness(t).run)
		h := newHarness(t)
		h.sess.PlanVersion = plan.PlanV1
		datadriven.RunTest(t, path, h.run)
	})
}
