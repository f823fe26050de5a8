package ptf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"
	"unsafe"
)

// StateKind says how a state entry is stored.
type StateKind uint8

// The state entry kinds.
const (
	ValueStateKind StateKind = iota // one value per key, loaded whole
	ListStateKind                   // a list read and written element by element
	MapStateKind                    // a map read and written entry by entry
)

// TTL values with special meaning.
const (
	// DefaultTTL uses the session's 'table.exec.state.ttl' (infinite if 0).
	DefaultTTL time.Duration = 0
	// NoTTL disables expiry for the entry even when a default TTL is set,
	// like Flink's @StateHint(ttl = "0").
	NoTTL time.Duration = -1
)

// StateEntry describes a declared state entry to the engine. It is built by
// NewValue, NewList and NewMap; its methods are for engines and harnesses.
type StateEntry interface {
	// StateName is the entry's name, unique per function.
	StateName() string
	// StateKind is how the entry is stored.
	StateKind() StateKind
	// StateTTL is the declared time to live (DefaultTTL, NoTTL or a duration).
	StateTTL() time.Duration
	// StateSchema describes the stored Go type, for compatibility checks
	// when a statement is replaced and keeps its state.
	StateSchema() string
	// NewState returns the value of an absent entry (value state only).
	NewState() any
	// EncodeState and DecodeState convert a value-state value, a list
	// element or a map value to and from bytes.
	EncodeState(v any) ([]byte, error)
	DecodeState(b []byte) (any, error)
	// IsEmptyState reports whether a value-state value is the zero value of
	// its type; such values are removed instead of written.
	IsEmptyState(v any) bool
}

// StateOption configures a state entry.
type StateOption func(*stateConfig)

type stateConfig struct {
	ttl time.Duration
}

// WithTTL sets the entry's time to live in processing time: the entry (or,
// for list and map views, each element) expires when it was not written for
// d. Use NoTTL to disable expiry.
func WithTTL(d time.Duration) StateOption { return func(c *stateConfig) { c.ttl = d } }

// Codec converts values of T to and from bytes for storage. The default
// codec is a compact binary form for structs of strings, booleans, numbers,
// time.Time, *apd.Decimal, pointers, slices and string-keyed maps, and
// encoding/json for other types.
type Codec[T any] interface {
	Encode(v *T) ([]byte, error)
	Decode(b []byte, v *T) error
}

type jsonCodec[T any] struct{}

func (jsonCodec[T]) Encode(v *T) ([]byte, error) { return json.Marshal(v) }
func (jsonCodec[T]) Decode(b []byte, v *T) error { return json.Unmarshal(b, v) }

// Value is a typed value-state entry: one T per partition key. Absent state
// reads as the initial value (the zero T, or what the Init function sets);
// a T equal to its zero value after a call is removed (when the entry has
// no Init function), as Flink removes an all-null state entry.
type Value[T any] struct {
	name  string
	cfg   stateConfig
	init  func(*T)
	codec Codec[T]
	// zero is the compiled emptiness test of T (nil when T is not made of
	// the types of the binary codec: reflect is used then).
	zero zeroFunc
}

// NewValue declares a value-state entry named name holding a T.
func NewValue[T any](name string, opts ...StateOption) *Value[T] {
	v := &Value[T]{name: name, codec: defaultCodec[T]()}
	if c, ok := v.codec.(binaryCodec[T]); ok {
		v.zero = c.zero
	}
	for _, o := range opts {
		o(&v.cfg)
	}
	return v
}

// WithInit sets the function that initialises absent state, like the field
// initialisers of a Java state class. It returns v.
func (v *Value[T]) WithInit(f func(*T)) *Value[T] { v.init = f; return v }

// WithCodec replaces the default JSON codec. It returns v.
func (v *Value[T]) WithCodec(c Codec[T]) *Value[T] { v.codec = c; return v }

// Get returns the state of the current key. Changes made through the
// pointer are written back when the call returns, unless the entry is
// cleared in the same call. The pointer is valid during the call, like
// the Context: inside a WebAssembly module every call reuses one value
// (see StateSlot), so a function must not keep it for a later call.
func (v *Value[T]) Get(ctx *Context) *T {
	p, _ := ctx.h.ValueState(v).(*T)
	if p == nil {
		ctx.fail(fmt.Errorf("state entry '%s' has an unexpected type; was it declared in the function's State list?", v.name))
		p = new(T)
	}
	return p
}

// Clear removes the state of the current key when the call returns
// (discarding changes made in this call), like ctx.ClearState(name).
func (v *Value[T]) Clear(ctx *Context) { ctx.h.ClearState(v.name) }

// StateName implements StateEntry.
func (v *Value[T]) StateName() string { return v.name }

// StateKind implements StateEntry.
func (v *Value[T]) StateKind() StateKind { return ValueStateKind }

// StateTTL implements StateEntry.
func (v *Value[T]) StateTTL() time.Duration { return v.cfg.ttl }

// StateSchema implements StateEntry.
func (v *Value[T]) StateSchema() string { return describeType(reflect.TypeFor[T]()) }

// NewState implements StateEntry.
func (v *Value[T]) NewState() any {
	p := new(T)
	if v.init != nil {
		v.init(p)
	}
	return p
}

// EncodeState implements StateEntry.
func (v *Value[T]) EncodeState(x any) ([]byte, error) { return v.codec.Encode(x.(*T)) }

// DecodeState implements StateEntry.
func (v *Value[T]) DecodeState(b []byte) (any, error) {
	p := new(T)
	if err := v.codec.Decode(b, p); err != nil {
		return nil, fmt.Errorf("decoding state '%s': %w", v.name, err)
	}
	return p, nil
}

// IsEmptyState implements StateEntry. A value equal to the zero T is
// empty unless the entry has an Init function: then the zero value is a
// real value (like 0 in a Java primitive field) and is kept.
func (v *Value[T]) IsEmptyState(x any) bool {
	if v.init != nil {
		return false
	}
	p, ok := x.(*T)
	if !ok || p == nil {
		return false
	}
	if v.zero != nil {
		return v.zero(unsafe.Pointer(p))
	}
	return reflect.ValueOf(p).Elem().IsZero()
}

// StateSlot is a reusable value of one value-state entry, for a host that
// serves one call at a time and keeps no value past the call (the
// WebAssembly guest): it decodes each call's value into the same T and
// encodes into the same buffer, so a call allocates nothing. What Load,
// Reset and Store return is valid until the slot's next use.
type StateSlot interface {
	// Load decodes b into the slot's value and returns it (a *T, as
	// DecodeState). On an error it returns the initial value.
	Load(b []byte) (any, error)
	// Reset sets the slot's value to the initial value (as NewState) and
	// returns it.
	Reset() any
	// Store reports whether v (a *T) is empty (IsEmptyState) and, when it
	// is not, returns its encoding (as EncodeState).
	Store(v any) (b []byte, empty bool, err error)
}

// SlotEntry is implemented by value-state entries that provide a
// StateSlot (those of NewValue).
type SlotEntry interface {
	StateEntry
	NewSlot() StateSlot
}

// NewSlot implements SlotEntry.
func (v *Value[T]) NewSlot() StateSlot {
	s := &valueSlot[T]{v: v}
	if c, ok := v.codec.(binaryCodec[T]); ok {
		s.bin = &c
	}
	return s
}

// valueSlot is the StateSlot of a Value[T].
type valueSlot[T any] struct {
	v    *Value[T]
	bin  *binaryCodec[T] // nil for other codecs
	val  T
	buf  []byte
	strs interner
}

func (s *valueSlot[T]) Load(b []byte) (any, error) {
	var zero T
	s.val = zero
	var err error
	if s.bin != nil {
		err = s.bin.decode(b, &s.val, &s.strs)
	} else {
		err = s.v.codec.Decode(b, &s.val)
	}
	if err != nil {
		s.Reset()
		return &s.val, fmt.Errorf("decoding state '%s': %w", s.v.name, err)
	}
	return &s.val, nil
}

func (s *valueSlot[T]) Reset() any {
	var zero T
	s.val = zero
	if s.v.init != nil {
		s.v.init(&s.val)
	}
	return &s.val
}

func (s *valueSlot[T]) Store(x any) ([]byte, bool, error) {
	if s.v.IsEmptyState(x) {
		return nil, true, nil
	}
	p, ok := x.(*T)
	if !ok {
		return nil, false, fmt.Errorf("state '%s' holds %T, not *%s", s.v.name, x, reflect.TypeFor[T]())
	}
	if s.bin != nil {
		s.buf = s.bin.enc(s.buf[:0], unsafe.Pointer(p))
		return s.buf, false, nil
	}
	b, err := s.v.codec.Encode(p)
	return b, false, err
}

// describeType renders a Go type with its exported fields, recursively, so
// that two state types can be compared for compatibility.
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct:
		s := t.String() + "{"
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			s += f.Name + " " + describeType(f.Type) + ";"
		}
		return s + "}"
	case reflect.Pointer:
		return "*" + describeType(t.Elem())
	case reflect.Slice:
		return "[]" + describeType(t.Elem())
	case reflect.Map:
		return "map[" + describeType(t.Key()) + "]" + describeType(t.Elem())
	}
	return t.String()
}

// TTL returns the entry's effective time to live and the time left until
// the current key's value expires, as ctx.StateTTL(v.StateName()).
func (v *Value[T]) TTL(ctx *Context) (ttl, remaining time.Duration, err error) {
	return ctx.StateTTL(v.name)
}
