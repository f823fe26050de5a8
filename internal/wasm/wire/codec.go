package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// ErrMalformed is wrapped by every decoding error: the bytes are not a
// message of this ABI (a module built for another version, or a bug).
var ErrMalformed = errors.New("malformed message")

// Encoder appends the primitives of the ABI to B. The zero value is ready;
// reuse one by truncating B.
type Encoder struct{ B []byte }

// Byte appends one byte.
func (e *Encoder) Byte(b byte) { e.B = append(e.B, b) }

// Bool appends a boolean as one byte.
func (e *Encoder) Bool(b bool) {
	if b {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// Uvarint appends an unsigned varint.
func (e *Encoder) Uvarint(x uint64) { e.B = binary.AppendUvarint(e.B, x) }

// Varint appends a zig-zag varint.
func (e *Encoder) Varint(x int64) { e.B = binary.AppendVarint(e.B, x) }

// Int appends a non-negative int as a uvarint (negative ints as 0).
func (e *Encoder) Int(x int) { e.Uvarint(uint64(max(x, 0))) }

// String appends a length-prefixed string.
func (e *Encoder) String(s string) {
	e.Uvarint(uint64(len(s)))
	e.B = append(e.B, s...)
}

// Bytes appends a length-prefixed byte string.
func (e *Encoder) Bytes(b []byte) {
	e.Uvarint(uint64(len(b)))
	e.B = append(e.B, b...)
}

// Value appends a SQL value in the self-describing encoding of package
// types.
func (e *Encoder) Value(v types.Value) { e.B = types.AppendValue(e.B, v) }

// Values appends a count and the values.
func (e *Encoder) Values(vs []types.Value) {
	e.Uvarint(uint64(len(vs)))
	for _, v := range vs {
		e.B = types.AppendValue(e.B, v)
	}
}

// Time appends a time as seconds and nanoseconds since the epoch, which
// covers every time.Time a function can see (ptf.MaxTime is far beyond
// int64 nanoseconds).
func (e *Encoder) Time(t time.Time) {
	e.Varint(t.Unix())
	e.Uvarint(uint64(t.Nanosecond()))
}

// Ints appends a count and ints.
func (e *Encoder) Ints(xs []int) {
	e.Uvarint(uint64(len(xs)))
	for _, x := range xs {
		e.Varint(int64(x))
	}
}

// Bools appends a count and booleans.
func (e *Encoder) Bools(bs []bool) {
	e.Uvarint(uint64(len(bs)))
	for _, b := range bs {
		e.Bool(b)
	}
}

// Mode appends a changelog mode: its kinds as a bit set and whether its
// deletes are key-only.
func (e *Encoder) Mode(m ptf.ChangelogMode) {
	var bits byte
	for k := types.Insert; k <= types.Delete; k++ {
		if m.Contains(k) {
			bits |= 1 << k
		}
	}
	if m.KeyOnlyDeletes() {
		bits |= 1 << 7
	}
	e.B = append(e.B, bits)
}

// Schema appends a schema as its ROW type string (nil as "").
func (e *Encoder) Schema(s *types.Schema) {
	if s == nil {
		e.String("")
		return
	}
	e.String(types.Type{ID: types.TypeRow, Fields: s.Fields}.String())
}

// Decoder reads what an Encoder wrote from B. The first error sticks:
// later reads return zero values, and Err reports it.
type Decoder struct {
	B   []byte
	err error
}

// Err returns the first decoding error.
func (d *Decoder) Err() error { return d.err }

// Fail records err (wrapping ErrMalformed) unless an error was recorded.
func (d *Decoder) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
	}
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.err != nil || len(d.B) == 0 {
		d.Fail("truncated")
		return 0
	}
	b := d.B[0]
	d.B = d.B[1:]
	return b
}

// Bool reads a boolean.
func (d *Decoder) Bool() bool { return d.Byte() != 0 }

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	if len(d.B) > 0 && d.B[0] < 0x80 { // one byte: most counts and lengths
		x := uint64(d.B[0])
		d.B = d.B[1:]
		return x
	}
	x, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail("bad uvarint")
		return 0
	}
	d.B = d.B[n:]
	return x
}

// Varint reads a zig-zag varint.
func (d *Decoder) Varint() int64 {
	if d.err != nil {
		return 0
	}
	if len(d.B) > 0 && d.B[0] < 0x80 { // one byte: -64..63
		u := d.B[0]
		d.B = d.B[1:]
		return int64(u>>1) ^ -int64(u&1)
	}
	x, n := binary.Varint(d.B)
	if n <= 0 {
		d.Fail("bad varint")
		return 0
	}
	d.B = d.B[n:]
	return x
}

// Int reads a uvarint as an int.
func (d *Decoder) Int() int {
	x := d.Uvarint()
	if x > math.MaxInt32 {
		d.Fail("count %d out of range", x)
		return 0
	}
	return int(x)
}

// Count reads an element count that cannot exceed the bytes left (every
// element takes at least one byte), so hostile counts allocate nothing.
func (d *Decoder) Count() int {
	n := d.Int()
	if n > len(d.B) {
		d.Fail("count %d exceeds the %d bytes left", n, len(d.B))
		return 0
	}
	return n
}

// View reads a length-prefixed byte string without copying it: the
// result aliases B.
func (d *Decoder) View() []byte {
	n := d.Uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.B)) {
		d.Fail("byte string of %d bytes exceeds the %d left", n, len(d.B))
		return nil
	}
	b := d.B[:n:n]
	d.B = d.B[n:]
	return b
}

// Bytes reads a length-prefixed byte string into a new slice (nil when
// empty).
func (d *Decoder) Bytes() []byte {
	v := d.View()
	if len(v) == 0 {
		return nil
	}
	return append([]byte{}, v...)
}

// String reads a length-prefixed string.
func (d *Decoder) String() string { return string(d.View()) }

// Value reads a SQL value; strings are copied.
func (d *Decoder) Value() types.Value {
	if d.err != nil {
		return types.Null
	}
	v, n, err := types.DecodeValue(d.B)
	if err != nil {
		d.Fail("value: %v", err)
		return types.Null
	}
	d.B = d.B[n:]
	return v
}

// Values reads a count and values, appending them to dst.
func (d *Decoder) Values(dst []types.Value) []types.Value {
	n := d.Count()
	if d.err != nil || n == 0 {
		return dst
	}
	dst, used, err := types.DecodeValues(dst, d.B, n)
	if err != nil {
		d.Fail("values: %v", err)
		return dst
	}
	d.B = d.B[used:]
	return dst
}

// Time reads a time written by Encoder.Time, in UTC.
func (d *Decoder) Time() time.Time {
	sec := d.Varint()
	nsec := d.Uvarint()
	if nsec >= 1e9 {
		d.Fail("nanoseconds %d out of range", nsec)
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// Ints reads a count and ints.
func (d *Decoder) Ints() []int {
	n := d.Count()
	if n == 0 {
		return nil
	}
	out := make([]int, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, int(d.Varint()))
	}
	return out
}

// Bools reads a count and booleans.
func (d *Decoder) Bools() []bool {
	n := d.Count()
	if n == 0 {
		return nil
	}
	out := make([]bool, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, d.Bool())
	}
	return out
}

// Mode reads a changelog mode.
func (d *Decoder) Mode() ptf.ChangelogMode {
	bits := d.Byte()
	var kinds []types.RowKind
	for k := types.Insert; k <= types.Delete; k++ {
		if bits&(1<<k) != 0 {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return ptf.ChangelogMode{}
	}
	return ptf.ModeOf(kinds...).WithKeyOnlyDeletes(bits&(1<<7) != 0)
}

// Schema reads a schema written by Encoder.Schema (nil for "").
func (d *Decoder) Schema() *types.Schema {
	s := d.String()
	if s == "" || d.err != nil {
		return nil
	}
	t, err := types.ParseType(s)
	if err != nil || t.ID != types.TypeRow {
		d.Fail("schema %q: %v", s, err)
		return nil
	}
	return types.NewSchema(t.Fields...)
}
