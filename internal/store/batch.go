package store

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// errBatchFailed is returned by a batch whose commit failed, until Reset.
var errBatchFailed = errors.New("store: batch unusable after a failed commit; Reset it")

// Batch is an indexed Pebble batch: reads through it (Get, Scan) see its own
// uncommitted writes merged over the committed contents of the DB. A job owns
// one Batch and writes its state, timers, positions and output into it; one
// Commit makes all of it durable atomically.
//
// A Batch is not safe for concurrent use. Commit resets it for reuse; Close
// it when it is no longer needed.
type Batch struct {
	db       *DB
	b        *pebble.Batch
	failed   bool
	discards uint64
	plain    bool // no index: see DB.NewWriteBatch
}

// Apply adds the writes of other to b (other is left unchanged).
func (b *Batch) Apply(other *Batch) error {
	if err := b.b.Apply(other.b, nil); err != nil {
		return fmt.Errorf("store: applying batch: %w", err)
	}
	return nil
}

// Discards counts the calls to Reset, which throw away uncommitted writes
// (a commit resetting the batch does not count). Readers that cache facts
// about the batch's contents compare it to know when to forget them.
func (b *Batch) Discards() uint64 { return b.discards }

// Pebble returns the underlying indexed batch, e.g. for SetDeferred. It is
// replaced by Reset after a failed commit, so do not keep it.
func (b *Batch) Pebble() *pebble.Batch { return b.b }

// DB returns the DB the batch commits to.
func (b *Batch) DB() *DB { return b.db }

// Get returns a copy of the value of key as seen by the batch, and whether it
// exists.
func (b *Batch) Get(key []byte) ([]byte, bool, error) {
	if b.failed {
		return nil, false, errBatchFailed
	}
	return getCopy(b.b, key)
}

// AppendGet appends the value of key as seen by the batch to dst and
// returns the extended slice, and whether the key exists. It copies without
// allocating when dst has room.
func (b *Batch) AppendGet(dst, key []byte) ([]byte, bool, error) {
	if b.failed {
		return dst, false, errBatchFailed
	}
	v, closer, err := b.b.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, fmt.Errorf("store: batch get: %w", err)
	}
	dst = append(dst, v...)
	if err := closer.Close(); err != nil {
		return dst, false, fmt.Errorf("store: batch get: %w", err)
	}
	return dst, true, nil
}

// Set buffers key=value. Both slices are copied.
func (b *Batch) Set(key, value []byte) error {
	if b.failed {
		return errBatchFailed
	}
	if err := b.b.Set(key, value, nil); err != nil {
		return fmt.Errorf("store: batch set: %w", err)
	}
	return nil
}

// Delete buffers the deletion of key.
func (b *Batch) Delete(key []byte) error {
	if b.failed {
		return errBatchFailed
	}
	if err := b.b.Delete(key, nil); err != nil {
		return fmt.Errorf("store: batch delete: %w", err)
	}
	return nil
}

// DeleteRange buffers the deletion of every key in [start, end). Range
// deletions make later reads through this batch slower (Pebble re-fragments
// them after each new one), so use it for large ranges only.
func (b *Batch) DeleteRange(start, end []byte) error {
	if b.failed {
		return errBatchFailed
	}
	if err := b.b.DeleteRange(start, end, nil); err != nil {
		return fmt.Errorf("store: batch delete range: %w", err)
	}
	return nil
}

// Scan calls fn for every key starting with prefix as seen by the batch, in
// key order. The view is fixed when Scan starts: fn may write to the batch,
// and those writes are not seen by this scan. The slices passed to fn are
// valid only during the call. If fn returns ErrStop the scan ends and Scan
// returns nil; any other error ends it and is returned.
func (b *Batch) Scan(prefix []byte, fn func(key, value []byte) error) error {
	return b.ScanRange(prefix, PrefixEnd(prefix), fn)
}

// ScanRange is Scan over the keys in [lower, upper); a nil bound is open.
func (b *Batch) ScanRange(lower, upper []byte, fn func(key, value []byte) error) error {
	if b.failed {
		return errBatchFailed
	}
	it, err := b.b.NewIter(iterOptions(lower, upper))
	if err != nil {
		return fmt.Errorf("store: batch scan: %w", err)
	}
	return scanIter(it, fn)
}

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.b.Empty() }

// Count returns the number of writes in the batch.
func (b *Batch) Count() uint32 { return b.b.Count() }

// Len returns the size of the batch in bytes.
func (b *Batch) Len() int { return b.b.Len() }

// Commit applies the batch atomically, syncing the WAL first if sync is
// true, and resets the batch for reuse. Without sync the writes may be lost
// even by a process crash: Pebble keeps the tail of its WAL in process
// memory until a later write fills the block or a sync. Commit with sync
// whatever must survive kill -9.
// After a failed commit the batch must be Reset (or closed).
func (b *Batch) Commit(sync bool) error {
	finish, err := b.StartCommit(sync)
	if err != nil {
		return err
	}
	return finish()
}

// StartCommit applies the batch and returns once its writes are visible to
// new reads. If sync is true the WAL sync may still be in flight: finish
// waits for it. finish must be called exactly once, before any other use of
// the batch; it resets the batch for reuse. StartCommit lets a caller order
// commits under its own lock (the WAL keeps their order) while the fsyncs of
// several commits proceed together outside the lock.
func (b *Batch) StartCommit(sync bool) (finish func() error, err error) {
	if b.failed {
		return nil, errBatchFailed
	}
	if err := b.db.checkOpen(); err != nil {
		return nil, err
	}
	if b.b.Empty() {
		return func() error { b.b.Reset(); return nil }, nil
	}
	if !sync {
		if err := b.db.pdb.Apply(b.b, pebble.NoSync); err != nil {
			b.failed = true
			return nil, fmt.Errorf("store: committing batch: %w", err)
		}
		return func() error { b.b.Reset(); return nil }, nil
	}
	if err := b.db.pdb.ApplyNoSyncWait(b.b, pebble.Sync); err != nil {
		b.failed = true
		return nil, fmt.Errorf("store: committing batch: %w", err)
	}
	return func() error {
		if err := b.b.SyncWait(); err != nil {
			b.failed = true
			return fmt.Errorf("store: syncing batch: %w", err)
		}
		b.b.Reset()
		return nil
	}, nil
}

// Reset discards every uncommitted write and makes the batch usable again,
// also after a failed commit.
func (b *Batch) Reset() {
	b.discards++
	if b.failed {
		// Pebble detaches a batch from its DB when its commit fails; start a
		// fresh one rather than reuse it.
		_ = b.b.Close()
		if b.plain {
			b.b = b.db.pdb.NewBatch()
		} else {
			b.b = b.db.pdb.NewIndexedBatch()
		}
		b.failed = false
		return
	}
	b.b.Reset()
}

// Close releases the batch without committing it.
func (b *Batch) Close() error {
	if err := b.b.Close(); err != nil {
		return fmt.Errorf("store: closing batch: %w", err)
	}
	return nil
}
