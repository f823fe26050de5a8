package logstore

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/store"
)

// Commit appends the records of w to their logs and commits them in one
// atomic Pebble batch together with everything the caller already wrote to
// b (operator state, timers, source positions). With sync the WAL is synced
// before Commit returns.
//
// Commit assigns each record the next offset of its partition and the next
// global sequence number, in Append order. When Commit returns nil the
// records are readable, every Reader waiting on their logs has been woken,
// and w and b are reset for reuse. Readers never see part of a commit, and
// commits become readable in sequence order.
//
// An unknown log or an out-of-range partition fails the commit before b is
// touched. On any other error nothing is appended and b must be Reset (its
// contents are undefined). On error w keeps its records.
//
// A commit is readable only after every commit with lower sequence numbers,
// so Commit may wait for the WAL sync of a concurrent commit that was
// applied just before it.
func (s *Store) Commit(w *Writer, b *store.Batch, sync bool) error {
	if w.n == 0 {
		if err := s.failure(); err != nil {
			return err
		}
		if err := b.Commit(sync); err != nil {
			return fmt.Errorf("logstore: committing batch: %w", err)
		}
		return nil
	}

	s.commitMu.Lock()
	if err := s.failure(); err != nil {
		s.commitMu.Unlock()
		return err
	}
	pc, err := s.assignLocked(w, b)
	if err != nil {
		s.commitMu.Unlock()
		return err
	}
	finish, err := b.StartCommit(sync)
	if err != nil {
		s.rollbackLocked(pc)
		s.commitMu.Unlock()
		return fmt.Errorf("logstore: committing %d records: %w", w.n, err)
	}
	// The batch is applied and the WAL holds it after every earlier commit.
	// Queue it for publication before the next commit can be applied, so the
	// queue stays in sequence order.
	s.mu.Lock()
	s.pending = append(s.pending, pc)
	s.mu.Unlock()
	s.commitMu.Unlock()

	// Wait for the fsync outside the locks: commits of other jobs are
	// applied meanwhile and Pebble syncs them together.
	ferr := finish()

	s.mu.Lock()
	defer s.mu.Unlock()
	if ferr != nil {
		// The records are in Pebble but may not be durable, and their
		// offsets are spent: no later commit can be published in order.
		if s.failed == nil {
			s.failed = fmt.Errorf("logstore: store unusable after a failed WAL sync: %w", ferr)
			s.published.Broadcast()
		}
		return s.failed
	}
	pc.done = true
	s.publishLocked()
	for !pc.published && s.failed == nil {
		// An earlier commit is still syncing; it publishes this one.
		s.published.Wait()
	}
	if !pc.published {
		// An earlier commit failed its sync; this one can never be
		// published.
		return s.failed
	}
	w.Reset()
	return nil
}

// failure returns the sticky error of a store whose WAL sync failed.
func (s *Store) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// assignLocked resolves the logs of w, assigns offsets and sequence numbers
// and adds the records and the new next sequence to b. It validates every
// record before it writes anything. s.commitMu must be held.
func (s *Store) assignLocked(w *Writer, b *store.Batch) (*pendingCommit, error) {
	// Resolve and validate first, remembering each record's log.
	states := w.states[:0]
	defer func() { clear(states); w.states = states[:0] }()
	var last *logState
	for i := range w.n {
		r := w.rec(i)
		if last == nil || last.name != r.log {
			ls, ok := s.logs[r.log]
			if !ok {
				return nil, fmt.Errorf("appending to log %s: %w", r.log, ErrLogNotFound)
			}
			last = ls
		}
		if r.part < 0 || int(r.part) >= len(last.next) {
			return nil, fmt.Errorf("appending to log %s partition %d of %d: %w",
				r.log, r.part, len(last.next), ErrBadPartition)
		}
		states = append(states, last)
	}

	s.epoch++
	pc := &pendingCommit{firstSeq: s.nextSeq}
	// Offsets and sequence numbers follow Append order; each record
	// remembers its partition's slot in pc.updates.
	slots := w.slots[:0]
	for i := range w.n {
		r, ls := w.rec(i), states[i]
		if ls.touched[r.part] != s.epoch {
			ls.touched[r.part] = s.epoch
			ls.slot[r.part] = int32(len(pc.updates))
			pc.updates = append(pc.updates, endUpdate{ls: ls, part: int(r.part), from: ls.next[r.part]})
		}
		ls.next[r.part]++
		slots = append(slots, ls.slot[r.part])
	}
	s.nextSeq += uint64(w.n)
	w.slots = slots
	for i := range pc.updates {
		u := &pc.updates[i]
		u.to = u.ls.next[u.part]
	}
	// Group the records by partition (a counting sort on the slots, which
	// keeps Append order within a partition) and write each partition's
	// records in chunks of consecutive offsets.
	order, starts := w.groupBySlot(len(pc.updates))
	pb := b.Pebble()
	for u := range pc.updates {
		up := &pc.updates[u]
		idx := order[starts[u]:starts[u+1]]
		off := up.from
		for len(idx) > 0 {
			n, size := w.chunkLen(pc.firstSeq, idx)
			op := pb.SetDeferred(recordKeyLen, size)
			putRecordKey(op.Key, up.ls.id, up.part, off)
			w.putChunk(op.Value, pc.firstSeq, idx[:n])
			if err := op.Finish(); err != nil {
				s.rollbackLocked(pc)
				return nil, fmt.Errorf("appending to log %s: %w", up.ls.name, err)
			}
			idx, off = idx[n:], off+int64(n)
		}
	}
	if err := b.Set(nextSeqKey, store.AppendUint64BE(nil, s.nextSeq)); err != nil {
		s.rollbackLocked(pc)
		return nil, fmt.Errorf("appending records: %w", err)
	}
	return pc, nil
}

// rollbackLocked undoes the assignments of a commit that was not applied.
// s.commitMu must be held, and no other commit assigned since.
func (s *Store) rollbackLocked(pc *pendingCommit) {
	for _, u := range pc.updates {
		u.ls.next[u.part] = u.from
	}
	s.nextSeq = pc.firstSeq
}

// publishLocked makes the done commits at the head of the queue readable,
// in sequence order, and wakes their readers. s.mu must be held.
func (s *Store) publishLocked() {
	if s.failed != nil {
		return
	}
	s.pubRun++
	n := 0
	for ; n < len(s.pending) && s.pending[n].done; n++ {
		for _, u := range s.pending[n].updates {
			ls := u.ls
			if ls.dropped {
				continue
			}
			ls.ends[u.part] = u.to
			if ls.notified != s.pubRun {
				ls.notified = s.pubRun
				close(ls.notify)
				ls.notify = make(chan struct{})
			}
		}
		s.pending[n].published = true
		s.pending[n] = nil
	}
	if n > 0 {
		s.published.Broadcast()
	}
	if n == len(s.pending) {
		s.pending = s.pending[:0]
	} else if n > 0 {
		s.pending = append(s.pending[:0], s.pending[n:]...)
	}
}
