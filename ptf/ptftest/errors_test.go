package ptftest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

var errBoom = errors.New("boom")

// actions are the steps of actionDef.
var actions = map[string]func(ctx *ptf.Context) error{
	"emit":        func(ctx *ptf.Context) error { ctx.Collect(types.NewInt(1)); return nil },
	"emit-delete": func(ctx *ptf.Context) error { ctx.CollectKind(types.Delete, types.NewInt(1)); return nil },
	"emit-before": func(ctx *ptf.Context) error { ctx.CollectKind(types.UpdateBefore, types.NewInt(1)); return nil },
	"emit-after":  func(ctx *ptf.Context) error { ctx.CollectKind(types.UpdateAfter, types.NewInt(1)); return nil },
	"emit-two":    func(ctx *ptf.Context) error { ctx.Collect(types.NewInt(1), types.NewInt(2)); return nil },
	"timer":       func(ctx *ptf.Context) error { return ctx.RegisterOnTime("t", t0) },
	"timer-at":    func(ctx *ptf.Context) error { return ctx.RegisterOnTimeUnnamed(t0) },
	"clear-timers": func(ctx *ptf.Context) error {
		ctx.ClearTimer("t")
		ctx.ClearTimerAt(t0)
		ctx.ClearAllTimers()
		return nil
	},
	"panic":     func(*ptf.Context) error { panic("boom") },
	"nil-map":   func(*ptf.Context) error { var m map[string]int; m["x"] = 1; return nil },
	"semantics": func(ctx *ptf.Context) error { ctx.TableSemantics("nope"); return nil },
}

// actionDef runs the actions named in op; "fail" returns errBoom.
func actionDef(mode ptf.ChangelogMode, traits ...ptf.Trait) *ptf.Definition {
	return &ptf.Definition{
		Args:      []ptf.Arg{ptf.Table("input", traits...)},
		Output:    "ROW<n BIGINT>",
		Changelog: func(ptf.ChangelogContext) ptf.ChangelogMode { return mode },
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			for _, op := range ops(in) {
				if op == "fail" {
					return errBoom
				}
				if err := actions[op](ctx); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// TestRuntimeErrors: what a function does wrong fails the call with an
// error (Flink's message where Flink has one); the harness keeps working.
func TestRuntimeErrors(t *testing.T) {
	set := []ptf.Trait{ptf.SetSemantic}
	passThrough := []ptf.Trait{ptf.SetSemantic, ptf.PassColumnsThrough}
	const timersMsg = "Timers are not supported in the current PTF declaration. Note that only PTFs that take " +
		"set semantic tables support timers. Also timers are not available for advanced traits such as " +
		"supporting pass-through columns or updates."
	for _, tc := range []struct {
		name   string
		mode   ptf.ChangelogMode
		traits []ptf.Trait
		op     string
		want   string // "" for no error
	}{
		{"insert-only emits a delete", ptf.InsertOnly(), set, "emit-delete",
			"Invalid row kind received: DELETE. Expected produced changelog mode: [INSERT]"},
		{"insert-only emits an update", ptf.InsertOnly(), set, "emit-after",
			"Invalid row kind received: UPDATE_AFTER. Expected produced changelog mode: [INSERT]"},
		{"upsert emits an update before", ptf.Upsert(), set, "emit-before",
			"Invalid row kind received: UPDATE_BEFORE. Expected produced changelog mode: [INSERT, UPDATE_AFTER, ~DELETE]"},
		{"upsert emits a delete", ptf.Upsert(), set, "emit-delete", ""},
		{"retract emits an update before", ptf.Retract(), set, "emit-before", ""},
		{"too many values", ptf.InsertOnly(), set, "emit-two",
			"collected 2 values, but the output type ROW<n BIGINT> has 1 fields"},
		{"timer in a pass-through function", ptf.InsertOnly(), passThrough, "timer", timersMsg},
		{"unnamed timer in a pass-through function", ptf.InsertOnly(), passThrough, "timer-at", timersMsg},
		{"timer in a row-semantic function", ptf.InsertOnly(), nil, "timer", timersMsg},
		{"clearing timers where there are none is a no-op", ptf.InsertOnly(), passThrough, "clear-timers", ""},
		{"panic", ptf.InsertOnly(), set, "emit panic", "function f panicked: boom"},
		{"runtime panic", ptf.InsertOnly(), set, "nil-map", "function f panicked: assignment to entry in nil map"},
		{"returned error", ptf.InsertOnly(), set, "fail", "process table function f (uid \"f\"): boom"},
		{"unknown table argument", ptf.InsertOnly(), set, "semantics", "Unknown table argument: nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := ptftest.Table("input", "ROW<k STRING, op STRING>")
			if len(tc.traits) > 0 {
				table = ptftest.Table("input", "ROW<k STRING, op STRING>", ptftest.PartitionBy("k"))
			}
			h, err := ptftest.New(actionDef(tc.mode, tc.traits...), table)
			require.NoError(t, err)
			err = h.Insert("input", types.NewString("a"), types.NewString(tc.op))
			if tc.want == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tc.want)
			}
			// The harness is still usable after the error.
			require.NoError(t, h.Insert("input", types.NewString("a"), types.NewString("emit")))
		})
	}
}

// TestReturnedErrorIsWrapped: an error returned by Eval can be matched
// with errors.Is.
func TestReturnedErrorIsWrapped(t *testing.T) {
	h, err := ptftest.New(actionDef(ptf.InsertOnly(), ptf.SetSemantic),
		ptftest.Table("input", "ROW<k STRING, op STRING>", ptftest.PartitionBy("k")))
	require.NoError(t, err)
	err = h.Insert("input", types.NewString("a"), types.NewString("fail"))
	require.ErrorIs(t, err, errBoom)
}

// TestPanicInOnTimer: a panic in OnTimer is an error of the watermark that
// fired the timer.
func TestPanicInOnTimer(t *testing.T) {
	def := timerDef()
	def.OnTimer = func(*ptf.Context) error { panic("tick") }
	h := newOps(t, def)
	mustSend(t, h, "k", "named:t", at(time.Minute))
	require.ErrorContains(t, h.Watermark(at(2*time.Minute)), "function f panicked: tick")
}

// TestCallValidation: ptftest.New plans the call as SQL would and returns
// the planner's errors.
func TestCallValidation(t *testing.T) {
	set := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic), ptf.OptionalScalar("n", "INT")},
		Output: "ROW<x INT>",
		Eval:   func(*ptf.Context, ptf.Input) error { return nil },
	}
	row := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input")},
		Output: "INT",
		Eval:   func(*ptf.Context, ptf.Input) error { return nil },
	}
	upsert := &ptf.Definition{
		Args:      []ptf.Arg{ptf.Table("input")},
		Output:    "INT",
		Changelog: func(ptf.ChangelogContext) ptf.ChangelogMode { return ptf.Upsert() },
		Eval:      func(*ptf.Context, ptf.Input) error { return nil },
	}
	const rowType = "ROW<k STRING, ts TIMESTAMP(3), v INT>"
	for _, tc := range []struct {
		name string
		def  *ptf.Definition
		opts []ptftest.Option
		want string
	}{
		{"missing PARTITION BY", set, []ptftest.Option{ptftest.Table("input", rowType)},
			"Table argument 'input' requires a PARTITION BY clause for parallel processing."},
		{"PARTITION BY on row semantics", row, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("k"))},
			"Only tables with set semantics may be partitioned. Invalid PARTITION BY clause in the 0-th operand of table function 'f'"},
		{"unknown PARTITION BY column", set, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("nope"))},
			"Invalid column 'nope' for PARTITION BY clause. Available columns are: [k, ts, v]"},
		{"missing table", set, nil,
			"Invalid argument value. Argument 'input' expects a table to be passed."},
		{"bad uid", set, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("k")), ptftest.UID("1st")},
			"Invalid unique identifier for process table function. The `uid` argument must be a string literal that follows the pattern [a-zA-Z_][a-zA-Z-_0-9]*. But found: 1st"},
		{"name without a uid", set, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("k")), ptftest.Name("f*")},
			"Could not derive a unique identifier for process table function 'f*'."},
		{"unknown on_time column", set, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("k"), ptftest.TimeAttribute("ts")), ptftest.OnTime("nope")},
			"Invalid time attribute declaration. Each column in the `on_time` argument must reference at least one column in one of the table arguments. Unknown references: [nope]"},
		{"on_time of the wrong type", set, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("k"), ptftest.TimeAttribute("v")), ptftest.OnTime("v")},
			"Unsupported data type for time attribute."},
		{"updating input without SUPPORT_UPDATES", set, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("k"), ptftest.Retract())},
			"doesn't support consuming update changes"},
		{"upsert output with row semantics", upsert, []ptftest.Option{ptftest.Table("input", rowType)},
			"PTFs that take table arguments with row semantics don't support upsert output. Table argument 'input' of function 'f' must use set semantics."},
		{"updating output with pass-through", &ptf.Definition{
			Args:      []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.PassColumnsThrough)},
			Output:    "INT",
			Changelog: func(ptf.ChangelogContext) ptf.ChangelogMode { return ptf.Retract() },
			Eval:      func(*ptf.Context, ptf.Input) error { return nil },
		}, []ptftest.Option{ptftest.Table("input", rowType, ptftest.PartitionBy("k"))},
			"Pass-through columns are not supported for PTFs that produce updates."},
		{"invalid definition", &ptf.Definition{Output: "INT"}, nil, "definition has no Eval function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ptftest.New(tc.def, tc.opts...)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestCallSemantics: the function sees its scalar arguments (NULL when an
// optional one is omitted), the partition key, time() only with on_time,
// and the table semantics.
func TestCallSemantics(t *testing.T) {
	var seen []string
	def := &ptf.Definition{
		Args: []ptf.Arg{
			ptf.Table("input", ptf.SetSemantic),
			ptf.Scalar("label", "STRING"),
			ptf.OptionalScalar("n", "INT"),
		},
		Output: "ROW<x INT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ts, _ := ctx.TableSemantics("input")
			tm, hasTime := ctx.Time()
			seen = append(seen,
				in.Arg, in.Row.Kind.String(), ctx.Arg("label").Str(), ctx.Arg("n").String(),
				ctx.Key()[0].Str(), tm.Format(time.Kitchen), boolString(hasTime),
				ts.Schema.Names()[ts.PartitionBy[0]], ts.Changelog.String())
			if in.Is("input") {
				seen = append(seen, "is input")
			}
			return nil
		},
	}
	for _, tc := range []struct {
		name string
		opts []ptftest.Option
		want []string
	}{
		{"without on_time", nil,
			[]string{"input", "+I", "hello", "<NULL>", "a", "12:00AM", "false", "k", "[INSERT]", "is input"}},
		{"with on_time", []ptftest.Option{ptftest.OnTime("at"), ptftest.Arg("n", types.NewInt(3))},
			[]string{"input", "+I", "hello", "3", "a", "9:01AM", "true", "k", "[INSERT]", "is input"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			h := newOps(t, def, append(tc.opts, ptftest.Arg("label", types.NewString("hello")))...)
			mustSend(t, h, "a", "", at(time.Minute))
			require.Equal(t, tc.want, seen)
		})
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestTypedTableArgument: a typed table argument receives the table's rows
// cast by position to the declared row type, under the declared names; the
// key prefix keeps the table's column. ptf.TableSemantics documents its
// Schema as "after any cast to a typed argument", but the runtime returns
// the table's own schema (internal/runtime ptfop.go TableSemantics uses
// t.Schema, not t.ArgSchema).
func TestTypedTableArgument(t *testing.T) {
	var names, semantics []string
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.TypedTable("input", "ROW<name STRING, score BIGINT, ratio DOUBLE>", ptf.SetSemantic)},
		Output: "ROW<score BIGINT, ratio DOUBLE>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ts, _ := ctx.TableSemantics("input")
			names, semantics = in.Row.Schema.Names(), ts.Schema.Names()
			ctx.Collect(in.Row.Get("score"), in.Row.Get("ratio"))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<n STRING, s INT, r INT>", ptftest.PartitionBy("n")))
	require.NoError(t, err)
	require.Equal(t, []string{"n", "score", "ratio"}, h.Schema().Names())
	require.NoError(t, h.Insert("input", types.NewString("a"), types.NewInt(5), types.NewInt(7)))
	require.Equal(t, rows("+I[a, 5, 7.0]"), take(h))
	require.Equal(t, []string{"name", "score", "ratio"}, names)
	require.Equal(t, []string{"name", "score", "ratio"}, semantics, "TableSemantics.Schema")

	_, err = ptftest.New(def, ptftest.Table("input", "ROW<n STRING, s STRING, r INT>", ptftest.PartitionBy("n")))
	require.ErrorContains(t, err, "Argument 'input' expects a typed table")
}

// TestDeliveredChangelog: the planner delivers an updating table as upsert
// only when PARTITION BY equals its upsert key and the argument does not
// require -U rows; otherwise as retract (reference §12.1).
func TestDeliveredChangelog(t *testing.T) {
	for _, tc := range []struct {
		name   string
		traits []ptf.Trait
		table  []ptftest.TableOption
		want   string
	}{
		{"append-only", nil, nil, "[INSERT]"},
		{"upsert on the partition key", nil, []ptftest.TableOption{ptftest.Upsert("k")}, "[INSERT, UPDATE_AFTER, ~DELETE]"},
		{"full deletes required", []ptf.Trait{ptf.RequireFullDelete}, []ptftest.TableOption{ptftest.Upsert("k")}, "[INSERT, UPDATE_AFTER, DELETE]"},
		{"-U required", []ptf.Trait{ptf.RequireUpdateBefore}, []ptftest.TableOption{ptftest.Upsert("k")}, "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},
		{"upsert on another key", nil, []ptftest.TableOption{ptftest.Upsert("op")}, "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},
		{"retract", nil, []ptftest.TableOption{ptftest.Retract()}, "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			def := &ptf.Definition{
				Args:   []ptf.Arg{ptf.Table("input", append([]ptf.Trait{ptf.SetSemantic, ptf.SupportUpdates}, tc.traits...)...)},
				Output: "INT",
				Eval: func(ctx *ptf.Context, in ptf.Input) error {
					ts, _ := ctx.TableSemantics("input")
					got = ts.Changelog.String()
					return nil
				},
			}
			h, err := ptftest.New(def, ptftest.Table("input", opsTable, append(tc.table, ptftest.PartitionBy("k"))...))
			require.NoError(t, err)
			mustSend(t, h, "a", "", t0)
			require.Equal(t, tc.want, got)
		})
	}
}
