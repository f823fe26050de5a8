package logstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMergedReaderSequenceOrder(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("a", 2))
	require.NoError(t, s.CreateLog("b", 1))
	require.NoError(t, s.CreateLog("other", 1))
	commit(t, s, db, false, rec("a", 0, "a0", ""), rec("b", 0, "b0", ""), rec("other", 0, "x", ""))
	commit(t, s, db, false, rec("b", 0, "b1", ""), rec("a", 1, "a1", ""))
	commit(t, s, db, false, rec("a", 0, "a2", ""), rec("a", 0, "a3", ""), rec("b", 0, "b2", ""))

	inputs := []Position{{"a", 0, 0}, {"a", 1, 0}, {"b", 0, 0}}
	m, err := s.NewMergedReader(inputs)
	require.NoError(t, err)
	var keys []string
	var last uint64
	for i, r := range readAll(t, m) {
		if i > 0 {
			require.Greater(t, r.Seq, last)
		}
		last = r.Seq
		keys = append(keys, string(r.Key))
	}
	require.Equal(t, []string{"a0", "b0", "b1", "a1", "a2", "a3", "b2"}, keys)
	require.Equal(t, []Position{{"a", 0, 3}, {"a", 1, 1}, {"b", 0, 3}}, m.Positions())

	// Resuming from saved positions continues where the reader stopped.
	commit(t, s, db, false, rec("b", 0, "b3", ""), rec("a", 1, "a4", ""))
	m2, err := s.NewMergedReader(m.Positions())
	require.NoError(t, err)
	keys = keys[:0]
	for _, r := range readAll(t, m2) {
		keys = append(keys, string(r.Key))
	}
	require.Equal(t, []string{"b3", "a4"}, keys)

	_, err = s.NewMergedReader(nil)
	require.Error(t, err)
	_, err = s.NewMergedReader([]Position{{"a", 0, 0}, {"a", 0, 1}})
	require.ErrorContains(t, err, "twice")
	_, err = s.NewMergedReader([]Position{{"zz", 0, 0}})
	require.ErrorIs(t, err, ErrLogNotFound)
}

func TestMergedReaderWaitOnAnyInput(t *testing.T) {
	db, s := memStore(t)
	require.NoError(t, s.CreateLog("a", 1))
	require.NoError(t, s.CreateLog("b", 1))
	m, err := s.NewMergedReader([]Position{{"a", 0, 0}, {"b", 0, 0}})
	require.NoError(t, err)
	_, ok, err := m.Next()
	require.NoError(t, err)
	require.False(t, ok)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, m.Wait(ctx), context.DeadlineExceeded)

	done := make(chan error, 1)
	go func() { done <- m.Wait(context.Background()) }()
	time.Sleep(5 * time.Millisecond)
	commit(t, s, db, false, rec("b", 0, "k", "v"))
	require.NoError(t, <-done)
	require.Len(t, readAll(t, m), 1)
}

// TestConcurrentCommitsAndReaders runs several committing jobs against
// shared logs while readers follow them, with and without sync, and checks
// offsets are dense, sequence numbers are unique and published in order,
// and no reader sees half a commit.
func TestConcurrentCommitsAndReaders(t *testing.T) {
	dir := t.TempDir()
	db, s := openStore(t, dir)
	defer func() { require.NoError(t, db.Close()) }()
	require.NoError(t, s.CreateLog("a", 3))
	require.NoError(t, s.CreateLog("b", 2))

	const writers, commits = 4, 60
	var acked atomic.Int64
	var wg sync.WaitGroup
	for wi := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(wi), 1))
			w := s.NewWriter()
			b := db.NewBatch()
			defer func() { _ = b.Close() }()
			for c := range commits {
				// Every commit writes one pair: the same id to a and b.
				id := fmt.Sprintf("%d-%d", wi, c)
				w.Append("a", rng.IntN(3), []byte(id), nil)
				w.Append("b", rng.IntN(2), []byte(id), nil)
				if err := b.Set([]byte("state-"+id), []byte("x")); err != nil {
					t.Error(err)
					return
				}
				if err := s.Commit(w, b, c%3 == 0); err != nil {
					t.Error(err)
					return
				}
				// A returned commit is readable, and so is every commit
				// acknowledged before it.
				n := acked.Add(1)
				ends, err := s.EndOffsets("b")
				if err != nil {
					t.Error(err)
					return
				}
				if sum := ends[0] + ends[1]; sum < n {
					t.Errorf("%d commits acknowledged, only %d readable", n, sum)
					return
				}
			}
		})
	}

	// A merged reader over everything sees pairs complete at the end of each
	// round (a round reads a published prefix) and sequence numbers strictly
	// increasing.
	all := []Position{{"a", 0, 0}, {"a", 1, 0}, {"a", 2, 0}, {"b", 0, 0}, {"b", 1, 0}}
	m, err := s.NewMergedReader(all)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seen := map[string]int{}
	var last uint64
	var total int
	for total < 2*writers*commits {
		r, ok, err := m.Next()
		require.NoError(t, err)
		if !ok {
			for id, n := range seen {
				require.Equal(t, 2, n, "commit %s seen by halves", id)
			}
			require.NoError(t, m.Wait(ctx))
			continue
		}
		if total > 0 {
			require.Greater(t, r.Seq, last)
		}
		last = r.Seq
		seen[string(r.Key)]++
		total++
	}
	wg.Wait()
	require.Equal(t, uint64(2*writers*commits-1), last)

	// Per partition: dense offsets; every state key committed.
	var sum int64
	for _, log := range []string{"a", "b"} {
		ends, err := s.EndOffsets(log)
		require.NoError(t, err)
		for p, end := range ends {
			r, err := s.NewReader(log, p, 0)
			require.NoError(t, err)
			got := readAll(t, r)
			require.Len(t, got, int(end))
			for i, g := range got {
				require.Equal(t, int64(i), g.Offset)
			}
			sum += end
		}
	}
	require.Equal(t, int64(2*writers*commits), sum)
	var states int
	require.NoError(t, db.Scan([]byte("state-"), func(k, v []byte) error { states++; return nil }))
	require.Equal(t, writers*commits, states)
}
