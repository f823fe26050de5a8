package state

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/store"
)

func TestMemorySnapshotRestore(t *testing.T) {
	m := NewMemory()
	require.NoError(t, m.Put("op", "v", []byte("k"), []byte("1")))
	require.NoError(t, m.ListAppend("op", "l", []byte("k"), []byte("a")))
	require.NoError(t, m.MapPut("op", "m", []byte("k"), []byte("mk"), []byte("mv")))
	require.NoError(t, m.RegisterTimer("op", []byte("k"), "t", 9))
	snap := m.Snapshot()
	n := m.Len()

	// Changes after the snapshot are undone by Restore.
	require.NoError(t, m.Put("op", "v", []byte("k"), []byte("2")))
	require.NoError(t, m.ClearNamespace("op"))
	require.NoError(t, m.Put("op2", "v", []byte("k"), []byte("x")))
	require.NoError(t, m.Restore(snap))
	require.Equal(t, n, m.Len())
	v, ok, err := m.Get("op", "v", []byte("k"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1", string(v))
	_, ok, err = m.Get("op2", "v", []byte("k"))
	require.NoError(t, err)
	require.False(t, ok)
	timers, err := m.Timers("op", []byte("k"))
	require.NoError(t, err)
	require.Equal(t, []Timer{tm("k", "t", 9)}, timers)

	// A fresh backend restores the same contents.
	m2 := NewMemory()
	require.NoError(t, m2.Restore(snap))
	require.Equal(t, snap, m2.Snapshot())

	// Garbage is rejected and leaves the contents alone.
	require.Error(t, m.Restore(nil))
	require.Error(t, m.Restore([]byte{snapshotVersion, 5, 'a'}))
	require.Error(t, m.Restore([]byte{99}))
	require.Equal(t, snap, m.Snapshot())

	empty := NewMemory()
	require.NoError(t, empty.Restore(empty.Snapshot()))
	require.Zero(t, empty.Len())
}

func TestMemoryManyKeys(t *testing.T) {
	m := NewMemory()
	const n = 20000
	for i := range n {
		require.NoError(t, m.RegisterTimer("op", []byte{byte(i >> 8), byte(i)}, "", int64(n-i)))
	}
	prev := int64(-1)
	for range n {
		due, err := m.PopDue("op", n, 1)
		require.NoError(t, err)
		require.Len(t, due, 1)
		require.Greater(t, due[0].Time, prev)
		prev = due[0].Time
	}
	require.Zero(t, m.Len())
}

func TestPebbleCommitsWithBatch(t *testing.T) {
	db, err := store.Open("", store.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, db.Close()) }()
	batch := db.NewBatch()
	defer func() { require.NoError(t, batch.Close()) }()
	p := NewPebble(batch)

	require.NoError(t, p.Put("op", "v", []byte("k"), []byte("1")))
	require.NoError(t, p.RegisterTimer("op", []byte("k"), "", 5))
	// Not visible outside the batch until it commits.
	otherBatch := db.NewBatch()
	defer func() { require.NoError(t, otherBatch.Close()) }()
	other := NewPebble(otherBatch)
	_, ok, err := other.Get("op", "v", []byte("k"))
	require.NoError(t, err)
	require.False(t, ok)

	require.NoError(t, batch.Commit(true))
	v, ok, err := other.Get("op", "v", []byte("k"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "1", string(v))

	// Reset discards uncommitted state: a failed job restarts from its
	// last checkpoint.
	require.NoError(t, p.Put("op", "v", []byte("k"), []byte("2")))
	batch.Reset()
	v, _, err = p.Get("op", "v", []byte("k"))
	require.NoError(t, err)
	require.Equal(t, "1", string(v))
	due, err := p.PopDue("op", 10, 0)
	require.NoError(t, err)
	require.Equal(t, []Timer{tm("k", "", 5)}, due)

	// Timers popped in discarded writes come back, and fire again.
	batch.Reset()
	next, ok, err := p.NextTimer("op")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, tm("k", "", 5), next)
	due, err = p.PopDue("op", 10, 0)
	require.NoError(t, err)
	require.Equal(t, []Timer{tm("k", "", 5)}, due)
	// A timer in the past, below everything popped so far, still fires.
	require.NoError(t, p.RegisterTimer("op", []byte("k"), "late", 1))
	due, err = p.PopDue("op", 10, 0)
	require.NoError(t, err)
	require.Equal(t, []Timer{tm("k", "late", 1)}, due)
}
