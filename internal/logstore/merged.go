package logstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// Position is a read position: the offset of the next record to read from
// one partition of a log.
type Position struct {
	Log       string
	Partition int
	Offset    int64
}

// MergedReader reads several log partitions as one stream in global
// sequence order, so a multi-input operator sees its inputs interleaved the
// same way on every run (DESIGN.md §4). It is not safe for concurrent use
// and needs no Close.
//
// It reads in rounds. A round starts by taking the published ends of all
// inputs at one instant. Commits are published atomically and in sequence
// order, so the records below those ends are exactly the records of the
// inputs with a sequence number below some bound; merging them by sequence
// number is therefore final, and records published later all sort after
// them.
type MergedReader struct {
	s      *Store
	inputs []*cursor
	heap   []*cursor // inputs with a buffered record, smallest head Seq first
}

// NewMergedReader returns a reader of the given partitions, each from its
// offset. A partition may appear only once.
func (s *Store) NewMergedReader(positions []Position) (*MergedReader, error) {
	if len(positions) == 0 {
		return nil, errors.New("logstore: merged reader without inputs")
	}
	m := &MergedReader{s: s}
	type lp struct {
		log  string
		part int
	}
	seen := make(map[lp]bool, len(positions))
	for _, p := range positions {
		if seen[lp{p.Log, p.Partition}] {
			return nil, fmt.Errorf("logstore: merged reader: log %s partition %d appears twice", p.Log, p.Partition)
		}
		seen[lp{p.Log, p.Partition}] = true
		c, err := s.newCursor(p.Log, p.Partition, p.Offset)
		if err != nil {
			return nil, err
		}
		m.inputs = append(m.inputs, &c)
	}
	return m, nil
}

// Next returns the committed record with the smallest sequence number not
// yet returned. At the current end of all inputs it returns false: call
// Wait, then Next again. It returns ErrLogDropped (wrapped) once an input's
// log is dropped.
func (m *MergedReader) Next() (Record, bool, error) {
	if len(m.heap) == 0 {
		if err := m.startRound(); err != nil {
			return Record{}, false, err
		}
		if len(m.heap) == 0 {
			return Record{}, false, nil
		}
	}
	c := m.heap[0]
	rec, _ := c.pop()
	if !c.buffered() && c.fetched < c.limit {
		if err := c.fill(c.limit); err != nil {
			return Record{}, false, err
		}
	}
	if c.buffered() {
		m.down(0)
	} else {
		m.popHeap()
	}
	return rec, true, nil
}

// startRound snapshots the ends of all inputs and buffers their first
// records.
func (m *MergedReader) startRound() error {
	m.s.mu.Lock()
	for _, c := range m.inputs {
		if c.ls.dropped {
			m.s.mu.Unlock()
			return fmt.Errorf("reading log %s: %w", c.ls.name, ErrLogDropped)
		}
		c.limit = c.ls.ends[c.part]
	}
	m.s.mu.Unlock()
	for _, c := range m.inputs {
		if !c.buffered() && c.fetched < c.limit {
			if err := c.fill(c.limit); err != nil {
				return err
			}
		}
		if c.buffered() {
			m.heap = append(m.heap, c)
			m.up(len(m.heap) - 1)
		}
	}
	return nil
}

// Wait blocks until Next has a record to return, an input's log is
// dropped, or ctx is done (it then returns ctx.Err()).
func (m *MergedReader) Wait(ctx context.Context) error {
	if len(m.heap) > 0 {
		return nil
	}
	var chans []chan struct{}
	m.s.mu.Lock()
	for _, c := range m.inputs {
		if c.ls.dropped || c.ls.ends[c.part] > c.fetched {
			m.s.mu.Unlock()
			return nil
		}
		if !containsChan(chans, c.ls.notify) {
			chans = append(chans, c.ls.notify)
		}
	}
	m.s.mu.Unlock()
	if len(chans) == 1 {
		select {
		case <-chans[0]:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	cases := make([]reflect.SelectCase, 0, len(chans)+1)
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
	for _, ch := range chans {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	if i, _, _ := reflect.Select(cases); i == 0 {
		return ctx.Err()
	}
	return nil
}

// Positions returns, per input in the order given to NewMergedReader, the
// offset of the next record Next will return from it. Store them in a
// checkpoint and pass them to NewMergedReader to resume.
func (m *MergedReader) Positions() []Position {
	out := make([]Position, len(m.inputs))
	for i, c := range m.inputs {
		out[i] = Position{Log: c.ls.name, Partition: c.part, Offset: c.next}
	}
	return out
}

func containsChan(chans []chan struct{}, ch chan struct{}) bool {
	for _, c := range chans {
		if c == ch {
			return true
		}
	}
	return false
}

// The heap is ordered by the Seq of each cursor's head record; sequence
// numbers are unique, so the order is total.

func (m *MergedReader) less(i, j int) bool { return m.heap[i].head().Seq < m.heap[j].head().Seq }

func (m *MergedReader) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !m.less(j, i) {
			break
		}
		m.heap[i], m.heap[j] = m.heap[j], m.heap[i]
		j = i
	}
}

func (m *MergedReader) down(i int) {
	n := len(m.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && m.less(r, l) {
			j = r
		}
		if !m.less(j, i) {
			return
		}
		m.heap[i], m.heap[j] = m.heap[j], m.heap[i]
		i = j
	}
}

func (m *MergedReader) popHeap() {
	n := len(m.heap) - 1
	m.heap[0] = m.heap[n]
	m.heap[n] = nil
	m.heap = m.heap[:n]
	if n > 0 {
		m.down(0)
	}
}
