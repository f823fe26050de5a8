package nexmark

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	nexgen "github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/nexmark/reference"
	"github.com/eddy-sql/eddy/types"
)

// Check configures Verify.
type Check struct {
	// Events and TPS fill ${EVENTS_NUM} and ${TPS}.
	Events, TPS int64
	// Start is the engine's clock, which stands still: the time of the
	// first event (the table's created-at) and q12's processing time.
	Start time.Time
	// MiniBatch runs the query with the suite's mini-batch setting (the
	// final result must not change).
	MiniBatch bool
}

// Outcome is what Verify found.
type Outcome struct {
	// Err is set when Eddy could not run the query (a statement failed).
	Err error
	// Rows is the number of rows of Eddy's final result, Want the
	// reference's.
	Rows, Want int
	// Diff lists rows that differ ("-" missing from Eddy's result, "+"
	// extra in it), at most 20; empty when the results are equal.
	Diff []string
}

// Matches reports whether Eddy ran the query and its result equals the
// reference's.
func (o *Outcome) Matches() bool { return o.Err == nil && len(o.Diff) == 0 }

// computeReference is reference.Compute (a test replaces it).
var computeReference = reference.Compute

type stillClock struct{ t time.Time }

func (c stillClock) Now() time.Time { return c.t }

// Verify runs a query through a fresh in-memory engine, with its result
// table turned into a log table (see Statements), reads the final result
// and compares it with the reference implementation's. The error is for
// failures of the check itself; Outcome.Err says whether Eddy ran it.
func Verify(ctx context.Context, query string, c Check) (*Outcome, error) {
	dir, err := os.MkdirTemp("", "eddy-nexmark-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := Prepare(dir); err != nil {
		return nil, err
	}
	v := DefaultVars(c.Events)
	v.TPS, v.Dir, v.SubmitTime = c.TPS, dir, c.Start.UTC().Format("2006-01-02T15:04:05")
	script, err := Script(query, v)
	if err != nil {
		return nil, err
	}
	udfs, err := functions()
	if err != nil {
		return nil, err
	}
	e, err := engine.Open(ctx, engine.Options{Clock: stillClock{c.Start}, UDFs: udfs})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	out := &Outcome{}
	if c.MiniBatch {
		if err := Exec(ctx, e, miniBatchSettings); err != nil {
			return nil, err
		}
	}
	// The result table is first created as the script declares it, so
	// that a sink Eddy cannot create counts as not running, then replaced
	// by the readable log table.
	verbatim, collect := Statements(script, false), Statements(script, true)
	for i, s := range collect {
		if isSinkDDL(s) {
			if err := Exec(ctx, e, []string{verbatim[i], "DROP TABLE " + sinkPrefix + query}); err != nil {
				out.Err = err
				return out, nil
			}
		}
		if err := Exec(ctx, e, []string{s}); err != nil {
			out.Err = err
			return out, nil
		}
	}
	res, err := e.Execute(ctx, "SELECT * FROM "+sinkPrefix+query, false)
	if err != nil {
		return nil, fmt.Errorf("reading the result of %s: %w", query, err)
	}
	schema, rows, err := Drain(ctx, res)
	if err != nil {
		out.Err = err
		return out, nil
	}
	tbl, err := nexgen.NewTable("datagen", nexgen.Schema(), map[string]string{
		nexgen.OptFirstEventRate: strconv.FormatInt(c.TPS, 10),
		nexgen.OptEventsNum:      strconv.FormatInt(c.Events, 10),
		nexgen.OptCreatedAt:      c.Start.UTC().Format(time.RFC3339Nano),
	})
	if err != nil {
		return nil, err
	}
	want, err := computeReference(query, reference.Events(tbl.Generator(), c.Events), reference.Options{ProcTime: c.Start.UnixMilli()})
	if err != nil {
		return nil, err
	}
	got := reference.Lines(schemaTypes(schema), rows)
	exp := want.Lines()
	out.Rows, out.Want = len(got), len(exp)
	out.Diff = diff(exp, got, 20)
	return out, nil
}

func schemaTypes(s *types.Schema) []types.Type {
	out := make([]types.Type, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Type
	}
	return out
}

// diff compares two sorted lists and returns at most limit differences.
func diff(want, got []string, limit int) []string {
	var out []string
	i, j := 0, 0
	for (i < len(want) || j < len(got)) && len(out) < limit {
		switch {
		case j >= len(got) || (i < len(want) && want[i] < got[j]):
			out = append(out, "- "+want[i])
			i++
		case i >= len(want) || got[j] < want[i]:
			out = append(out, "+ "+got[j])
			j++
		default:
			i++
			j++
		}
	}
	return out
}

// String describes the outcome in a line or a few.
func (o *Outcome) String() string {
	switch {
	case o.Err != nil:
		return "does not run: " + o.Err.Error()
	case len(o.Diff) == 0:
		return fmt.Sprintf("matches the reference (%d rows)", o.Rows)
	}
	return fmt.Sprintf("differs from the reference (%d rows, want %d):\n%s", o.Rows, o.Want, strings.Join(o.Diff, "\n"))
}
