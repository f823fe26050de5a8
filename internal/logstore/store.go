package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/eddy-sql/eddy/internal/store"
)

var (
	// ErrLogExists is returned by CreateLog for a name in use.
	ErrLogExists = errors.New("logstore: log already exists")
	// ErrLogNotFound is returned for an unknown log name.
	ErrLogNotFound = errors.New("logstore: log not found")
	// ErrLogDropped is returned by readers of a log dropped while they read.
	ErrLogDropped = errors.New("logstore: log dropped")
	// ErrBadPartition is returned for a partition outside [0, n).
	ErrBadPartition = errors.New("logstore: partition out of range")
)

// MaxPartitions is the largest partition count of a log.
const MaxPartitions = 1 << 16

// Metadata keys; see the store package documentation.
var (
	nextSeqKey = []byte{store.PrefixLogMeta, 's'}
	nextIDKey  = []byte{store.PrefixLogMeta, 'i'}
)

func logMetaKey(name string) []byte {
	return append([]byte{store.PrefixLogMeta, 'n'}, name...)
}

// Store manages the log tables of one store.DB. It is safe for concurrent
// use: several jobs commit and read at once. See the package documentation
// for the locking.
type Store struct {
	db *store.DB

	// commitMu serializes Commit, CreateLog and DropLog. Commit holds it
	// while it assigns offsets and sequence numbers and applies the batch
	// to Pebble, so the WAL holds commits in sequence order.
	commitMu sync.Mutex
	nextSeq  uint64 // guarded by commitMu
	nextID   uint64 // guarded by commitMu
	epoch    uint64 // guarded by commitMu; numbers Commit calls

	// mu guards the published view that readers see. It is never held
	// while waiting for Pebble I/O.
	mu      sync.Mutex
	logs    map[string]*logState // written under commitMu and mu; read under either
	pending []*pendingCommit     // guarded by mu; applied commits in sequence order
	pubRun  uint64               // guarded by mu; numbers publish runs
	failed  error                // guarded by mu; sticky
	// published is signalled (with mu) when commits are published or the
	// store fails; Commit waits on it for earlier commits to publish.
	published sync.Cond
}

// logState is the in-memory state of one log.
type logState struct {
	name string
	id   uint32

	next    []int64  // guarded by commitMu: next offset to assign per partition
	touched []uint64 // guarded by commitMu: epoch of the last Commit touching the partition
	slot    []int32  // guarded by commitMu: the partition's index in that Commit's updates

	ends     []int64       // guarded by mu: published (readable) end offset per partition
	notify   chan struct{} // guarded by mu: closed and replaced when data is published
	notified uint64        // guarded by mu: pubRun of the last close of notify
	dropped  bool          // guarded by mu
}

// pendingCommit is a commit applied to Pebble whose records are not yet
// readable.
type pendingCommit struct {
	updates   []endUpdate
	firstSeq  uint64
	done      bool // guarded by Store.mu: applied and synced
	published bool // guarded by Store.mu: readable
}

type endUpdate struct {
	ls       *logState
	part     int
	from, to int64 // offsets [from, to) were assigned
}

// New loads the logs, their next offsets and the next sequence number of db.
func New(db *store.DB) (*Store, error) {
	s := &Store{db: db, logs: make(map[string]*logState)}
	s.published.L = &s.mu
	if err := s.load(); err != nil {
		return nil, fmt.Errorf("logstore: loading: %w", err)
	}
	return s, nil
}

func (s *Store) load() error {
	for _, c := range []struct {
		key []byte
		dst *uint64
	}{{nextSeqKey, &s.nextSeq}, {nextIDKey, &s.nextID}} {
		v, ok, err := s.db.Get(c.key)
		if err != nil {
			return err
		}
		if ok {
			if *c.dst, _, err = store.DecodeUint64BE(v); err != nil {
				return err
			}
		}
	}
	prefix := []byte{store.PrefixLogMeta, 'n'}
	err := s.db.Scan(prefix, func(k, v []byte) error {
		name := string(k[len(prefix):])
		id, n1 := binary.Uvarint(v)
		parts, n2 := binary.Uvarint(v[max(n1, 0):])
		if n1 <= 0 || n2 <= 0 || id > 1<<32-1 || parts == 0 || parts > MaxPartitions {
			return fmt.Errorf("%w: metadata of log %q", errCorruptRecord, name)
		}
		s.logs[name] = newLogState(name, uint32(id), int(parts))
		return nil
	})
	if err != nil {
		return err
	}
	for _, ls := range s.logs {
		for p := range ls.next {
			end, err := s.lastOffset(ls, p)
			if err != nil {
				return fmt.Errorf("log %s partition %d: %w", ls.name, p, err)
			}
			ls.next[p], ls.ends[p] = end, end
		}
	}
	return nil
}

// lastOffset returns the offset after the last record of a partition.
func (s *Store) lastOffset(ls *logState, part int) (int64, error) {
	lower := appendPartitionPrefix(nil, ls.id, part)
	it, err := s.db.NewIter(lower, store.PrefixEnd(lower))
	if err != nil {
		return 0, err
	}
	var end int64
	if it.Last() {
		off, err := recordKeyOffset(it.Key())
		if err == nil {
			var n int
			n, err = recordCount(it.Value())
			end = off + int64(n)
		}
		if err != nil {
			_ = it.Close()
			return 0, err
		}
	}
	if err := it.Close(); err != nil {
		return 0, err
	}
	return end, nil
}

func newLogState(name string, id uint32, parts int) *logState {
	return &logState{
		name: name, id: id,
		next: make([]int64, parts), touched: make([]uint64, parts), slot: make([]int32, parts),
		ends: make([]int64, parts), notify: make(chan struct{}),
	}
}

// CreateLog creates a log with the given number of partitions (1 to
// MaxPartitions). The metadata is synced before CreateLog returns.
func (s *Store) CreateLog(name string, partitions int) error {
	if name == "" {
		return errors.New("logstore: creating log: empty name")
	}
	if partitions < 1 || partitions > MaxPartitions {
		return fmt.Errorf("logstore: creating log %s: %d partitions is outside [1, %d]", name, partitions, MaxPartitions)
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if _, ok := s.logs[name]; ok {
		return fmt.Errorf("creating log %s: %w", name, ErrLogExists)
	}
	if s.nextID > 1<<32-1 {
		return fmt.Errorf("logstore: creating log %s: log ids exhausted", name)
	}
	id := s.nextID
	b := s.db.NewBatch()
	defer func() { _ = b.Close() }()
	meta := binary.AppendUvarint(nil, id)
	meta = binary.AppendUvarint(meta, uint64(partitions))
	if err := b.Set(logMetaKey(name), meta); err != nil {
		return fmt.Errorf("logstore: creating log %s: %w", name, err)
	}
	if err := b.Set(nextIDKey, store.AppendUint64BE(nil, id+1)); err != nil {
		return fmt.Errorf("logstore: creating log %s: %w", name, err)
	}
	if err := b.Commit(true); err != nil {
		return fmt.Errorf("logstore: creating log %s: %w", name, err)
	}
	s.nextID = id + 1
	ls := newLogState(name, uint32(id), partitions)
	s.mu.Lock()
	s.logs[name] = ls
	s.mu.Unlock()
	return nil
}

// DropLog deletes a log and all its records. Readers of the log get
// ErrLogDropped. A log created later under the same name is a new log.
func (s *Store) DropLog(name string) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	ls, ok := s.logs[name]
	if !ok {
		return fmt.Errorf("dropping log %s: %w", name, ErrLogNotFound)
	}
	b := s.db.NewBatch()
	defer func() { _ = b.Close() }()
	lower := []byte{store.PrefixLogRecord}
	lower = store.AppendUint32BE(lower, ls.id)
	if err := b.DeleteRange(lower, store.PrefixEnd(lower)); err != nil {
		return fmt.Errorf("logstore: dropping log %s: %w", name, err)
	}
	if err := b.Delete(logMetaKey(name)); err != nil {
		return fmt.Errorf("logstore: dropping log %s: %w", name, err)
	}
	if err := b.Commit(true); err != nil {
		return fmt.Errorf("logstore: dropping log %s: %w", name, err)
	}
	s.mu.Lock()
	delete(s.logs, name)
	ls.dropped = true
	close(ls.notify)
	ls.notify = make(chan struct{})
	s.mu.Unlock()
	return nil
}

// Logs returns the names of all logs, sorted.
func (s *Store) Logs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.logs))
	for n := range s.logs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Partitions returns the partition count of a log.
func (s *Store) Partitions(name string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.logs[name]
	if !ok {
		return 0, fmt.Errorf("log %s: %w", name, ErrLogNotFound)
	}
	return len(ls.ends), nil
}

// EndOffsets returns, per partition, the offset after the last committed
// and readable record of a log.
func (s *Store) EndOffsets(name string) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.logs[name]
	if !ok {
		return nil, fmt.Errorf("log %s: %w", name, ErrLogNotFound)
	}
	return slices.Clone(ls.ends), nil
}

// lookup returns the state of a log under mu.
func (s *Store) lookup(name string) (*logState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.logs[name]
	if !ok {
		return nil, fmt.Errorf("log %s: %w", name, ErrLogNotFound)
	}
	return ls, nil
}
