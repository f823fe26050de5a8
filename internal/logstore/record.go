package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/store"
)

// NoTimestamp is the Timestamp of a record appended without one (Kafka's
// RecordBatch.NO_TIMESTAMP).
const NoTimestamp int64 = -1

// Record is one committed record of a log partition, as readers return it.
// Key and Value are never reused by the reader, but callers must not modify
// them. A nil Key or Value was appended as nil (Kafka's null), which is not
// the same as empty.
type Record struct {
	Log       string
	Partition int
	// Offset is the record's position in its partition: dense, from 0.
	Offset int64
	// Seq is the record's global append sequence number, unique across all
	// logs of the store and increasing in commit order.
	Seq uint64
	// Timestamp is the record's timestamp in milliseconds since the epoch,
	// or NoTimestamp.
	Timestamp int64
	Key       []byte
	Value     []byte
}

// Record value flags. Unknown bits are rejected so that the format can grow.
const (
	flagKeyNil   = 1 << 0
	flagValueNil = 1 << 1
	flagHasTime  = 1 << 2
	flagsKnown   = flagKeyNil | flagValueNil | flagHasTime
)

// errCorruptRecord is wrapped by decoding errors.
var errCorruptRecord = errors.New("logstore: corrupt record")

// The record key is PrefixLogRecord | id (u32 BE) | partition (u32 BE) |
// offset (u64 BE).
const recordKeyLen = 1 + 4 + 4 + 8

func appendPartitionPrefix(dst []byte, id uint32, partition int) []byte {
	dst = append(dst, store.PrefixLogRecord)
	dst = store.AppendUint32BE(dst, id)
	return store.AppendUint32BE(dst, uint32(partition))
}

func putRecordKey(dst []byte, id uint32, partition int, offset int64) {
	dst[0] = store.PrefixLogRecord
	binary.BigEndian.PutUint32(dst[1:], id)
	binary.BigEndian.PutUint32(dst[5:], uint32(partition))
	binary.BigEndian.PutUint64(dst[9:], uint64(offset))
}

func recordKeyOffset(key []byte) (int64, error) {
	if len(key) != recordKeyLen {
		return 0, fmt.Errorf("%w: key of %d bytes", errCorruptRecord, len(key))
	}
	return int64(binary.BigEndian.Uint64(key[9:])), nil
}

// The record value is flags (1 byte) | uvarint seq | [varint timestamp] |
// uvarint len(key) | key | value.

func recordValueLen(seq uint64, r *pendingRecord) int {
	n := 1 + uvarintLen(seq) + uvarintLen(uint64(r.kLen)) + r.kLen + r.vLen
	if r.flags&flagHasTime != 0 {
		n += varintLen(r.ts)
	}
	return n
}

func putRecordValue(dst []byte, seq uint64, r *pendingRecord, key, value []byte) {
	dst[0] = r.flags
	n := 1 + binary.PutUvarint(dst[1:], seq)
	if r.flags&flagHasTime != 0 {
		n += binary.PutVarint(dst[n:], r.ts)
	}
	n += binary.PutUvarint(dst[n:], uint64(len(key)))
	n += copy(dst[n:], key)
	copy(dst[n:], value)
}

// decodedValue is a record value split into its parts; key and value alias
// the input.
type decodedValue struct {
	flags      byte
	seq        uint64
	ts         int64
	key, value []byte
}

func decodeRecordValue(b []byte) (decodedValue, error) {
	var d decodedValue
	if len(b) < 1 || b[0]&^flagsKnown != 0 {
		return d, fmt.Errorf("%w: bad flags", errCorruptRecord)
	}
	d.flags = b[0]
	b = b[1:]
	var n int
	if d.seq, n = binary.Uvarint(b); n <= 0 {
		return d, fmt.Errorf("%w: bad sequence", errCorruptRecord)
	}
	b = b[n:]
	d.ts = NoTimestamp
	if d.flags&flagHasTime != 0 {
		if d.ts, n = binary.Varint(b); n <= 0 {
			return d, fmt.Errorf("%w: bad timestamp", errCorruptRecord)
		}
		b = b[n:]
	}
	klen, n := binary.Uvarint(b)
	if n <= 0 || klen > uint64(len(b)-n) {
		return d, fmt.Errorf("%w: bad key length", errCorruptRecord)
	}
	b = b[n:]
	d.key, d.value = b[:klen], b[klen:]
	return d, nil
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func varintLen(v int64) int {
	u := uint64(v) << 1
	if v < 0 {
		u = ^u
	}
	return uvarintLen(u)
}

// Chunks. A commit writes the consecutive records of one partition as
// chunks of up to chunkRecords records (and about chunkBytes bytes), under
// the key of the chunk's first offset, so that Pebble holds one key per
// chunk rather than one per record: the memtable, flushes, compactions
// and readers then pay their per-key cost once per chunk. A chunk of one
// record is written in the single-record format above, which is also how
// every record was written before chunks; both stay readable.
//
// The chunk value is flagChunk (1 byte) | uvarint count | count entries of
// flags (1 byte) | uvarint seq (the first entry's, then the difference
// from the previous entry's) | [varint timestamp] | uvarint len(key) | key
// | uvarint len(value) | value.
const (
	flagChunk    = 1 << 7
	chunkRecords = 128
	chunkBytes   = 32 << 10
)

// entryLen is the size of r's chunk entry, seq delta d.
func entryLen(d uint64, r *pendingRecord) int {
	n := 1 + uvarintLen(d) + uvarintLen(uint64(r.kLen)) + r.kLen + uvarintLen(uint64(r.vLen)) + r.vLen
	if r.flags&flagHasTime != 0 {
		n += varintLen(r.ts)
	}
	return n
}

// chunkLen returns how many of the records idx (Append indices, sequence
// numbers firstSeq+index) the next chunk holds, and the size of its value.
func (w *Writer) chunkLen(firstSeq uint64, idx []int32) (n, size int) {
	prev := uint64(0)
	for n < len(idx) && n < chunkRecords {
		seq := firstSeq + uint64(idx[n])
		l := entryLen(seq-prev, w.rec(int(idx[n])))
		if n > 0 && size+l > chunkBytes {
			break
		}
		size += l
		prev = seq
		n++
	}
	if n == 1 {
		return 1, recordValueLen(firstSeq+uint64(idx[0]), w.rec(int(idx[0])))
	}
	return n, 1 + uvarintLen(uint64(n)) + size
}

// putChunk writes the value chunkLen sized for the records idx.
func (w *Writer) putChunk(dst []byte, firstSeq uint64, idx []int32) {
	if len(idx) == 1 {
		r := w.rec(int(idx[0]))
		putRecordValue(dst, firstSeq+uint64(idx[0]), r, w.key(r), w.value(r))
		return
	}
	dst[0] = flagChunk
	n := 1 + binary.PutUvarint(dst[1:], uint64(len(idx)))
	prev := uint64(0)
	for _, i := range idx {
		r := w.rec(int(i))
		seq := firstSeq + uint64(i)
		dst[n] = r.flags
		n++
		n += binary.PutUvarint(dst[n:], seq-prev)
		prev = seq
		if r.flags&flagHasTime != 0 {
			n += binary.PutVarint(dst[n:], r.ts)
		}
		k, v := w.key(r), w.value(r)
		n += binary.PutUvarint(dst[n:], uint64(len(k)))
		n += copy(dst[n:], k)
		n += binary.PutUvarint(dst[n:], uint64(len(v)))
		n += copy(dst[n:], v)
	}
}

// recordCount returns the number of records of a record or chunk value.
func recordCount(b []byte) (int, error) {
	if len(b) > 0 && b[0] == flagChunk {
		n, l := binary.Uvarint(b[1:])
		if l <= 0 || n < 2 || n > chunkRecords {
			return 0, fmt.Errorf("%w: bad chunk count", errCorruptRecord)
		}
		return int(n), nil
	}
	if _, err := decodeRecordValue(b); err != nil {
		return 0, err
	}
	return 1, nil
}

// valueIter walks the records of a record or chunk value in offset order.
type valueIter struct {
	b      []byte
	single bool
	left   int
	seq    uint64
}

func newValueIter(b []byte) (valueIter, error) {
	if len(b) == 0 || b[0] != flagChunk {
		return valueIter{b: b, single: true, left: 1}, nil
	}
	n, l := binary.Uvarint(b[1:])
	if l <= 0 || n < 2 || n > chunkRecords {
		return valueIter{}, fmt.Errorf("%w: bad chunk count", errCorruptRecord)
	}
	return valueIter{b: b[1+l:], left: int(n)}, nil
}

// next decodes the next record; ok is false after the last one.
func (it *valueIter) next() (d decodedValue, ok bool, err error) {
	if it.left == 0 {
		if len(it.b) != 0 && !it.single {
			return d, false, fmt.Errorf("%w: trailing bytes in chunk", errCorruptRecord)
		}
		return d, false, nil
	}
	it.left--
	if it.single {
		d, err = decodeRecordValue(it.b)
		return d, err == nil, err
	}
	b := it.b
	if len(b) < 1 || b[0]&^flagsKnown != 0 {
		return d, false, fmt.Errorf("%w: bad flags", errCorruptRecord)
	}
	d.flags = b[0]
	b = b[1:]
	delta, n := binary.Uvarint(b)
	if n <= 0 {
		return d, false, fmt.Errorf("%w: bad sequence", errCorruptRecord)
	}
	it.seq += delta
	d.seq = it.seq
	b = b[n:]
	d.ts = NoTimestamp
	if d.flags&flagHasTime != 0 {
		if d.ts, n = binary.Varint(b); n <= 0 {
			return d, false, fmt.Errorf("%w: bad timestamp", errCorruptRecord)
		}
		b = b[n:]
	}
	if d.key, b, err = chunkBytesField(b); err != nil {
		return d, false, err
	}
	if d.value, it.b, err = chunkBytesField(b); err != nil {
		return d, false, err
	}
	return d, true, nil
}

// chunkBytesField splits a length-prefixed field off b.
func chunkBytesField(b []byte) (field, rest []byte, err error) {
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return nil, nil, fmt.Errorf("%w: bad length", errCorruptRecord)
	}
	return b[n : n+int(l)], b[n+int(l):], nil
}
