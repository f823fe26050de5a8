package logstore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/store"
)

// TestCrashKeepsCommittedPrefix commits from several goroutines with sync,
// simulates a machine crash at a random moment (only synced data survives,
// plus a random part of the unsynced data), reopens and checks that what
// survives is exactly a prefix of the commits: dense offsets, sequence
// numbers 0..n-1, each commit's records and state together or not at all,
// and every acknowledged commit present.
func TestCrashKeepsCommittedPrefix(t *testing.T) {
	for trial := range 6 {
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(trial), 7))
			fs := vfs.NewCrashableMem()
			opts := store.Options{FS: fs, CacheSize: 8 << 20, MemTableSize: 1 << 20}
			db, err := store.Open("", opts)
			require.NoError(t, err)
			s, err := New(db)
			require.NoError(t, err)
			require.NoError(t, s.CreateLog("a", 2))
			require.NoError(t, s.CreateLog("b", 1))

			var mu sync.Mutex
			var acked []string
			var stop atomic.Bool
			var wg sync.WaitGroup
			for wi := range 3 {
				wg.Go(func() {
					w := s.NewWriter()
					b := db.NewBatch()
					defer func() { _ = b.Close() }()
					for c := 0; !stop.Load(); c++ {
						id := fmt.Sprintf("%d-%d", wi, c)
						w.Append("a", c%2, []byte(id), []byte(strings.Repeat("x", c%50)))
						w.Append("b", 0, []byte(id), nil)
						if err := b.Set([]byte("state-"+id), nil); err != nil {
							t.Error(err)
							return
						}
						if err := s.Commit(w, b, true); err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						acked = append(acked, id)
						mu.Unlock()
					}
				})
			}
			time.Sleep(time.Duration(5+rng.IntN(30)) * time.Millisecond)
			mu.Lock()
			ackedBefore := slices.Clone(acked)
			mu.Unlock()
			crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: rng.IntN(3) * 50, RNG: rng})
			stop.Store(true)
			wg.Wait()
			require.NoError(t, db.Close())
			require.NotEmpty(t, ackedBefore)

			opts.FS = crashed
			db, err = store.Open("", opts)
			require.NoError(t, err)
			defer func() { require.NoError(t, db.Close()) }()
			s, err = New(db)
			require.NoError(t, err)

			ids := map[string]int{}
			var seqs []uint64
			for _, in := range []Position{{"a", 0, 0}, {"a", 1, 0}, {"b", 0, 0}} {
				r, err := s.NewReader(in.Log, in.Partition, 0)
				require.NoError(t, err)
				for i, rec := range readAll(t, r) { // a gap fails readAll
					require.Equal(t, int64(i), rec.Offset)
					ids[string(rec.Key)]++
					seqs = append(seqs, rec.Seq)
				}
			}
			slices.Sort(seqs)
			for i, seq := range seqs {
				require.Equal(t, uint64(i), seq, "sequence numbers must be a prefix")
			}
			states := map[string]bool{}
			require.NoError(t, db.Scan([]byte("state-"), func(k, _ []byte) error {
				states[strings.TrimPrefix(string(k), "state-")] = true
				return nil
			}))
			for id, n := range ids {
				require.Equal(t, 2, n, "commit %s survived by halves", id)
				require.True(t, states[id], "records of %s survived without its state", id)
			}
			require.Len(t, states, len(ids))
			for _, id := range ackedBefore {
				require.Contains(t, ids, id, "acknowledged commit %s lost", id)
			}

			t.Logf("acked before crash %d, survived %d", len(ackedBefore), len(ids))
			// Appending continues the sequence.
			commit(t, s, db, true, rec("b", 0, "after", ""))
			end, err := s.EndOffsets("b")
			require.NoError(t, err)
			r, err := s.NewReader("b", 0, end[0]-1)
			require.NoError(t, err)
			got := readAll(t, r)
			require.Equal(t, uint64(len(seqs)), got[0].Seq)
		})
	}
}
