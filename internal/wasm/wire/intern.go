package wire

import "github.com/eddy-sql/eddy/types"

// tagString is the first byte of a STRING value in the encoding of
// package types (read from the encoder, not copied from its source).
var (
	tagString = types.AppendValue(nil, types.NewString("x"))[0]
	tagInt    = types.AppendValue(nil, types.NewInt(1))[0]
	tagNull   = types.AppendValue(nil, types.Null)[0]
)

// maxInterned is the longest string an Interner keeps.
const maxInterned = 64

// Interner remembers recently decoded short strings, so that decoding a
// string equal to one decoded before returns that string instead of
// allocating a new one. Streams repeat a few strings over and over (event
// types, statuses, currencies), and an allocation costs far more inside a
// WebAssembly module than natively. Go strings are immutable, so sharing
// one is invisible to the code that receives it. The zero value is ready;
// it holds at most 256 strings of at most 64 bytes.
type Interner struct{ slots [256]string }

// String returns b as a string, a remembered one when it is equal.
func (in *Interner) String(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if n > maxInterned {
		return string(b)
	}
	h := (uint(n)*131 ^ uint(b[0])*31 ^ uint(b[n/2])*7 ^ uint(b[n-1])) & 255
	if s := in.slots[h]; s == string(b) {
		return s
	}
	s := string(b)
	in.slots[h] = s
	return s
}

// ValuesInterned is Values with the strings taken from in. STRING, INT
// and NULL values, the most common ones, are decoded here without the
// general decoder of package types.
func (d *Decoder) ValuesInterned(dst []types.Value, in *Interner) []types.Value {
	n := d.Count()
	for i := 0; i < n && d.err == nil; i++ {
		if len(d.B) == 0 {
			d.Fail("truncated values")
			break
		}
		switch d.B[0] {
		case tagString:
			d.B = d.B[1:]
			s := d.View()
			if d.err != nil {
				return dst
			}
			dst = append(dst, types.NewString(in.String(s)))
		case tagInt:
			d.B = d.B[1:]
			x := d.Varint()
			if d.err != nil {
				return dst
			}
			dst = append(dst, types.NewInt(x))
		case tagNull:
			d.B = d.B[1:]
			dst = append(dst, types.Null)
		default:
			dst = append(dst, d.Value())
		}
	}
	return dst
}
