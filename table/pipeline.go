package table

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/deploy"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/ptf"
)

// Table is a table or a query over tables and function calls, not yet
// executed, Flink's Table. Its methods return new Tables; a Table renders
// to one SQL query (SQL), which the planner plans as it plans SQL, so that
// results, column names, changelog modes and error messages are those of
// the same statement written in SQL.
type Table struct {
	env *Environment
	// from is a catalog table; query a query (exactly one is set).
	from  string
	query func(*renderer) (string, error)
	// partition and order are the PARTITION BY and ORDER BY of the table
	// as a function's table argument.
	partition []string
	order     []Expr
	// argName names the table as a function argument (AsArgument).
	argName string
}

// Arg is an argument of a function call: an Expr (scalar or descriptor)
// or a *Table (table argument). Named arguments (AsArgument) can come in
// any order; unnamed ones are positional, in declaration order. A call
// cannot mix both.
type Arg interface {
	renderArg(*renderer) (name, sql string, err error)
	argumentName() string
}

// renderer renders a pipeline in one call of Table.SQL: it binds the
// functions and names derived tables.
type renderer struct {
	ctx context.Context
	env *Environment
	n   int
	// temps are the temporary functions the query calls.
	temps []string
}

func (r *renderer) alias() string {
	r.n++
	return fmt.Sprintf("t%d", r.n)
}

func (t *Table) derive(q func(*renderer) (string, error)) *Table {
	return &Table{env: t.env, query: q}
}

// querySQL renders the table as a query.
func (t *Table) querySQL(r *renderer) (string, error) {
	if t.query == nil {
		return "SELECT * FROM " + t.from, nil
	}
	return t.query(r)
}

// relSQL renders the table for a FROM clause.
func (t *Table) relSQL(r *renderer) (string, error) {
	if t.query == nil {
		return t.from, nil
	}
	q, err := t.query(r)
	if err != nil {
		return "", err
	}
	return "(" + q + ") AS " + r.alias(), nil
}

// tableArgSQL renders the table as a function's table argument.
func (t *Table) tableArgSQL(r *renderer) (string, error) {
	var s string
	if t.query == nil {
		s = "TABLE " + t.from
	} else {
		q, err := t.query(r)
		if err != nil {
			return "", err
		}
		s = "(" + q + ")"
	}
	if len(t.partition) > 0 {
		q := make([]string, len(t.partition))
		for i, c := range t.partition {
			q[i] = ast.QuoteIdent(c)
		}
		s += " PARTITION BY (" + strings.Join(q, ", ") + ")"
	}
	if len(t.order) > 0 {
		s += " ORDER BY (" + exprList(t.order) + ")"
	}
	return s, nil
}

func (t *Table) renderArg(r *renderer) (string, string, error) {
	s, err := t.tableArgSQL(r)
	return t.argName, s, err
}

func (t *Table) argumentName() string { return t.argName }

func (e Expr) renderArg(*renderer) (string, string, error) { return e.name, e.sql, nil }

func (e Expr) argumentName() string { return e.name }

// call renders SELECT * FROM f(args): in is the receiver of Process (the
// function's first table argument), or nil.
func (r *renderer) call(def *ptf.Definition, in *Table, args []Arg) (string, error) {
	name, err := r.env.functionName(r.ctx, def)
	if err != nil {
		return "", err
	}
	if r.env.temp[name] && !slices.Contains(r.temps, name) {
		r.temps = append(r.temps, name)
	}
	named := false
	for _, a := range args {
		if a.argumentName() != "" {
			named = true
		}
	}
	var parts []string
	if in != nil {
		s, err := in.tableArgSQL(r)
		if err != nil {
			return "", err
		}
		if n := in.argName; n != "" {
			s = ast.QuoteIdent(n) + " => " + s
		} else if named {
			tables := def.TableArgs()
			if len(tables) == 0 {
				return "", fmt.Errorf("table: %s has no table argument; call it with Environment.FromCall", name)
			}
			s = ast.QuoteIdent(tables[0].Name) + " => " + s
		}
		parts = append(parts, s)
	}
	for _, a := range args {
		n, s, err := a.renderArg(r)
		if err != nil {
			return "", err
		}
		if n != "" {
			s = ast.QuoteIdent(n) + " => " + s
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("SELECT * FROM %s(%s)", ast.QuoteIdent(name), strings.Join(parts, ", ")), nil
}

// PartitionBy partitions the table for a set-semantic table argument,
// Flink's partitionBy.
func (t *Table) PartitionBy(cols ...string) *Table {
	c := *t
	c.partition = cols
	return &c
}

// OrderBy orders the rows of a set-semantic table argument within each
// partition: table.Col("ts").Asc(), table.SQL("score DESC NULLS FIRST").
// The first item must be the table's time attribute, ascending (as for
// SQL's TABLE t PARTITION BY k ORDER BY (ts)). A Table that is not passed
// to a function is sorted by the same items.
func (t *Table) OrderBy(items ...Expr) *Table {
	c := *t
	c.order = items
	return &c
}

// AsArgument names the table as a function's table argument, Flink's
// asArgument: env.FromCall(f, t.PartitionBy("k").AsArgument("input")).
func (t *Table) AsArgument(name string) *Table {
	c := *t
	c.argName = name
	return &c
}

// Process calls def with this table as its first table argument, Flink's
// process: further table arguments and scalars come in args, named with
// AsArgument or positional. The result is a Table: calls chain.
//
//	env.From("temperature_readings").PartitionBy("sensor_id").
//		Process(examples.Median, table.Lit(3).AsArgument("numTrailing"))
func (t *Table) Process(def *ptf.Definition, args ...Arg) *Table {
	return t.derive(func(r *renderer) (string, error) { return r.call(def, t, args) })
}

// Select projects, Flink's select: table.Col("a"), table.Col("b").Plus(1).As("b1").
func (t *Table) Select(exprs ...Expr) *Table {
	return t.derive(func(r *renderer) (string, error) {
		from, err := t.relSQL(r)
		if err != nil {
			return "", err
		}
		return "SELECT " + exprList(exprs) + " FROM " + from, nil
	})
}

// Filter keeps the rows where cond holds, Flink's filter.
func (t *Table) Filter(cond Expr) *Table {
	return t.derive(func(r *renderer) (string, error) {
		from, err := t.relSQL(r)
		if err != nil {
			return "", err
		}
		return "SELECT * FROM " + from + " WHERE " + cond.sql, nil
	})
}

// Where is Filter.
func (t *Table) Where(cond Expr) *Table { return t.Filter(cond) }

// As renames the columns, Flink's as("a", "b"): one name per column.
func (t *Table) As(cols ...string) *Table {
	return t.derive(func(r *renderer) (string, error) {
		from, err := t.relSQL(r)
		if err != nil {
			return "", err
		}
		if t.query == nil {
			from += " AS " + r.alias()
		}
		q := make([]string, len(cols))
		for i, c := range cols {
			q[i] = ast.QuoteIdent(c)
		}
		return "SELECT * FROM " + from + "(" + strings.Join(q, ", ") + ")", nil
	})
}

// Distinct removes duplicate rows.
func (t *Table) Distinct() *Table {
	return t.derive(func(r *renderer) (string, error) {
		from, err := t.relSQL(r)
		if err != nil {
			return "", err
		}
		return "SELECT DISTINCT * FROM " + from, nil
	})
}

// GroupedTable is a table grouped by keys, waiting for Select.
type GroupedTable struct {
	t    *Table
	keys []Expr
}

// GroupBy groups the rows by keys, Flink's groupBy; Select then computes
// the keys and aggregates: t.GroupBy(table.Col("k")).Select(table.Col("k"), table.CountStar().As("n")).
func (t *Table) GroupBy(keys ...Expr) *GroupedTable { return &GroupedTable{t: t, keys: keys} }

// Select computes one row per group.
func (g *GroupedTable) Select(exprs ...Expr) *Table {
	return g.t.derive(func(r *renderer) (string, error) {
		from, err := g.t.relSQL(r)
		if err != nil {
			return "", err
		}
		keys := make([]string, len(g.keys))
		for i, k := range g.keys {
			keys[i] = k.sql // a key's name (As) is for Select
		}
		return "SELECT " + exprList(exprs) + " FROM " + from + " GROUP BY " + strings.Join(keys, ", "), nil
	})
}

func (t *Table) join(kind string, right *Table, on Expr) *Table {
	return t.derive(func(r *renderer) (string, error) {
		l, err := t.relSQL(r)
		if err != nil {
			return "", err
		}
		rr, err := right.relSQL(r)
		if err != nil {
			return "", err
		}
		return "SELECT * FROM " + l + " " + kind + " " + rr + " ON " + on.sql, nil
	})
}

// Join is the inner join with right on cond, Flink's join(right, cond).
// As in Flink, the two sides' column names must differ (rename with
// Select and As).
func (t *Table) Join(right *Table, on Expr) *Table { return t.join("JOIN", right, on) }

// LeftOuterJoin is the left outer join with right on cond.
func (t *Table) LeftOuterJoin(right *Table, on Expr) *Table {
	return t.join("LEFT JOIN", right, on)
}

func (t *Table) setOp(op string, other *Table) *Table {
	return t.derive(func(r *renderer) (string, error) {
		a, err := t.relSQL(r)
		if err != nil {
			return "", err
		}
		b, err := other.relSQL(r)
		if err != nil {
			return "", err
		}
		return "SELECT * FROM " + a + " " + op + " SELECT * FROM " + b, nil
	})
}

// Union is the union without duplicates, Flink's union.
func (t *Table) Union(other *Table) *Table { return t.setOp("UNION", other) }

// UnionAll is the union with duplicates, Flink's unionAll.
func (t *Table) UnionAll(other *Table) *Table { return t.setOp("UNION ALL", other) }

// sql renders the query; it binds functions as needed. e.mu is held.
func (t *Table) sql(ctx context.Context) (string, error) {
	q, _, err := t.render(ctx)
	return q, err
}

// render renders the query and returns the temporary functions it calls.
func (t *Table) render(ctx context.Context) (string, []string, error) {
	r := &renderer{ctx: ctx, env: t.env}
	q, err := t.querySQL(r)
	if err != nil {
		return "", nil, err
	}
	if len(t.order) > 0 {
		q = "SELECT * FROM (" + q + ") AS " + r.alias() + " ORDER BY " + exprList(t.order)
	}
	return q, r.temps, nil
}

// SQL returns the query the pipeline runs as.
func (t *Table) SQL(ctx context.Context) (string, error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	return t.sql(ctx)
}

// Execute runs the pipeline as a query and returns its rows, Flink's
// execute(): like a SELECT in the shell, a snapshot of the inputs.
func (t *Table) Execute(ctx context.Context) (*Result, error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	q, err := t.sql(ctx)
	if err != nil {
		return nil, err
	}
	return t.env.execute(ctx, q)
}

// Explain returns the plan of the pipeline's query, as EXPLAIN prints it.
func (t *Table) Explain(ctx context.Context) (string, error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	q, err := t.sql(ctx)
	if err != nil {
		return "", err
	}
	res, err := t.env.execute(ctx, "EXPLAIN "+q)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(res.Message, "\n"), nil
}

// InsertSQL returns the INSERT INTO target statement that ExecuteInsert
// submits, for deploying the pipeline to an `eddy server` with package
// deploy (deploy.Env.ExecuteSQL). Its functions are called by the names
// this environment bound them to: bind them with CreateFunction under the
// names the server's CREATE FUNCTION statements use.
func (t *Table) InsertSQL(ctx context.Context, target string) (string, error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	q, err := t.sql(ctx)
	if err != nil {
		return "", err
	}
	return "INSERT INTO " + target + " " + q, nil
}

// ExecuteInsert submits INSERT INTO target with the pipeline's rows as a
// durable statement, Flink's executeInsert, and returns at once; the
// Result's Statement stops, resumes and deletes it.
func (t *Table) ExecuteInsert(ctx context.Context, target string) (*Result, error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	q, temps, err := t.render(ctx)
	if err != nil {
		return nil, err
	}
	res, err := t.env.submit(ctx, "INSERT INTO "+target+" "+q)
	if err != nil {
		return nil, err
	}
	if len(temps) > 0 && t.env.dataDir != "" && res.Outcome == deploy.Created {
		res.Message += fmt.Sprintf(" Note: it calls the temporary function(s) %s of this environment, so it resumes in this process only; bind them with Environment.CreateFunction for it to resume when the data directory is opened again.", strings.Join(temps, ", "))
	}
	return res, nil
}
