package store

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// FormatVersion is the version of the key layout this package writes. Open
// refuses a directory written by a newer version.
const FormatVersion uint64 = 1

var (
	// ErrClosed is returned by the methods of a closed DB.
	ErrClosed = errors.New("store: closed")
	// ErrStop, returned by a scan callback, ends the scan early; the scan
	// then returns nil.
	ErrStop = errors.New("store: stop scan")
)

var formatVersionKey = []byte{PrefixMeta, 'v'}

// DB is the Pebble instance of a data directory. It is safe for concurrent
// use. Close it when done; a closed DB returns ErrClosed.
type DB struct {
	pdb      *pebble.DB
	dir      string
	fsCloser io.Closer
	closed   atomic.Bool
}

// Open opens (creating if needed) the store in dir. An empty dir opens a
// fresh in-memory store, for tests.
func Open(dir string, opts Options) (*DB, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	var fs vfs.FS
	var fsCloser io.Closer = io.NopCloser(nil)
	pdir := dir
	switch {
	case opts.FS != nil:
		fs = opts.FS
		if pdir == "" {
			pdir = "mem"
		}
	case dir == "":
		fs = vfs.NewMem()
		pdir = "mem"
	default:
		// Wrap the disk-health checks ourselves: Pebble's own wrapping leaks
		// the checker's goroutine when Open fails.
		logger := opts.Logger
		fs, fsCloser = vfs.WithDiskHealthChecks(vfs.Default, 5*time.Second, nil, func(info vfs.DiskSlowInfo) {
			logger.Warn("slow disk operation", "component", "pebble", "info", info.String())
		})
	}
	pdb, err := pebble.Open(pdir, opts.pebbleOptions(fs))
	if err != nil {
		_ = fsCloser.Close()
		return nil, fmt.Errorf("store: opening %q: %w", dir, err)
	}
	db := &DB{pdb: pdb, dir: dir, fsCloser: fsCloser}
	if err := db.checkFormat(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: opening %q: %w", dir, err)
	}
	return db, nil
}

// checkFormat writes the format version into a new store and rejects a
// store written by a newer version.
func (d *DB) checkFormat() error {
	v, ok, err := d.Get(formatVersionKey)
	if err != nil {
		return err
	}
	if !ok {
		return d.Set(formatVersionKey, AppendUint64BE(nil, FormatVersion))
	}
	got, _, err := DecodeUint64BE(v)
	if err != nil {
		return fmt.Errorf("reading format version: %w", err)
	}
	if got > FormatVersion {
		return fmt.Errorf("data directory has format version %d, this binary reads up to %d", got, FormatVersion)
	}
	return nil
}

// Pebble returns the underlying Pebble instance for metrics and advanced
// use. Writes made through it bypass nothing: they must follow the key
// layout of the package documentation.
func (d *DB) Pebble() *pebble.DB { return d.pdb }

// Dir returns the directory the DB was opened in ("" for in-memory).
func (d *DB) Dir() string { return d.dir }

// Close closes Pebble. Committed writes are already in the WAL, so nothing
// is lost. Batches and readers must be done first. Closing twice returns
// ErrClosed.
func (d *DB) Close() error {
	if !d.closed.CompareAndSwap(false, true) {
		return ErrClosed
	}
	err := d.pdb.Close()
	_ = d.fsCloser.Close()
	if err != nil {
		return fmt.Errorf("store: closing: %w", err)
	}
	return nil
}

func (d *DB) checkOpen() error {
	if d.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Get returns a copy of the value of key, and whether it exists.
func (d *DB) Get(key []byte) ([]byte, bool, error) {
	if err := d.checkOpen(); err != nil {
		return nil, false, err
	}
	return getCopy(d.pdb, key)
}

// Set writes key=value and syncs the WAL before returning.
func (d *DB) Set(key, value []byte) error {
	if err := d.checkOpen(); err != nil {
		return err
	}
	if err := d.pdb.Set(key, value, pebble.Sync); err != nil {
		return fmt.Errorf("store: set: %w", err)
	}
	return nil
}

// Delete deletes key and syncs the WAL before returning. Deleting an absent
// key is not an error.
func (d *DB) Delete(key []byte) error {
	if err := d.checkOpen(); err != nil {
		return err
	}
	if err := d.pdb.Delete(key, pebble.Sync); err != nil {
		return fmt.Errorf("store: delete: %w", err)
	}
	return nil
}

// DeleteRange deletes every key in [start, end) and syncs the WAL. Prefer it
// for large ranges only: range tombstones cost reads until compacted.
func (d *DB) DeleteRange(start, end []byte) error {
	if err := d.checkOpen(); err != nil {
		return err
	}
	if err := d.pdb.DeleteRange(start, end, pebble.Sync); err != nil {
		return fmt.Errorf("store: delete range: %w", err)
	}
	return nil
}

// Scan calls fn for every key starting with prefix, in key order. The slices
// passed to fn are valid only during the call. If fn returns ErrStop the scan
// ends and Scan returns nil; any other error ends it and is returned.
func (d *DB) Scan(prefix []byte, fn func(key, value []byte) error) error {
	return d.ScanRange(prefix, PrefixEnd(prefix), fn)
}

// ScanRange is Scan over the keys in [lower, upper); a nil bound is open.
func (d *DB) ScanRange(lower, upper []byte, fn func(key, value []byte) error) error {
	if err := d.checkOpen(); err != nil {
		return err
	}
	it, err := d.pdb.NewIter(iterOptions(lower, upper))
	if err != nil {
		return fmt.Errorf("store: scan: %w", err)
	}
	return scanIter(it, fn)
}

// NewIter returns a Pebble iterator over the committed keys in [lower,
// upper); a nil or empty bound is open. The caller must close it.
func (d *DB) NewIter(lower, upper []byte) (*pebble.Iterator, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	it, err := d.pdb.NewIter(iterOptions(lower, upper))
	if err != nil {
		return nil, fmt.Errorf("store: new iterator: %w", err)
	}
	return it, nil
}

// NewBatch returns a new indexed batch on d. See Batch.
func (d *DB) NewBatch() *Batch {
	return &Batch{db: d, b: d.pdb.NewIndexedBatch()}
}

// NewWriteBatch returns a batch without an index: writes are cheaper, but
// its Get and Scan fail (nothing can read its uncommitted writes). Use it
// to assemble commits (see Batch.Apply).
func (d *DB) NewWriteBatch() *Batch {
	return &Batch{db: d, b: d.pdb.NewBatch(), plain: true}
}

// getCopy reads key from r and copies the value out of Pebble's memory.
func getCopy(r pebble.Reader, key []byte) ([]byte, bool, error) {
	v, closer, err := r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: get: %w", err)
	}
	out := make([]byte, len(v))
	copy(out, v)
	if err := closer.Close(); err != nil {
		return nil, false, fmt.Errorf("store: get: %w", err)
	}
	return out, true, nil
}

// scanIter runs fn over it from First to exhaustion and closes it.
func scanIter(it *pebble.Iterator, fn func(key, value []byte) error) (err error) {
	defer func() {
		if cerr := it.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("store: scan: %w", cerr)
		}
	}()
	for valid := it.First(); valid; valid = it.Next() {
		v, verr := it.ValueAndErr()
		if verr != nil {
			return fmt.Errorf("store: scan: %w", verr)
		}
		if ferr := fn(it.Key(), v); ferr != nil {
			if errors.Is(ferr, ErrStop) {
				return nil
			}
			return ferr
		}
	}
	if ierr := it.Error(); ierr != nil {
		return fmt.Errorf("store: scan: %w", ierr)
	}
	return nil
}

// iterOptions builds iterator bounds. An empty bound is passed as nil: Pebble
// treats a non-nil empty bound as a key and its invariant checks (enabled
// under -race) index into it.
func iterOptions(lower, upper []byte) *pebble.IterOptions {
	if len(lower) == 0 {
		lower = nil
	}
	if len(upper) == 0 {
		upper = nil
	}
	return &pebble.IterOptions{LowerBound: lower, UpperBound: upper}
}
