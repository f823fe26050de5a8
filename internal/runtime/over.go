package runtime

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// overOp is the OVER aggregation ordered by a time attribute
// (jobgraph.OverAggregate), Flink's RowTime{Rows,Range}{Unbounded,Bounded}
// PrecedingFunction and ProcTime{Rows,Range}{Unbounded,Bounded}
// PrecedingFunction: per partition it keeps one accumulator per call, the
// rows waiting for their time to be reached, and, for a bounded frame, the
// rows in the frame (to retract them when they leave it).
//
// Rowtime rows wait until the watermark reaches them; a bounded RANGE
// frame also drops a partition's state once no later row can include its
// rows (Flink's cleanup timer, at the last row's time + 1.5 x the frame +
// 1). Proctime ROWS frames and the unbounded RANGE frame process each row
// when it arrives; a bounded RANGE frame buffers the rows of the current
// millisecond until OnProcessingTime passes it, so that they are peers.
//
// State TTL ('table.exec.state.ttl'), for every frame but a bounded RANGE
// one (which cleans up by time already, as in Flink): a partition's state
// is dropped once it received no row for the TTL, as Flink's over
// functions do with a processing-time cleanup timer. A row (late ones
// too) moves the partition's cleanup time to now + 1.5 x the TTL when
// now + the TTL is past it (Flink's registerProcessingCleanupTimer); a
// proctime unbounded frame keeps its accumulators under Flink's state TTL
// instead, expiring exactly the TTL after the last row. When the cleanup
// time comes, a rowtime partition that still has rows waiting for the
// watermark keeps its state and is cleaned up 1.5 x the TTL later. The
// cleanup runs when OnProcessingTime passes it, and before a row of the
// partition is processed (so that the result does not depend on when
// processing-time callbacks come); the partition then starts afresh.
//
// State: per partition one value "part"; the due index of the partitions
// with buffered rows or a pending cleanup ("due"), and with a TTL that of
// their processing-time cleanup ("ttl"); the watermark.
type overOp struct {
	spec  *jobgraph.OverAggregate
	oc    OpContext
	out   Output
	agg   aggCalls
	wm    minWatermark
	cache *keyedCache[overPart]
	due   *dueIndex
	width int
	// buffered: rows wait for their time (rowtime, or a proctime bounded
	// RANGE frame); they are processed at once otherwise.
	buffered bool
	// ttl is the state TTL (0: none), clock the processing-time clock,
	// and ttlDue the partitions by cleanup time.
	ttl    int64
	clock  Clock
	ttlDue *dueIndex

	keyVals []types.Value
	keyBuf  []byte
	wmBuf   []byte
	slab    valueSlab
	group   []overRow // scratch: the rows of one time
}

// overRow is a row with its time.
type overRow struct {
	t    int64
	vals []types.Value
}

// overPart is the state of one partition.
type overPart struct {
	// active is set once a row was accumulated (accs is meaningful).
	active bool
	accs   []accState
	// pending are the rows waiting for their time, in (time, arrival)
	// order.
	pending []overRow
	// frame are the rows accumulated that a bounded frame will retract,
	// in processing order.
	frame []overRow
	// last is the time processed last (bounded frames: later rows at or
	// before it are late); hasLast says whether there is one.
	last    int64
	hasLast bool
	// cleanup is the time at which a bounded RANGE frame drops the
	// partition's state (0: none).
	cleanup int64
	// expire is the processing time (nanoseconds) at which the state TTL
	// drops the partition's state (0: none).
	expire int64
}

type overCodec struct{ calls int }

func (overCodec) empty(p *overPart) bool { return !p.active && len(p.pending) == 0 && !p.hasLast }

func (c overCodec) encode(dst []byte, p *overPart) []byte {
	var flags byte
	if p.active {
		flags |= 1
	}
	if p.hasLast {
		flags |= 2
	}
	if p.expire != 0 {
		flags |= 4
	}
	dst = append(dst, flags)
	dst = binary.AppendVarint(dst, p.last)
	dst = binary.AppendVarint(dst, p.cleanup)
	if p.expire != 0 {
		dst = binary.AppendVarint(dst, p.expire)
	}
	if p.active {
		for i := range p.accs {
			dst = appendAccState(dst, &p.accs[i])
		}
	}
	var scratch []byte
	for _, rows := range [][]overRow{p.pending, p.frame} {
		dst = binary.AppendUvarint(dst, uint64(len(rows)))
		for _, r := range rows {
			dst = binary.AppendVarint(dst, r.t)
			dst = appendStateRow(dst, types.Insert, r.vals, &scratch)
		}
	}
	return dst
}

func (c overCodec) decode(b []byte, p *overPart) error {
	if len(b) == 0 {
		return fmt.Errorf("malformed over state")
	}
	flags := b[0]
	r := accReader{b: b[1:]}
	p.active, p.hasLast = flags&1 != 0, flags&2 != 0
	p.last = r.varint()
	p.cleanup = r.varint()
	if flags&4 != 0 {
		p.expire = r.varint()
	}
	p.accs = make([]accState, c.calls)
	if p.active {
		for i := range p.accs {
			r.accState(&p.accs[i])
		}
	}
	for _, rows := range []*[]overRow{&p.pending, &p.frame} {
		n := r.length()
		for range n {
			t := r.varint()
			row := r.row()
			if r.err != nil {
				break
			}
			*rows = append(*rows, overRow{t: t, vals: row.Values})
		}
	}
	return r.done("over state")
}

func newOverOp(spec *jobgraph.OverAggregate, in *types.Schema, oc OpContext) (*overOp, error) {
	if err := checkColumns("over", in.Len(), spec.PartitionKeys...); err != nil {
		return nil, err
	}
	if err := checkColumns("over", in.Len(), spec.OrderBy); err != nil {
		return nil, err
	}
	if !spec.Frame.Unbounded && spec.Frame.Preceding < 0 {
		return nil, fmt.Errorf("over: negative frame bound %d", spec.Frame.Preceding)
	}
	agg, err := newAggCalls(spec.Calls, in)
	if err != nil {
		return nil, fmt.Errorf("over: %w", err)
	}
	op := &overOp{spec: spec, oc: oc, out: oc.Out, agg: agg, width: in.Len(),
		cache:    newKeyedCache[overPart](oc, "part", overCodec{calls: len(spec.Calls)}),
		due:      newDueIndex(oc, "due"),
		buffered: !spec.ProcTime || !spec.Frame.Rows && !spec.Frame.Unbounded,
	}
	if err := op.due.restore(); err != nil {
		return nil, fmt.Errorf("over: %w", err)
	}
	if spec.StateTTL > 0 && !op.boundedRange() {
		if oc.Clock == nil {
			return nil, fmt.Errorf("over: state TTL needs a clock")
		}
		op.ttl, op.clock, op.ttlDue = spec.StateTTL, oc.Clock, newDueIndex(oc, "ttl")
		if err := op.ttlDue.restore(); err != nil {
			return nil, fmt.Errorf("over: %w", err)
		}
	}
	if op.wm, err = loadWatermarks(oc, 1); err != nil {
		return nil, fmt.Errorf("over: %w", err)
	}
	return op, nil
}

// boundedRange reports a RANGE BETWEEN INTERVAL … PRECEDING frame.
func (op *overOp) boundedRange() bool { return !op.spec.Frame.Rows && !op.spec.Frame.Unbounded }

// Process implements Operator.
func (op *overOp) Process(_ int, row types.Row) error {
	if row.Kind != types.Insert {
		return fmt.Errorf("over: the input must be insert-only, got a %s row", row.Kind)
	}
	if len(row.Values) != op.width {
		return fmt.Errorf("over: row has %d values, want %d", len(row.Values), op.width)
	}
	var t int64
	if op.spec.ProcTime {
		t = op.oc.Clock.Now().UnixMilli() * 1e6
	} else {
		var ok bool
		if t, ok = rowTime(row.Values, op.spec.OrderBy); !ok {
			op.oc.countLate()
			return nil
		}
	}
	op.keyVals = op.keyVals[:0]
	for _, k := range op.spec.PartitionKeys {
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	e, err := op.cache.get(op.keyBuf)
	if err != nil {
		return fmt.Errorf("over: %w", err)
	}
	p := &e.v
	if op.ttl > 0 {
		now := op.clock.Now().UnixNano()
		if p.expire != 0 && p.expire <= now {
			op.expire(e, now) // the cleanup timer went off before this row
		}
		op.renew(e, now)
	}
	if p.accs == nil {
		p.accs = make([]accState, len(op.spec.Calls))
	}
	if !op.spec.ProcTime {
		// Late rows, as Flink judges them: unbounded frames by the
		// watermark, bounded ones by the partition's last processed time.
		if op.spec.Frame.Unbounded && t <= op.wm.cur || !op.spec.Frame.Unbounded && p.hasLast && t <= p.last {
			op.oc.countLate()
			return nil
		}
	}
	op.cache.mark(e)
	if !op.buffered {
		p.pending = append(p.pending[:0], overRow{t: t, vals: row.Values})
		return op.process(e, MaxWatermark)
	}
	i, _ := slices.BinarySearchFunc(p.pending, t, func(r overRow, t int64) int {
		if r.t <= t {
			return -1
		}
		return 1
	})
	p.pending = slices.Insert(p.pending, i, overRow{t: t, vals: row.Values})
	if op.boundedRange() {
		// Flink's cleanup timer: the state goes once no later row can see
		// this one.
		pre := op.spec.Frame.Preceding
		if minClean := t + pre + 1; p.cleanup < minClean {
			p.cleanup = t + pre + pre/2 + 1
		}
	}
	op.setDue(e)
	return nil
}

// renew moves the state TTL's cleanup of the partition of e (whose key
// values are op.keyVals) for a row arriving at now.
func (op *overOp) renew(e *cached[overPart], now int64) {
	p := &e.v
	switch {
	case op.spec.ProcTime && op.spec.Frame.Unbounded:
		// Flink's state TTL, renewed by each write. The index keeps the
		// earlier time, when it has one: OnProcessingTime moves it on.
		p.expire = now + op.ttl
		op.cache.mark(e)
		if _, live := op.ttlDue.at(e.key); live {
			return
		}
	case p.expire == 0 || now+op.ttl > p.expire:
		p.expire = now + op.ttl + op.ttl/2
	default:
		return
	}
	op.cache.mark(e)
	op.ttlDue.set(e.key, op.slab.clone(op.keyVals), p.expire)
}

// expire runs the state TTL's cleanup of the partition of e at now: the
// state goes, unless rows still wait for the watermark (the cleanup is
// then 1.5 x the TTL later).
func (op *overOp) expire(e *cached[overPart], now int64) {
	p := &e.v
	op.cache.mark(e)
	if len(p.pending) > 0 {
		p.expire = now + op.ttl + op.ttl/2
		op.ttlDue.set(e.key, op.slab.clone(op.keyOf(p)), p.expire)
		return
	}
	*p = overPart{}
	op.ttlDue.clear(e.key)
	op.due.clear(e.key)
}

// setDue records when the partition of e has work next.
func (op *overOp) setDue(e *cached[overPart]) {
	p := &e.v
	at, ok := int64(0), false
	if len(p.pending) > 0 {
		at, ok = p.pending[0].t, true
	}
	if p.cleanup != 0 && (!ok || p.cleanup < at) {
		at, ok = p.cleanup, true
	}
	if !ok {
		op.due.clear(e.key)
		return
	}
	if cur, has := op.due.at(e.key); has && cur == at {
		return
	}
	op.due.set(e.key, op.slab.clone(op.keyOf(p)), at)
}

// keyOf returns the partition key values of a partition with rows.
func (op *overOp) keyOf(p *overPart) []types.Value {
	var row []types.Value
	switch {
	case len(p.pending) > 0:
		row = p.pending[0].vals
	case len(p.frame) > 0:
		row = p.frame[0].vals
	default:
		return op.keyVals
	}
	op.keyVals = op.keyVals[:0]
	for _, k := range op.spec.PartitionKeys {
		op.keyVals = append(op.keyVals, row[k])
	}
	return op.keyVals
}

// process handles the pending rows of a partition whose time is at or
// before upTo, in time order, then its cleanup if due.
func (op *overOp) process(e *cached[overPart], upTo int64) error {
	p := &e.v
	f := op.spec.Frame
	n := 0
	for n < len(p.pending) && p.pending[n].t <= upTo {
		t := p.pending[n].t
		end := n + 1
		for end < len(p.pending) && p.pending[end].t == t {
			end++
		}
		group := p.pending[n:end]
		n = end
		p.active = true
		if !f.Unbounded {
			p.last, p.hasLast = t, true
		}
		if f.Rows {
			for _, r := range group {
				if !f.Unbounded {
					if int64(len(p.frame)) > f.Preceding {
						if err := op.agg.step(p.accs, p.frame[0].vals, true); err != nil {
							return fmt.Errorf("over: %w", err)
						}
						p.frame[0] = overRow{}
						p.frame = p.frame[1:]
					}
					p.frame = append(p.frame, r)
				}
				if err := op.agg.step(p.accs, r.vals, false); err != nil {
					return fmt.Errorf("over: %w", err)
				}
				if err := op.emit(r.vals, p.accs); err != nil {
					return err
				}
			}
			continue
		}
		// RANGE: the rows of one time are peers.
		if !f.Unbounded {
			lo := t - f.Preceding
			k := 0
			for k < len(p.frame) && p.frame[k].t < lo {
				if err := op.agg.step(p.accs, p.frame[k].vals, true); err != nil {
					return fmt.Errorf("over: %w", err)
				}
				k++
			}
			clear(p.frame[:k])
			p.frame = p.frame[k:]
		}
		op.group = append(op.group[:0], group...)
		for _, r := range op.group {
			if err := op.agg.step(p.accs, r.vals, false); err != nil {
				return fmt.Errorf("over: %w", err)
			}
			if !f.Unbounded {
				p.frame = append(p.frame, r)
			}
		}
		for _, r := range op.group {
			if err := op.emit(r.vals, p.accs); err != nil {
				return err
			}
		}
		clear(op.group)
	}
	if n > 0 {
		clear(p.pending[:n])
		p.pending = p.pending[n:]
		if len(p.pending) == 0 {
			p.pending = nil
		}
	}
	if p.cleanup != 0 && p.cleanup <= upTo && len(p.pending) == 0 {
		*p = overPart{}
	}
	return nil
}

// emit emits the input row vals followed by the calls' values.
func (op *overOp) emit(vals []types.Value, accs []accState) error {
	out := op.slab.alloc(op.width + len(op.agg.calls))
	copy(out, vals)
	if _, err := op.agg.appendValues(out[:op.width], accs); err != nil {
		return err
	}
	return op.out.Emit(types.Row{Kind: types.Insert, Values: out})
}

// fire processes the partitions due at or before upTo, in (time, key)
// order.
func (op *overOp) fire(upTo int64) error {
	for {
		key, _, ok := op.due.pop(upTo)
		if !ok {
			return nil
		}
		e, err := op.cache.getString(key)
		if err != nil {
			return fmt.Errorf("over: %w", err)
		}
		op.cache.mark(e)
		if err := op.process(e, upTo); err != nil {
			return err
		}
		op.setDue(e)
	}
}

// Watermark implements Operator: rowtime partitions process the rows the
// watermark reached.
func (op *overOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	if !rose {
		return nil
	}
	if !op.spec.ProcTime {
		if err := op.fire(w); err != nil {
			return err
		}
	}
	return op.out.Watermark(w)
}

// OnProcessingTime implements procTimeOperator: a proctime bounded RANGE
// frame processes the rows of the milliseconds before now.
//
// With a state TTL it also cleans up the partitions whose cleanup time
// now passed (not at the end of a bounded input, MaxWatermark: no time
// passes then).
func (op *overOp) OnProcessingTime(now int64) error {
	if op.ttl > 0 && now != MaxWatermark {
		for {
			key, vals, ok := op.ttlDue.pop(now)
			if !ok {
				break
			}
			e, err := op.cache.getString(key)
			if err != nil {
				return fmt.Errorf("over: %w", err)
			}
			switch x := e.v.expire; {
			case x != 0 && x <= now:
				op.expire(e, now)
			case x > now: // renewed since it was indexed
				op.ttlDue.set(key, vals, x)
			}
		}
	}
	if !op.spec.ProcTime || !op.buffered {
		return nil
	}
	upTo := now - 1e6
	if now == MaxWatermark {
		upTo = MaxWatermark
	}
	return op.fire(upTo)
}

// Flush implements Operator.
func (op *overOp) Flush() error {
	if err := op.due.flush(); err != nil {
		return fmt.Errorf("over: %w", err)
	}
	if op.ttlDue != nil {
		if err := op.ttlDue.flush(); err != nil {
			return fmt.Errorf("over: %w", err)
		}
	}
	if err := op.cache.flush(); err != nil {
		return fmt.Errorf("over: %w", err)
	}
	var err error
	if op.wmBuf, err = saveWatermarks(op.oc, &op.wm, op.wmBuf); err != nil {
		return fmt.Errorf("over: %w", err)
	}
	return nil
}
