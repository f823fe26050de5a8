package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/eddy-sql/eddy/types"
)

// valueSlab hands out value slices carved from chunks, so that emitted
// rows and kept key values do not cost an allocation each. A slice once
// handed out is never reused: it may be kept downstream. Chunks are small
// so that a kept row pins little memory.
type valueSlab struct{ chunk []types.Value }

// slabValues is the number of values of a valueSlab chunk.
const slabValues = 512

// alloc returns a fresh slice of n values (length n, capacity n).
func (s *valueSlab) alloc(n int) []types.Value {
	if len(s.chunk) < n {
		s.chunk = make([]types.Value, max(n, slabValues))
	}
	r := s.chunk[:n:n]
	s.chunk = s.chunk[n:]
	return r
}

// clone returns a fresh copy of vals.
func (s *valueSlab) clone(vals []types.Value) []types.Value {
	r := s.alloc(len(vals))
	copy(r, vals)
	return r
}

// rowTime returns the time attribute at col of vals in nanoseconds, and
// false when it is NULL.
func rowTime(vals []types.Value, col int) (int64, bool) {
	v := vals[col]
	if v.IsNull() {
		return 0, false
	}
	return v.Int(), true
}

// checkColumns reports an error naming what when a column position is out
// of range for a row of width columns.
func checkColumns(what string, width int, cols ...int) error {
	for _, c := range cols {
		if c < 0 || c >= width {
			return fmt.Errorf("%s: column %d out of range for %d columns", what, c, width)
		}
	}
	return nil
}

// appendStateRow appends vals as a length-prefixed encoded row.
func appendStateRow(dst []byte, kind types.RowKind, vals []types.Value, scratch *[]byte) []byte {
	*scratch = types.AppendRow((*scratch)[:0], types.Row{Kind: kind, Values: vals})
	dst = binary.AppendUvarint(dst, uint64(len(*scratch)))
	return append(dst, *scratch...)
}

// row decodes a row written by appendStateRow.
func (r *accReader) row() types.Row {
	n := r.length()
	if r.err != nil {
		return types.Row{}
	}
	row, err := types.DecodeRow(r.b[:n])
	if err != nil {
		r.err = fmt.Errorf("decoding state: %w", err)
		return types.Row{}
	}
	r.b = r.b[n:]
	return row
}

// done reports a decoding error, or trailing bytes.
func (r *accReader) done(what string) error {
	if r.err == nil && len(r.b) != 0 {
		r.fail(what + " (trailing bytes)")
	}
	return r.err
}
