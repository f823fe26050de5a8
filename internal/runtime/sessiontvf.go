package runtime

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// sessionTVFOp is the SESSION window TVF (Flink's
// UnalignedWindowTableFunctionOperator): per partition key it keeps the
// rows of each open session; when a session fires, its rows are emitted in
// arrival order with window_start, window_end and window_time appended and
// their kinds kept. Late rows are dropped and counted; rows whose time
// attribute is NULL are dropped.
type sessionTVFOp struct {
	keys   []int
	assign winAssigner
	proc   bool
	clock  Clock
	table  *sessTable[sessRows]
	oc     OpContext
	wm     minWatermark
	width  int
	arena  winArena
	keyBuf []types.Value
}

// sessRows are the rows of one session with their arrival numbers.
type sessRows struct{ rows []seqRow }

type seqRow struct {
	seq uint64
	row types.Row
}

// sessTVFStateName is the value state of the sessions.
const sessTVFStateName = "s"

func newSessionTVFOp(spec *jobgraph.WindowTVF, in *types.Schema, oc OpContext) (Operator, error) {
	w := &spec.Window
	a, err := newWinAssigner(w)
	if err != nil {
		return nil, fmt.Errorf("window TVF: %w", err)
	}
	if !w.ProcTime() && (w.TimeColumn >= in.Len() || !in.Fields[w.TimeColumn].Type.IsTimestamp()) {
		return nil, fmt.Errorf("window TVF: time attribute column %d is not a timestamp", w.TimeColumn)
	}
	if w.ProcTime() && oc.Clock == nil {
		return nil, errors.New("window TVF: processing time needs a clock")
	}
	for _, k := range w.PartitionKeys {
		if k < 0 || k >= in.Len() {
			return nil, fmt.Errorf("window TVF: partition key column %d out of range", k)
		}
	}
	op := &sessionTVFOp{keys: w.PartitionKeys, assign: a, proc: w.ProcTime(), clock: oc.Clock,
		oc: oc, wm: newMinWatermark(1), width: in.Len() + 3}
	op.table, err = newSessTable(oc.NS, sessTVFStateName, oc.KV, a.zone, a.gap, &op.wm, appendSessRows, decodeSessRows,
		func(dst, src *sessRows) error {
			dst.rows = append(dst.rows, src.rows...)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("window TVF: %w", err)
	}
	return op, nil
}

// Process implements Operator.
func (op *sessionTVFOp) Process(_ int, row types.Row) error {
	now := int64(0)
	if op.proc {
		now = op.clock.Now().UnixNano()
	}
	ts, ok := op.assign.rowTime(row.Values, now)
	if !ok {
		return nil
	}
	op.keyBuf = op.keyBuf[:0]
	for _, k := range op.keys {
		op.keyBuf = append(op.keyBuf, row.Values[k])
	}
	_, s, err := op.table.add(op.keyBuf, ts)
	if err != nil {
		return err
	}
	if s == nil {
		op.oc.countLate()
		return nil
	}
	s.v.rows = append(s.v.rows, seqRow{seq: op.table.nextSeq(), row: row})
	return nil
}

// Watermark implements Operator.
func (op *sessionTVFOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	op.table.metaDirty = true // the input watermarks are state
	if !rose {
		return nil
	}
	if !op.proc || w == MaxWatermark {
		if err := op.table.advance(w, op.fire); err != nil {
			return err
		}
	}
	return op.oc.Out.Watermark(w)
}

// OnProcessingTime implements procTimeOperator.
func (op *sessionTVFOp) OnProcessingTime(now int64) error {
	if !op.proc {
		return nil
	}
	return op.table.advance(now, op.fire)
}

func (op *sessionTVFOp) fire(_ *sessKey[sessRows], s *sessWin[sessRows]) error {
	rows := s.v.rows
	slices.SortFunc(rows, func(a, b seqRow) int { return cmp.Compare(a.seq, b.seq) })
	for _, r := range rows {
		vals := append(op.arena.take(op.width), r.row.Values...)
		vals = appendWindowColumns(vals, s.span, op.assign.zone)
		if err := op.oc.Out.Emit(types.Row{Kind: r.row.Kind, Values: vals}); err != nil {
			return err
		}
	}
	return nil
}

// Flush implements Operator.
func (op *sessionTVFOp) Flush() error { return op.table.flush() }

func (op *sessionTVFOp) usesProcTime() bool { return op.proc }

func appendSessRows(dst []byte, v *sessRows) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(v.rows)))
	for _, r := range v.rows {
		dst = binary.AppendUvarint(dst, r.seq)
		dst = appendSizedRow(dst, r.row)
	}
	return dst
}

func decodeSessRows(b []byte, v *sessRows) error {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return errors.New("malformed session rows")
	}
	b = b[k:]
	v.rows = make([]seqRow, 0, n)
	for range n {
		seq, k := binary.Uvarint(b)
		if k <= 0 {
			return errors.New("malformed session row")
		}
		row, rest, err := decodeSizedRow(b[k:])
		if err != nil {
			return err
		}
		b = rest
		v.rows = append(v.rows, seqRow{seq: seq, row: row})
	}
	return nil
}

// appendSizedRow appends a row encoded with its length first.
func appendSizedRow(dst []byte, r types.Row) []byte {
	at := len(dst)
	dst = binary.AppendUvarint(dst, 0) // room for small rows; fixed below
	dst = types.AppendRow(dst, r)
	size := len(dst) - at - 1
	if size < 0x80 {
		dst[at] = byte(size)
		return dst
	}
	enc := types.AppendRow(nil, r)
	dst = binary.AppendUvarint(dst[:at], uint64(len(enc)))
	return append(dst, enc...)
}

// decodeSizedRow decodes a row appendSizedRow wrote at the start of b.
func decodeSizedRow(b []byte) (types.Row, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return types.Row{}, nil, errors.New("malformed row")
	}
	r, err := types.DecodeRow(b[k : k+int(n)])
	if err != nil {
		return types.Row{}, nil, err
	}
	return r, b[k+int(n):], nil
}
