package nexmark

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// sinkPrefix starts the name of every query's result table.
const sinkPrefix = "nexmark_"

// Prepare writes what the scripts read besides the generator: q13's side
// input, ${FLINK_HOME}/data/side_input.txt, as the suite's
// side_input_gen.sh writes it (key i, value i, for i < 10000).
func Prepare(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return fmt.Errorf("preparing %s: %w", dir, err)
	}
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	path := filepath.Join(dir, "data", "side_input.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Statements splits a script into statements as `eddy sql -f` does.
// With collect, the result table of the query (nexmark_qN) becomes an
// Eddy log table that keeps every change ('changelog.mode' = 'retract'),
// without PARTITIONED BY, instead of a blackhole or file sink, so that
// its rows can be read.
func Statements(script string, collect bool) []string {
	var out []string
	for _, st := range cli.Split(script) {
		text := st.Text
		if collect && isSinkDDL(text) {
			if i := strings.LastIndex(text, "WITH ("); i >= 0 {
				text = text[:i] + "WITH ('changelog.mode' = 'retract')"
			}
			// An Eddy log table has no partitions (q10's partitioning
			// decides only where its files go).
			if i := strings.Index(text, ") PARTITIONED BY ("); i >= 0 {
				if j := strings.Index(text[i+len(") PARTITIONED BY ("):], ")"); j >= 0 {
					text = text[:i+1] + text[i+len(") PARTITIONED BY (")+j+1:]
				}
			}
		}
		out = append(out, text)
	}
	return out
}

func isSinkDDL(stmt string) bool {
	f := strings.Fields(stmt)
	return len(f) >= 3 && strings.EqualFold(f[0], "CREATE") && strings.EqualFold(f[1], "TABLE") && strings.HasPrefix(f[2], sinkPrefix)
}

// Exec runs statements in order, as a script does, and fails at the
// first error, which names the statement.
func Exec(ctx context.Context, e *engine.Engine, stmts []string) error {
	for _, s := range stmts {
		res, err := e.Execute(ctx, s, false)
		if err != nil {
			return &StatementError{Statement: s, Err: err}
		}
		if res != nil && res.Rows != nil {
			if _, _, err := Drain(ctx, res); err != nil {
				return &StatementError{Statement: s, Err: err}
			}
		}
	}
	return nil
}

// StatementError is a statement of a script that failed.
type StatementError struct {
	Statement string
	Err       error
}

func (e *StatementError) Error() string {
	first, _, _ := strings.Cut(strings.TrimSpace(e.Statement), "\n")
	return fmt.Sprintf("%v (in %q)", e.Err, first)
}

func (e *StatementError) Unwrap() error { return e.Err }

// Drain reads a statement's rows to their end and materializes them:
// inserts and update-afters add a row, retractions remove one.
func Drain(ctx context.Context, res *cli.Result) (*types.Schema, [][]types.Value, error) {
	defer res.Rows.Close()
	counts := map[string]int{}
	var rows [][]types.Value
	index := map[string][]int{}
	for {
		r, ok, err := res.Rows.Next(ctx)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		k := rowKey(r.Values)
		if r.Kind.IsRetraction() {
			if counts[k] == 0 {
				return nil, nil, fmt.Errorf("a %s retracts a row that is not in the result: %v", r.Kind, r.Values)
			}
			counts[k]--
			continue
		}
		counts[k]++
		index[k] = append(index[k], len(rows))
		rows = append(rows, r.Values)
	}
	var out [][]types.Value
	for k, n := range counts {
		for _, i := range index[k][:n] {
			out = append(out, rows[i])
		}
	}
	return res.Rows.Schema, out, nil
}

func rowKey(vs []types.Value) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(strconv.Itoa(int(v.Kind())))
		b.WriteByte(':')
		b.WriteString(v.String())
		b.WriteByte(0)
	}
	return b.String()
}

// functions returns the user-defined functions the suite's scripts
// declare (q14's count_char, under its Java class name), as `eddy sql`
// registers them.
func functions() (*udf.Registry, error) {
	r := udf.NewRegistry()
	if err := examples.RegisterUserFunctions(r); err != nil {
		return nil, fmt.Errorf("registering the suite's functions: %w", err)
	}
	return r, nil
}
