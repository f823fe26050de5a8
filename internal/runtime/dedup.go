package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// dedupOp keeps the first or last row per key (jobgraph.Deduplicate),
// Flink's ProcTimeDeduplicateKeepFirstRowFunction,
// ProcTimeDeduplicateKeepLastRowFunction, RowTimeDeduplicateFunction (keep
// last) and RowTimeDeduplicateKeepFirstRowFunction (keep first, emitting
// on the watermark).
//
// State: per key (the encoded key values) one value "row": the key's last
// row (keep last), its pending first row (rowtime keep first), and whether
// its first row was emitted (keep first). Rowtime keep first also keeps a
// due index of the keys with a pending row, by the row's time.
//
// State TTL ('table.exec.state.ttl'): a key not written for the TTL is
// forgotten when it is next read, as if it had never been seen (Flink's
// deduplicate functions keep their state under the TTL): keep first
// emits the key's next row again, keep last emits it as +I. The time of
// the last write follows the state only with a TTL.
type dedupOp struct {
	spec  *jobgraph.Deduplicate
	oc    OpContext
	out   Output
	wm    minWatermark
	cache *keyedCache[dedupState]
	due   *dueIndex

	keyVals []types.Value
	keyBuf  []byte
	wmBuf   []byte
	slab    valueSlab
	clock   Clock
	ttl     int64
}

// dedupState is the state of one key.
type dedupState struct {
	// row is the last row (keep last) or the pending first row (rowtime
	// keep first); nil when there is none.
	row []types.Value
	// done is set once the key's first row was emitted (keep first).
	done bool
	// stamp is the processing time of the last write (state TTL); 0
	// without a TTL or for state written before one was set.
	stamp int64
}

type dedupCodec struct{}

func (dedupCodec) empty(s *dedupState) bool { return s.row == nil && !s.done }

func (dedupCodec) encode(dst []byte, s *dedupState) []byte {
	var flags byte
	if s.done {
		flags |= 1
	}
	if s.row != nil {
		flags |= 2
	}
	if s.stamp != 0 {
		flags |= 4
	}
	dst = append(dst, flags)
	if s.stamp != 0 {
		dst = binary.AppendVarint(dst, s.stamp)
	}
	if s.row != nil {
		dst = types.AppendRow(dst, types.Row{Values: s.row})
	}
	return dst
}

func (dedupCodec) decode(b []byte, s *dedupState) error {
	if len(b) == 0 || b[0] > 7 {
		return fmt.Errorf("malformed deduplicate state")
	}
	s.done = b[0]&1 != 0
	rest := b[1:]
	if b[0]&4 != 0 {
		stamp, n := binary.Varint(rest)
		if n <= 0 {
			return fmt.Errorf("malformed deduplicate state")
		}
		s.stamp, rest = stamp, rest[n:]
	}
	if b[0]&2 != 0 {
		r, err := types.DecodeRow(rest)
		if err != nil {
			return err
		}
		s.row = r.Values
	}
	return nil
}

func newDedupOp(spec *jobgraph.Deduplicate, in *types.Schema, oc OpContext) (*dedupOp, error) {
	if err := checkColumns("deduplicate", in.Len(), spec.Keys...); err != nil {
		return nil, err
	}
	if !spec.ProcTime() {
		if err := checkColumns("deduplicate", in.Len(), spec.TimeColumn); err != nil {
			return nil, err
		}
	}
	op := &dedupOp{spec: spec, oc: oc, out: oc.Out, cache: newKeyedCache[dedupState](oc, "row", dedupCodec{}),
		clock: oc.Clock, ttl: max(spec.StateTTL, 0)}
	if op.ttl > 0 && op.clock == nil {
		return nil, fmt.Errorf("deduplicate: state TTL needs a clock")
	}
	var err error
	if op.wm, err = loadWatermarks(oc, 1); err != nil {
		return nil, fmt.Errorf("deduplicate: %w", err)
	}
	if !spec.KeepLast && !spec.ProcTime() {
		op.due = newDueIndex(oc, "due")
		if err := op.due.restore(); err != nil {
			return nil, fmt.Errorf("deduplicate: %w", err)
		}
	}
	return op, nil
}

// Process implements Operator.
func (op *dedupOp) Process(_ int, row types.Row) error {
	if row.Kind != types.Insert {
		return fmt.Errorf("deduplicate: the input must be insert-only, got a %s row", row.Kind)
	}
	var t int64
	if !op.spec.ProcTime() {
		var ok bool
		if t, ok = rowTime(row.Values, op.spec.TimeColumn); !ok {
			op.oc.countLate()
			return nil
		}
		if !op.spec.KeepLast && t < op.wm.cur {
			op.oc.countLate() // Flink: rowtime < current watermark
			return nil
		}
	}
	op.keyVals = op.keyVals[:0]
	for _, k := range op.spec.Keys {
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	e, err := op.cache.get(op.keyBuf)
	if err != nil {
		return fmt.Errorf("deduplicate: %w", err)
	}
	s := &e.v
	var now int64
	if op.ttl > 0 {
		now = op.clock.Now().UnixNano()
		if s.stamp != 0 && now-s.stamp >= op.ttl {
			*s = dedupState{} // expired: as if the key had never been seen
		}
	}
	switch {
	case !op.spec.KeepLast && op.spec.ProcTime():
		if s.done {
			return nil
		}
		s.done = true
		op.write(e, now)
		return op.out.Emit(row)
	case !op.spec.KeepLast: // rowtime keep first: the earliest row waits for the watermark
		if s.done {
			return nil
		}
		if s.row != nil {
			if prev, _ := rowTime(s.row, op.spec.TimeColumn); t >= prev {
				return nil
			}
		}
		s.row = row.Values
		op.write(e, now)
		op.due.set(e.key, op.slab.clone(op.keyVals), t)
		return nil
	case op.spec.ProcTime(): // keep last
		prev := s.row
		s.row = row.Values
		op.write(e, now)
		if prev == nil {
			return op.out.Emit(types.Row{Kind: types.Insert, Values: row.Values})
		}
		if op.ttl == 0 && equalValues(prev, row.Values) {
			// Flink drops an identical row only without a TTL: with one,
			// it goes out again so that downstream state is renewed too.
			return nil
		}
		return op.update(prev, row.Values)
	default: // rowtime keep last: a row at or after the last row's time replaces it
		prev := s.row
		if prev != nil {
			if pt, _ := rowTime(prev, op.spec.TimeColumn); t < pt {
				return nil
			}
		}
		s.row = row.Values
		op.write(e, now)
		if prev == nil {
			return op.out.Emit(types.Row{Kind: types.Insert, Values: row.Values})
		}
		return op.update(prev, row.Values)
	}
}

// write marks e written at now: its state TTL starts again.
func (op *dedupOp) write(e *cached[dedupState], now int64) {
	if op.ttl > 0 {
		e.v.stamp = now
	}
	op.cache.mark(e)
}

// update emits -U prev (unless dropped) and +U cur.
func (op *dedupOp) update(prev, cur []types.Value) error {
	if !op.spec.DropUpdateBefore {
		if err := op.out.Emit(types.Row{Kind: types.UpdateBefore, Values: prev}); err != nil {
			return err
		}
	}
	return op.out.Emit(types.Row{Kind: types.UpdateAfter, Values: cur})
}

// Watermark implements Operator: rowtime keep first emits the pending rows
// the watermark reached, keys in (time, key) order.
func (op *dedupOp) Watermark(port int, wm int64) error {
	wm, rose := op.wm.advance(port, wm)
	if !rose {
		return nil
	}
	if op.due != nil {
		for {
			key, _, ok := op.due.pop(wm)
			if !ok {
				break
			}
			e, err := op.cache.getString(key)
			if err != nil {
				return fmt.Errorf("deduplicate: %w", err)
			}
			if e.v.row == nil {
				continue
			}
			row := e.v.row
			e.v.row, e.v.done = nil, true
			op.cache.mark(e)
			if err := op.out.Emit(types.Row{Kind: types.Insert, Values: row}); err != nil {
				return err
			}
		}
	}
	return op.out.Watermark(wm)
}

// Flush implements Operator.
func (op *dedupOp) Flush() error {
	if op.due != nil {
		if err := op.due.flush(); err != nil {
			return fmt.Errorf("deduplicate: %w", err)
		}
	}
	if err := op.cache.flush(); err != nil {
		return fmt.Errorf("deduplicate: %w", err)
	}
	var err error
	if op.wmBuf, err = saveWatermarks(op.oc, &op.wm, op.wmBuf); err != nil {
		return fmt.Errorf("deduplicate: %w", err)
	}
	return nil
}
