package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func openMem(t testing.TB) *DB {
	t.Helper()
	db, err := Open("", Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

type kv struct{ k, v string }

func scanAll(t *testing.T, scan func([]byte, func(k, v []byte) error) error, prefix string) []kv {
	t.Helper()
	var out []kv
	require.NoError(t, scan([]byte(prefix), func(k, v []byte) error {
		out = append(out, kv{string(k), string(v)})
		return nil
	}))
	return out
}

func TestDBPointOpsAndScan(t *testing.T) {
	db := openMem(t)
	_, ok, err := db.Get([]byte("xa"))
	require.NoError(t, err)
	require.False(t, ok)

	for _, k := range []string{"xb", "xa", "y", "xc"} {
		require.NoError(t, db.Set([]byte(k), []byte("v"+k)))
	}
	v, ok, err := db.Get([]byte("xa"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "vxa", string(v))

	require.Equal(t, []kv{{"xa", "vxa"}, {"xb", "vxb"}, {"xc", "vxc"}}, scanAll(t, db.Scan, "x"))

	var n int
	require.NoError(t, db.Scan([]byte("x"), func(k, v []byte) error {
		n++
		return ErrStop
	}))
	require.Equal(t, 1, n)
	boom := errors.New("boom")
	require.ErrorIs(t, db.Scan([]byte("x"), func(k, v []byte) error { return boom }), boom)

	require.NoError(t, db.Delete([]byte("xb")))
	require.NoError(t, db.Delete([]byte("absent")))
	require.Equal(t, []kv{{"xa", "vxa"}, {"xc", "vxc"}}, scanAll(t, db.Scan, "x"))

	require.NoError(t, db.DeleteRange([]byte("x"), []byte("y")))
	require.Empty(t, scanAll(t, db.Scan, "x"))
	require.Len(t, scanAll(t, db.Scan, ""), 2, "y and the format version remain")
}

func TestBatchReadYourWrites(t *testing.T) {
	db := openMem(t)
	require.NoError(t, db.Set([]byte("a1"), []byte("db")))
	require.NoError(t, db.Set([]byte("a2"), []byte("db")))

	b := db.NewBatch()
	defer func() { require.NoError(t, b.Close()) }()
	require.True(t, b.Empty())
	require.NoError(t, b.Set([]byte("a3"), []byte("batch")))
	require.NoError(t, b.Set([]byte("a1"), []byte("batch")))
	require.NoError(t, b.Delete([]byte("a2")))
	require.Equal(t, uint32(3), b.Count())

	v, ok, err := b.Get([]byte("a1"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "batch", string(v))
	_, ok, err = b.Get([]byte("a2"))
	require.NoError(t, err)
	require.False(t, ok)
	dst, ok, err := b.AppendGet([]byte("x="), []byte("a3"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "x=batch", string(dst))
	dst, ok, err = b.AppendGet(dst[:0], []byte("a2"))
	require.NoError(t, err)
	require.False(t, ok)
	require.Empty(t, dst)

	require.Equal(t, []kv{{"a1", "batch"}, {"a3", "batch"}}, scanAll(t, b.Scan, "a"))
	// The DB does not see uncommitted writes.
	require.Equal(t, []kv{{"a1", "db"}, {"a2", "db"}}, scanAll(t, db.Scan, "a"))

	// Writes during a scan are allowed and not seen by it.
	require.NoError(t, b.Scan([]byte("a"), func(k, v []byte) error {
		return b.Set(append([]byte("a9"), k...), v)
	}))
	require.Len(t, scanAll(t, b.Scan, "a"), 4)

	require.NoError(t, b.Commit(true))
	require.True(t, b.Empty(), "Commit resets the batch")
	require.Equal(t, []kv{{"a1", "batch"}, {"a3", "batch"}, {"a9a1", "batch"}, {"a9a3", "batch"}},
		scanAll(t, db.Scan, "a"))

	// Reuse after commit; Reset discards.
	require.NoError(t, b.Set([]byte("a5"), []byte("x")))
	b.Reset()
	require.NoError(t, b.Commit(false))
	_, ok, err = db.Get([]byte("a5"))
	require.NoError(t, err)
	require.False(t, ok)

	require.NoError(t, b.DeleteRange([]byte("a"), []byte("b")))
	require.Empty(t, scanAll(t, b.Scan, "a"))
	require.NoError(t, b.Commit(false))
	require.Empty(t, scanAll(t, db.Scan, "a"))
}

func TestBatchStartCommit(t *testing.T) {
	db := openMem(t)
	b := db.NewBatch()
	defer func() { require.NoError(t, b.Close()) }()
	require.NoError(t, b.Set([]byte("k"), []byte("v")))
	finish, err := b.StartCommit(true)
	require.NoError(t, err)
	// Visible before the sync is awaited.
	_, ok, err := db.Get([]byte("k"))
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, finish())
	require.True(t, b.Empty())
}

func TestReopenPersists(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	require.NoError(t, err)
	b := db.NewBatch()
	for i := range 100 {
		require.NoError(t, b.Set([]byte(fmt.Sprintf("k%03d", i)), []byte("v")))
	}
	require.NoError(t, b.Commit(true))
	require.NoError(t, b.Close())
	require.NoError(t, db.Close())
	require.ErrorIs(t, db.Close(), ErrClosed)
	_, _, err = db.Get([]byte("k"))
	require.ErrorIs(t, err, ErrClosed)

	db, err = Open(dir, Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	require.Len(t, scanAll(t, db.Scan, "k"), 100)
	require.Equal(t, dir, db.Dir())
	require.NotNil(t, db.Pebble().Metrics())
}

func TestOpenRejectsNewerFormat(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	require.NoError(t, err)
	require.NoError(t, db.Set(formatVersionKey, AppendUint64BE(nil, FormatVersion+1)))
	require.NoError(t, db.Close())
	_, err = Open(dir, Options{})
	require.ErrorContains(t, err, "format version")
}

func TestOpenErrors(t *testing.T) {
	_, err := Open("", Options{CacheSize: -1})
	require.ErrorContains(t, err, "CacheSize")
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, []byte("x"), 0o600))
	_, err = Open(f, Options{})
	require.Error(t, err)
}
