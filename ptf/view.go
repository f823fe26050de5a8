package ptf

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// ListHost is the engine side of a list view for the current key. Elements
// are encoded by the view's codec.
type ListHost interface {
	Len() (int, error)
	Get(i int) ([]byte, error)
	Append(b []byte) error
	Set(i int, b []byte) error
	// RemoveFirst removes the first n elements.
	RemoveFirst(n int) error
	Clear() error
}

// MapHost is the engine side of a map view for the current key.
type MapHost interface {
	Get(key []byte) ([]byte, bool, error)
	Put(key, val []byte) error
	Delete(key []byte) error
	// Range calls f for each entry in key-byte order until f returns false.
	Range(f func(key, val []byte) bool) error
	Clear() error
}

// ErrNullListElement is returned when a NULL element is added to a list view.
var ErrNullListElement = errors.New("ptf: list views don't support null values")

// ErrNullMapKey is returned when a NULL key is used with a map view.
var ErrNullMapKey = errors.New("ptf: map views don't support null keys")

// List is a list-view state entry: a list per key whose elements are read
// and written one at a time, without loading the whole list.
type List[T any] struct {
	name string
	cfg  stateConfig
}

// NewList declares a list-view state entry.
func NewList[T any](name string, opts ...StateOption) *List[T] {
	l := &List[T]{name: name}
	for _, o := range opts {
		o(&l.cfg)
	}
	return l
}

// ListView is the list of the current key.
type ListView[T any] struct {
	h   ListHost
	ctx *Context
}

// Get returns the view for the current key.
func (l *List[T]) Get(ctx *Context) ListView[T] {
	h, _ := ctx.h.ViewState(l).(ListHost)
	return ListView[T]{h: h, ctx: ctx}
}

// Len returns the number of elements.
func (v ListView[T]) Len() int {
	n, err := v.h.Len()
	v.ctx.fail(err)
	return n
}

// At returns element i.
func (v ListView[T]) At(i int) T {
	var x T
	b, err := v.h.Get(i)
	if err == nil {
		err = json.Unmarshal(b, &x)
	}
	v.ctx.fail(err)
	return x
}

// Add appends an element. A nil pointer, map or slice element is refused
// (List views don't support null values).
func (v ListView[T]) Add(x T) {
	if isNil(x) {
		v.ctx.fail(ErrNullListElement)
		return
	}
	b, err := json.Marshal(x)
	if err == nil {
		err = v.h.Append(b)
	}
	v.ctx.fail(err)
}

// Set replaces element i.
func (v ListView[T]) Set(i int, x T) {
	b, err := json.Marshal(x)
	if err == nil {
		err = v.h.Set(i, b)
	}
	v.ctx.fail(err)
}

// RemoveFirst removes the first n elements.
func (v ListView[T]) RemoveFirst(n int) { v.ctx.fail(v.h.RemoveFirst(n)) }

// All returns every element (it loads the whole list).
func (v ListView[T]) All() []T {
	n := v.Len()
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, v.At(i))
	}
	return out
}

// Clear removes all elements now.
func (v ListView[T]) Clear() { v.ctx.fail(v.h.Clear()) }

// StateName implements StateEntry.
func (l *List[T]) StateName() string { return l.name }

// StateKind implements StateEntry.
func (l *List[T]) StateKind() StateKind { return ListStateKind }

// StateTTL implements StateEntry.
func (l *List[T]) StateTTL() time.Duration { return l.cfg.ttl }

// StateSchema implements StateEntry.
func (l *List[T]) StateSchema() string { return "list " + describeType(reflect.TypeFor[T]()) }

// NewState implements StateEntry; list views have no whole value.
func (l *List[T]) NewState() any { return nil }

// EncodeState implements StateEntry.
func (l *List[T]) EncodeState(x any) ([]byte, error) { return json.Marshal(x) }

// DecodeState implements StateEntry.
func (l *List[T]) DecodeState(b []byte) (any, error) {
	var x T
	err := json.Unmarshal(b, &x)
	return x, err
}

// IsEmptyState implements StateEntry.
func (l *List[T]) IsEmptyState(any) bool { return false }

// Map is a map-view state entry: a map per key whose entries are read and
// written one at a time.
type Map[K comparable, V any] struct {
	name string
	cfg  stateConfig
}

// NewMap declares a map-view state entry.
func NewMap[K comparable, V any](name string, opts ...StateOption) *Map[K, V] {
	m := &Map[K, V]{name: name}
	for _, o := range opts {
		o(&m.cfg)
	}
	return m
}

// MapView is the map of the current key.
type MapView[K comparable, V any] struct {
	h   MapHost
	ctx *Context
}

// Get returns the view for the current key.
func (m *Map[K, V]) Get(ctx *Context) MapView[K, V] {
	h, _ := ctx.h.ViewState(m).(MapHost)
	return MapView[K, V]{h: h, ctx: ctx}
}

func (v MapView[K, V]) key(k K) ([]byte, bool) {
	if isNil(k) {
		v.ctx.fail(ErrNullMapKey)
		return nil, false
	}
	b, err := json.Marshal(k)
	v.ctx.fail(err)
	return b, err == nil
}

// Get returns the value for k and whether it is present.
func (v MapView[K, V]) Get(k K) (V, bool) {
	var x V
	kb, ok := v.key(k)
	if !ok {
		return x, false
	}
	b, found, err := v.h.Get(kb)
	if err == nil && found {
		err = json.Unmarshal(b, &x)
	}
	v.ctx.fail(err)
	return x, found
}

// Put sets the value for k.
func (v MapView[K, V]) Put(k K, x V) {
	kb, ok := v.key(k)
	if !ok {
		return
	}
	b, err := json.Marshal(x)
	if err == nil {
		err = v.h.Put(kb, b)
	}
	v.ctx.fail(err)
}

// Delete removes k.
func (v MapView[K, V]) Delete(k K) {
	if kb, ok := v.key(k); ok {
		v.ctx.fail(v.h.Delete(kb))
	}
}

// Range calls f for each entry in key-encoding order until f returns false.
func (v MapView[K, V]) Range(f func(K, V) bool) {
	var inner error
	err := v.h.Range(func(kb, vb []byte) bool {
		var k K
		var x V
		if inner = json.Unmarshal(kb, &k); inner != nil {
			return false
		}
		if inner = json.Unmarshal(vb, &x); inner != nil {
			return false
		}
		return f(k, x)
	})
	v.ctx.fail(errors.Join(err, inner))
}

// Clear removes all entries now.
func (v MapView[K, V]) Clear() { v.ctx.fail(v.h.Clear()) }

// StateName implements StateEntry.
func (m *Map[K, V]) StateName() string { return m.name }

// StateKind implements StateEntry.
func (m *Map[K, V]) StateKind() StateKind { return MapStateKind }

// StateTTL implements StateEntry.
func (m *Map[K, V]) StateTTL() time.Duration { return m.cfg.ttl }

// StateSchema implements StateEntry.
func (m *Map[K, V]) StateSchema() string {
	return fmt.Sprintf("map %s -> %s", describeType(reflect.TypeFor[K]()), describeType(reflect.TypeFor[V]()))
}

// NewState implements StateEntry; map views have no whole value.
func (m *Map[K, V]) NewState() any { return nil }

// EncodeState implements StateEntry.
func (m *Map[K, V]) EncodeState(x any) ([]byte, error) { return json.Marshal(x) }

// DecodeState implements StateEntry.
func (m *Map[K, V]) DecodeState(b []byte) (any, error) {
	var x V
	err := json.Unmarshal(b, &x)
	return x, err
}

// IsEmptyState implements StateEntry.
func (m *Map[K, V]) IsEmptyState(any) bool { return false }

func isNil(x any) bool {
	if x == nil {
		return true
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
