package ptf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"
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
}

// NewValue declares a value-state entry named name holding a T.
func NewValue[T any](name string, opts ...StateOption) *Value[T] {
	v := &Value[T]{name: name, codec: defaultCodec[T]()}
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
// cleared in the same call.
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
	return ok && reflect.ValueOf(p).Elem().IsZero()
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
