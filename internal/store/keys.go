package store

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
)

// The one-byte key prefixes of the areas of the key space. See the package
// documentation for the layout inside each area.
const (
	// PrefixMeta holds store-wide metadata such as the format version.
	PrefixMeta byte = 0x01
	// PrefixCatalog holds catalog objects.
	PrefixCatalog byte = 0x10
	// PrefixLogMeta holds log table metadata and the global sequence.
	PrefixLogMeta byte = 0x20
	// PrefixLogRecord holds log records.
	PrefixLogRecord byte = 0x21
	// PrefixState holds keyed operator state.
	PrefixState byte = 0x30
	// PrefixTimer holds operator timers.
	PrefixTimer byte = 0x31
	// PrefixCheckpoint holds checkpoints.
	PrefixCheckpoint byte = 0x40
	// PrefixStatement holds statement resources (package statement).
	PrefixStatement byte = 0x50
	// PrefixAPIKey holds API keys with hashed secrets (package server).
	PrefixAPIKey byte = 0x51
	// PrefixArtifact holds function artifacts (package artifact).
	PrefixArtifact byte = 0x52
)

// ErrCorruptKey is returned (wrapped) by the Decode functions when a key
// does not hold the expected encoding.
var ErrCorruptKey = errors.New("store: corrupt key encoding")

const (
	escByte   = 0x00
	escEscape = 0xFF // 0x00 0xFF encodes a literal 0x00
	escEnd    = 0x01 // 0x00 0x01 ends a component
)

// AppendUint64BE appends v as 8 big-endian bytes, so that the encoding of
// smaller values sorts first.
func AppendUint64BE(dst []byte, v uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, v)
}

// AppendUint32BE appends v as 4 big-endian bytes.
func AppendUint32BE(dst []byte, v uint32) []byte {
	return binary.BigEndian.AppendUint32(dst, v)
}

// AppendInt64 appends v as 8 big-endian bytes with the sign bit flipped, so
// that negative values sort before positive ones.
func AppendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// AppendBytes appends b escaped and terminated: every 0x00 becomes 0x00 0xFF
// and the component ends with 0x00 0x01. The encoding preserves the byte
// order of b, and the encoding of one value is never a prefix of the
// encoding of another, so components can be concatenated into keys.
func AppendBytes(dst, b []byte) []byte {
	for {
		i := indexZero(b)
		if i < 0 {
			break
		}
		dst = append(dst, b[:i+1]...)
		dst = append(dst, escEscape)
		b = b[i+1:]
	}
	dst = append(dst, b...)
	return append(dst, escByte, escEnd)
}

// AppendString is AppendBytes for a string.
func AppendString(dst []byte, s string) []byte {
	for {
		i := indexZeroString(s)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, escEscape)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, escByte, escEnd)
}

func indexZero(b []byte) int { return bytes.IndexByte(b, 0) }

func indexZeroString(s string) int { return strings.IndexByte(s, 0) }

// DecodeUint64BE decodes a value written by AppendUint64BE and returns the
// rest of b.
func DecodeUint64BE(b []byte) (v uint64, rest []byte, err error) {
	if len(b) < 8 {
		return 0, nil, errCorrupt("uint64", b)
	}
	return binary.BigEndian.Uint64(b), b[8:], nil
}

// DecodeUint32BE decodes a value written by AppendUint32BE and returns the
// rest of b.
func DecodeUint32BE(b []byte) (v uint32, rest []byte, err error) {
	if len(b) < 4 {
		return 0, nil, errCorrupt("uint32", b)
	}
	return binary.BigEndian.Uint32(b), b[4:], nil
}

// DecodeInt64 decodes a value written by AppendInt64 and returns the rest of
// b.
func DecodeInt64(b []byte) (v int64, rest []byte, err error) {
	u, rest, err := DecodeUint64BE(b)
	if err != nil {
		return 0, nil, err
	}
	return int64(u ^ (1 << 63)), rest, nil
}

// DecodeBytes decodes a component written by AppendBytes, appending the
// unescaped bytes to dst, and returns them with the rest of b.
func DecodeBytes(dst, b []byte) (out, rest []byte, err error) {
	for {
		i := indexZero(b)
		if i < 0 || i+1 >= len(b) {
			return nil, nil, errCorrupt("bytes", b)
		}
		dst = append(dst, b[:i]...)
		switch b[i+1] {
		case escEnd:
			return dst, b[i+2:], nil
		case escEscape:
			dst = append(dst, 0)
			b = b[i+2:]
		default:
			return nil, nil, errCorrupt("bytes", b)
		}
	}
}

// DecodeString decodes a component written by AppendString.
func DecodeString(b []byte) (s string, rest []byte, err error) {
	out, rest, err := DecodeBytes(nil, b)
	if err != nil {
		return "", nil, err
	}
	return string(out), rest, nil
}

// SkipBytes returns b after the AppendBytes component at its start, without
// decoding it.
func SkipBytes(b []byte) (rest []byte, err error) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] != escByte {
			continue
		}
		switch b[i+1] {
		case escEnd:
			return b[i+2:], nil
		case escEscape:
			i++
		default:
			return nil, errCorrupt("bytes", b)
		}
	}
	return nil, errCorrupt("bytes", b)
}

// PrefixEnd returns the smallest key greater than every key that starts
// with prefix, or nil (no upper bound) when prefix is empty or all 0xFF.
// The result is a new slice.
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != math.MaxUint8 {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func errCorrupt(what string, b []byte) error {
	const max = 32
	if len(b) > max {
		b = b[:max]
	}
	return &corruptError{what: what, b: append([]byte(nil), b...)}
}

type corruptError struct {
	what string
	b    []byte
}

func (e *corruptError) Error() string {
	return "store: corrupt key encoding: decoding " + e.what + " from " + hex.EncodeToString(e.b)
}

func (e *corruptError) Unwrap() error { return ErrCorruptKey }
