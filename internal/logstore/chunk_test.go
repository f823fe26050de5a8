package logstore

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/store"
)

// putLegacy writes records in the format of every record before chunks:
// one Pebble key per record, as an older Eddy left them on disk.
func putLegacy(t *testing.T, db *store.DB, s *Store, log string, part int, recs ...Record) {
	t.Helper()
	ls, err := s.lookup(log)
	require.NoError(t, err)
	b := db.NewWriteBatch()
	defer func() { _ = b.Close() }()
	for _, r := range recs {
		pr := pendingRecord{kLen: len(r.Key), vLen: len(r.Value)}
		if r.Timestamp != NoTimestamp {
			pr.flags |= flagHasTime
			pr.ts = r.Timestamp
		}
		k := make([]byte, recordKeyLen)
		putRecordKey(k, ls.id, part, r.Offset)
		v := make([]byte, recordValueLen(r.Seq, &pr))
		putRecordValue(v, r.Seq, &pr, r.Key, r.Value)
		require.NoError(t, b.Set(k, v))
		s.nextSeq = max(s.nextSeq, r.Seq+1)
	}
	require.NoError(t, b.Set(nextSeqKey, store.AppendUint64BE(nil, s.nextSeq)))
	require.NoError(t, b.Commit(true))
}

// TestChunksAndLegacyRecords: a partition holding single records in the
// old format followed by chunks reads back the same from every offset,
// after a reopen too, and the chunk limits split large commits.
func TestChunksAndLegacyRecords(t *testing.T) {
	dir := t.TempDir()
	db, s := openStore(t, dir)
	require.NoError(t, s.CreateLog("l", 2))
	require.NoError(t, s.CreateLog("m", 1))

	// Offsets 0..2 of l/0 are legacy records (seq 0..2).
	var want []Record
	for i := range 3 {
		r := Record{Log: "l", Partition: 0, Offset: int64(i), Seq: uint64(i), Timestamp: NoTimestamp,
			Key: []byte(fmt.Sprintf("old%d", i)), Value: []byte("legacy")}
		if i == 1 {
			r.Timestamp = 1234
		}
		want = append(want, r)
	}
	putLegacy(t, db, s, "l", 0, want...)
	db.Close()
	db, s = openStore(t, dir)
	ends, err := s.EndOffsets("l")
	require.NoError(t, err)
	require.Equal(t, []int64{3, 0}, ends)

	// Commits that interleave partitions and logs, one with more records
	// than a chunk holds and one with a record larger than a chunk.
	rnd := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, bufBlock+100) // larger than a chunk and than a writer block
	other := map[string][]Record{}
	for c := range 4 {
		w := s.NewWriter()
		n := 1 + rnd.IntN(2*chunkRecords+10)
		if c == 0 {
			n = 1 // a single-record commit: written in the legacy format
		}
		var seqs []Record
		for i := range n {
			log, part := "l", 0
			switch rnd.IntN(4) {
			case 0:
				log = "m"
			case 1:
				part = 1
			}
			key := []byte(fmt.Sprintf("c%d-%d", c, i))
			val := []byte(fmt.Sprintf("v%d", rnd.IntN(1000)))
			if c == 2 && i == 5 {
				val = big
			}
			ts := NoTimestamp
			if i%3 == 0 {
				ts = int64(rnd.IntN(1 << 40))
				w.AppendWithTimestamp(log, part, key, val, ts)
			} else {
				w.Append(log, part, key, val)
			}
			seqs = append(seqs, Record{Log: log, Partition: part, Timestamp: ts, Key: key, Value: val})
			if i%7 == 0 {
				w.Append(log, part, nil, nil)
				seqs = append(seqs, Record{Log: log, Partition: part, Timestamp: NoTimestamp})
			}
		}
		first := s.nextSeq
		b := db.NewBatch()
		require.NoError(t, s.Commit(w, b, true))
		_ = b.Close()
		for i, r := range seqs {
			r.Seq = first + uint64(i)
			if r.Log == "l" && r.Partition == 0 {
				r.Offset = int64(len(want))
				want = append(want, r)
			} else {
				k := fmt.Sprintf("%s/%d", r.Log, r.Partition)
				r.Offset = int64(len(other[k]))
				other[k] = append(other[k], r)
			}
		}
	}
	check := func(s *Store) {
		t.Helper()
		for _, from := range []int64{0, 1, 3, 4, 5, int64(len(want) / 2), int64(len(want) - 1), int64(len(want))} {
			r, err := s.NewReader("l", 0, from)
			require.NoError(t, err)
			got := readAll(t, r)
			require.Equal(t, len(want)-int(from), len(got), "from %d", from)
			for i, g := range got {
				w := want[int(from)+i]
				require.Equal(t, w.Offset, g.Offset)
				require.Equal(t, w.Seq, g.Seq, "offset %d", w.Offset)
				require.Equal(t, w.Timestamp, g.Timestamp, "offset %d", w.Offset)
				require.Equal(t, w.Key, g.Key, "offset %d", w.Offset)
				require.Equal(t, w.Value, g.Value, "offset %d", w.Offset)
				require.Equal(t, w.Key == nil, g.Key == nil)
				require.Equal(t, w.Value == nil, g.Value == nil)
			}
		}
		// The merged reader interleaves the partitions by sequence number.
		mr, err := s.NewMergedReader([]Position{{"l", 0, 0}, {"l", 1, 0}, {"m", 0, 0}})
		require.NoError(t, err)
		got := readAll(t, mr)
		require.Len(t, got, len(want)+len(other["l/1"])+len(other["m/0"]))
		for i := 1; i < len(got); i++ {
			require.Less(t, got[i-1].Seq, got[i].Seq)
		}
		for k, recs := range other {
			ends, err := s.EndOffsets(k[:1])
			require.NoError(t, err)
			require.Equal(t, int64(len(recs)), ends[int(k[2]-'0')], k)
		}
	}
	check(s)
	db.Close()
	db, s = openStore(t, dir)
	defer db.Close()
	check(s)

	// The large commits were chunked: fewer Pebble keys than records.
	var keys int
	require.NoError(t, db.Scan([]byte{store.PrefixLogRecord}, func(k, v []byte) error { keys++; return nil }))
	records := len(want) + len(other["l/1"]) + len(other["m/0"])
	require.Less(t, keys, records/4)
}
