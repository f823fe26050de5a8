package runtime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// KV is the keyed state storage operators use: value state written back
// at checkpoints, list and map views read and written entry by entry, and
// timers persisted at checkpoints.
type KV = state.Backend

// errTimersNotSupported is Flink's message for timers in a PTF that cannot
// have them.
var errTimersNotSupported = errors.New("Timers are not supported in the current PTF declaration. " +
	"Note that only PTFs that take set semantic tables support timers. " +
	"Also timers are not available for advanced traits such as supporting pass-through columns or updates.")

// keyState is the cached state of one partition key. Entries are indexed
// like the definition's State list.
type keyState struct {
	keyVals []types.Value
	vals    []any
	loaded  []bool
	dirty   []bool // write (or delete when vals is nil) at the next flush
	wtime   []int64
	// before holds the encoded value as last loaded or written, for
	// entries with a TTL: their write time moves only when they change.
	before  [][]byte
	touched bool
}

// ptfOp hosts one process table function call: it implements ptf.Host,
// keeps a write-back cache of value state in front of the KV, the timer
// queue, and assembles output rows (key prefix or pass-through columns,
// function columns, rowtime).
type ptfOp struct {
	ns       string
	spec     *jobgraph.PTF
	def      *ptf.Definition
	kv       KV
	clock    Clock
	ctx      *ptf.Context
	emit     func(types.Row) error
	tableOf  map[int]int // input index -> table index
	ttl      []int64     // per state entry, nanoseconds; 0 = none
	cache    map[string]*keyState
	timers   *timerQueue
	wm       []int64 // per table
	opWM     int64
	timersOK bool

	// the current call
	curKey     string
	curKS      *keyState
	curTable   int
	curRow     *types.Row
	curTimer   *timerEntry
	hasTime    bool
	curTime    int64
	accessed   []bool
	cleared    []bool
	err        error
	keyBuf     []byte
	keyVals    []types.Value
	dirtyKeys  map[string]struct{}
	onCollect  func(types.RowKind, []types.Value)
	onFire     func([]types.Value, string, int64)
	timerDirty map[string]struct{}
	viewClear  []bool
}

func newPTFOp(spec *jobgraph.PTF, ns string, kv KV, clock Clock, emit func(types.Row) error) (*ptfOp, error) {
	op := &ptfOp{
		ns: ns, spec: spec, def: spec.Def, kv: kv, clock: clock, emit: emit,
		timerDirty: map[string]struct{}{},
		viewClear:  make([]bool, len(spec.Def.State)),
		tableOf:    map[int]int{},
		cache:      map[string]*keyState{},
		timers:     newTimerQueue(),
		wm:         make([]int64, len(spec.Tables)),
		opWM:       MinWatermark,
		accessed:   make([]bool, len(spec.Def.State)),
		cleared:    make([]bool, len(spec.Def.State)),
		dirtyKeys:  map[string]struct{}{},
	}
	op.ctx = ptf.NewContext(op)
	op.timersOK = len(spec.Tables) > 0
	for i, t := range spec.Tables {
		op.tableOf[t.Input] = i
		op.wm[i] = MinWatermark
		if !t.SetSemantic || t.PassThrough {
			op.timersOK = false
		}
	}
	for _, s := range spec.Def.State {
		ttl := s.StateTTL()
		switch {
		case ttl == ptf.NoTTL:
			ttl = 0
		case ttl == ptf.DefaultTTL:
			ttl = time.Duration(spec.StateTTL)
		}
		op.ttl = append(op.ttl, int64(ttl))
	}
	if err := op.loadTimers(); err != nil {
		return nil, err
	}
	return op, nil
}

// loadTimers restores the persisted timers of the operator's namespace.
func (op *ptfOp) loadTimers() error {
	return op.kv.ScanNamespace(op.ns, func(e state.Entry) error {
		if e.Kind != state.KindTimer {
			return nil
		}
		key := string(e.Key)
		if op.cache[key] == nil {
			r, err := types.DecodeRow(e.Key)
			if err != nil {
				return fmt.Errorf("restoring timers: decoding key: %w", err)
			}
			op.keyBuf = append(op.keyBuf[:0], e.Key...)
			op.keyVals = append(op.keyVals[:0], r.Values...)
			op.enterKey()
		}
		op.timers.register(key, op.cache[key].keyVals, e.Name, e.Time)
		return nil
	})
}

func (op *ptfOp) now() int64 { return op.clock.Now().UnixNano() }

// processRow calls Eval for one row of the input at index input.
func (op *ptfOp) processRow(input int, row *types.Row) error {
	ti, ok := op.tableOf[input]
	if !ok {
		return fmt.Errorf("internal: input %d is not a table of %s", input, op.spec.Name)
	}
	t := &op.spec.Tables[ti]
	op.keyVals = op.keyVals[:0]
	for _, k := range t.Keys {
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	op.curTable, op.curRow, op.curTimer = ti, row, nil
	op.hasTime = t.TimeColumn >= 0 && !row.Values[t.TimeColumn].IsNull()
	if op.hasTime {
		op.curTime = row.Values[t.TimeColumn].Int()
	}
	op.enterKey()
	in := ptf.Input{Arg: t.Arg, Row: ptf.Row{Kind: row.Kind, Values: row.Values, Schema: t.Schema}}
	if t.ArgCast != nil {
		vals := make([]types.Value, len(t.ArgCast))
		for i, c := range t.ArgCast {
			v, err := c.Eval(row.Values)
			if err != nil {
				return fmt.Errorf("process table function %s: casting argument '%s': %w", op.spec.Name, t.Arg, err)
			}
			vals[i] = v
		}
		in.Row = ptf.Row{Kind: row.Kind, Values: vals, Schema: t.ArgSchema}
	}
	return op.call(func() error { return op.def.Eval(op.ctx, in) })
}

// evalOnce calls Eval once for a function without table arguments, as
// Flink plans such a call over one empty row.
func (op *ptfOp) evalOnce() error {
	op.keyVals = op.keyVals[:0]
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{})
	op.curTable, op.curRow, op.curTimer, op.hasTime = 0, &types.Row{}, nil, false
	op.enterKey()
	return op.call(func() error { return op.def.Eval(op.ctx, ptf.Input{Row: ptf.Row{Schema: types.NewSchema()}}) })
}

// enterKey makes the key in keyBuf/keyVals current.
func (op *ptfOp) enterKey() {
	ks := op.cache[string(op.keyBuf)]
	if ks == nil {
		n := len(op.def.State)
		ks = &keyState{
			keyVals: append([]types.Value(nil), op.keyVals...),
			vals:    make([]any, n), loaded: make([]bool, n),
			dirty: make([]bool, n), wtime: make([]int64, n), before: make([][]byte, n),
		}
		op.cache[string(op.keyBuf)] = ks
	}
	op.curKey = string(op.keyBuf)
	op.curKS = ks
}

// call runs user code, turning a panic into an error, then applies the
// state rules of the end of a call.
func (op *ptfOp) call(f func() error) (err error) {
	op.err = nil
	for i := range op.accessed {
		op.accessed[i], op.cleared[i], op.viewClear[i] = false, false, false
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("function %s panicked: %v\n%s", op.spec.Name, r, debug.Stack())
			}
		}()
		err = f()
	}()
	if err == nil {
		err = op.err
	}
	if err != nil {
		return fmt.Errorf("process table function %s (uid %q): %w", op.spec.Name, op.spec.UID, err)
	}
	op.endCall()
	return nil
}

func (op *ptfOp) endCall() {
	ks := op.curKS
	now := op.now()
	for i, s := range op.def.State {
		if s.StateKind() != ptf.ValueStateKind {
			if op.cleared[i] {
				op.clearView(s)
			}
			continue
		}
		switch {
		case op.cleared[i]:
			ks.vals[i], ks.loaded[i], ks.dirty[i], ks.before[i] = nil, true, true, nil
		case op.accessed[i]:
			if s.IsEmptyState(ks.vals[i]) {
				ks.vals[i] = nil
			}
			if op.ttl[i] > 0 {
				// Flink writes state only when it changed, and only a write
				// refreshes the TTL.
				var enc []byte
				if ks.vals[i] != nil {
					b, err := s.EncodeState(ks.vals[i])
					if err != nil {
						op.Fail(err)
						continue
					}
					enc = b
				}
				if bytes.Equal(enc, ks.before[i]) && (enc != nil || !ks.dirty[i]) {
					continue
				}
				ks.before[i] = enc
			}
			ks.dirty[i], ks.wtime[i] = true, now
		default:
			continue
		}
		op.dirtyKeys[op.curKey] = struct{}{}
	}
}

// advance records a new watermark of an input and fires due timers.
func (op *ptfOp) advance(input int, wm int64) error {
	ti, ok := op.tableOf[input]
	if !ok || wm <= op.wm[ti] {
		return nil
	}
	op.wm[ti] = wm
	min := MaxWatermark
	for _, w := range op.wm {
		if w < min {
			min = w
		}
	}
	if min <= op.opWM {
		return nil
	}
	op.opWM = min
	for {
		e, ok := op.timers.popDue(op.opWM)
		if !ok {
			return nil
		}
		op.timerDirty[e.key] = struct{}{}
		if err := op.fire(e); err != nil {
			return err
		}
	}
}

func (op *ptfOp) fire(e timerEntry) error {
	ks := op.cache[e.key]
	if ks == nil {
		return fmt.Errorf("internal: timer for unknown key")
	}
	op.keyBuf = append(op.keyBuf[:0], e.key...)
	op.keyVals = append(op.keyVals[:0], ks.keyVals...)
	op.enterKey()
	op.curTimer, op.curRow = &e, nil
	op.hasTime, op.curTime = true, e.t
	if op.onFire != nil {
		op.onFire(ks.keyVals, e.name, e.t)
	}
	if op.def.OnTimer == nil {
		return nil
	}
	return op.call(func() error { return op.def.OnTimer(op.ctx) })
}

// flush writes dirty state into the KV (at a checkpoint).
func (op *ptfOp) flush() error {
	var buf []byte
	for key := range op.dirtyKeys {
		ks := op.cache[key]
		for i, s := range op.def.State {
			if !ks.dirty[i] {
				continue
			}
			ks.dirty[i] = false
			if ks.vals[i] == nil {
				if err := op.kv.Delete(op.ns, s.StateName(), []byte(key)); err != nil {
					return fmt.Errorf("deleting state %s: %w", s.StateName(), err)
				}
				continue
			}
			b, err := s.EncodeState(ks.vals[i])
			if err != nil {
				return fmt.Errorf("encoding state %s: %w", s.StateName(), err)
			}
			buf = binary.BigEndian.AppendUint64(buf[:0], uint64(ks.wtime[i]))
			buf = append(buf, b...)
			if err := op.kv.Put(op.ns, s.StateName(), []byte(key), buf); err != nil {
				return fmt.Errorf("writing state %s: %w", s.StateName(), err)
			}
		}
		delete(op.dirtyKeys, key)
	}
	for key := range op.timerDirty {
		k := []byte(key)
		if err := op.kv.DeleteAllTimers(op.ns, k); err != nil {
			return fmt.Errorf("writing timers: %w", err)
		}
		for _, t := range op.timers.pending(key) {
			if err := op.kv.RegisterTimer(op.ns, k, t.name, t.t); err != nil {
				return fmt.Errorf("writing timers: %w", err)
			}
		}
		delete(op.timerDirty, key)
	}
	return nil
}

func (op *ptfOp) stateIndex(e ptf.StateEntry) int {
	for i, s := range op.def.State {
		if s == e || s.StateName() == e.StateName() {
			return i
		}
	}
	return -1
}

// --- ptf.Host ---

func (op *ptfOp) Arg(name string) (types.Value, bool) {
	v, ok := op.spec.Scalars[name]
	return v, ok
}

func (op *ptfOp) Emit(kind types.RowKind, vals []types.Value) {
	if !op.spec.Produced.Contains(kind) {
		op.Fail(fmt.Errorf("Invalid row kind received: %s. Expected produced changelog mode: %s", kind.Name(), op.spec.Produced))
		return
	}
	if op.onCollect != nil {
		op.onCollect(kind, vals)
	}
	if len(vals) != op.spec.FuncOut.Len() {
		op.Fail(fmt.Errorf("collected %d values, but the output type %s has %d fields", len(vals), op.def.Output, op.spec.FuncOut.Len()))
		return
	}
	out := make([]types.Value, 0, op.spec.Out.Len())
	if op.curRow != nil && len(op.spec.Tables) == 1 && op.spec.Tables[0].PassThrough {
		out = append(out, op.curRow.Values...)
	} else {
		for _, t := range op.spec.Tables {
			if t.SetSemantic {
				out = append(out, op.curKS.keyVals...)
			}
		}
	}
	out = append(out, vals...)
	if op.spec.EmitRowtime {
		if op.hasTime {
			out = append(out, types.NewTimestamp(op.curTime))
		} else {
			out = append(out, types.Null)
		}
	}
	if err := op.emit(types.Row{Kind: kind, Values: out}); err != nil {
		op.Fail(err)
	}
}

func (op *ptfOp) Time() (time.Time, bool) {
	if !op.hasTime {
		return time.Time{}, false
	}
	return time.Unix(0, op.curTime).UTC(), true
}

func wmTime(w int64) (time.Time, bool) {
	if w == MinWatermark {
		return time.Time{}, false
	}
	if w == MaxWatermark {
		return time.Unix(0, w).UTC(), true
	}
	return time.Unix(0, w).UTC(), true
}

func (op *ptfOp) CurrentWatermark() (time.Time, bool) { return wmTime(op.opWM) }

func (op *ptfOp) TableWatermark() (time.Time, bool) {
	if op.curTimer != nil || len(op.wm) == 0 {
		return time.Time{}, false
	}
	return wmTime(op.wm[op.curTable])
}

func (op *ptfOp) RegisterTimer(name string, t time.Time) error {
	if !op.timersOK {
		return errTimersNotSupported
	}
	op.timers.register(op.curKey, op.curKS.keyVals, name, t.UnixNano())
	op.timerDirty[op.curKey] = struct{}{}
	return nil
}

func (op *ptfOp) ClearTimer(name string) {
	if op.timersOK {
		op.timers.clearNamed(op.curKey, name)
		op.timerDirty[op.curKey] = struct{}{}
	}
}

func (op *ptfOp) ClearUnnamedTimer(t time.Time) {
	if op.timersOK {
		op.timers.clearUnnamed(op.curKey, t.UnixNano())
		op.timerDirty[op.curKey] = struct{}{}
	}
}

func (op *ptfOp) ClearAllTimers() {
	op.timers.clearKey(op.curKey)
	op.timerDirty[op.curKey] = struct{}{}
}

func (op *ptfOp) ClearState(name string) {
	for i, s := range op.def.State {
		if s.StateName() == name {
			op.cleared[i] = true
			return
		}
	}
	op.Fail(fmt.Errorf("Unknown state entry: %s", name))
}

func (op *ptfOp) ClearAllState() {
	for i := range op.cleared {
		op.cleared[i] = true
	}
}

func (op *ptfOp) ValueState(e ptf.StateEntry) any {
	i := op.stateIndex(e)
	if i < 0 {
		op.Fail(fmt.Errorf("Unknown state entry: %s", e.StateName()))
		return e.NewState()
	}
	ks := op.curKS
	op.accessed[i] = true
	if ks.loaded[i] && ks.vals[i] != nil && op.ttl[i] > 0 && op.now()-ks.wtime[i] >= op.ttl[i] {
		ks.vals[i], ks.before[i] = nil, nil // expired
	}
	if !ks.loaded[i] {
		ks.loaded[i] = true
		b, ok, err := op.kv.Get(op.ns, e.StateName(), []byte(op.curKey))
		if err != nil {
			op.Fail(fmt.Errorf("reading state %s: %w", e.StateName(), err))
		} else if ok && len(b) >= 8 {
			w := int64(binary.BigEndian.Uint64(b))
			if op.ttl[i] == 0 || op.now()-w < op.ttl[i] {
				v, err := e.DecodeState(b[8:])
				if err != nil {
					op.Fail(err)
				}
				ks.vals[i], ks.wtime[i] = v, w
				if op.ttl[i] > 0 {
					ks.before[i] = append([]byte(nil), b[8:]...)
				}
			}
		}
	}
	if ks.vals[i] == nil {
		ks.vals[i] = e.NewState()
	}
	return ks.vals[i]
}

func (op *ptfOp) ViewState(e ptf.StateEntry) any {
	if op.stateIndex(e) < 0 {
		op.Fail(fmt.Errorf("Unknown state entry: %s", e.StateName()))
	}
	i := op.stateIndex(e)
	v := &view{kv: op.kv, ns: op.ns, name: e.StateName(), key: []byte(op.curKey), ttl: op.ttl[max(i, 0)], now: op.now}
	if v.ttl > 0 && e.StateKind() == ptf.ListStateKind {
		op.Fail(listView{v}.purge())
	}
	if e.StateKind() == ptf.MapStateKind {
		return mapView{v}
	}
	return listView{v}
}

// clearView clears a list or map view of the current key (at the end of a
// call that cleared it).
func (op *ptfOp) clearView(s ptf.StateEntry) {
	var err error
	if s.StateKind() == ptf.MapStateKind {
		err = op.kv.MapClear(op.ns, s.StateName(), []byte(op.curKey))
	} else {
		err = op.kv.ListClear(op.ns, s.StateName(), []byte(op.curKey))
	}
	op.Fail(err)
}

func (op *ptfOp) CurrentTimer() (string, time.Time, bool) {
	if op.curTimer == nil {
		return "", time.Time{}, false
	}
	return op.curTimer.name, time.Unix(0, op.curTimer.t).UTC(), true
}

func (op *ptfOp) Key() []types.Value { return op.curKS.keyVals }

func (op *ptfOp) TableSemantics(arg string) (ptf.TableSemantics, bool) {
	for _, t := range op.spec.Tables {
		if t.Arg == arg {
			schema := t.Schema
			if t.ArgSchema != nil {
				schema = t.ArgSchema // after the cast to the typed argument
			}
			return ptf.TableSemantics{Schema: schema, PartitionBy: t.Keys, TimeColumn: t.TimeColumn, Changelog: t.Delivered}, true
		}
	}
	op.Fail(fmt.Errorf("Unknown table argument: %s", arg))
	return ptf.TableSemantics{}, false
}

func (op *ptfOp) ChangelogMode() ptf.ChangelogMode { return op.spec.Produced }

func (op *ptfOp) Fail(err error) {
	if err != nil && op.err == nil {
		op.err = err
	}
}
