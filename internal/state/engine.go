package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/eddy-sql/eddy/internal/store"
)

// kv is the ordered key-value store under a backend.
type kv interface {
	// appendGet appends the value of key to dst.
	appendGet(dst, key []byte) ([]byte, bool, error)
	// set and del copy their arguments.
	set(key, value []byte) error
	del(key []byte) error
	delRange(lo, hi []byte) error
	// scan calls fn for the keys in [lo, hi) in order, over the contents
	// at the start of the scan; fn may modify the store. ErrStop ends it.
	// limit > 0 promises that fn stops after at most limit keys.
	scan(lo, hi []byte, limit int, fn func(k, v []byte) error) error
	// generation changes whenever writes are discarded (batch reset,
	// snapshot restore), invalidating the engine's cached facts.
	generation() uint64
}

// engine implements Backend on a kv. The value, list and map logic and the
// key layout live here once, so both backends behave identically.
type engine struct {
	kv  kv
	k   []byte // scratch for the key of the current operation
	k2  []byte // scratch for a second key
	val []byte // scratch for internal reads

	// timerFloor holds, per namespace, a time such that no timer of the
	// namespace is earlier. Due-timer scans start there instead of at the
	// namespace's first key, so they do not wade through the tombstones
	// of timers already fired. Valid while gen equals kv.generation().
	timerFloor map[string]int64
	gen        uint64
}

var _ Backend = (*engine)(nil)

// Get implements Backend.
func (e *engine) Get(ns, name string, key []byte) ([]byte, bool, error) {
	e.k = appendEntryKey(e.k[:0], ns, name, key, kindValue)
	v, ok, err := e.kv.appendGet(nil, e.k)
	if err != nil {
		return nil, false, fmt.Errorf("state: getting %s/%s: %w", ns, name, err)
	}
	return nonNil(v, ok), ok, nil
}

// Put implements Backend.
func (e *engine) Put(ns, name string, key, value []byte) error {
	e.k = appendEntryKey(e.k[:0], ns, name, key, kindValue)
	if err := e.kv.set(e.k, value); err != nil {
		return fmt.Errorf("state: putting %s/%s: %w", ns, name, err)
	}
	return nil
}

// Delete implements Backend.
func (e *engine) Delete(ns, name string, key []byte) error {
	e.k = appendEntryKey(e.k[:0], ns, name, key, kindValue)
	if err := e.kv.del(e.k); err != nil {
		return fmt.Errorf("state: deleting %s/%s: %w", ns, name, err)
	}
	return nil
}

// listMeta reads the [head, tail) element indices of a list; the meta key
// is left in e.k and the element key prefix in e.k2.
func (e *engine) listMeta(ns, name string, key []byte) (head, tail uint64, err error) {
	e.k = appendEntryKey(e.k[:0], ns, name, key, kindListMeta)
	e.k2 = append(e.k2[:0], e.k...)
	e.k2[len(e.k2)-1] = kindListElem
	var ok bool
	e.val, ok, err = e.kv.appendGet(e.val[:0], e.k)
	if err != nil || !ok {
		return 0, 0, err
	}
	head, n1 := binary.Uvarint(e.val)
	tail, n2 := binary.Uvarint(e.val[max(n1, 0):])
	if n1 <= 0 || n2 <= 0 || tail < head {
		return 0, 0, fmt.Errorf("corrupt list metadata %x", e.val)
	}
	return head, tail, nil
}

func (e *engine) putListMeta(head, tail uint64) error {
	if head == tail {
		return e.kv.del(e.k)
	}
	e.val = binary.AppendUvarint(e.val[:0], head)
	e.val = binary.AppendUvarint(e.val, tail)
	return e.kv.set(e.k, e.val)
}

// elemKey returns the key of element idx; e.k2 must hold the element prefix.
func (e *engine) elemKey(idx uint64) []byte {
	n := len(e.k2)
	e.k2 = store.AppendUint64BE(e.k2, idx)
	k := e.k2
	e.k2 = e.k2[:n]
	return k
}

// ListLen implements Backend.
func (e *engine) ListLen(ns, name string, key []byte) (int, error) {
	head, tail, err := e.listMeta(ns, name, key)
	if err != nil {
		return 0, fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	return int(tail - head), nil
}

// ListGet implements Backend.
func (e *engine) ListGet(ns, name string, key []byte, i int) ([]byte, error) {
	head, tail, err := e.listMeta(ns, name, key)
	if err != nil {
		return nil, fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	if i < 0 || uint64(i) >= tail-head {
		return nil, fmt.Errorf("state: list %s/%s: getting %d of %d: %w", ns, name, i, tail-head, ErrOutOfRange)
	}
	v, ok, err := e.kv.appendGet(nil, e.elemKey(head+uint64(i)))
	if err == nil && !ok {
		err = fmt.Errorf("element %d is missing", i)
	}
	if err != nil {
		return nil, fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	return nonNil(v, ok), nil
}

// nonNil returns an empty, non-nil slice for a present empty value, so that
// callers can tell it from an absent one by the slice alone.
func nonNil(v []byte, ok bool) []byte {
	if ok && v == nil {
		return []byte{}
	}
	return v
}

// ListAppend implements Backend.
func (e *engine) ListAppend(ns, name string, key, value []byte) error {
	head, tail, err := e.listMeta(ns, name, key)
	if err == nil {
		err = e.kv.set(e.elemKey(tail), value)
	}
	if err == nil {
		err = e.putListMeta(head, tail+1)
	}
	if err != nil {
		return fmt.Errorf("state: appending to list %s/%s: %w", ns, name, err)
	}
	return nil
}

// ListSet implements Backend.
func (e *engine) ListSet(ns, name string, key []byte, i int, value []byte) error {
	head, tail, err := e.listMeta(ns, name, key)
	if err != nil {
		return fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	if i < 0 || uint64(i) >= tail-head {
		return fmt.Errorf("state: list %s/%s: setting %d of %d: %w", ns, name, i, tail-head, ErrOutOfRange)
	}
	if err := e.kv.set(e.elemKey(head+uint64(i)), value); err != nil {
		return fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	return nil
}

// ListRemoveFirst implements Backend.
func (e *engine) ListRemoveFirst(ns, name string, key []byte, n int) error {
	if n < 0 {
		return fmt.Errorf("state: list %s/%s: removing %d elements", ns, name, n)
	}
	head, tail, err := e.listMeta(ns, name, key)
	if err != nil {
		return fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	newHead := head + min(uint64(n), tail-head)
	if newHead == head {
		return nil
	}
	if err := e.delElems(head, newHead); err != nil {
		return fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	if newHead == tail {
		// Empty: drop the metadata so that indices restart from 0.
		head, tail = 0, 0
	} else {
		head = newHead
	}
	if err := e.putListMeta(head, tail); err != nil {
		return fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	return nil
}

// delElems deletes elements [from, to); e.k2 holds the element prefix.
func (e *engine) delElems(from, to uint64) error {
	for idx := from; idx < to; idx++ {
		if err := e.kv.del(e.elemKey(idx)); err != nil {
			return err
		}
	}
	return nil
}

// ListRange implements Backend.
func (e *engine) ListRange(ns, name string, key []byte, fn func(i int, value []byte) error) error {
	head, tail, err := e.listMeta(ns, name, key)
	if err != nil {
		return fmt.Errorf("state: list %s/%s: %w", ns, name, err)
	}
	if head == tail {
		return nil
	}
	lo := append([]byte(nil), e.elemKey(head)...)
	hi := append([]byte(nil), e.elemKey(tail)...)
	return e.scan(lo, hi, func(k, v []byte) error {
		idx, _, err := store.DecodeUint64BE(k[len(k)-8:])
		if err != nil {
			return err
		}
		return fn(int(idx-head), v)
	})
}

// ListClear implements Backend.
func (e *engine) ListClear(ns, name string, key []byte) error {
	head, tail, err := e.listMeta(ns, name, key)
	if err == nil && head != tail {
		if err = e.delElems(head, tail); err == nil {
			err = e.kv.del(e.k)
		}
	}
	if err != nil {
		return fmt.Errorf("state: clearing list %s/%s: %w", ns, name, err)
	}
	return nil
}

// MapGet implements Backend.
func (e *engine) MapGet(ns, name string, key, mapKey []byte) ([]byte, bool, error) {
	e.k = append(appendEntryKey(e.k[:0], ns, name, key, kindMap), mapKey...)
	v, ok, err := e.kv.appendGet(nil, e.k)
	if err != nil {
		return nil, false, fmt.Errorf("state: map %s/%s: %w", ns, name, err)
	}
	return nonNil(v, ok), ok, nil
}

// MapPut implements Backend.
func (e *engine) MapPut(ns, name string, key, mapKey, value []byte) error {
	e.k = append(appendEntryKey(e.k[:0], ns, name, key, kindMap), mapKey...)
	if err := e.kv.set(e.k, value); err != nil {
		return fmt.Errorf("state: map %s/%s: %w", ns, name, err)
	}
	return nil
}

// MapDelete implements Backend.
func (e *engine) MapDelete(ns, name string, key, mapKey []byte) error {
	e.k = append(appendEntryKey(e.k[:0], ns, name, key, kindMap), mapKey...)
	if err := e.kv.del(e.k); err != nil {
		return fmt.Errorf("state: map %s/%s: %w", ns, name, err)
	}
	return nil
}

// MapRange implements Backend.
func (e *engine) MapRange(ns, name string, key []byte, fn func(mapKey, value []byte) error) error {
	prefix := appendEntryKey(nil, ns, name, key, kindMap)
	return e.scan(prefix, store.PrefixEnd(prefix), func(k, v []byte) error {
		return fn(k[len(prefix):], v)
	})
}

// MapClear implements Backend.
func (e *engine) MapClear(ns, name string, key []byte) error {
	prefix := appendEntryKey(nil, ns, name, key, kindMap)
	if err := e.deletePrefix(prefix); err != nil {
		return fmt.Errorf("state: clearing map %s/%s: %w", ns, name, err)
	}
	return nil
}

// ClearKey implements Backend.
func (e *engine) ClearKey(ns string, key []byte) error {
	if err := e.deletePrefix(appendKeyPrefix(nil, ns, key)); err != nil {
		return fmt.Errorf("state: clearing key in %s: %w", ns, err)
	}
	return nil
}

// ClearNamespace implements Backend.
func (e *engine) ClearNamespace(ns string) error {
	for _, prefix := range [][]byte{appendNSPrefix(nil, ns), appendTimerNS(nil, ns)} {
		if err := e.kv.delRange(prefix, store.PrefixEnd(prefix)); err != nil {
			return fmt.Errorf("state: clearing namespace %s: %w", ns, err)
		}
	}
	e.checkGen()
	e.setFloor(ns, math.MaxInt64)
	return nil
}

// deletePrefix deletes every key with the prefix, one by one: point
// deletions keep later reads fast, where a range tombstone in an indexed
// batch would slow every read until compacted.
func (e *engine) deletePrefix(prefix []byte) error {
	return e.scan(prefix, store.PrefixEnd(prefix), func(k, _ []byte) error {
		return e.kv.del(k)
	})
}

// scan runs kv.scan, treating ErrStop from fn as a normal end.
func (e *engine) scan(lo, hi []byte, fn func(k, v []byte) error) error {
	return e.scanLimit(lo, hi, 0, fn)
}

// scanLimit is scan for a fn that stops after at most limit keys.
func (e *engine) scanLimit(lo, hi []byte, limit int, fn func(k, v []byte) error) error {
	err := e.kv.scan(lo, hi, limit, fn)
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}
