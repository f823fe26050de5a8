package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Built-in process table functions (Flink 2.3+): FROM_CHANGELOG turns an
// append-only table with an operation column into a changelog,
// TO_CHANGELOG a changelog into an append-only table with an operation
// column. They need no CREATE FUNCTION; their names are case-insensitive
// and take precedence over catalog functions, as Flink's system functions.
var builtins = map[string]*ptf.Definition{
	"FROM_CHANGELOG": fromChangelog(),
	"TO_CHANGELOG":   toChangelog(),
}

// builtinPTF returns the built-in function called name, if any.
func builtinPTF(name string) (string, *ptf.Definition, bool) {
	up := strings.ToUpper(name)
	d, ok := builtins[up]
	return "builtin." + up, d, ok
}

var kindNames = map[string]types.RowKind{
	"INSERT": types.Insert, "UPDATE_BEFORE": types.UpdateBefore, "UPDATE_AFTER": types.UpdateAfter, "DELETE": types.Delete,
}

var allKinds = []types.RowKind{types.Insert, types.UpdateBefore, types.UpdateAfter, types.Delete}

// opColumn returns the op => DESCRIPTOR(col) name, "op" by default.
func opColumn(args map[string]types.Value) (string, error) {
	v := args["op"]
	if v.IsNull() {
		return "op", nil
	}
	if cols := v.Array(); len(cols) == 1 {
		return cols[0].Str(), nil
	}
	return "", errors.New("The 'op' argument must be a DESCRIPTOR with exactly one column, for example op => DESCRIPTOR(op)")
}

// fromMapping parses FROM_CHANGELOG's op_mapping: keys are op codes
// (several separated by commas), values row kind names. The default maps
// each kind's name to itself.
func fromMapping(v types.Value) (map[string]types.RowKind, error) {
	m := map[string]types.RowKind{}
	if v.IsNull() {
		for name, k := range kindNames {
			m[name] = k
		}
		return m, nil
	}
	for _, e := range v.Map() {
		kind, ok := kindNames[strings.ToUpper(strings.TrimSpace(e.Val.Str()))]
		if !ok {
			return nil, fmt.Errorf("Invalid target row kind '%s' in 'op_mapping'. Supported row kinds are: [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]", e.Val.Str())
		}
		for _, code := range strings.Split(e.Key.Str(), ",") {
			code = strings.TrimSpace(code)
			if _, dup := m[code]; dup {
				return nil, fmt.Errorf("Op code '%s' is mapped more than once in 'op_mapping'", code)
			}
			m[code] = kind
		}
	}
	return m, nil
}

// toMapping parses TO_CHANGELOG's op_mapping: keys are row kind names
// (several separated by commas), values the op codes written. Kinds
// without a code are dropped.
func toMapping(v types.Value) (map[types.RowKind]string, error) {
	m := map[types.RowKind]string{}
	if v.IsNull() {
		for name, k := range kindNames {
			m[k] = name
		}
		return m, nil
	}
	for _, e := range v.Map() {
		for _, name := range strings.Split(e.Key.Str(), ",") {
			kind, ok := kindNames[strings.ToUpper(strings.TrimSpace(name))]
			if !ok {
				return nil, fmt.Errorf("Invalid row kind '%s' in 'op_mapping'. Supported row kinds are: [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]", strings.TrimSpace(name))
			}
			if _, dup := m[kind]; dup {
				return nil, fmt.Errorf("Row kind '%s' is mapped more than once in 'op_mapping'", kind.Name())
			}
			m[kind] = e.Val.Str()
		}
	}
	return m, nil
}

// restColumns returns the input's columns that are neither partition keys
// nor skip, in order, with their positions.
func restColumns(ts ptf.TableSemantics, skip string) ([]types.Field, []int) {
	var fields []types.Field
	var pos []int
	for i, f := range ts.Schema.Fields {
		if slices.Contains(ts.PartitionBy, i) || f.Name == skip {
			continue
		}
		fields, pos = append(fields, f), append(pos, i)
	}
	return fields, pos
}

func fromChangelog() *ptf.Definition {
	d := &ptf.Definition{
		Doc: "Turns an append-only table with an operation column into a changelog: each row gets the row kind its op code maps to; the op column is removed.",
		Args: []ptf.Arg{
			ptf.Table("input", ptf.SetSemantic, ptf.OptionalPartitionBy),
			ptf.OptionalScalar("op", "DESCRIPTOR"),
			ptf.OptionalScalar("op_mapping", "MAP<STRING, STRING>"),
			ptf.OptionalScalar("error_handling", "STRING"),
		},
	}
	d.DeriveOutput = func(ctx ptf.OutputContext) (*types.Schema, error) {
		ts := ctx.Tables["input"]
		op, err := opColumn(ctx.Args)
		if err != nil {
			return nil, err
		}
		i := ts.Schema.Index(op)
		if i < 0 {
			return nil, fmt.Errorf("Invalid op column '%s' for FROM_CHANGELOG. Available columns are: [%s]", op, strings.Join(ts.Schema.Names(), ", "))
		}
		if !ts.Schema.Fields[i].Type.IsString() {
			return nil, fmt.Errorf("The op column '%s' of FROM_CHANGELOG must be a string column, but it has type %s", op, ts.Schema.Fields[i].Type)
		}
		if slices.Contains(ts.PartitionBy, i) {
			return nil, fmt.Errorf("The op column '%s' of FROM_CHANGELOG must not be a PARTITION BY column", op)
		}
		if _, err := fromMapping(ctx.Args["op_mapping"]); err != nil {
			return nil, err
		}
		if eh := ctx.Args["error_handling"]; !eh.IsNull() && !slices.Contains([]string{"FAIL", "SKIP"}, strings.ToUpper(eh.Str())) {
			return nil, fmt.Errorf("Invalid value '%s' for 'error_handling'. Supported values are: [FAIL, SKIP]", eh.Str())
		}
		fields, _ := restColumns(ts, op)
		return types.NewSchema(fields...), nil
	}
	d.Changelog = func(ctx ptf.ChangelogContext) ptf.ChangelogMode {
		m, err := fromMapping(ctx.Args["op_mapping"])
		if err != nil {
			return ptf.Retract() // DeriveOutput reports the error
		}
		var kinds []types.RowKind
		for _, k := range allKinds {
			for _, mk := range m {
				if mk == k && !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
		}
		mode := ptf.ModeOf(kinds...)
		partitioned := len(ctx.PartitionBy) > 0 && len(ctx.PartitionBy[0]) > 0
		if !mode.IsInsertOnly() && !mode.Contains(types.UpdateBefore) && !partitioned {
			// Without a key there is no upsert: deliver retractions.
			mode = ptf.ModeOf(append(kinds, types.UpdateBefore)...)
		}
		return mode
	}
	d.Eval = func(ctx *ptf.Context, in ptf.Input) error {
		op, _ := opColumn(map[string]types.Value{"op": ctx.Arg("op")})
		m, err := fromMapping(ctx.Arg("op_mapping"))
		if err != nil {
			return err
		}
		skip := strings.EqualFold(ctx.Arg("error_handling").Str(), "SKIP")
		code := in.Row.Get(op)
		kind, ok := m[code.Str()]
		switch {
		case code.IsNull() && skip, !code.IsNull() && !ok && skip:
			return nil
		case code.IsNull():
			return errors.New("Received NULL op code")
		case !ok:
			return fmt.Errorf("Received invalid op code '%s'", code.Str())
		}
		ts, _ := ctx.TableSemantics("input")
		_, pos := restColumns(ts, op)
		vals := make([]types.Value, len(pos))
		for j, i := range pos {
			vals[j] = in.Row.Values[i]
		}
		ctx.CollectKind(kind, vals...)
		return nil
	}
	return d
}

func toChangelog() *ptf.Definition {
	d := &ptf.Definition{
		Doc: "Turns a changelog into an append-only table: each row carries its row kind as an op column (mapped by op_mapping) beside the input's columns.",
		Args: []ptf.Arg{
			ptf.Table("input", ptf.SetSemantic, ptf.OptionalPartitionBy, ptf.SupportUpdates, ptf.RequireFullDelete),
			ptf.OptionalScalar("op", "DESCRIPTOR"),
			ptf.OptionalScalar("op_mapping", "MAP<STRING, STRING>"),
			ptf.OptionalScalar("produces_full_deletes", "BOOLEAN"),
		},
	}
	fullDeletes := func(v types.Value) bool { return v.IsNull() || v.Bool() }
	d.DeriveOutput = func(ctx ptf.OutputContext) (*types.Schema, error) {
		ts := ctx.Tables["input"]
		op, err := opColumn(ctx.Args)
		if err != nil {
			return nil, err
		}
		if _, err := toMapping(ctx.Args["op_mapping"]); err != nil {
			return nil, err
		}
		rest, _ := restColumns(ts, "")
		fields := []types.Field{{Name: op, Type: types.String.NonNull()}}
		for _, f := range rest {
			if !fullDeletes(ctx.Args["produces_full_deletes"]) {
				f.Type = f.Type.Nullable()
			}
			fields = append(fields, f)
		}
		return types.NewSchema(uniqueNames(fields)...), nil
	}
	d.Eval = func(ctx *ptf.Context, in ptf.Input) error {
		m, err := toMapping(ctx.Arg("op_mapping"))
		if err != nil {
			return err
		}
		code, ok := m[in.Row.Kind]
		if !ok {
			return nil // unmapped kinds are dropped
		}
		ts, _ := ctx.TableSemantics("input")
		_, pos := restColumns(ts, "")
		vals := make([]types.Value, 0, len(pos)+1)
		vals = append(vals, types.NewString(code))
		full := fullDeletes(ctx.Arg("produces_full_deletes"))
		for _, i := range pos {
			if in.Row.Kind == types.Delete && !full {
				vals = append(vals, types.Null)
				continue
			}
			vals = append(vals, in.Row.Values[i])
		}
		ctx.CollectKind(types.Insert, vals...)
		return nil
	}
	return d
}
