package state

import (
	"errors"

	"github.com/eddy-sql/eddy/internal/store"
)

var (
	// ErrOutOfRange is returned (wrapped) for a list index outside [0, len).
	ErrOutOfRange = errors.New("state: list index out of range")
	// ErrStop, returned by a range or scan callback, ends the iteration
	// early; the method then returns nil.
	ErrStop = store.ErrStop
)

// Backend stores the keyed state and timers of operators as raw bytes; the
// operator layer encodes values and TTL.
//
// Every call names a namespace ns, the operator's uid, so that several
// operators share one store; name is the state entry's name within the
// operator, and key the partition key (callers that need key-group ranges
// prefix it with the key group, big-endian). Value, list and map state of
// the same name are distinct entries.
//
// Returned slices are owned by the caller. Slices passed to callbacks are
// valid only during the call and must not be modified. Callbacks see the
// state as it was when the iteration started and may modify the backend.
//
// A Backend is not safe for concurrent use: each task owns one, and only
// that backend writes the timers of its namespaces.
type Backend interface {
	// Get returns the value state name of key, and whether it is set.
	Get(ns, name string, key []byte) ([]byte, bool, error)
	// Put sets the value state name of key.
	Put(ns, name string, key, value []byte) error
	// Delete clears the value state name of key.
	Delete(ns, name string, key []byte) error

	// ListLen returns the length of the list state name of key.
	ListLen(ns, name string, key []byte) (int, error)
	// ListGet returns element i of the list, or ErrOutOfRange.
	ListGet(ns, name string, key []byte, i int) ([]byte, error)
	// ListAppend appends value to the list without rewriting it.
	ListAppend(ns, name string, key, value []byte) error
	// ListSet replaces element i of the list, or returns ErrOutOfRange.
	ListSet(ns, name string, key []byte, i int, value []byte) error
	// ListRemoveFirst removes the first n elements (all of them if the list
	// is shorter).
	ListRemoveFirst(ns, name string, key []byte, n int) error
	// ListRange calls fn with each element and its index, in order.
	ListRange(ns, name string, key []byte, fn func(i int, value []byte) error) error
	// ListClear removes every element of the list.
	ListClear(ns, name string, key []byte) error

	// MapGet returns the value of mapKey in the map state name of key.
	MapGet(ns, name string, key, mapKey []byte) ([]byte, bool, error)
	// MapPut sets mapKey to value in the map.
	MapPut(ns, name string, key, mapKey, value []byte) error
	// MapDelete removes mapKey from the map.
	MapDelete(ns, name string, key, mapKey []byte) error
	// MapRange calls fn for each entry of the map in map-key byte order.
	MapRange(ns, name string, key []byte, fn func(mapKey, value []byte) error) error
	// MapClear removes every entry of the map.
	MapClear(ns, name string, key []byte) error

	// ClearKey removes every value, list and map state of key in ns (not
	// its timers: see DeleteAllTimers).
	ClearKey(ns string, key []byte) error
	// ClearNamespace removes all state and timers of ns, e.g. when the
	// operator's statement is deleted.
	ClearNamespace(ns string) error

	// RegisterTimer registers a timer of key firing at t. A named timer
	// replaces the timer of the same name of key; an unnamed timer (name "")
	// is deduplicated per (key, t).
	RegisterTimer(ns string, key []byte, name string, t int64) error
	// DeleteTimer deletes the named timer name of key, if any.
	DeleteTimer(ns string, key []byte, name string) error
	// DeleteUnnamedTimer deletes the unnamed timer of key at t, if any.
	DeleteUnnamedTimer(ns string, key []byte, t int64) error
	// DeleteAllTimers deletes every timer of key.
	DeleteAllTimers(ns string, key []byte) error
	// Timers returns the pending timers of key ordered by (time, name).
	Timers(ns string, key []byte) ([]Timer, error)
	// NextTimer returns the first pending timer of ns in firing order.
	NextTimer(ns string) (Timer, bool, error)
	// PopDue removes and returns the timers of ns with time <= upTo in
	// firing order, (time, key bytes, name) with unnamed first, at most
	// limit of them (limit <= 0: all). To fire timers registered while
	// firing in the same order, pop with limit 1 until none is due.
	PopDue(ns string, upTo int64, limit int) ([]Timer, error)

	// ScanNamespace calls fn for every state entry and timer of ns, for
	// debugging, inspection in tests and size metrics.
	ScanNamespace(ns string, fn func(Entry) error) error
}

// Timer is a pending timer of a key. Name is "" for an unnamed timer.
type Timer struct {
	Key  []byte
	Name string
	Time int64
}

// EntryKind tells what an Entry of ScanNamespace holds.
type EntryKind uint8

// The kinds of Entry.
const (
	KindValue EntryKind = iota + 1 // a value state
	KindList                       // one list element
	KindMap                        // one map entry
	KindTimer                      // one timer
)

// String returns the kind's name.
func (k EntryKind) String() string {
	switch k {
	case KindValue:
		return "value"
	case KindList:
		return "list"
	case KindMap:
		return "map"
	case KindTimer:
		return "timer"
	}
	return "unknown"
}

// Entry is one state entry or timer, as ScanNamespace reports it. Fields
// that do not apply to its Kind are zero.
type Entry struct {
	Kind   EntryKind
	Key    []byte
	Name   string
	Index  int    // KindList: the element's index in the list
	MapKey []byte // KindMap
	Value  []byte // KindValue, KindList, KindMap
	Time   int64  // KindTimer
}
