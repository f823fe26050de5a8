package logstore

import (
	"context"
	"fmt"
)

// Read-ahead limits of one fetch from Pebble.
const (
	fetchRecords = 512
	fetchBytes   = 1 << 20
)

// Reader reads the committed records of one log partition in offset order.
// It is not safe for concurrent use. It holds no Pebble resources between
// calls, so it needs no Close.
type Reader struct {
	c cursor
}

// NewReader returns a reader of partition of log starting at offset from.
// An offset beyond the current end is allowed: the reader returns records
// once the partition reaches it.
func (s *Store) NewReader(log string, partition int, from int64) (*Reader, error) {
	c, err := s.newCursor(log, partition, from)
	if err != nil {
		return nil, err
	}
	return &Reader{c: c}, nil
}

// Next returns the next committed record. At the current end of the
// partition it returns false: call Wait, then Next again. It returns
// ErrLogDropped (wrapped) once the log is dropped.
func (r *Reader) Next() (Record, bool, error) {
	if rec, ok := r.c.pop(); ok {
		return rec, true, nil
	}
	end, err := r.c.end()
	if err != nil {
		return Record{}, false, err
	}
	if r.c.fetched >= end {
		return Record{}, false, nil
	}
	if err := r.c.fill(end); err != nil {
		return Record{}, false, err
	}
	rec, ok := r.c.pop()
	return rec, ok, nil
}

// Wait blocks until Next has a record to return or the log is dropped, or
// ctx is done (it then returns ctx.Err()). It returns at once if a record
// is already available.
func (r *Reader) Wait(ctx context.Context) error {
	if r.c.buffered() {
		return nil
	}
	s := r.c.s
	s.mu.Lock()
	ls := r.c.ls
	if ls.dropped || ls.ends[r.c.part] > r.c.fetched {
		s.mu.Unlock()
		return nil
	}
	ch := ls.notify
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Position returns the offset of the next record Next will return; store it
// in a checkpoint and pass it to NewReader to resume.
func (r *Reader) Position() int64 { return r.c.next }

// cursor reads one partition in chunks. Records are copied out of Pebble
// into one new slab per chunk, so returned records stay valid.
type cursor struct {
	s    *Store
	ls   *logState
	part int

	next    int64 // offset of the next record to return
	fetched int64 // offset after the last buffered record
	limit   int64 // MergedReader: the input's end in the current round

	buf      []Record
	bi       int
	slabHint int
	spans    []span
	lower    [recordKeyLen]byte
	upper    [recordKeyLen]byte
	seek     [recordKeyLen]byte
}

// span locates a record's key and value in the slab; -1 marks nil.
type span struct{ k, kl, vl int }

func (s *Store) newCursor(log string, partition int, from int64) (cursor, error) {
	ls, err := s.lookup(log)
	if err != nil {
		return cursor{}, err
	}
	if partition < 0 || partition >= len(ls.ends) {
		return cursor{}, fmt.Errorf("reading log %s partition %d of %d: %w", log, partition, len(ls.ends), ErrBadPartition)
	}
	if from < 0 {
		return cursor{}, fmt.Errorf("logstore: reading log %s partition %d: negative offset %d", log, partition, from)
	}
	return cursor{s: s, ls: ls, part: partition, next: from, fetched: from, slabHint: 4 << 10}, nil
}

func (c *cursor) buffered() bool { return c.bi < len(c.buf) }

func (c *cursor) head() *Record { return &c.buf[c.bi] }

func (c *cursor) pop() (Record, bool) {
	if c.bi >= len(c.buf) {
		return Record{}, false
	}
	rec := c.buf[c.bi]
	c.buf[c.bi] = Record{}
	c.bi++
	c.next = rec.Offset + 1
	return rec, true
}

// end returns the published end of the partition.
func (c *cursor) end() (int64, error) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.ls.dropped {
		return 0, fmt.Errorf("reading log %s: %w", c.ls.name, ErrLogDropped)
	}
	return c.ls.ends[c.part], nil
}

func (c *cursor) dropped() bool {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.ls.dropped
}

// fill buffers the records from c.fetched up to at most limit, which must be
// a published end above c.fetched. The buffer must be consumed. It reads
// whole chunks (a published end never splits one), from the chunk holding
// c.fetched, and stops after the chunk that reaches fetchRecords records or
// fetchBytes bytes.
func (c *cursor) fill(limit int64) error {
	putRecordKey(c.lower[:], c.ls.id, c.part, 0)
	putRecordKey(c.upper[:], c.ls.id, c.part, limit)
	it, err := c.s.db.NewIter(c.lower[:], c.upper[:])
	if err != nil {
		return fmt.Errorf("reading log %s: %w", c.ls.name, err)
	}
	c.buf, c.bi, c.spans = c.buf[:0], 0, c.spans[:0]
	slab := make([]byte, 0, c.slabHint)
	want := c.fetched
	full := false
	putRecordKey(c.seek[:], c.ls.id, c.part, c.fetched+1)
	for valid := it.SeekLT(c.seek[:]); valid && !full; valid = it.Next() {
		first, err := recordKeyOffset(it.Key())
		if err != nil || first > want {
			break // a gap: checked below
		}
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return fmt.Errorf("reading log %s: %w", c.ls.name, err)
		}
		vi, err := newValueIter(v)
		for off := first; err == nil; off++ {
			var d decodedValue
			var ok bool
			if d, ok, err = vi.next(); !ok || err != nil {
				break
			}
			if off < want {
				continue // before the position, in the chunk holding it
			}
			sp := span{k: len(slab), kl: len(d.key), vl: len(d.value)}
			if d.flags&flagKeyNil != 0 {
				sp.kl = -1
			}
			if d.flags&flagValueNil != 0 {
				sp.vl = -1
			}
			slab = append(slab, d.key...)
			slab = append(slab, d.value...)
			c.spans = append(c.spans, sp)
			c.buf = append(c.buf, Record{
				Log: c.ls.name, Partition: c.part, Offset: off, Seq: d.seq, Timestamp: d.ts,
			})
			want++
		}
		if err != nil {
			_ = it.Close()
			return fmt.Errorf("reading log %s partition %d offset %d: %w", c.ls.name, c.part, first, err)
		}
		full = len(c.buf) >= fetchRecords || len(slab) >= fetchBytes
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("reading log %s: %w", c.ls.name, err)
	}
	if want < limit && !full {
		c.buf = c.buf[:0]
		if c.dropped() {
			return fmt.Errorf("reading log %s: %w", c.ls.name, ErrLogDropped)
		}
		return fmt.Errorf("reading log %s partition %d: %w: offset %d is missing", c.ls.name, c.part, errCorruptRecord, want)
	}
	for i, sp := range c.spans {
		r := &c.buf[i]
		if sp.kl >= 0 {
			r.Key = slab[sp.k : sp.k+sp.kl : sp.k+sp.kl]
		}
		v := sp.k + max(sp.kl, 0)
		if sp.vl >= 0 {
			r.Value = slab[v : v+sp.vl : v+sp.vl]
		}
	}
	c.slabHint = max(len(slab), 64)
	c.fetched = want
	return nil
}
