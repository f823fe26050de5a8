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
