package state

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/eddy-sql/eddy/internal/store"
)

// RegisterTimer implements Backend.
func (e *engine) RegisterTimer(ns string, key []byte, name string, t int64) error {
	if err := e.registerTimer(ns, key, name, t); err != nil {
		return fmt.Errorf("state: registering timer %q in %s: %w", name, ns, err)
	}
	e.checkGen()
	if f, ok := e.timerFloor[ns]; ok && t < f {
		e.timerFloor[ns] = t
	}
	return nil
}

// checkGen forgets the timer floors when the kv discarded writes: popped
// timers may have come back.
func (e *engine) checkGen() {
	if g := e.kv.generation(); g != e.gen {
		e.gen = g
		clear(e.timerFloor)
	}
}

// floor returns the timer floor of ns: no timer of ns is earlier.
func (e *engine) floor(ns string) int64 {
	e.checkGen()
	if f, ok := e.timerFloor[ns]; ok {
		return f
	}
	return math.MinInt64
}

func (e *engine) setFloor(ns string, t int64) {
	if e.timerFloor == nil {
		e.timerFloor = make(map[string]int64)
	}
	e.timerFloor[ns] = t
}

func (e *engine) registerTimer(ns string, key []byte, name string, t int64) error {
	if name == "" {
		e.k = appendTimerByTime(e.k[:0], ns, t, key, "")
		if err := e.kv.set(e.k, nil); err != nil {
			return err
		}
		e.k = appendUnnamedIndex(e.k[:0], ns, key, t)
		return e.kv.set(e.k, nil)
	}
	e.k2 = appendNamedIndex(e.k2[:0], ns, key, name)
	old, ok, err := e.namedTime(e.k2)
	if err != nil {
		return err
	}
	if ok {
		if old == t {
			return nil
		}
		e.k = appendTimerByTime(e.k[:0], ns, old, key, name)
		if err := e.kv.del(e.k); err != nil {
			return err
		}
	}
	e.k = appendTimerByTime(e.k[:0], ns, t, key, name)
	if err := e.kv.set(e.k, nil); err != nil {
		return err
	}
	e.val = store.AppendInt64(e.val[:0], t)
	return e.kv.set(e.k2, e.val)
}

// namedTime reads the time of a named timer from its by-key index entry.
func (e *engine) namedTime(indexKey []byte) (int64, bool, error) {
	var ok bool
	var err error
	e.val, ok, err = e.kv.appendGet(e.val[:0], indexKey)
	if err != nil || !ok {
		return 0, false, err
	}
	t, _, err := store.DecodeInt64(e.val)
	return t, err == nil, err
}

// DeleteTimer implements Backend.
func (e *engine) DeleteTimer(ns string, key []byte, name string) error {
	if name == "" {
		return errors.New("state: DeleteTimer needs a name; use DeleteUnnamedTimer")
	}
	e.k2 = appendNamedIndex(e.k2[:0], ns, key, name)
	t, ok, err := e.namedTime(e.k2)
	if err == nil && ok {
		e.k = appendTimerByTime(e.k[:0], ns, t, key, name)
		if err = e.kv.del(e.k); err == nil {
			err = e.kv.del(e.k2)
		}
	}
	if err != nil {
		return fmt.Errorf("state: deleting timer %q in %s: %w", name, ns, err)
	}
	return nil
}

// DeleteUnnamedTimer implements Backend.
func (e *engine) DeleteUnnamedTimer(ns string, key []byte, t int64) error {
	e.k = appendTimerByTime(e.k[:0], ns, t, key, "")
	err := e.kv.del(e.k)
	if err == nil {
		e.k = appendUnnamedIndex(e.k[:0], ns, key, t)
		err = e.kv.del(e.k)
	}
	if err != nil {
		return fmt.Errorf("state: deleting unnamed timer in %s: %w", ns, err)
	}
	return nil
}

// DeleteAllTimers implements Backend.
func (e *engine) DeleteAllTimers(ns string, key []byte) error {
	timers, err := e.Timers(ns, key)
	if err != nil {
		return err
	}
	for _, tm := range timers {
		if tm.Name == "" {
			err = e.DeleteUnnamedTimer(ns, key, tm.Time)
		} else {
			err = e.DeleteTimer(ns, key, tm.Name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Timers implements Backend.
func (e *engine) Timers(ns string, key []byte) ([]Timer, error) {
	prefix := appendTimerByKey(nil, ns, key)
	var out []Timer
	err := e.scan(prefix, store.PrefixEnd(prefix), func(k, v []byte) error {
		rest := k[len(prefix):]
		if len(rest) == 0 {
			return fmt.Errorf("%w: timer index %x", store.ErrCorruptKey, k)
		}
		tm := Timer{Key: append([]byte{}, key...)}
		var err error
		switch rest[0] {
		case timerUnnamed:
			tm.Time, _, err = store.DecodeInt64(rest[1:])
		case timerNamed:
			tm.Name = string(rest[1:])
			tm.Time, _, err = store.DecodeInt64(v)
		default:
			err = fmt.Errorf("%w: timer index %x", store.ErrCorruptKey, k)
		}
		out = append(out, tm)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("state: listing timers in %s: %w", ns, err)
	}
	slices.SortFunc(out, func(a, b Timer) int {
		return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// NextTimer implements Backend.
func (e *engine) NextTimer(ns string) (Timer, bool, error) {
	timers, err := e.dueTimers(ns, math.MaxInt64, 1)
	if err != nil {
		return Timer{}, false, err
	}
	if len(timers) == 0 {
		e.setFloor(ns, math.MaxInt64)
		return Timer{}, false, nil
	}
	e.setFloor(ns, timers[0].Time)
	return timers[0], true, nil
}

// PopDue implements Backend.
func (e *engine) PopDue(ns string, upTo int64, limit int) ([]Timer, error) {
	timers, err := e.dueTimers(ns, upTo, limit)
	if err != nil {
		return nil, err
	}
	switch {
	case limit > 0 && len(timers) == limit:
		// More timers at the last time may remain.
		e.setFloor(ns, timers[len(timers)-1].Time)
	case upTo == math.MaxInt64:
		e.setFloor(ns, math.MaxInt64)
	default:
		e.setFloor(ns, max(e.floor(ns), upTo+1))
	}
	for _, tm := range timers {
		e.k = appendTimerByTime(e.k[:0], ns, tm.Time, tm.Key, tm.Name)
		err := e.kv.del(e.k)
		if err == nil {
			if tm.Name == "" {
				e.k = appendUnnamedIndex(e.k[:0], ns, tm.Key, tm.Time)
			} else {
				e.k = appendNamedIndex(e.k[:0], ns, tm.Key, tm.Name)
			}
			err = e.kv.del(e.k)
		}
		if err != nil {
			return nil, fmt.Errorf("state: removing due timer in %s: %w", ns, err)
		}
	}
	return timers, nil
}

// dueTimers returns the first timers of ns with time <= upTo in firing
// order, at most limit (<= 0: all).
func (e *engine) dueTimers(ns string, upTo int64, limit int) ([]Timer, error) {
	floor := e.floor(ns)
	if floor > upTo {
		return nil, nil
	}
	prefix := append(appendTimerNS(nil, ns), timerByTime)
	var hi []byte
	if upTo == math.MaxInt64 {
		hi = store.PrefixEnd(prefix)
	} else {
		hi = store.AppendInt64(slices.Clip(prefix), upTo+1)
	}
	lo := store.AppendInt64(slices.Clip(prefix), floor)
	var out []Timer
	err := e.scanLimit(lo, hi, max(limit, 0), func(k, _ []byte) error {
		tm, err := decodeTimerByTime(k[len(prefix):])
		if err != nil {
			return err
		}
		out = append(out, tm)
		if limit > 0 && len(out) >= limit {
			return ErrStop
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("state: reading due timers in %s: %w", ns, err)
	}
	return out, nil
}

// decodeTimerByTime decodes time(i64) key(esc) name(raw).
func decodeTimerByTime(b []byte) (Timer, error) {
	t, rest, err := store.DecodeInt64(b)
	if err != nil {
		return Timer{}, err
	}
	key, rest, err := store.DecodeBytes([]byte{}, rest)
	if err != nil {
		return Timer{}, err
	}
	return Timer{Key: key, Name: string(rest), Time: t}, nil
}
