package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// maxTables is 'table.optimizer.ptf.max-tables'.
const maxTables = 20

var uidPattern = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z\-_0-9]*$`)

// rel is a planned relation that can feed a PTF table argument: one input
// of the job plus the calcs after it.
type rel struct {
	input  int
	schema *types.Schema
	mode   jobgraph.Mode
	// upsertKey holds key positions in schema for updating relations.
	upsertKey []int
	// timeAttrs marks columns that are watermarked time attributes.
	timeAttrs map[int]bool
	// kinds is the exact changelog of the relation (changelogOf): it tells
	// a relation that never deletes from one that may.
	kinds ptf.ChangelogMode
}

// tableArgValue is a TABLE argument as written in the call.
type tableArgValue struct {
	rel          *rel
	pos          sqlerr.Pos
	partitionBy  []ident
	hasPartition bool
	// orderBy are the ORDER BY items (Flink 2.3).
	orderBy []orderItem
}

// orderItem is one ORDER BY item of a table argument.
type orderItem struct {
	// name is the column; "" when the item is not a plain column name.
	name       string
	pos        sqlerr.Pos
	desc       bool
	nullsFirst bool
}

// ident is a name with its position.
type ident struct {
	name string
	pos  sqlerr.Pos
}

// callArg is one resolved argument of a PTF call.
type callArg struct {
	name string // "" for positional
	pos  sqlerr.Pos
	// valuePos is the position of the value (after "name =>").
	valuePos sqlerr.Pos
	table    *tableArgValue
	scalar   expr.Expr // constant expression; nil for DEFAULT or tables
	desc     []ident   // DESCRIPTOR(...)
	isDesc   bool
	isDef    bool
}

// ptfCall is everything the planner knows about one call.
type ptfCall struct {
	name string
	pos  sqlerr.Pos
	id   string
	def  *ptf.Definition
	args []callArg
	// required is what the consumer of the call accepts.
	required ptf.ChangelogMode
	stateTTL int64
	// onTimePos is the position of the on_time argument, if given.
	onTimePos sqlerr.Pos
	// orderPos is the position of the first ORDER BY item per table
	// argument with ORDER BY.
	orderPos map[string]sqlerr.Pos
}

func errAt(pos sqlerr.Pos, code sqlerr.Code, format string, a ...any) *sqlerr.Error {
	return sqlerr.Newf(code, format, a...).At(pos)
}

// bindArgs maps named or positional arguments to the effective signature:
// declared arguments, then on_time and uid.
func (c *ptfCall) bindArgs() (map[string]callArg, error) {
	sig := make([]string, 0, len(c.def.Args)+2)
	for _, a := range c.def.Args {
		sig = append(sig, a.Name)
	}
	sig = append(sig, "on_time", "uid")
	named, positional := 0, 0
	mixedAt := c.pos // the first argument written unlike the first one
	for _, a := range c.args {
		if a.name != "" {
			named++
		} else {
			positional++
		}
		if named > 0 && positional > 0 && mixedAt == c.pos {
			mixedAt = a.pos
		}
	}
	if named > 0 && positional > 0 {
		return nil, errAt(mixedAt, sqlerr.InvalidFunction, "Cannot mix positional and named arguments when calling function '%s'", c.name).
			WithHint("name every argument (input => TABLE t PARTITION BY k, ...) or pass them all in declaration order")
	}
	bound := map[string]callArg{}
	if positional > 0 {
		if len(c.args) > len(sig) {
			return nil, errAt(c.args[len(sig)].pos, sqlerr.InvalidFunction,
				"Too many arguments for function '%s': it takes at most %d (%s)", c.name, len(sig), strings.Join(sig, ", "))
		}
		for i, a := range c.args {
			if !a.isDef {
				a.name = sig[i]
				bound[sig[i]] = a
			}
		}
		return bound, nil
	}
	for _, a := range c.args {
		if !slices.Contains(sig, a.name) {
			continue // Flink ignores unknown named arguments
		}
		if _, dup := bound[a.name]; dup {
			return nil, errAt(a.pos, sqlerr.InvalidFunction, "Argument '%s' is given twice in the call of function '%s'", a.name, c.name)
		}
		if !a.isDef {
			bound[a.name] = a
		}
	}
	return bound, nil
}

// planPTF validates a call and builds its jobgraph node.
func (c *ptfCall) planPTF() (*jobgraph.PTF, error) {
	bound, err := c.bindArgs()
	if err != nil {
		return nil, err
	}
	node := &jobgraph.PTF{Name: c.name, ID: c.id, Def: c.def, Scalars: map[string]types.Value{}, StateTTL: c.stateTTL}
	tableArgs := c.def.TableArgs()
	if len(tableArgs) > maxTables {
		return nil, errAt(c.pos, sqlerr.InvalidFunction, "Unsupported table argument count. Currently, the number of input tables is limited to %d.", maxTables)
	}
	var modes []ptf.ChangelogMode
	var keys [][]int
	for _, a := range c.def.Args {
		arg, given := bound[a.Name]
		if !a.IsTable() {
			modes = append(modes, ptf.ChangelogMode{})
			keys = append(keys, nil)
			if err := c.bindScalar(node, a, arg, given); err != nil {
				return nil, err
			}
			continue
		}
		if !given || arg.table == nil {
			pos := c.pos
			if given {
				pos = arg.valuePos
			}
			return nil, errAt(pos, sqlerr.InvalidArgument, "Invalid argument value. Argument '%s' expects a table to be passed.", a.Name).
				WithHint("pass a table with %s => TABLE t%s", a.Name, partitionHint(a))
		}
		t, err := c.bindTable(a, arg)
		if err != nil {
			return nil, err
		}
		node.Tables = append(node.Tables, t)
		modes = append(modes, t.Delivered)
		keys = append(keys, t.Keys)
	}
	if len(c.def.State) > 0 && !hasSetSemantics(c.def) {
		return nil, errAt(c.pos, sqlerr.InvalidFunction, "Function '%s' declares state entries (%s), but only functions with a set-semantic table argument can be stateful",
			c.name, c.def.State[0].StateName()).
			WithHint("declare the table argument with ptf.SetSemantic (and PARTITION BY it), or remove the state")
	}
	if err := c.checkCoPartitioning(node); err != nil {
		return nil, err
	}
	if err := c.bindOnTime(node, bound); err != nil {
		return nil, err
	}
	if err := c.checkOrderByTime(node); err != nil {
		return nil, err
	}
	produced, err := c.producedMode(ptf.ChangelogContext{Tables: modes, Required: c.required, Args: node.Scalars, PartitionBy: keys})
	if err != nil {
		return nil, err
	}
	node.Produced = produced
	if err := c.checkOutputMode(node); err != nil {
		return nil, err
	}
	if err := c.bindUID(node, bound); err != nil {
		return nil, err
	}
	return node, c.deriveOutput(node)
}

// isNullLiteral reports whether e is the constant NULL (untyped or cast).
func isNullLiteral(e expr.Expr) bool {
	if e == nil {
		return false
	}
	v, err := e.Eval(nil)
	return err == nil && v.IsNull()
}

func partitionHint(a ptf.Arg) string {
	if a.Traits.Has(ptf.SetSemantic) {
		return " PARTITION BY key"
	}
	return ""
}

func (c *ptfCall) bindScalar(node *jobgraph.PTF, a ptf.Arg, arg callArg, given bool) error {
	if !given {
		if !a.Optional {
			return errAt(c.pos, sqlerr.InvalidArgument, "Missing argument '%s' of type %s in the call of function '%s'", a.Name, a.Type, c.name).
				WithHint("add %s => <value> to the call", a.Name)
		}
		node.Scalars[a.Name] = types.Null
		return nil
	}
	if arg.table != nil {
		return errAt(arg.valuePos, sqlerr.InvalidArgument, "Invalid argument value. Argument '%s' expects a scalar value of type %s, but a table was passed.", a.Name, a.Type)
	}
	if a.IsDescriptor() {
		if isNullLiteral(arg.scalar) {
			if a.NotNull() {
				return errAt(arg.valuePos, sqlerr.InvalidArgument, "Argument '%s' of function '%s' is DESCRIPTOR NOT NULL, but NULL was passed", a.Name, c.name).
					WithHint("pass %s => DESCRIPTOR(column, ...)", a.Name)
			}
			node.Scalars[a.Name] = types.Null // an optional descriptor passed as NULL
			return nil
		}
		if !arg.isDesc {
			return errAt(arg.valuePos, sqlerr.InvalidArgument, "Argument '%s' expects a DESCRIPTOR(...)", a.Name)
		}
		names := make([]types.Value, len(arg.desc))
		for i, d := range arg.desc {
			names[i] = types.NewString(d.name)
		}
		node.Scalars[a.Name] = types.NewArray(names)
		return nil
	}
	want, err := types.ParseType(a.Type)
	if err != nil {
		return errAt(arg.pos, sqlerr.Internal, "function '%s' declares argument '%s' with an invalid type: %v", c.name, a.Name, err)
	}
	if arg.isDesc || arg.scalar == nil {
		return errAt(arg.valuePos, sqlerr.InvalidArgument, "Argument '%s' expects a value of type %s", a.Name, want)
	}
	e := arg.scalar
	if !e.Type().Same(want) {
		if !expr.CanCastImplicitly(e.Type(), want) {
			return errAt(arg.valuePos, sqlerr.TypeMismatch, "Invalid argument type for '%s' of function '%s': expected %s, but got %s", a.Name, c.name, want, e.Type()).
				WithHint("pass a %s value or CAST(... AS %s)", want, want)
		}
		if e, err = expr.Cast(e, want, false); err != nil {
			return errAt(arg.valuePos, sqlerr.TypeMismatch, "argument '%s': %v", a.Name, err)
		}
	}
	v, err := e.Eval(nil)
	if err != nil {
		return errAt(arg.valuePos, sqlerr.InvalidArgument, "Argument '%s' must be a constant: %v", a.Name, err)
	}
	node.Scalars[a.Name] = v
	return nil
}

func (c *ptfCall) bindTable(a ptf.Arg, arg callArg) (jobgraph.PTFTable, error) {
	tv := arg.table
	set := a.Traits.Has(ptf.SetSemantic)
	t := jobgraph.PTFTable{
		Arg: a.Name, Input: tv.rel.input, SetSemantic: set, TimeColumn: -1,
		PassThrough: a.Traits.Has(ptf.PassColumnsThrough), Schema: tv.rel.schema,
	}
	if tv.hasPartition && !set {
		argIdx := slices.IndexFunc(c.def.Args, func(x ptf.Arg) bool { return x.Name == a.Name })
		return t, errAt(tv.partitionBy[0].pos, sqlerr.InvalidArgument,
			"Only tables with set semantics may be partitioned. Invalid PARTITION BY clause in the %d-th operand of table function '%s'", argIdx, c.name).
			WithHint("remove PARTITION BY: argument '%s' has row semantics", a.Name)
	}
	if len(tv.orderBy) > 0 && !set {
		argIdx := slices.IndexFunc(c.def.Args, func(x ptf.Arg) bool { return x.Name == a.Name })
		return t, errAt(tv.orderBy[0].pos, sqlerr.InvalidArgument,
			"Only tables with set semantics may be ordered. Invalid ORDER BY clause in the %d-th operand of table function '%s'", argIdx, c.name).
			WithHint("remove ORDER BY: argument '%s' has row semantics", a.Name)
	}
	if set && !tv.hasPartition && !a.Traits.Has(ptf.OptionalPartitionBy) {
		return t, errAt(arg.pos, sqlerr.InvalidArgument, "Table argument '%s' requires a PARTITION BY clause for parallel processing.", a.Name).
			WithHint("write %s => TABLE t PARTITION BY key_column", a.Name)
	}
	for _, p := range tv.partitionBy {
		i := tv.rel.schema.Index(p.name)
		if i < 0 {
			return t, errAt(p.pos, sqlerr.UnknownColumn, "Invalid column '%s' for PARTITION BY clause. Available columns are: [%s]",
				p.name, strings.Join(tv.rel.schema.Names(), ", "))
		}
		t.Keys = append(t.Keys, i)
	}
	if err := c.bindOrderBy(a, tv, &t); err != nil {
		return t, err
	}
	if a.Type != "" {
		want, err := types.ParseType(a.Type)
		if err != nil {
			return t, errAt(arg.pos, sqlerr.Internal, "function '%s' declares table argument '%s' with an invalid type: %v", c.name, a.Name, err)
		}
		if len(want.Fields) != tv.rel.schema.Len() {
			return t, errAt(arg.pos, sqlerr.TypeMismatch, "Argument '%s' expects a typed table %s, but the provided table is incompatible: it has %d columns",
				a.Name, want, tv.rel.schema.Len())
		}
		for i, f := range want.Fields {
			got := tv.rel.schema.Fields[i].Type
			if !got.Same(f.Type) && !expr.CanCastImplicitly(got, f.Type) {
				return t, errAt(arg.pos, sqlerr.TypeMismatch, "Argument '%s' expects a typed table %s, but column %d ('%s') has type %s",
					a.Name, want, i+1, tv.rel.schema.Fields[i].Name, got)
			}
			x, err := expr.Col(i, f.Name, got)
			if err == nil && !got.Same(f.Type) {
				x, err = expr.Cast(x, f.Type, false)
			}
			if err != nil {
				return t, errAt(arg.pos, sqlerr.TypeMismatch, "Argument '%s': column %d: %v", a.Name, i+1, err)
			}
			t.ArgCast = append(t.ArgCast, x)
		}
		t.ArgSchema = types.NewSchema(want.Fields...)
	}
	// The delivered changelog mode (reference §12.1).
	switch {
	case tv.rel.mode == jobgraph.Append:
		t.Delivered = ptf.InsertOnly()
	case !a.Traits.Has(ptf.SupportUpdates):
		return t, errAt(arg.pos, sqlerr.ChangelogMismatch,
			"Table argument '%s' of function '%s' receives an updating table (%s), but the function doesn't support consuming update changes.", a.Name, c.name, tv.rel.mode).
			WithHint("declare the argument with ptf.SupportUpdates, or pass an append-only table")
	case tv.rel.mode == jobgraph.Upsert && !a.Traits.Has(ptf.RequireUpdateBefore) && sameColumns(t.Keys, tv.rel.upsertKey):
		t.Delivered = ptf.Upsert()
		if a.Traits.Has(ptf.RequireFullDelete) {
			t.Delivered = ptf.UpsertFullDeletes()
		}
	default:
		t.Delivered = ptf.Retract()
	}
	if k := tv.rel.kinds; !k.IsZero() && !k.Contains(types.Delete) {
		// An input that never deletes delivers no deletes: Flink's
		// retract-no-delete and upsert-no-delete.
		t.Delivered = t.Delivered.Without(types.Delete)
	}
	return t, nil
}

// bindOrderBy resolves the ORDER BY items of a set-semantic table with
// Flink's checks (reference §10): known columns, no duplicates, and a first
// column that is a TIMESTAMP or TIMESTAMP_LTZ (precision up to 3) sorted
// ASC NULLS LAST. bindOnTime checks that it is the on_time column when
// both are given, checkOrderByTime that it is a time attribute.
func (c *ptfCall) bindOrderBy(a ptf.Arg, tv *tableArgValue, t *jobgraph.PTFTable) error {
	if len(tv.orderBy) == 0 {
		return nil
	}
	schema := tv.rel.schema
	for _, o := range tv.orderBy {
		if o.name == "" {
			return errAt(o.pos, sqlerr.InvalidArgument, "Column reference expected for ORDER BY clause.").
				WithHint("order by column names of the table, e.g. ORDER BY (ts, score DESC)")
		}
		i := schema.Index(o.name)
		if i < 0 {
			return errAt(o.pos, sqlerr.UnknownColumn, "Invalid column '%s' for ORDER BY clause. Available columns are: [%s]",
				o.name, strings.Join(schema.Names(), ", "))
		}
		t.OrderBy = append(t.OrderBy, i)
		t.OrderDesc = append(t.OrderDesc, o.desc)
		t.OrderNullsFirst = append(t.OrderNullsFirst, o.nullsFirst)
	}
	invalid := fmt.Sprintf("Invalid ORDER BY clause for table argument '%s'.", a.Name)
	for j, i := range t.OrderBy {
		if slices.Index(t.OrderBy, i) < j {
			return errAt(tv.orderBy[j].pos, sqlerr.InvalidArgument, "%s Column '%s' appears more than once in ORDER BY.", invalid, schema.Fields[i].Name)
		}
	}
	first := tv.orderBy[0]
	ft := schema.Fields[t.OrderBy[0]].Type
	if !ft.IsTimestamp() || ft.Precision > 3 {
		return errAt(first.pos, sqlerr.TypeMismatch,
			"%s The first ORDER BY column must be a TIMESTAMP or TIMESTAMP_LTZ column (up to precision 3). However, column '%s' has data type '%s'.",
			invalid, schema.Fields[t.OrderBy[0]].Name, ft).
			WithHint("order by the table's watermarked time column first")
	}
	if first.desc || first.nullsFirst {
		return errAt(first.pos, sqlerr.InvalidArgument, "%s The first ORDER BY column on a timestamp column must be in ascending order.", invalid).
			WithHint("write ORDER BY %s or %s ASC", first.name, first.name)
	}
	if c.orderPos == nil {
		c.orderPos = map[string]sqlerr.Pos{}
	}
	c.orderPos[a.Name] = first.pos
	return nil
}

// checkOrderByTime checks that the first ORDER BY column is a time
// attribute (Flink checks it last, on the physical plan). That it matches
// on_time is checked by bindOnTime.
func (c *ptfCall) checkOrderByTime(node *jobgraph.PTF) error {
	for _, t := range node.Tables {
		if len(t.OrderBy) == 0 {
			continue
		}
		name := t.Schema.Fields[t.OrderBy[0]].Name
		if r := c.relOf(t.Input); r == nil || !r.timeAttrs[t.OrderBy[0]] {
			return errAt(c.orderPos[t.Arg], sqlerr.InvalidArgument,
				"Invalid ORDER BY clause for table argument '%s'. The first ORDER BY column '%s' is not a valid time attribute. Only columns with a watermark declaration qualify for ORDER BY.", t.Arg, name).
				WithHint("declare WATERMARK FOR %s AS %s on the table", name, name)
		}
	}
	return nil
}

func sameColumns(a, b []int) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func (c *ptfCall) checkCoPartitioning(node *jobgraph.PTF) error {
	if len(node.Tables) < 2 {
		return nil
	}
	var sets []string
	mismatch := false
	first := node.Tables[0]
	for _, t := range node.Tables {
		var ts []string
		for i, k := range t.Keys {
			ft := t.Schema.Fields[k].Type
			ts = append(ts, ft.String())
			if len(t.Keys) != len(first.Keys) || !ft.Same(first.Schema.Fields[first.Keys[min(i, len(first.Keys)-1)]].Type) {
				mismatch = true
			}
		}
		if len(t.Keys) != len(first.Keys) {
			mismatch = true
		}
		sets = append(sets, "["+strings.Join(ts, ", ")+"]")
	}
	if mismatch {
		return errAt(c.pos, sqlerr.InvalidFunction,
			"Invalid PARTITION BY columns. The number of columns and their data types must match across all involved table arguments. Given partition key sets: %s",
			strings.Join(sets, ", "))
	}
	return nil
}

// bindOnTime resolves on_time => DESCRIPTOR(...) to one time column per
// table (reference §8).
func (c *ptfCall) bindOnTime(node *jobgraph.PTF, bound map[string]callArg) error {
	arg, ok := bound["on_time"]
	updating := false
	for _, t := range node.Tables {
		updating = updating || !t.Delivered.IsInsertOnly()
	}
	if !ok {
		for i, a := range c.def.TableArgs() {
			if a.Traits.Has(ptf.RequireOnTime) {
				return errAt(c.pos, sqlerr.InvalidArgument,
					"Table argument '%s' requires a time attribute. Please provide one using the implicit `on_time` argument. For example: %s(..., on_time => DESCRIPTOR(`my_timestamp`))", a.Name, c.name).
					WithHint("add on_time => DESCRIPTOR(<watermarked column of %s>)", node.Tables[i].Arg)
			}
		}
		return nil
	}
	c.onTimePos = arg.pos
	if !arg.isDesc {
		return errAt(arg.valuePos, sqlerr.InvalidArgument, "The `on_time` argument must be a DESCRIPTOR(column), for example on_time => DESCRIPTOR(event_time)")
	}
	if updating {
		return errAt(arg.pos, sqlerr.InvalidFunction, "Time operations using the `on_time` argument are currently not supported for PTFs that consume or produce updates.")
	}
	var unknown []string
	unknownAt := arg.pos
	for _, d := range arg.desc {
		found := false
		for ti := range node.Tables {
			t := &node.Tables[ti]
			i := t.Schema.Index(d.name)
			if i < 0 {
				continue
			}
			found = true
			if t.TimeColumn >= 0 {
				return errAt(d.pos, sqlerr.InvalidArgument, "Ambiguous time attribute found. The `on_time` argument must reference at most one column in a table argument. Table argument '%s' has more than one.", t.Arg)
			}
			ft := t.Schema.Fields[i].Type
			if !ft.IsTimestamp() || ft.Precision > 3 {
				return errAt(d.pos, sqlerr.TypeMismatch, "Unsupported data type for time attribute. The `on_time` argument must reference a TIMESTAMP or TIMESTAMP_LTZ column (up to precision 3). Column '%s' has type %s.", d.name, ft)
			}
			if len(t.OrderBy) > 0 && t.OrderBy[0] != i {
				return errAt(c.orderPos[t.Arg], sqlerr.InvalidArgument,
					"Invalid ORDER BY clause for table argument '%s'. When both ORDER BY and the 'on_time' argument are defined, the referenced timestamp columns must match.", t.Arg).
					WithHint("order by %s first, or pass on_time => DESCRIPTOR(%s)", d.name, t.Schema.Fields[t.OrderBy[0]].Name)
			}
			if r := c.relOf(t.Input); r == nil || !r.timeAttrs[i] {
				return errAt(d.pos, sqlerr.InvalidArgument, "Column '%s' is not a valid time attribute. Only columns with a watermark declaration qualify for the `on_time` argument.", d.name).
					WithHint("declare WATERMARK FOR %s AS %s on the table", d.name, d.name)
			}
			t.TimeColumn = i
		}
		if !found {
			if len(unknown) == 0 {
				unknownAt = d.pos
			}
			unknown = append(unknown, d.name)
		}
	}
	if len(unknown) > 0 {
		return errAt(unknownAt, sqlerr.UnknownColumn, "Invalid time attribute declaration. Each column in the `on_time` argument must reference at least one column in one of the table arguments. Unknown references: [%s]", strings.Join(unknown, ", "))
	}
	var missing []string
	for _, t := range node.Tables {
		if t.TimeColumn < 0 {
			missing = append(missing, t.Arg)
		}
	}
	if len(missing) > 0 && len(missing) < len(node.Tables) {
		return errAt(arg.pos, sqlerr.InvalidArgument, "Invalid time attribute declaration. If multiple tables are declared, the `on_time` argument must reference a time column for each table argument or none. Missing time attributes for: [%s]", strings.Join(missing, ", "))
	}
	node.EmitRowtime = len(node.Tables) > 0 && len(missing) == 0
	return nil
}

func (c *ptfCall) relOf(input int) *rel {
	for _, a := range c.args {
		if a.table != nil && a.table.rel.input == input {
			return a.table.rel
		}
	}
	return nil
}

func (c *ptfCall) checkOutputMode(node *jobgraph.PTF) error {
	p := node.Produced
	if p.IsInsertOnly() {
		return nil
	}
	for _, t := range node.Tables {
		if t.PassThrough {
			return errAt(c.pos, sqlerr.InvalidFunction, "Pass-through columns are not supported for PTFs that produce updates.")
		}
		if p.IsUpsert() && !t.SetSemantic {
			return errAt(c.pos, sqlerr.InvalidFunction, "PTFs that take table arguments with row semantics don't support upsert output. Table argument '%s' of function '%s' must use set semantics.", t.Arg, c.name)
		}
	}
	if node.EmitRowtime {
		return errAt(c.onTimePos, sqlerr.InvalidFunction, "Time operations using the `on_time` argument are currently not supported for PTFs that consume or produce updates.")
	}
	return nil
}

func (c *ptfCall) bindUID(node *jobgraph.PTF, bound map[string]callArg) error {
	hasSet := false
	for _, a := range c.def.TableArgs() {
		hasSet = hasSet || a.Traits.Has(ptf.SetSemantic)
	}
	if arg, ok := bound["uid"]; ok {
		var uid, found string
		if arg.scalar != nil {
			if v, err := arg.scalar.Eval(nil); err == nil {
				found = types.Format(v, arg.scalar.Type())
				if v.Kind() == types.KindString {
					uid = v.Str()
				}
			}
		}
		if !uidPattern.MatchString(uid) {
			return errAt(arg.valuePos, sqlerr.InvalidArgument,
				"Invalid unique identifier for process table function. The `uid` argument must be a string literal that follows the pattern [a-zA-Z_][a-zA-Z-_0-9]*. But found: %s", found)
		}
		node.UID = uid
		return nil
	}
	if !hasSet {
		return nil
	}
	if !uidPattern.MatchString(c.name) {
		return errAt(c.pos, sqlerr.InvalidArgument,
			"Could not derive a unique identifier for process table function '%s'. The function's name does not qualify for a UID. Please provide a custom identifier using the implicit `uid` argument. For example: myFunction(..., uid => 'my-id')", c.name)
	}
	node.UID = c.name
	return nil
}

// producedMode calls the function's Changelog callback.
func (c *ptfCall) producedMode(cc ptf.ChangelogContext) (m ptf.ChangelogMode, err error) {
	err = c.guard("Changelog", func() error { m = c.def.ProducedMode(cc); return nil })
	return m, err
}

// guard runs a planning callback of the function (user code, possibly in
// a WebAssembly module), turning a panic into the statement's error.
func (c *ptfCall) guard(callback string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errAt(c.pos, sqlerr.InvalidFunction, "Function '%s' failed in its %s callback: %v", c.name, callback, r)
		}
	}()
	return f()
}

// deriveOutput builds the output schema (reference §4).
func (c *ptfCall) deriveOutput(node *jobgraph.PTF) error {
	if c.def.DeriveOutput != nil {
		ctx := ptf.OutputContext{Tables: map[string]ptf.TableSemantics{}, Args: node.Scalars}
		for _, t := range node.Tables {
			schema := t.Schema
			if t.ArgSchema != nil {
				schema = t.ArgSchema
			}
			ctx.Tables[t.Arg] = ptf.TableSemantics{Schema: schema, PartitionBy: t.Keys, TimeColumn: t.TimeColumn, Changelog: t.Delivered}
		}
		var out *types.Schema
		err := c.guard("DeriveOutput", func() (err error) { out, err = c.def.DeriveOutput(ctx); return err })
		if se, ok := sqlerr.As(err); ok {
			return se
		}
		if err != nil {
			return errAt(c.pos, sqlerr.InvalidArgument, "%v", err)
		}
		node.FuncOut = out
		return c.finishOutput(node, out.Fields)
	}
	outT, err := types.ParseType(c.def.Output)
	if err != nil {
		return errAt(c.pos, sqlerr.Internal, "function '%s' declares an invalid output type: %v", c.name, err)
	}
	var funcFields []types.Field
	if outT.ID == types.TypeRow {
		funcFields = outT.Fields
	} else {
		funcFields = []types.Field{{Name: "EXPR$0", Type: outT}}
	}
	node.FuncOut = types.NewSchema(funcFields...)
	return c.finishOutput(node, funcFields)
}

// finishOutput puts the key prefix (or pass-through columns) and rowtime
// around the function's columns.
func (c *ptfCall) finishOutput(node *jobgraph.PTF, funcFields []types.Field) error {
	var fields []types.Field
	for _, t := range node.Tables {
		switch {
		case t.PassThrough:
			fields = append(fields, t.Schema.Fields...)
		case t.SetSemantic:
			for _, k := range t.Keys {
				fields = append(fields, t.Schema.Fields[k])
			}
		}
	}
	fields = append(fields, funcFields...)
	if node.EmitRowtime {
		rt := node.Tables[0].Schema.Fields[node.Tables[0].TimeColumn].Type
		for _, t := range node.Tables[1:] {
			if t.Schema.Fields[t.TimeColumn].Type.ID != rt.ID {
				return errAt(c.pos, sqlerr.TypeMismatch, "All columns in the `on_time` argument must reference the same data type kind")
			}
		}
		fields = append(fields, types.Field{Name: "rowtime", Type: rt.NonNull()})
	}
	node.Out = types.NewSchema(uniqueNames(fields)...)
	return nil
}

// uniqueNames suffixes duplicate names with 0, 1, ... as Flink does.
func uniqueNames(fields []types.Field) []types.Field {
	out := slices.Clone(fields)
	seen := map[string]bool{}
	for i := range out {
		name := out[i].Name
		if seen[name] {
			for n := 0; ; n++ {
				cand := fmt.Sprintf("%s%d", name, n)
				if !seen[cand] {
					name = cand
					break
				}
			}
		}
		seen[name] = true
		out[i].Name = name
	}
	return out
}

func hasSetSemantics(d *ptf.Definition) bool {
	for _, a := range d.TableArgs() {
		if a.Traits.Has(ptf.SetSemantic) {
			return true
		}
	}
	return false
}
