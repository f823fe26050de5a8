package logstore

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/eddy-sql/eddy/internal/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func openStore(t testing.TB, dir string) (*store.DB, *Store) {
	t.Helper()
	db, err := store.Open(dir, store.Options{CacheSize: 8 << 20, MemTableSize: 4 << 20})
	require.NoError(t, err)
	s, err := New(db)
	require.NoError(t, err)
	return db, s
}

func memStore(t testing.TB) (*store.DB, *Store) {
	t.Helper()
	db, s := openStore(t, "")
	t.Cleanup(func() { _ = db.Close() })
	return db, s
}

// commit appends the given (log, partition, key, value) records in one
// commit.
func commit(t testing.TB, s *Store, db *store.DB, sync bool, recs ...Record) {
	t.Helper()
	w := s.NewWriter()
	for _, r := range recs {
		w.Append(r.Log, r.Partition, r.Key, r.Value)
	}
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	require.NoError(t, s.Commit(w, b, sync))
	require.Zero(t, w.Len())
}

func rec(log string, part int, key, value string) Record {
	return Record{Log: log, Partition: part, Key: []byte(key), Value: []byte(value)}
}

func readAll(t testing.TB, r interface {
	Next() (Record, bool, error)
}) []Record {
	t.Helper()
	var out []Record
	for {
		rec, ok, err := r.Next()
		require.NoError(t, err)
		if !ok {
			return out
		}
		out = append(out, rec)
	}
}

func TestCreateAppendRead(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("orders", 2))
	require.NoError(t, s.CreateLog("clicks", 1))
	require.ErrorIs(t, s.CreateLog("orders", 1), ErrLogExists)
	require.Error(t, s.CreateLog("x", 0))
	require.Error(t, s.CreateLog("", 1))
	require.Equal(t, []string{"clicks", "orders"}, s.Logs())

	n, err := s.Partitions("orders")
	require.NoError(t, err)
	require.Equal(t, 2, n)
	_, err = s.Partitions("nope")
	require.ErrorIs(t, err, ErrLogNotFound)

	commit(t, s, db, true,
		rec("orders", 0, "k1", "a"), rec("orders", 1, "k2", "b"),
		rec("clicks", 0, "c", "x"), rec("orders", 0, "k3", "c"))
	commit(t, s, db, false, rec("orders", 0, "k4", "d"))

	ends, err := s.EndOffsets("orders")
	require.NoError(t, err)
	require.Equal(t, []int64{3, 1}, ends)

	r, err := s.NewReader("orders", 0, 0)
	require.NoError(t, err)
	got := readAll(t, r)
	require.Len(t, got, 3)
	for i, want := range []struct {
		key, val string
		seq      uint64
	}{{"k1", "a", 0}, {"k3", "c", 3}, {"k4", "d", 4}} {
		require.Equal(t, "orders", got[i].Log)
		require.Equal(t, 0, got[i].Partition)
		require.Equal(t, int64(i), got[i].Offset)
		require.Equal(t, want.seq, got[i].Seq)
		require.Equal(t, want.key, string(got[i].Key))
		require.Equal(t, want.val, string(got[i].Value))
		require.Equal(t, NoTimestamp, got[i].Timestamp)
	}
	require.Equal(t, int64(3), r.Position())

	// Start in the middle.
	r, err = s.NewReader("orders", 0, 2)
	require.NoError(t, err)
	got = readAll(t, r)
	require.Len(t, got, 1)
	require.Equal(t, "k4", string(got[0].Key))

	_, err = s.NewReader("orders", 2, 0)
	require.ErrorIs(t, err, ErrBadPartition)
	_, err = s.NewReader("nope", 0, 0)
	require.ErrorIs(t, err, ErrLogNotFound)
	_, err = s.NewReader("orders", 0, -1)
	require.Error(t, err)
}

func TestNullsAndTimestamps(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("l", 1))
	w := s.NewWriter()
	w.Append("l", 0, nil, nil)
	w.Append("l", 0, []byte{}, []byte{})
	w.AppendWithTimestamp("l", 0, []byte("k"), nil, 1700000000123)
	w.AppendWithTimestamp("l", 0, nil, []byte("v"), -5)
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	require.NoError(t, s.Commit(w, b, false))

	r, err := s.NewReader("l", 0, 0)
	require.NoError(t, err)
	got := readAll(t, r)
	require.Len(t, got, 4)
	require.Nil(t, got[0].Key)
	require.Nil(t, got[0].Value)
	require.NotNil(t, got[1].Key)
	require.NotNil(t, got[1].Value)
	require.Empty(t, got[1].Key)
	require.Equal(t, int64(1700000000123), got[2].Timestamp)
	require.Equal(t, "k", string(got[2].Key))
	require.Nil(t, got[2].Value)
	require.Equal(t, int64(-5), got[3].Timestamp)
	require.Nil(t, got[3].Key)
	require.Equal(t, "v", string(got[3].Value))
}

func TestCommitIsAtomicWithBatch(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("out", 1))
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	w := s.NewWriter()

	// A bad record fails the whole commit before anything is written.
	require.NoError(t, b.Set([]byte("state"), []byte("1")))
	w.Append("out", 0, []byte("k"), []byte("v"))
	w.Append("missing", 0, []byte("k"), []byte("v"))
	require.ErrorIs(t, s.Commit(w, b, true), ErrLogNotFound)
	require.Equal(t, 2, w.Len(), "a failed commit keeps the records")
	w.Reset()
	w.Append("out", 0, []byte("k"), []byte("v"))
	w.Append("out", 1, []byte("k"), []byte("v"))
	require.ErrorIs(t, s.Commit(w, b, true), ErrBadPartition)
	ends, err := s.EndOffsets("out")
	require.NoError(t, err)
	require.Equal(t, []int64{0}, ends)

	// The state write and the record commit together.
	w.Reset()
	w.Append("out", 0, []byte("k"), []byte("v"))
	require.NoError(t, s.Commit(w, b, true))
	v, ok, err := db.Get([]byte("state"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1", string(v))
	require.True(t, b.Empty())

	// An empty writer still commits the batch.
	require.NoError(t, b.Set([]byte("state"), []byte("2")))
	require.NoError(t, s.Commit(w, b, false))
	v, _, err = db.Get([]byte("state"))
	require.NoError(t, err)
	require.Equal(t, "2", string(v))

	r, err := s.NewReader("out", 0, 0)
	require.NoError(t, err)
	got := readAll(t, r)
	require.Len(t, got, 1)
	require.Equal(t, uint64(0), got[0].Seq, "failed commits spend no sequence numbers")
}

func TestReopenContinuesOffsetsAndSeq(t *testing.T) {
	dir := t.TempDir()
	db, s := openStore(t, dir)
	require.NoError(t, s.CreateLog("a", 2))
	require.NoError(t, s.CreateLog("b", 1))
	commit(t, s, db, true, rec("a", 0, "1", "x"), rec("a", 1, "2", "y"), rec("b", 0, "3", "z"))
	require.NoError(t, s.DropLog("b")) // the highest seq lives on in metadata
	require.NoError(t, db.Close())

	db, s = openStore(t, dir)
	defer func() { require.NoError(t, db.Close()) }()
	require.Equal(t, []string{"a"}, s.Logs())
	ends, err := s.EndOffsets("a")
	require.NoError(t, err)
	require.Equal(t, []int64{1, 1}, ends)
	require.NoError(t, s.CreateLog("b", 1))
	commit(t, s, db, false, rec("a", 0, "4", "w"), rec("b", 0, "5", "v"))

	r, err := s.NewReader("a", 0, 0)
	require.NoError(t, err)
	got := readAll(t, r)
	require.Len(t, got, 2)
	require.Equal(t, []int64{0, 1}, []int64{got[0].Offset, got[1].Offset})
	require.Equal(t, []uint64{0, 3}, []uint64{got[0].Seq, got[1].Seq})

	r, err = s.NewReader("b", 0, 0)
	require.NoError(t, err)
	got = readAll(t, r)
	require.Len(t, got, 1, "the recreated log starts empty")
	require.Equal(t, int64(0), got[0].Offset)
	require.Equal(t, uint64(4), got[0].Seq)
}

func TestLargeReadsAcrossChunks(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("l", 1))
	big := bytes.Repeat([]byte("x"), 300<<10)
	w := s.NewWriter()
	const n = 2000
	for i := range n {
		v := []byte(fmt.Sprint(i))
		if i%500 == 7 {
			v = append(v, big...)
		}
		w.Append("l", 0, []byte(fmt.Sprint(i)), v)
	}
	b := db.NewBatch()
	defer func() { _ = b.Close() }()
	require.NoError(t, s.Commit(w, b, false))
	r, err := s.NewReader("l", 0, 0)
	require.NoError(t, err)
	got := readAll(t, r)
	require.Len(t, got, n)
	for i, g := range got {
		require.Equal(t, int64(i), g.Offset)
		require.Equal(t, fmt.Sprint(i), string(g.Key))
		require.True(t, bytes.HasPrefix(g.Value, g.Key))
	}
	require.Len(t, got[7].Value, len(big)+1)
}

func TestReaderWait(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("l", 1))
	r, err := s.NewReader("l", 0, 0)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, r.Wait(ctx), context.DeadlineExceeded)

	done := make(chan error, 1)
	go func() { done <- r.Wait(context.Background()) }()
	time.Sleep(5 * time.Millisecond)
	commit(t, s, db, false, rec("l", 0, "k", "v"))
	require.NoError(t, <-done)
	got := readAll(t, r)
	require.Len(t, got, 1)

	// Data already available: Wait returns at once.
	commit(t, s, db, false, rec("l", 0, "k", "v"))
	require.NoError(t, r.Wait(context.Background()))
}

func TestDropLogWakesAndFailsReaders(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("l", 1))
	require.NoError(t, s.CreateLog("m", 1))
	commit(t, s, db, false, rec("l", 0, "k", "v"))
	r, err := s.NewReader("l", 0, 1)
	require.NoError(t, err)
	mr, err := s.NewMergedReader([]Position{{"l", 0, 1}, {"m", 0, 0}})
	require.NoError(t, err)

	done := make(chan error, 2)
	go func() { done <- r.Wait(context.Background()) }()
	go func() { done <- mr.Wait(context.Background()) }()
	time.Sleep(5 * time.Millisecond)
	require.NoError(t, s.DropLog("l"))
	require.NoError(t, <-done)
	require.NoError(t, <-done)
	_, _, err = r.Next()
	require.ErrorIs(t, err, ErrLogDropped)
	_, _, err = mr.Next()
	require.ErrorIs(t, err, ErrLogDropped)
	require.ErrorIs(t, s.DropLog("l"), ErrLogNotFound)
	_, err = s.EndOffsets("l")
	require.ErrorIs(t, err, ErrLogNotFound)

	// Records of the dropped log are gone from Pebble.
	var n int
	require.NoError(t, db.Scan([]byte{store.PrefixLogRecord}, func(k, v []byte) error { n++; return nil }))
	require.Zero(t, n)
}
