package runtime

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
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
var errTimersNotSupported = ptf.ErrTimersNotSupported

// keyState is the cached state of one partition key. Entries are indexed
// like the definition's State list.
type keyState struct {
	key     string    // the encoded key
	next    *keyState // next key with the same hash
	inDirty bool      // listed in ptfOp.dirty
	keyVals []types.Value
	// ents holds one entry per declared state entry, in one allocation so
	// that a key's state sits together in memory.
	ents []entryState
}

// entryState is the cached value of one value-state entry of a key.
type entryState struct {
	val    any
	loaded bool
	dirty  bool // write (or delete when val is nil) at the next flush
	wtime  int64
	// before holds the encoded value as last loaded or written, for
	// entries with a TTL: their write time moves only when they change.
	before []byte
}

// ptfOp hosts one process table function call: it implements ptf.Host,
// keeps a write-back cache of value state in front of the KV, the timer
// queue, and assembles output rows (key prefix or pass-through columns,
// function columns, rowtime).
type ptfOp struct {
	ns   string
	spec *jobgraph.PTF
	def  *ptf.Definition
	// instance, when set, is the definition whose Eval and OnTimer the
	// operator calls (withInstance).
	instance *ptf.Definition
	kv       KV
	clock    Clock
	ctx      *ptf.Context
	emit     func(types.Row) error
	tableOf  map[int]int          // input index -> table index
	ttl      []int64              // per state entry, nanoseconds; 0 = none
	cache    map[uint64]*keyState // by maphash of the encoded key; collisions chain through next
	seed     maphash.Seed
	// nkeys counts the cached keys; past maxKeys, flush evicts clean keys
	// (their state is in the KV) down to half of it.
	nkeys, maxKeys int
	// in, evalFn and timerFn avoid allocating a closure per call.
	in      ptf.Input
	evalFn  func() error
	timerFn func() error
	// reuseOut lets Emit reuse outBuf: the consumer does not keep rows.
	reuseOut bool
	outBuf   []types.Value
	timers   *timerQueue
	// ptimers are the processing-time timers (an Eddy extension), fired
	// by OnProcessingTime.
	ptimers *timerQueue
	// procPending, when set, counts the operators of a job that have
	// processing-time timers (procHeld says whether this one is counted),
	// so that the job ticks on an idle input while one has (see
	// Job.procTimers).
	procPending *atomic.Int64
	procHeld    bool
	wm          []int64 // per table
	opWM        int64
	timersOK    bool

	// ORDER BY buffers, per table (nil for tables without ORDER BY); see
	// orderby.go.
	orders   []*orderBuffer
	orderSeq uint64 // next arrival sequence number
	orderTTL int64  // nanoseconds; 0 = none
	orderBuf []byte

	// owns, when set, tells whether this instance owns a key: the state
	// namespace is shared by the subtasks of a job, so on restore each
	// loads only the timers and ORDER BY buffers of its own keys.
	owns func(key []types.Value) bool

	// the current call
	curKey   string
	curKS    *keyState
	curTable int
	curRow   *types.Row
	rowCopy  types.Row // the current row's header, so the caller's Row value does not escape (its Values are shared)
	// stateless functions (no state, no timers, no ORDER BY) use one
	// scratch key entry instead of the per-key cache.
	stateless  bool
	scratch    keyState
	curTimer   *timerEntry
	hasTime    bool
	curTime    int64
	accessed   []bool
	cleared    []bool
	err        error
	keyBuf     []byte
	keyVals    []types.Value
	dirty      []*keyState // keys with state to write at the next flush
	onCollect  func(types.RowKind, []types.Value)
	onFire     func([]types.Value, timerEntry)
	timerDirty map[string]struct{}
	viewClear  []bool
}

// ptfOpOption configures a ptfOp.
type ptfOpOption func(*ptfOp)

// withKeyOwner makes the operator restore only the timers and ORDER BY
// buffers of the keys owns accepts (see keyOwner).
func withKeyOwner(owns func(key []types.Value) bool) ptfOpOption {
	return func(op *ptfOp) { op.owns = owns }
}

// withInstance makes the operator call inst's Eval and OnTimer in place of
// the planned definition's (an instance of its own of the same function;
// see Env.Functions).
func withInstance(inst *ptf.Definition) ptfOpOption {
	return func(op *ptfOp) { op.instance = inst }
}

// withProcPending makes the operator count itself in n while it has
// processing-time timers.
func withProcPending(n *atomic.Int64) ptfOpOption {
	return func(op *ptfOp) { op.procPending = n }
}

// withMaxKeys bounds the number of keys whose state the operator caches
// (0: unbounded).
func withMaxKeys(n int) ptfOpOption {
	return func(op *ptfOp) { op.maxKeys = n }
}

// keyOwner returns whether subtask i of n owns a partition key, routing
// it as Job.route routes the rows of a PTF input (PARTITION BY columns
// in order, hashed into key groups).
func keyOwner(n, i int) func(key []types.Value) bool {
	return func(key []types.Value) bool { return subtaskOf(key, n) == i }
}

// subtaskOf is the subtask of n that owns a key: the key's key group (the
// murmur2 hash of its encoded values, modulo maxParallelism) scaled to n.
// Job.route sends rows by it, and restore takes back keys by it.
func subtaskOf(key []types.Value, n int) int {
	var buf [64]byte
	b := buf[:0]
	for _, v := range key {
		b = types.AppendValue(b, v)
	}
	kg := int(uint32(logstore.Murmur2(b))&0x7fffffff) % maxParallelism
	return kg * n / maxParallelism
}

func newPTFOp(spec *jobgraph.PTF, ns string, kv KV, clock Clock, emit func(types.Row) error, opts ...ptfOpOption) (*ptfOp, error) {
	op := &ptfOp{
		ns: ns, spec: spec, def: spec.Def, kv: kv, clock: clock, emit: emit,
		timerDirty: map[string]struct{}{},
		viewClear:  make([]bool, len(spec.Def.State)),
		tableOf:    map[int]int{},
		cache:      map[uint64]*keyState{},
		seed:       maphash.MakeSeed(),
		timers:     newTimerQueue(false),
		ptimers:    newTimerQueue(true),
		wm:         make([]int64, len(spec.Tables)),
		orders:     make([]*orderBuffer, len(spec.Tables)),
		orderTTL:   max(spec.StateTTL, 0),
		opWM:       MinWatermark,
		accessed:   make([]bool, len(spec.Def.State)),
		cleared:    make([]bool, len(spec.Def.State)),
	}
	for _, o := range opts {
		o(op)
	}
	op.ctx = ptf.NewContext(op)
	callee := op.def
	if op.instance != nil {
		callee = op.instance
	}
	op.evalFn = func() error { return callee.Eval(op.ctx, op.in) }
	op.timerFn = func() error { return callee.OnTimer(op.ctx) }
	op.timersOK = len(spec.Tables) > 0
	for i, t := range spec.Tables {
		op.tableOf[t.Input] = i
		op.wm[i] = MinWatermark
		if !t.SetSemantic || t.PassThrough {
			op.timersOK = false
		}
		if len(t.OrderBy) > 0 {
			op.orders[i] = newOrderBuffer(i, &spec.Tables[i])
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
	op.stateless = len(spec.Def.State) == 0 && !op.timersOK
	for _, b := range op.orders {
		if b != nil {
			op.stateless = false
		}
	}
	if err := op.restore(); err != nil {
		return nil, err
	}
	return op, nil
}

// restore loads the persisted timers of the operator's namespace and
// indexes the keys with rows in ORDER BY buffers.
func (op *ptfOp) restore() error {
	return op.kv.ScanNamespace(op.ns, func(e state.Entry) error {
		switch e.Kind {
		case state.KindValue:
			if e.Name != timersEntry {
				return nil
			}
			ks, err := op.restoreKey(e.Key)
			if err != nil || ks == nil {
				return err
			}
			err = decodeTimers(e.Value, func(name string, _, proc bool, t int64) {
				q := op.timers
				if proc {
					q = op.ptimers
				}
				q.register(string(e.Key), ks.keyVals, name, t)
			})
			op.syncProcPending()
			return err
		case state.KindMap:
			if err := op.restoreOrderEntry(e); err != nil {
				return fmt.Errorf("restoring ORDER BY buffers: %w", err)
			}
		}
		return nil
	})
}

// lookup returns the cached state of an encoded key, or nil.
func (op *ptfOp) lookup(key string) *keyState {
	for ks := op.cache[maphash.String(op.seed, key)]; ks != nil; ks = ks.next {
		if ks.key == key {
			return ks
		}
	}
	return nil
}

// restoreKey returns the cached state of an encoded key, creating it, or
// nil when another instance owns the key.
func (op *ptfOp) restoreKey(key []byte) (*keyState, error) {
	if ks := op.lookup(string(key)); ks != nil {
		return ks, nil
	}
	r, err := types.DecodeRow(key)
	if err != nil {
		return nil, fmt.Errorf("decoding key: %w", err)
	}
	if op.owns != nil && !op.owns(r.Values) {
		return nil, nil
	}
	op.keyBuf = append(op.keyBuf[:0], key...)
	op.keyVals = append(op.keyVals[:0], r.Values...)
	op.enterKey()
	return op.curKS, nil
}

func (op *ptfOp) now() int64 { return op.clock.Now().UnixNano() }

// processRow calls Eval for one row of the input at index input, or
// buffers it when the table has ORDER BY.
func (op *ptfOp) processRow(input int, row *types.Row) error {
	ti, ok := op.tableOf[input]
	if !ok {
		return fmt.Errorf("internal: input %d is not a table of %s", input, op.spec.Name)
	}
	if b := op.orders[ti]; b != nil {
		return op.bufferRow(b, row)
	}
	return op.evalRow(ti, row, op.spec.Tables[ti].TimeColumn)
}

// setKey puts the partition key of a row of t into keyBuf/keyVals.
func (op *ptfOp) setKey(t *jobgraph.PTFTable, row *types.Row) {
	op.keyVals = op.keyVals[:0]
	for _, k := range t.Keys {
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
}

// evalRow calls Eval for one row of table ti; time() is the value of
// column timeCol (the on_time column, or the first ORDER BY column for
// rows flushed from an ORDER BY buffer, as in Flink), if any.
func (op *ptfOp) evalRow(ti int, row *types.Row, timeCol int) error {
	t := &op.spec.Tables[ti]
	op.setKey(t, row)
	op.rowCopy = *row
	op.curTable, op.curRow, op.curTimer = ti, &op.rowCopy, nil
	op.hasTime = timeCol >= 0 && !row.Values[timeCol].IsNull()
	if op.hasTime {
		op.curTime = row.Values[timeCol].Int()
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
	op.in = in
	return op.call(op.evalFn)
}

// evalOnce calls Eval once for a function without table arguments, as
// Flink plans such a call over one empty row.
func (op *ptfOp) evalOnce() error {
	op.keyVals = op.keyVals[:0]
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{})
	op.curTable, op.curRow, op.curTimer, op.hasTime = 0, &types.Row{}, nil, false
	op.enterKey()
	op.in = ptf.Input{Row: ptf.Row{Schema: types.NewSchema()}}
	return op.call(op.evalFn)
}

// enterKey makes the key in keyBuf/keyVals current.
func (op *ptfOp) enterKey() {
	if op.stateless {
		op.scratch.keyVals = append(op.scratch.keyVals[:0], op.keyVals...)
		op.curKey, op.curKS = "", &op.scratch
		return
	}
	h := maphash.Bytes(op.seed, op.keyBuf)
	ks := op.cache[h]
	for ks != nil && ks.key != string(op.keyBuf) {
		ks = ks.next
	}
	if ks == nil {
		n := len(op.def.State)
		ks = &keyState{
			next:    op.cache[h],
			key:     string(op.keyBuf),
			keyVals: append([]types.Value(nil), op.keyVals...),
			ents:    make([]entryState, n),
		}
		op.cache[h] = ks
		op.nkeys++
	}
	op.curKey = ks.key
	op.curKS = ks
}

// markDirty lists the current key for the next flush.
func (op *ptfOp) markDirty(ks *keyState) {
	if !ks.inDirty {
		ks.inDirty = true
		op.dirty = append(op.dirty, ks)
	}
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
	var now int64
	haveNow := false
	for i, s := range op.def.State {
		if s.StateKind() != ptf.ValueStateKind {
			if op.cleared[i] {
				op.clearView(s)
			}
			continue
		}
		switch {
		case op.cleared[i]:
			ks.ents[i].val, ks.ents[i].loaded, ks.ents[i].dirty, ks.ents[i].before = nil, true, true, nil
		case op.accessed[i]:
			if s.IsEmptyState(ks.ents[i].val) {
				ks.ents[i].val = nil
			}
			if op.ttl[i] > 0 {
				// Flink writes state only when it changed, and only a write
				// refreshes the TTL.
				var enc []byte
				if ks.ents[i].val != nil {
					b, err := s.EncodeState(ks.ents[i].val)
					if err != nil {
						op.Fail(err)
						continue
					}
					enc = b
				}
				if bytes.Equal(enc, ks.ents[i].before) && (enc != nil || !ks.ents[i].dirty) {
					continue
				}
				ks.ents[i].before = enc
			}
			if !haveNow {
				now, haveNow = op.now(), true
			}
			ks.ents[i].dirty, ks.ents[i].wtime = true, now
		default:
			continue
		}
		op.markDirty(ks)
	}
}

// advance records a new watermark of an input and fires due timers.
func (op *ptfOp) advance(input int, wm int64) error {
	ti, ok := op.tableOf[input]
	if !ok || wm <= op.wm[ti] {
		return nil
	}
	// The table's ORDER BY buffer flushes first, while the function and
	// the table still show the previous watermark (reference §8).
	if b := op.orders[ti]; b != nil {
		if err := op.flushOrder(b, wm); err != nil {
			return err
		}
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

// evict drops cached keys, in the map's (random) order, until at most
// target remain. It runs right after flush, when no key is dirty: an
// evicted key's state is reloaded from the KV when the key comes back.
func (op *ptfOp) evict(target int) {
	for h, ks := range op.cache {
		if op.nkeys <= target {
			break
		}
		delete(op.cache, h)
		for ; ks != nil; ks = ks.next {
			op.nkeys--
		}
	}
	op.curKey, op.curKS = "", nil
}

func (op *ptfOp) fire(e timerEntry) error {
	ks := op.lookup(e.key)
	if ks == nil {
		// The key was evicted from the cache: enter it again.
		r, err := types.DecodeRow([]byte(e.key))
		if err != nil {
			return fmt.Errorf("decoding the key of a timer: %w", err)
		}
		op.keyBuf = append(op.keyBuf[:0], e.key...)
		op.keyVals = append(op.keyVals[:0], r.Values...)
		op.enterKey()
		ks = op.curKS
	}
	op.curKey, op.curKS = ks.key, ks
	op.curTimer, op.curRow = &e, nil
	op.hasTime, op.curTime = true, e.t
	if op.onFire != nil {
		op.onFire(ks.keyVals, e)
	}
	if op.def.OnTimer == nil {
		return nil
	}
	return op.call(op.timerFn)
}

// flush writes dirty state into the KV (at a checkpoint).
func (op *ptfOp) flush() error {
	var buf []byte
	for _, ks := range op.dirty {
		ks.inDirty = false
		key := ks.key
		for i, s := range op.def.State {
			if !ks.ents[i].dirty {
				continue
			}
			ks.ents[i].dirty = false
			if ks.ents[i].val == nil {
				if err := op.kv.Delete(op.ns, s.StateName(), []byte(key)); err != nil {
					return fmt.Errorf("deleting state %s: %w", s.StateName(), err)
				}
				continue
			}
			// Entries with a TTL were encoded at the end of the call that
			// changed them (before); others are encoded here.
			b := ks.ents[i].before
			if op.ttl[i] == 0 || b == nil {
				var err error
				if b, err = s.EncodeState(ks.ents[i].val); err != nil {
					return fmt.Errorf("encoding state %s: %w", s.StateName(), err)
				}
			}
			buf = binary.BigEndian.AppendUint64(buf[:0], uint64(ks.ents[i].wtime))
			buf = append(buf, b...)
			if err := op.kv.Put(op.ns, s.StateName(), []byte(key), buf); err != nil {
				return fmt.Errorf("writing state %s: %w", s.StateName(), err)
			}
		}
	}
	op.dirty = op.dirty[:0]
	if op.maxKeys > 0 && op.nkeys > op.maxKeys {
		op.evict(op.maxKeys / 2)
	}
	// A key's timers are saved as one record, written without reading:
	// the queue in memory is the truth, the record only serves restore.
	for key := range op.timerDirty {
		pending := append(op.timers.pending(key), op.ptimers.pending(key)...)
		var err error
		if len(pending) == 0 {
			err = op.kv.Delete(op.ns, timersEntry, []byte(key))
		} else {
			err = op.kv.Put(op.ns, timersEntry, []byte(key), encodeTimers(pending))
		}
		if err != nil {
			return fmt.Errorf("writing timers: %w", err)
		}
		delete(op.timerDirty, key)
	}
	return nil
}

// timersEntry is the internal value-state name under which a key's timers
// are saved.
const timersEntry = "__timers"

// Flags of a timer record.
const (
	timerUnnamed byte = 1 << 0
	timerProc    byte = 1 << 1 // a processing-time timer
)

// encodeTimers renders timers as (flags byte, varint time, uvarint name
// length, name) records; see timerUnnamed and timerProc for the flags.
// Records written before processing-time timers existed have flags 0 or
// 1, and read as they did.
func encodeTimers(ts []timerEntry) []byte {
	var b []byte
	for _, t := range ts {
		flag := byte(0)
		if t.unnamed {
			flag |= timerUnnamed
		}
		if t.proc {
			flag |= timerProc
		}
		b = append(b, flag)
		b = binary.AppendVarint(b, t.t)
		b = binary.AppendUvarint(b, uint64(len(t.name)))
		b = append(b, t.name...)
	}
	return b
}

// decodeTimers is the inverse of encodeTimers.
func decodeTimers(b []byte, f func(name string, unnamed, proc bool, t int64)) error {
	for len(b) > 0 {
		flag := b[0]
		if flag&^(timerUnnamed|timerProc) != 0 {
			return fmt.Errorf("corrupt timer record: flags %#x", flag)
		}
		t, n := binary.Varint(b[1:])
		if n <= 0 {
			return fmt.Errorf("corrupt timer record")
		}
		b = b[1+n:]
		l, m := binary.Uvarint(b)
		if m <= 0 || uint64(len(b)-m) < l {
			return fmt.Errorf("corrupt timer record")
		}
		name := string(b[m : m+int(l)])
		b = b[m+int(l):]
		f(name, flag&timerUnnamed != 0, flag&timerProc != 0, t)
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
	var out []types.Value
	if op.reuseOut {
		out = op.outBuf[:0]
	} else {
		out = make([]types.Value, 0, op.spec.Out.Len())
	}
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
	if op.reuseOut {
		op.outBuf = out
	}
	if err := op.emit(types.Row{Kind: kind, Values: out}); err != nil {
		op.Fail(err)
	}
}

func (op *ptfOp) Time() (time.Time, bool) {
	if !op.hasTime {
		return time.Time{}, false
	}
	return timeOf(op.curTime), true
}

func wmTime(w int64) (time.Time, bool) {
	if w == MinWatermark {
		return time.Time{}, false
	}
	return timeOf(w), true
}

// timeOf converts engine time (nanoseconds) to a time.Time; the maximum
// watermark is ptf.MaxTime (Java's Long.MAX_VALUE milliseconds).
func timeOf(ns int64) time.Time {
	if ns == MaxWatermark {
		return ptf.MaxTime
	}
	return time.Unix(0, ns).UTC()
}

// timerNanos converts a timer time to engine time: ptf.MaxTime and later
// times representable as nanoseconds map as they are; ptf.MaxTime maps to
// the maximum watermark, so such a timer fires when the input ends.
func timerNanos(t time.Time) (int64, error) {
	switch {
	case t.Equal(ptf.MaxTime):
		return MaxWatermark, nil
	case t.Before(ptf.MinTime) || t.After(ptf.MaxNanoTime):
		return 0, fmt.Errorf("%w: %s is outside [%s, %s]; use ptf.MaxTime for a timer that fires when the input ends",
			ptf.ErrTimerOutOfRange, t.UTC().Format(time.RFC3339Nano), ptf.MinTime.Format(time.RFC3339Nano), ptf.MaxNanoTime.Format(time.RFC3339Nano))
	}
	return t.UnixNano(), nil
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
	ns, err := timerNanos(t)
	if err != nil {
		return err
	}
	op.timers.register(op.curKey, op.curKS.keyVals, name, ns)
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
	if ns, err := timerNanos(t); err == nil && op.timersOK {
		op.timers.clearUnnamed(op.curKey, ns)
		op.timerDirty[op.curKey] = struct{}{}
	}
}

func (op *ptfOp) ClearAllTimers() {
	// Every persisted timer of a key this instance owns is also in the
	// queues (loaded at open), so a key without queued timers has nothing
	// to delete.
	ev := op.timers.clearKey(op.curKey)
	if op.ptimers.clearKey(op.curKey) || ev {
		op.timerDirty[op.curKey] = struct{}{}
	}
}

func (op *ptfOp) RegisterProcessingTimer(name string, t time.Time) error {
	if !op.timersOK {
		return errTimersNotSupported
	}
	ns, err := timerNanos(t)
	if err != nil {
		return err
	}
	op.ptimers.register(op.curKey, op.curKS.keyVals, name, ns)
	op.timerDirty[op.curKey] = struct{}{}
	op.syncProcPending()
	return nil
}

func (op *ptfOp) ClearProcessingTimer(name string) {
	if op.timersOK {
		op.ptimers.clearNamed(op.curKey, name)
		op.timerDirty[op.curKey] = struct{}{}
	}
}

func (op *ptfOp) ClearUnnamedProcessingTimer(t time.Time) {
	if ns, err := timerNanos(t); err == nil && op.timersOK {
		op.ptimers.clearUnnamed(op.curKey, ns)
		op.timerDirty[op.curKey] = struct{}{}
	}
}

func (op *ptfOp) CurrentProcessingTime() time.Time { return time.Unix(0, op.now()).UTC() }

func (op *ptfOp) TimerDomain() (ptf.TimerDomain, bool) {
	switch {
	case op.curTimer == nil:
		return ptf.EventTime, false
	case op.curTimer.proc:
		return ptf.ProcessingTime, true
	}
	return ptf.EventTime, true
}

// OnProcessingTime fires the processing-time timers due at now (see
// procTimeOperator), in (time, key, name) order. Timers registered while
// they fire fire in the same call when due. At the end of a bounded input
// (now is MaxWatermark) the clock is read once more and only the timers
// it has passed fire: like Flink, Eddy does not fire processing-time
// timers ahead of time when the input ends; the others stay in the state.
// That last reading makes the outcome independent of how the input was
// batched (the subtask reads the clock after each batch, but not after
// the batch that ends the input).
func (op *ptfOp) OnProcessingTime(now int64) error {
	if op.ptimers.empty() {
		return nil
	}
	if now == MaxWatermark {
		now = op.now()
	}
	defer op.syncProcPending()
	for {
		e, ok := op.ptimers.popDue(now)
		if !ok {
			return nil
		}
		op.timerDirty[e.key] = struct{}{}
		if err := op.fire(e); err != nil {
			return err
		}
	}
}

// syncProcPending updates the job's count of operators with
// processing-time timers.
func (op *ptfOp) syncProcPending() {
	if op.procPending == nil {
		return
	}
	if has := !op.ptimers.empty(); has != op.procHeld {
		op.procHeld = has
		if has {
			op.procPending.Add(1)
		} else {
			op.procPending.Add(-1)
		}
	}
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
	op.accessed[i] = true
	op.loadValue(i, e)
	ks := op.curKS
	if ks.ents[i].val == nil {
		ks.ents[i].val = e.NewState()
	}
	return ks.ents[i].val
}

// PeekValueState returns the current key's value of a value-state entry
// without marking the entry read: nil when the key has none. The
// WebAssembly host sends it to the module before a call; the function's
// reads then go through ValueState. It is not part of ptf.Host.
func (op *ptfOp) PeekValueState(e ptf.StateEntry) any {
	i := op.stateIndex(e)
	if i < 0 {
		return nil
	}
	op.loadValue(i, e)
	return op.curKS.ents[i].val
}

// TimersSupported reports whether the call may register timers (otherwise
// RegisterTimer returns ptf.ErrTimersNotSupported). It is not part of
// ptf.Host.
func (op *ptfOp) TimersSupported() bool { return op.timersOK }

// loadValue loads entry i of the current key into the cache, dropping a
// value whose TTL expired.
func (op *ptfOp) loadValue(i int, e ptf.StateEntry) {
	ks := op.curKS
	if ks.ents[i].loaded && ks.ents[i].val != nil && op.ttl[i] > 0 && op.now()-ks.ents[i].wtime >= op.ttl[i] {
		ks.ents[i].val, ks.ents[i].before = nil, nil // expired
	}
	if !ks.ents[i].loaded {
		ks.ents[i].loaded = true
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
				ks.ents[i].val, ks.ents[i].wtime = v, w
				if op.ttl[i] > 0 {
					ks.ents[i].before = append([]byte(nil), b[8:]...)
				}
			}
		}
	}
}

func (op *ptfOp) ViewState(e ptf.StateEntry) any {
	var ttl int64
	if i := op.stateIndex(e); i < 0 {
		// The call fails with this error; the view still works meanwhile.
		op.Fail(fmt.Errorf("Unknown state entry: %s", e.StateName()))
	} else {
		ttl = op.ttl[i]
	}
	v := &view{kv: op.kv, ns: op.ns, name: e.StateName(), key: []byte(op.curKey), ttl: ttl, now: op.now}
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
	return op.curTimer.name, timeOf(op.curTimer.t), true
}

func (op *ptfOp) Key() []types.Value { return op.curKS.keyVals }

func (op *ptfOp) TableSemantics(arg string) (ptf.TableSemantics, bool) {
	for _, t := range op.spec.Tables {
		if t.Arg == arg {
			schema := t.Schema
			if t.ArgSchema != nil {
				schema = t.ArgSchema // after the cast to the typed argument
			}
			return ptf.TableSemantics{
				Schema: schema, PartitionBy: t.Keys, TimeColumn: t.TimeColumn, Changelog: t.Delivered,
				OrderBy: t.OrderBy, OrderByDesc: t.OrderDesc, OrderByNullsFirst: t.OrderNullsFirst,
			}, true
		}
	}
	op.Fail(fmt.Errorf("Unknown table argument: %s", arg))
	return ptf.TableSemantics{}, false
}

func (op *ptfOp) ChangelogMode() ptf.ChangelogMode { return op.spec.Produced }

func (op *ptfOp) StateTTL(name string) (ttl, remaining time.Duration, err error) {
	i := slices.IndexFunc(op.def.State, func(s ptf.StateEntry) bool { return s.StateName() == name })
	if i < 0 {
		return 0, 0, fmt.Errorf("%w: %s", ptf.ErrUnknownState, name)
	}
	ttl = time.Duration(op.ttl[i])
	s := op.def.State[i]
	if ttl <= 0 || s.StateKind() != ptf.ValueStateKind {
		return ttl, 0, nil
	}
	op.ValueState(s) // loads the entry; an unchanged value is not rewritten
	ent := op.curKS.ents[i]
	if op.cleared[i] || ent.before == nil {
		return ttl, 0, nil // no stored value
	}
	return ttl, max(0, ttl-time.Duration(op.now()-ent.wtime)), nil
}

func (op *ptfOp) Fail(err error) {
	if err != nil && op.err == nil {
		op.err = err
	}
}
