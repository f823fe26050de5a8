package ptftest

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/ptfhost"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Option configures a Harness.
type Option func(*config) error

type config struct {
	tables   []ptfhost.TableSpec
	scalars  map[string]types.Value
	onTime   []string
	uid      string
	start    time.Time
	ttl      time.Duration
	required ptf.ChangelogMode
	name     string
	// positional are scalar arguments by position (Args).
	positional []types.Value
}

// TableOption configures a table argument.
type TableOption func(*ptfhost.TableSpec) error

// Table declares the table passed to argument arg, with its row type
// ("ROW<order_id INT, event_type STRING>").
func Table(arg, rowType string, opts ...TableOption) Option {
	return func(c *config) error {
		t, err := types.ParseType(rowType)
		if err != nil {
			return fmt.Errorf("table %s: %w", arg, err)
		}
		if t.ID != types.TypeRow {
			return fmt.Errorf("table %s: the type must be a ROW<...>, got %s", arg, t)
		}
		spec := ptfhost.TableSpec{Arg: arg, Schema: types.NewSchema(t.Fields...)}
		for _, o := range opts {
			if err := o(&spec); err != nil {
				return fmt.Errorf("table %s: %w", arg, err)
			}
		}
		c.tables = append(c.tables, spec)
		return nil
	}
}

// PartitionBy sets the PARTITION BY columns.
func PartitionBy(cols ...string) TableOption {
	return func(t *ptfhost.TableSpec) error { t.PartitionBy = cols; return nil }
}

// Upsert makes the table an upsert changelog keyed by key.
func Upsert(key ...string) TableOption {
	return func(t *ptfhost.TableSpec) error { t.Mode, t.UpsertKey = ptfhost.Upsert, key; return nil }
}

// Retract makes the table a retract changelog (+I, -U, +U, -D).
func Retract() TableOption {
	return func(t *ptfhost.TableSpec) error { t.Mode = ptfhost.Retract; return nil }
}

// TimeAttribute declares the table's watermarked time column; pass it to
// OnTime to use it as the call's on_time column.
func TimeAttribute(col string) TableOption {
	return func(t *ptfhost.TableSpec) error { t.TimeAttribute = col; return nil }
}

// OrderBy sets the ORDER BY items of a set-semantic table, as SQL's
// TABLE t PARTITION BY k ORDER BY (items): each is a column name
// optionally followed by ASC or DESC and by NULLS FIRST or NULLS LAST
// ("ts", "score DESC", "name ASC NULLS FIRST"). The first must be the
// table's TimeAttribute, ascending. Rows are then buffered and passed to
// the function in time order as the watermark passes them; late rows are
// dropped.
func OrderBy(items ...string) TableOption {
	return func(t *ptfhost.TableSpec) error {
		t.OrderBy = nil
		for _, item := range items {
			o, err := parseOrderItem(item)
			if err != nil {
				return err
			}
			t.OrderBy = append(t.OrderBy, o)
		}
		return nil
	}
}

func parseOrderItem(item string) (ptfhost.OrderSpec, error) {
	f := strings.Fields(item)
	if len(f) == 0 {
		return ptfhost.OrderSpec{}, fmt.Errorf("empty ORDER BY item")
	}
	o := ptfhost.OrderSpec{Column: f[0]}
	rest := f[1:]
	if len(rest) > 0 {
		switch strings.ToUpper(rest[0]) {
		case "ASC":
			rest = rest[1:]
		case "DESC":
			o.Desc, rest = true, rest[1:]
		}
	}
	if len(rest) == 2 && strings.EqualFold(rest[0], "NULLS") {
		switch n := strings.ToUpper(rest[1]); n {
		case "FIRST", "LAST":
			o.Nulls, rest = n, nil
		}
	}
	if len(rest) > 0 {
		return ptfhost.OrderSpec{}, fmt.Errorf("invalid ORDER BY item %q: want a column name, then ASC or DESC, then NULLS FIRST or NULLS LAST", item)
	}
	return o, nil
}

// Args sets the scalar arguments by position: the function's scalar
// arguments in declaration order, as a positional SQL call passes them
// after its tables (f(TABLE t PARTITION BY k, 3)). A NULL (types.Value{})
// leaves one out, as SQL's DEFAULT: an optional argument is then NULL.
func Args(vals ...types.Value) Option {
	return func(c *config) error { c.positional = vals; return nil }
}

// Arg sets a scalar argument.
func Arg(name string, v types.Value) Option {
	return func(c *config) error { c.scalars[name] = v; return nil }
}

// OnTime sets on_time => DESCRIPTOR(cols...). Each column must be a table's
// TimeAttribute.
func OnTime(cols ...string) Option {
	return func(c *config) error { c.onTime = cols; return nil }
}

// UID sets the uid argument.
func UID(uid string) Option { return func(c *config) error { c.uid = uid; return nil } }

// Name sets the function name used in messages and as the default uid.
// Default: "f".
func Name(n string) Option { return func(c *config) error { c.name = n; return nil } }

// StartTime sets the processing time the harness starts at.
// Default: 2026-01-01T00:00:00Z.
func StartTime(t time.Time) Option { return func(c *config) error { c.start = t; return nil } }

// DefaultTTL sets 'table.exec.state.ttl' for entries declared with
// ptf.DefaultTTL.
func DefaultTTL(d time.Duration) Option { return func(c *config) error { c.ttl = d; return nil } }

// Required sets what the consumer of the output requires (passed to the
// function's Changelog callback). Default: ptf.Retract().
func Required(m ptf.ChangelogMode) Option {
	return func(c *config) error { c.required = m; return nil }
}

// Timer is a pending or fired timer.
type Timer struct {
	Key  []types.Value
	Name string // "" for unnamed timers
	Time time.Time
	// Domain is ptf.EventTime (the zero value) or ptf.ProcessingTime.
	Domain ptf.TimerDomain
}

// Collected is a row as the function collected it.
type Collected struct {
	Kind   types.RowKind
	Values []types.Value
}

// Harness drives one function call. It is not safe for concurrent use.
type Harness struct {
	def       *ptf.Definition
	cfg       *config
	host      *ptfhost.Host
	out       []types.Row
	collected []Collected
	fired     []Timer
	inputs    map[string]int
	// wms are the watermarks of the tables; next and nextArg the harness
	// fed by this one (Feed).
	wms     map[int]time.Time
	fed     time.Time
	next    *Harness
	nextArg string
}

// New plans the call with the same validation as SQL and returns a harness.
func New(def *ptf.Definition, opts ...Option) (*Harness, error) {
	c := &config{scalars: map[string]types.Value{}, start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), required: ptf.Retract(), name: "f"}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if err := def.Validate(); err != nil {
		return nil, err
	}
	if err := c.bindPositional(def); err != nil {
		return nil, err
	}
	h := &Harness{def: def, cfg: c, inputs: map[string]int{}, wms: map[int]time.Time{}}
	for i, t := range c.tables {
		if !isTableArg(def, t.Arg) {
			return nil, fmt.Errorf("table %s: the function has no table argument named %q", t.Arg, t.Arg)
		}
		if _, dup := h.inputs[t.Arg]; dup {
			return nil, fmt.Errorf("table %s is declared twice", t.Arg)
		}
		h.inputs[t.Arg] = i
	}
	host, err := ptfhost.New(ptfhost.Call{Name: c.name, Def: def, Tables: c.tables, Scalars: c.scalars,
		OnTime: c.onTime, UID: c.uid, Required: c.required, StateTTL: c.ttl}, c.start)
	if err != nil {
		return nil, err
	}
	host.Emit = h.emit
	host.OnCollect = func(k types.RowKind, v []types.Value) {
		h.collected = append(h.collected, Collected{Kind: k, Values: append([]types.Value(nil), v...)})
	}
	host.OnTimer = func(key []types.Value, t ptfhost.Timer) {
		h.fired = append(h.fired, Timer{Key: append([]types.Value(nil), key...), Name: t.Name, Time: t.Time, Domain: t.Domain})
	}
	h.host = host
	return h, nil
}

// Schema returns the output schema, as SELECT * FROM f(...) would have.
func (h *Harness) Schema() *types.Schema { return h.host.Schema() }

// ChangelogMode returns the mode the function produces in this call.
func (h *Harness) ChangelogMode() ptf.ChangelogMode { return h.host.Produced() }

// Process feeds one row of the given kind to table argument arg. The kind
// must be one the table delivers to the function: only +I for an
// append-only table, see Upsert and Retract for updating ones.
func (h *Harness) Process(arg string, kind types.RowKind, vals ...types.Value) error {
	i, ok := h.inputs[arg]
	if !ok {
		return fmt.Errorf("unknown table argument %q", arg)
	}
	if n := h.cfg.tables[i].Schema.Len(); len(vals) != n {
		return fmt.Errorf("table %s has %d columns, got %d values", arg, n, len(vals))
	}
	if d, ok := h.host.Delivered(i); ok && !d.Contains(kind) {
		return fmt.Errorf("table %s delivers %s to the function; a row of kind %s cannot occur (declare the table with Upsert or Retract)", arg, d, kind.Name())
	}
	return h.host.Process(i, types.Row{Kind: kind, Values: append([]types.Value(nil), vals...)})
}

func isTableArg(def *ptf.Definition, name string) bool {
	for _, a := range def.TableArgs() {
		if a.Name == name {
			return true
		}
	}
	return false
}

// Insert feeds an insert (+I) row to table argument arg.
func (h *Harness) Insert(arg string, vals ...types.Value) error {
	return h.Process(arg, types.Insert, vals...)
}

// Watermark advances the watermark of every table and fires due timers.
func (h *Harness) Watermark(t time.Time) error {
	for i := range h.cfg.tables {
		if err := h.host.Watermark(i, t); err != nil {
			return err
		}
		h.wms[i] = t
	}
	return h.forwardWatermark()
}

// TableWatermark advances the watermark of one table; the function's
// watermark is the minimum over tables.
func (h *Harness) TableWatermark(arg string, t time.Time) error {
	i, ok := h.inputs[arg]
	if !ok {
		return fmt.Errorf("unknown table argument %q", arg)
	}
	if err := h.host.Watermark(i, t); err != nil {
		return err
	}
	h.wms[i] = t
	return h.forwardWatermark()
}

// End sends the maximum watermark, as the end of a bounded input does,
// firing every event-time timer, then the processing-time timers already
// due; the others stay. A harness fed by this one (Feed) ends too.
func (h *Harness) End() error {
	if err := h.host.End(); err != nil {
		return err
	}
	if h.next != nil {
		return h.next.End()
	}
	return nil
}

// AdvanceTime moves processing time forward by d, as SetProcessingTime
// does: state TTL counts in it, and the processing-time timers due by then
// fire. The error is the first a firing timer's OnTimer returned.
func (h *Harness) AdvanceTime(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("processing time cannot go back (AdvanceTime(%s))", d)
	}
	return h.host.Advance(d)
}

// SetProcessingTime sets processing time to t, as Flink's harnesses'
// setProcessingTime, and fires the processing-time timers due by t
// (ptf.Context.RegisterOnProcessingTime) in (time, key, name) order; it
// cannot go back. Processing time moves only with SetProcessingTime and
// AdvanceTime: Process, Watermark and End leave it. End, like the end of
// a bounded input in a job, fires only the processing-time timers already
// due (registered at or before the current processing time since the
// clock last moved), none ahead of time.
func (h *Harness) SetProcessingTime(t time.Time) error {
	if t.Before(h.host.Now()) {
		return fmt.Errorf("processing time cannot go back from %s to %s", h.host.Now().Format(time.RFC3339Nano), t.Format(time.RFC3339Nano))
	}
	return h.host.Advance(t.Sub(h.host.Now()))
}

// Now returns the current processing time.
func (h *Harness) Now() time.Time { return h.host.Now() }

// Output returns the rows emitted so far, as the runtime emits them.
func (h *Harness) Output() []types.Row { return h.out }

// TakeOutput returns the rows emitted since the last call and forgets them.
func (h *Harness) TakeOutput() []types.Row {
	out := h.out
	h.out = nil
	return out
}

// Collected returns the rows as the function collected them.
func (h *Harness) Collected() []Collected { return h.collected }

// Timers returns the pending timers of a key: its event-time timers in
// firing order, then its processing-time timers in firing order.
func (h *Harness) Timers(key ...types.Value) []Timer {
	var out []Timer
	for _, t := range h.host.Timers(key...) {
		out = append(out, Timer{Key: key, Name: t.Name, Time: t.Time, Domain: t.Domain})
	}
	return out
}

// Fired returns the timers fired so far, in firing order.
func (h *Harness) Fired() []Timer { return h.fired }

// State returns the value of a value-state entry for a key (a *T), and
// whether the key has one.
func (h *Harness) State(e ptf.StateEntry, key ...types.Value) (any, bool, error) {
	if err := checkValueEntry(e); err != nil {
		return nil, false, err
	}
	return h.host.ValueState(e, key...)
}

// SetState sets the value of a value-state entry for a key; v must be a
// *T of the entry's type.
func (h *Harness) SetState(e ptf.StateEntry, v any, key ...types.Value) error {
	if err := checkValueEntry(e); err != nil {
		return err
	}
	if want := reflect.TypeOf(e.NewState()); reflect.TypeOf(v) != want || reflect.ValueOf(v).IsNil() {
		return fmt.Errorf("state entry '%s' holds a %s, got %T(%v); use ClearState to remove it", e.StateName(), want, v, v)
	}
	return h.host.SetValueState(e, v, key...)
}

// ClearState removes a value-state entry of a key.
func (h *Harness) ClearState(e ptf.StateEntry, key ...types.Value) error {
	if err := checkValueEntry(e); err != nil {
		return err
	}
	return h.host.ClearValueState(e, key...)
}

// checkValueEntry refuses list and map views, which have no whole value to
// read or set.
func checkValueEntry(e ptf.StateEntry) error {
	if e == nil || e.StateKind() != ptf.ValueStateKind {
		return fmt.Errorf("State, SetState and ClearState take value-state entries (ptf.NewValue), not %T", e)
	}
	return nil
}

// Snapshot checkpoints the function's state and timers.
func (h *Harness) Snapshot() ([]byte, error) {
	return h.host.Snapshot()
}

// Restore replaces the function's state and timers with a snapshot, as a
// restart from a checkpoint does (watermarks start again from none).
func (h *Harness) Restore(snap []byte) error {
	h.wms, h.fed = map[int]time.Time{}, time.Time{}
	return h.host.Restore(snap)
}

// Format renders rows as +I[a, b] lines with the harness's output types.
func (h *Harness) Format(rows []types.Row) string {
	var b strings.Builder
	fs := h.Schema().Fields
	for _, r := range rows {
		b.WriteString(r.Kind.String())
		b.WriteByte('[')
		for i, v := range r.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			t := types.NullType
			if i < len(fs) {
				t = fs[i].Type
			}
			b.WriteString(types.Format(v, t))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// Run calls Eval once, as a SQL call of a function without table
// arguments does.
func (h *Harness) Run() error {
	if h.host.TableCount() > 0 {
		return fmt.Errorf("Run is for functions without table arguments; feed rows with Process or Insert")
	}
	return h.host.EvalOnce()
}
