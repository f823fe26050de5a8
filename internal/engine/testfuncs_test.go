package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
	"github.com/stretchr/testify/require"
)

// testFunctions are functions registered as test.<Name> for the files in
// testdata/sql, beside the examples. CREATE FUNCTION binds them to names.
var testFunctions = map[string]*ptf.Definition{
	// LatestNoDelete keeps the latest value per key: +I for a new key, then
	// updates, never deletes. It answers a retract requirement with
	// retract-no-delete and anything else with upsert-no-delete.
	"LatestNoDelete": {
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<v STRING>",
		State:  []ptf.StateEntry{latest},
		Changelog: func(ctx ptf.ChangelogContext) ptf.ChangelogMode {
			if ctx.Required.Contains(types.UpdateBefore) {
				return ptf.ModeOf(types.Insert, types.UpdateBefore, types.UpdateAfter)
			}
			return ptf.ModeOf(types.Insert, types.UpdateAfter)
		},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			s := latest.Get(ctx)
			v := in.Row.Get("v")
			switch {
			case !s.Set:
				ctx.Collect(v)
			case ctx.ChangelogMode().Contains(types.UpdateBefore):
				ctx.CollectKind(types.UpdateBefore, types.NewString(s.V))
				ctx.CollectKind(types.UpdateAfter, v)
			default:
				ctx.CollectKind(types.UpdateAfter, v)
			}
			s.Set, s.V = true, v.Str()
			return nil
		},
	},
	// UpsertFullDeletes emits +I for a new key and -D with the full row
	// when v is 'del': upsert with full deletes, whatever is required.
	"UpsertFullDeletes": {
		Args:      []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output:    "ROW<v STRING>",
		Changelog: func(ptf.ChangelogContext) ptf.ChangelogMode { return ptf.UpsertFullDeletes() },
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			if in.Row.Get("v").Str() == "del" {
				ctx.CollectKind(types.Delete, in.Row.Get("v"))
				return nil
			}
			ctx.CollectKind(types.UpdateAfter, in.Row.Get("v"))
			return nil
		},
	},
	// Descriptors emits its DESCRIPTOR arguments: cols is DESCRIPTOR NOT
	// NULL, extra an optional DESCRIPTOR.
	"Descriptors": {
		Args: []ptf.Arg{
			ptf.Table("input"),
			ptf.Scalar("cols", "DESCRIPTOR NOT NULL"),
			ptf.OptionalScalar("extra", "DESCRIPTOR"),
		},
		Output: "ROW<cols STRING, extra STRING>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ctx.Collect(types.NewString(ctx.Arg("cols").String()), types.NewString(ctx.Arg("extra").String()))
			return nil
		},
	},
	// DeliveredMode emits the changelog mode delivered to its table and the
	// kind of each row.
	"DeliveredMode": {
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.SupportUpdates)},
		Output: "ROW<delivered STRING, kind STRING>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ts, _ := ctx.TableSemantics("input")
			ctx.Collect(types.NewString(ts.Changelog.Name()), types.NewString(in.Row.Kind.String()))
			return nil
		},
	},
}

type latestState struct {
	Set bool
	V   string
}

var latest = ptf.NewValue[latestState]("latest")

func registerTestFunctions(reg *ptf.Registry) error {
	for name, def := range testFunctions {
		if err := reg.Register("test."+name, def); err != nil {
			return err
		}
	}
	return nil
}

// TestChangelogTraits: the outcome (the statement's traits) names the
// exact changelog mode, with the no-delete modes of a function that
// updates without deleting.
func TestChangelogTraits(t *testing.T) {
	h := newHarness(t, false)
	for _, st := range []string{
		"CREATE FUNCTION LatestNoDelete AS 'test.LatestNoDelete'",
		"CREATE TABLE events (k STRING, v STRING)",
		"CREATE TABLE latest (k STRING PRIMARY KEY NOT ENFORCED, v STRING)",
	} {
		_, err := h.eng.Execute(t.Context(), st, false)
		require.NoError(t, err)
	}
	for sql, want := range map[string]string{
		"SELECT * FROM events": "insert-only",
		"SELECT * FROM LatestNoDelete(input => TABLE events PARTITION BY k)":                    "retract-no-delete",
		"INSERT INTO latest SELECT * FROM LatestNoDelete(input => TABLE events PARTITION BY k)": "upsert-no-delete",
	} {
		out, err := h.eng.Run(t.Context(), sql, engine.RunOptions{DryRun: true})
		require.NoError(t, err, sql)
		require.Equal(t, want, out.Changelog, sql)
	}
}

// testUserFunctions are user-defined functions registered as
// test.<Name> for the files in testdata/sql, beside the examples.
var testUserFunctions = map[string]udf.Function{
	// Boom panics on 'boom' and fails on 'fail'; it returns its argument
	// otherwise.
	"Boom": &udf.Scalar{Overloads: []udf.Overload{
		udf.Func1(func(_ context.Context, s string) (string, error) {
			switch s {
			case "boom":
				panic("kaboom")
			case "fail":
				return "", errors.New("the argument was 'fail'")
			}
			return s, nil
		}),
	}},
	// Which is overloaded: INT, BIGINT, STRING and a nullable STRING
	// that sees NULL; it names the overload it ran.
	"Which": &udf.Scalar{Overloads: []udf.Overload{
		udf.Func1(func(_ context.Context, i int32) (string, error) { return fmt.Sprintf("int %d", i), nil }),
		udf.Func1(func(_ context.Context, i int64) (string, error) { return fmt.Sprintf("bigint %d", i), nil }),
		udf.Func2(func(_ context.Context, a string, b *string) (string, error) {
			if b == nil {
				return "strings " + a + " and NULL", nil
			}
			return "strings " + a + " and " + *b, nil
		}),
	}},
	// Total sums integers and cannot retract.
	"Total": &udf.Aggregate[int64]{
		Args:   []string{"BIGINT NOT NULL"},
		Result: "BIGINT NOT NULL",
		Accumulate: func(_ context.Context, acc *int64, args []types.Value) error {
			*acc += args[0].Int()
			return nil
		},
		Value: func(_ context.Context, acc *int64) (types.Value, error) { return types.NewInt(*acc), nil },
	},
	// Fragile fails in Value when the sum exceeds 100 and panics in
	// Accumulate on 13.
	"Fragile": &udf.Aggregate[int64]{
		Args:   []string{"BIGINT NOT NULL"},
		Result: "BIGINT",
		Accumulate: func(_ context.Context, acc *int64, args []types.Value) error {
			if args[0].Int() == 13 {
				panic("unlucky")
			}
			*acc += args[0].Int()
			return nil
		},
		Retract: func(_ context.Context, acc *int64, args []types.Value) error {
			*acc -= args[0].Int()
			return nil
		},
		Value: func(_ context.Context, acc *int64) (types.Value, error) {
			if *acc > 100 {
				return types.Null, fmt.Errorf("sum %d is over 100", *acc)
			}
			return types.NewInt(*acc), nil
		},
	},
}

func registerTestUserFunctions(reg *udf.Registry) error {
	for name, f := range testUserFunctions {
		if err := reg.Register("test."+name, f); err != nil {
			return err
		}
	}
	return nil
}
