package runtime

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"unsafe"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// aggregateOp is Flink's streaming GroupAggregate (GroupAggFunction with
// generateUpdateBefore): per group key it keeps the number of rows
// accumulated minus retracted and one accumulator per call, and emits the
// group's row (keys, then one value per call) as a retract changelog.
//
// Groups live in a write-back cache over the KV (value state "acc" keyed
// by the encoded key values): dirty groups are written at Flush, and past
// MaxKeys clean groups are evicted down to half.
type aggregateOp struct {
	keys []int
	aggCalls
	ns      string
	kv      KV
	out     Output
	clock   Clock
	ttl     int64
	maxKeys int
	wm      minWatermark

	// cache holds the groups by the hash of their encoded key; groups of
	// equal hashes are chained. Looking a group up reads the table slot and
	// the group, which holds short keys and two accumulators inline.
	cache  hashIndex[aggGroup]
	seed   maphash.Seed
	groups int // groups in the cache
	// dirty lists the groups to write at the next Flush.
	dirty []*aggGroup
	// groupSlab hands out groups, allocated in chunks.
	groupSlab []aggGroup
	// fresh tells whether the KV can hold a group the cache lacks.
	fresh   freshness
	sortBuf []dirtyKey[*aggGroup]

	// Scratch buffers reused across rows.
	keyVals []types.Value
	keyBuf  []byte
	// warmed are the keys of the rows warm saw, warmAt the next one to
	// arrive, warmBuf their encodings; touched sums what warm read, so
	// that the loads are kept.
	warmed  []warmKey
	warmAt  int
	warmBuf []byte
	touched uint64
	enc     []byte
	// slab hands out the value slices of emitted rows, allocated in
	// chunks; a slice once emitted is never reused.
	slab    []types.Value
	slabPos int
	// reuseOut: the consumers keep no row (calcs into a log or external
	// sink, which encode each row at once), so the -U and +U rows are two
	// scratch rows reused for every update.
	reuseOut bool
	scratch  [2][]types.Value
	// dropUB omits the -U rows (the consumer upserts by the group key).
	dropUB bool
	// countsRows: a call is a plain COUNT(*), whose result changes with
	// every row, so an added row always changes the group's result.
	countsRows bool

	// Mini-batch (jobgraph.MiniBatch): rows update their groups at once,
	// but a group's new result is emitted when the bundle closes, once for
	// all the bundle's rows of the group. pending lists the groups the
	// bundle touched, in the order it first touched them (the order of
	// the output); pendRows holds, per pending group, width values: its
	// key values and the results it emitted last, valid when pendHad.
	mb          jobgraph.MiniBatch
	bundleRows  int64
	bundleStart int64
	pending     []*aggGroup
	pendRows    []types.Value
	pendHad     []bool
}

// aggGroup is the state of one group key. count == 0 means the group has
// no state (never seen, or all its rows retracted). It is 96 bytes: what a
// row touches (the key, the count and two accumulators) sits in its first
// 80, and what most groups lack (a long key, more accumulators, the TTL
// stamp) hangs off x.
type aggGroup struct {
	kbuf  [16]byte // the encoded key values, kbuf[:klen], when short
	klen  uint8
	dirty bool
	// pend is 1 + the group's index in the open bundle's pending list,
	// 0 when it is not pending (mini-batch only).
	pend  int32
	count int64
	inl   [2]accState
	next  *aggGroup // the next group of the same hash
	x     *aggGroupExt
}

// aggGroupExt is the rarely used part of an aggGroup.
type aggGroupExt struct {
	long  string     // the encoded key values when longer than kbuf
	accs  []accState // the accumulators when there are more than inl holds
	stamp int64      // the processing time of the last update (state TTL)
}

// ext returns g's extension, creating it.
func (g *aggGroup) ext() *aggGroupExt {
	if g.x == nil {
		g.x = &aggGroupExt{}
	}
	return g.x
}

func (g *aggGroup) stamp() int64 {
	if g.x == nil {
		return 0
	}
	return g.x.stamp
}

// accs returns the n accumulators of g.
func (g *aggGroup) accs(n int) []accState {
	if g.x != nil && g.x.accs != nil {
		return g.x.accs
	}
	return g.inl[:n]
}

// key returns the encoded key values of g.
func (g *aggGroup) key() []byte {
	if g.x != nil && g.x.long != "" {
		return []byte(g.x.long)
	}
	return g.kbuf[:g.klen]
}

// keyBytes returns the encoded key values of g without copying a long key
// (for comparisons only).
func (g *aggGroup) keyBytes() []byte {
	if g.x != nil && g.x.long != "" {
		return unsafe.Slice(unsafe.StringData(g.x.long), len(g.x.long))
	}
	return g.kbuf[:g.klen]
}

// is reports whether g is the group of the encoded key k.
func (g *aggGroup) is(k []byte) bool {
	if g.klen > 0 || g.x == nil || g.x.long == "" {
		return string(g.kbuf[:g.klen]) == string(k)
	}
	return g.x.long == string(k)
}

// aggStateName is the value state holding each group.
const aggStateName = "acc"

// groupSlab is how many groups are allocated at once.
const groupSlab = 64

// slabRows is how many output rows one slab chunk holds.
const slabRows = 64

func newAggregateOp(spec *jobgraph.Aggregate, in *types.Schema, oc OpContext) (*aggregateOp, error) {
	op := &aggregateOp{
		keys:    spec.Keys,
		ns:      oc.NS,
		kv:      oc.KV,
		out:     oc.Out,
		clock:   oc.Clock,
		ttl:     spec.StateTTL,
		maxKeys: oc.MaxKeys,
		wm:      newMinWatermark(1),
		seed:    maphash.MakeSeed(),
		dropUB:  spec.DropUpdateBefore,
		mb:      spec.MiniBatch,
	}
	if op.ttl > 0 && op.clock == nil {
		return nil, fmt.Errorf("aggregate: state TTL needs a clock")
	}
	if op.mb.On() && (op.clock == nil || op.mb.Latency <= 0) {
		return nil, fmt.Errorf("aggregate: mini-batch needs a clock and a positive latency")
	}
	for _, k := range spec.Keys {
		if k < 0 || k >= in.Len() {
			return nil, fmt.Errorf("aggregate: key column %d out of range", k)
		}
	}
	calls, err := newAggCalls(spec.Calls, in)
	if err != nil {
		return nil, err
	}
	op.aggCalls = calls
	for _, c := range spec.Calls {
		op.countsRows = op.countsRows || (c.Func == jobgraph.AggCountStar && c.Filter < 0 && !c.Distinct)
	}
	return op, nil
}

// Process implements Operator.
func (op *aggregateOp) Process(_ int, row types.Row) error {
	g, err := op.group(row)
	if err != nil {
		return err
	}
	now := op.now()
	if op.ttl > 0 && g.count > 0 && now-g.stamp() >= op.ttl {
		g.reset() // expired: the group starts over, without a -D
		op.markDirty(g)
		if g.pend > 0 {
			op.pendHad[g.pend-1] = false // as if the bundle found no state
		}
	}
	retract := row.Kind.IsRetraction()
	first := g.count == 0
	if first && retract {
		return nil // Flink ignores a retraction of a group without state
	}
	if op.mb.On() {
		return op.bundle(g, row, retract, now)
	}
	// The row emitted last for the group, rebuilt from the accumulators
	// before the update: the -U or -D row if the results change. An
	// added row changes a plain COUNT(*), so when no -U goes out it is
	// not needed.
	width := len(op.keys) + len(op.calls)
	var prev []types.Value
	if !first && (retract || !op.dropUB || !op.countsRows) {
		var err error
		if prev, err = op.appendResults(op.rowBuf(0, width)[:len(op.keys)], g); err != nil {
			return err
		}
		op.fillKeys(prev, row)
	}
	if err := op.apply(g, row, retract, now); err != nil {
		return err
	}
	if g.count <= 0 {
		if first {
			return nil
		}
		return op.out.Emit(types.Row{Kind: types.Delete, Values: prev})
	}
	cur, err := op.appendResults(op.rowBuf(1, width)[:len(op.keys)], g)
	if err != nil {
		return err
	}
	op.fillKeys(cur, row)
	if first {
		return op.out.Emit(types.Row{Kind: types.Insert, Values: cur})
	}
	if prev != nil && op.ttl == 0 && equalValues(cur[len(op.keys):], prev[len(op.keys):]) {
		if !op.reuseOut {
			op.free(2 * width) // prev and cur, the last two slices handed out
		}
		return nil
	}
	if !op.dropUB {
		if err := op.out.Emit(types.Row{Kind: types.UpdateBefore, Values: prev}); err != nil {
			return err
		}
	}
	return op.out.Emit(types.Row{Kind: types.UpdateAfter, Values: cur})
}

// bundle applies row to g within the open bundle, taking note of the
// row g emitted last when the bundle first touches it, and closes the
// bundle when it holds its size.
func (op *aggregateOp) bundle(g *aggGroup, row types.Row, retract bool, now int64) error {
	if g.pend == 0 {
		if len(op.pending) == 0 {
			op.bundleStart = op.clock.Now().UnixNano()
		}
		width := len(op.keys) + len(op.calls)
		lo := len(op.pending) * width
		if need := lo + width; need > len(op.pendRows) {
			op.pendRows = append(op.pendRows, make([]types.Value, max(need, 2*len(op.pendRows))-len(op.pendRows))...)
		}
		prev := op.pendRows[lo : lo+width : lo+width]
		op.fillKeys(prev, row)
		had := g.count > 0
		if had {
			if _, err := op.appendResults(prev[:len(op.keys)], g); err != nil {
				return err
			}
		}
		op.pending = append(op.pending, g)
		op.pendHad = append(op.pendHad, had)
		g.pend = int32(len(op.pending))
	}
	if err := op.apply(g, row, retract, now); err != nil {
		return err
	}
	op.bundleRows++
	if op.bundleRows >= op.mb.Size {
		return op.finishBundle()
	}
	return nil
}

// apply counts and accumulates row into g, which starts over (reset)
// when its last row was retracted.
func (op *aggregateOp) apply(g *aggGroup, row types.Row, retract bool, now int64) error {
	if retract {
		g.count--
	} else {
		g.count++
	}
	if op.ttl > 0 {
		g.ext().stamp = now
	}
	if err := op.accumulate(g, row, retract); err != nil {
		return err
	}
	op.markDirty(g)
	if g.count <= 0 {
		g.reset()
	}
	return nil
}

// finishBundle closes the open bundle: every group it touched emits the
// change from the row it emitted before the bundle to its result now, as
// Flink's MiniBatchGroupAggFunction does: +I for a new group, -D for one
// whose rows were all retracted, -U/+U for a changed result and nothing
// when the result is the same (and state TTL is off).
func (op *aggregateOp) finishBundle() error {
	width := len(op.keys) + len(op.calls)
	nk := len(op.keys)
	for i, g := range op.pending {
		g.pend = 0
		prev := op.pendRows[i*width : (i+1)*width : (i+1)*width]
		had := op.pendHad[i]
		if g.count <= 0 {
			if had {
				d := op.rowBuf(0, width)
				copy(d, prev)
				if err := op.out.Emit(types.Row{Kind: types.Delete, Values: d}); err != nil {
					return err
				}
			}
			continue
		}
		cur, err := op.appendResults(op.rowBuf(1, width)[:nk], g)
		if err != nil {
			return err
		}
		copy(cur[:nk], prev[:nk])
		if !had {
			if err := op.out.Emit(types.Row{Kind: types.Insert, Values: cur}); err != nil {
				return err
			}
			continue
		}
		if op.ttl == 0 && equalValues(cur[nk:], prev[nk:]) {
			if !op.reuseOut {
				op.free(width)
			}
			continue
		}
		if !op.dropUB {
			b := op.rowBuf(0, width)
			copy(b, prev)
			if err := op.out.Emit(types.Row{Kind: types.UpdateBefore, Values: b}); err != nil {
				return err
			}
		}
		if err := op.out.Emit(types.Row{Kind: types.UpdateAfter, Values: cur}); err != nil {
			return err
		}
	}
	clear(op.pendRows[:len(op.pending)*width])
	clear(op.pending)
	op.pending, op.pendHad, op.bundleRows = op.pending[:0], op.pendHad[:0], 0
	return nil
}

// usesProcTime implements procTimeSometimes: a mini-batch closes bundles
// on processing time.
func (op *aggregateOp) usesProcTime() bool { return op.mb.On() }

// OnProcessingTime implements procTimeOperator: the open bundle closes
// once it has been open for the mini-batch latency, and at the end of the
// input (now = MaxWatermark).
func (op *aggregateOp) OnProcessingTime(now int64) error {
	if len(op.pending) > 0 && (now == MaxWatermark || now-op.bundleStart >= op.mb.Latency) {
		return op.finishBundle()
	}
	return nil
}

// Watermark implements Operator: the aggregate has no timers. Its output
// has no time attribute, so a mini-batch stays open across watermarks
// (as behind Flink's processing-time MiniBatchAssigner) until the last.
func (op *aggregateOp) Watermark(port int, wm int64) error {
	if wm == MaxWatermark && len(op.pending) > 0 {
		if err := op.finishBundle(); err != nil {
			return err
		}
	}
	if w, ok := op.wm.advance(port, wm); ok {
		return op.out.Watermark(w)
	}
	return nil
}

// Flush implements Operator. The dirty groups are written in key order:
// the KV's batch and Pebble's memtable insert a run of ascending keys
// near the previous one instead of searching from the top of their skip
// lists (a third of the checkpoint's cost with 100k random keys).
func (op *aggregateOp) Flush() error {
	if len(op.pending) > 0 {
		if err := op.finishBundle(); err != nil {
			return err
		}
	}
	sortDirty(op.dirty, &op.sortBuf, (*aggGroup).keyBytes)
	for _, g := range op.dirty {
		g.dirty = false
		if g.count == 0 {
			if err := op.kv.Delete(op.ns, aggStateName, g.key()); err != nil {
				return fmt.Errorf("aggregate: %w", err)
			}
			op.remove(g)
			continue
		}
		op.enc = op.appendGroup(op.enc[:0], g)
		if err := op.kv.Put(op.ns, aggStateName, g.key(), op.enc); err != nil {
			return fmt.Errorf("aggregate: %w", err)
		}
		if op.fresh.fresh {
			op.fresh.wrote(maphash.Bytes(op.seed, g.keyBytes()))
		}
	}
	clear(op.dirty)
	op.dirty = op.dirty[:0]
	if op.maxKeys > 0 && op.groups > op.maxKeys {
		op.fresh.evicted()
		op.cache.retain(func(_ uint64, g *aggGroup) bool { // every group is clean now
			if op.groups <= op.maxKeys/2 {
				return true
			}
			for ; g != nil; g = g.next {
				op.groups--
			}
			return false
		})
	}
	return nil
}

// remove takes g out of the cache.
func (op *aggregateOp) remove(g *aggGroup) {
	h := maphash.Bytes(op.seed, g.keyBytes())
	p := op.cache.get(h)
	switch {
	case p == g && g.next == nil:
		op.cache.del(h)
	case p == g:
		op.cache.set(h, g.next)
	default:
		for p != nil && p.next != g {
			p = p.next
		}
		if p == nil {
			return
		}
		p.next = g.next
	}
	op.groups--
}

func (op *aggregateOp) now() int64 {
	if op.ttl == 0 {
		return 0
	}
	return op.clock.Now().UnixNano()
}

// group returns the group of row's key, from the cache or the KV, or a
// new one without state.
func (op *aggregateOp) group(row types.Row) (*aggGroup, error) {
	key, h := op.warmedKey(row)
	if key == nil {
		h = op.keyHash(row)
		key = op.keyBuf
	}
	head := op.cache.get(h)
	for g := head; g != nil; g = g.next {
		if g.is(key) {
			return g, nil
		}
	}
	g := op.newGroup()
	g.next = head
	if len(key) <= len(g.kbuf) {
		g.klen = uint8(copy(g.kbuf[:], key))
	} else {
		g.ext().long = string(key)
	}
	if len(op.calls) > len(g.inl) {
		g.ext().accs = make([]accState, len(op.calls))
	}
	if op.fresh.mayHold(op.kv, op.ns, h) {
		b, ok, err := op.kv.Get(op.ns, aggStateName, key)
		if err != nil {
			return nil, fmt.Errorf("aggregate: reading state: %w", err)
		}
		if ok {
			if err := op.decodeGroup(b, g); err != nil {
				return nil, err
			}
		}
	}
	op.cache.set(h, g)
	op.groups++
	return g, nil
}

// keyHash encodes the group key of row into op.keyBuf and returns its
// hash.
func (op *aggregateOp) keyHash(row types.Row) uint64 {
	op.keyBuf = op.appendKey(op.keyBuf[:0], row)
	return maphash.Bytes(op.seed, op.keyBuf)
}

// appendKey appends the encoded group key of row to dst.
func (op *aggregateOp) appendKey(dst []byte, row types.Row) []byte {
	op.keyVals = op.keyVals[:0]
	for _, k := range op.keys {
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	return types.AppendRow(dst, types.Row{Values: op.keyVals})
}

// warm implements warmer: it encodes and hashes the rows' keys, reads the
// table slots they hash to, then the groups those point to. group takes
// the keys and hashes back (warmedKey) as the rows arrive.
func (op *aggregateOp) warm(_ int, evs []event, input int) {
	op.warmed, op.warmAt, op.warmBuf = op.warmed[:0], 0, op.warmBuf[:0]
	if op.cache.len() == 0 || len(op.keys) == 0 {
		return
	}
	for i := range evs {
		if ev := &evs[i]; ev.kind == evRecord && ev.input == input {
			lo := len(op.warmBuf)
			op.warmBuf = op.appendKey(op.warmBuf, ev.row)
			op.warmed = append(op.warmed, warmKey{vals: unsafe.SliceData(ev.row.Values), n: len(ev.row.Values),
				lo: lo, hi: len(op.warmBuf), h: maphash.Bytes(op.seed, op.warmBuf[lo:])})
		}
	}
	// Short loops, so that many loads are in flight at once.
	var t uint64
	for i := range op.warmed {
		t += op.cache.touch(op.warmed[i].h)
	}
	for i := range op.warmed {
		if g := op.cache.get(op.warmed[i].h); g != nil {
			t += uint64(g.klen) + uint64(g.count)
		}
	}
	op.touched += t
}

// warmedKey is the encoded key and hash of the next warmed row if row is
// that row (the same values), else nil.
func (op *aggregateOp) warmedKey(row types.Row) ([]byte, uint64) {
	if op.warmAt >= len(op.warmed) {
		return nil, 0
	}
	w := &op.warmed[op.warmAt]
	if w.vals != unsafe.SliceData(row.Values) || w.n != len(row.Values) {
		return nil, 0
	}
	op.warmAt++
	return op.warmBuf[w.lo:w.hi:w.hi], w.h
}

// warmKey is a row's key as warm encoded it into warmBuf[lo:hi].
type warmKey struct {
	vals   *types.Value // the row's values
	n      int
	lo, hi int
	h      uint64
}

func (g *aggGroup) reset() {
	g.count = 0
	clear(g.inl[:])
	if g.x != nil {
		clear(g.x.accs)
	}
}

// newGroup returns a zero group from the slab of groups.
func (op *aggregateOp) newGroup() *aggGroup {
	if len(op.groupSlab) == 0 {
		op.groupSlab = make([]aggGroup, groupSlab)
	}
	g := &op.groupSlab[0]
	op.groupSlab = op.groupSlab[1:]
	return g
}

func (op *aggregateOp) markDirty(g *aggGroup) {
	if !g.dirty {
		g.dirty = true
		op.dirty = append(op.dirty, g)
	}
}

// accumulate adds (or retracts) row to every call's accumulator.
func (op *aggregateOp) accumulate(g *aggGroup, row types.Row, retract bool) error {
	if err := op.step(g.accs(len(op.calls)), row.Values, retract); err != nil {
		return fmt.Errorf("aggregate: %w", err)
	}
	return nil
}

// appendResults appends the value of every call of g to dst.
func (op *aggregateOp) appendResults(dst []types.Value, g *aggGroup) ([]types.Value, error) {
	return op.appendValues(dst, g.accs(len(op.calls)))
}

func (op *aggregateOp) fillKeys(dst []types.Value, row types.Row) {
	for i, k := range op.keys {
		dst[i] = row.Values[k]
	}
}

// rowBuf returns the slice of n values for an output row: scratch row i
// when rows are reused, else a fresh one from the slab.
func (op *aggregateOp) rowBuf(i, n int) []types.Value {
	if !op.reuseOut {
		return op.alloc(n)
	}
	if cap(op.scratch[i]) < n {
		op.scratch[i] = make([]types.Value, n)
	}
	return op.scratch[i][:n:n]
}

// alloc returns a fresh slice of n values from the slab.
func (op *aggregateOp) alloc(n int) []types.Value {
	if len(op.slab)-op.slabPos < n {
		op.slab, op.slabPos = make([]types.Value, n*slabRows), 0
	}
	r := op.slab[op.slabPos : op.slabPos+n : op.slabPos+n]
	op.slabPos += n
	return r
}

// free takes back the last n values alloc handed out, which were not
// emitted, as far as they are in the current chunk (chunks hold whole
// rows, so a row is never split).
func (op *aggregateOp) free(n int) { op.slabPos = max(op.slabPos-n, 0) }

// appendGroup encodes g: its row count, its stamp, then each accumulator.
func (op *aggregateOp) appendGroup(dst []byte, g *aggGroup) []byte {
	dst = binary.AppendVarint(dst, g.count)
	dst = binary.AppendVarint(dst, g.stamp())
	accs := g.accs(len(op.calls))
	for i := range accs {
		dst = appendAccState(dst, &accs[i])
	}
	return dst
}

func (op *aggregateOp) decodeGroup(b []byte, g *aggGroup) error {
	r := accReader{b: b}
	g.count = r.varint()
	if stamp := r.varint(); stamp != 0 {
		g.ext().stamp = stamp
	}
	accs := g.accs(len(op.calls))
	for i := range accs {
		r.accState(&accs[i])
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("group (trailing bytes)")
	}
	return r.err
}
