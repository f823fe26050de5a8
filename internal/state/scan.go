package state

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/store"
)

// ScanNamespace implements Backend. State entries come first, in key
// order, then timers in firing order.
func (e *engine) ScanNamespace(ns string, fn func(Entry) error) error {
	stopped := false
	emit := func(en Entry) error {
		err := fn(en)
		if errors.Is(err, ErrStop) {
			stopped = true
		}
		return err
	}
	prefix := appendNSPrefix(nil, ns)
	var listHead uint64 // head of the list whose elements follow
	err := e.scan(prefix, store.PrefixEnd(prefix), func(k, v []byte) error {
		key, rest, err := store.DecodeBytes([]byte{}, k[len(prefix):])
		if err != nil {
			return err
		}
		name, rest, err := store.DecodeString(rest)
		if err != nil {
			return err
		}
		if len(rest) == 0 {
			return fmt.Errorf("%w: state key %x", store.ErrCorruptKey, k)
		}
		en := Entry{Key: key, Name: name, Value: v}
		switch rest[0] {
		case kindValue:
			en.Kind = KindValue
		case kindListMeta:
			// The metadata sorts before the elements ('L' < 'l').
			var n int
			if listHead, n = binary.Uvarint(v); n <= 0 {
				return fmt.Errorf("corrupt list metadata %x", v)
			}
			return nil
		case kindListElem:
			idx, _, err := store.DecodeUint64BE(rest[1:])
			if err != nil {
				return err
			}
			en.Kind, en.Index = KindList, int(idx-listHead)
		case kindMap:
			en.Kind, en.MapKey = KindMap, rest[1:]
		default:
			return fmt.Errorf("%w: state key %x", store.ErrCorruptKey, k)
		}
		return emit(en)
	})
	if err != nil {
		return fmt.Errorf("state: scanning namespace %s: %w", ns, err)
	}
	if stopped {
		return nil
	}
	lo := append(appendTimerNS(nil, ns), timerByTime)
	err = e.scan(lo, store.PrefixEnd(lo), func(k, _ []byte) error {
		tm, err := decodeTimerByTime(k[len(lo):])
		if err != nil {
			return err
		}
		return fn(Entry{Kind: KindTimer, Key: tm.Key, Name: tm.Name, Time: tm.Time})
	})
	if err != nil {
		return fmt.Errorf("state: scanning timers of namespace %s: %w", ns, err)
	}
	return nil
}
