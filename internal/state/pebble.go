package state

import "github.com/eddy-sql/eddy/internal/store"

// Pebble is the production Backend: it reads and writes through a job's
// indexed store.Batch, so reads see the job's own uncommitted writes and the
// state commits atomically with the job's log output and positions when the
// batch is committed (logstore.Store.Commit or Batch.Commit). The batch is
// reused across commits; the backend needs no other resource.
type Pebble struct {
	engine
}

// NewPebble returns a backend on b.
func NewPebble(b *store.Batch) *Pebble {
	return &Pebble{engine{kv: pebbleKV{b}}}
}

type pebbleKV struct{ b *store.Batch }

func (p pebbleKV) appendGet(dst, key []byte) ([]byte, bool, error) {
	return p.b.AppendGet(dst, key)
}

func (p pebbleKV) set(key, value []byte) error { return p.b.Set(key, value) }

func (p pebbleKV) del(key []byte) error { return p.b.Delete(key) }

func (p pebbleKV) delRange(lo, hi []byte) error { return p.b.DeleteRange(lo, hi) }

func (p pebbleKV) scan(lo, hi []byte, _ int, fn func(k, v []byte) error) error {
	return p.b.ScanRange(lo, hi, fn)
}

func (p pebbleKV) generation() uint64 { return p.b.Discards() }
