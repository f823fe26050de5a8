package wire

import (
	"errors"
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Version is the ABI version of this package. A module reports the version
// it was built with first in its description; the host accepts modules
// from MinVersion to Version and refuses others.
//
// Version 2 added processing-time timers (CallProcTimer, OpRegisterProcTimer,
// OpClearProcTimer, OpClearProcUnnamed, HostProcessingTime). A version 1
// module never registers one, so it never sees them: a host speaks to it
// as before. A version 2 module is refused by a version 1 host instead of
// failing on the first unknown op.
const Version = 2

// MinVersion is the oldest module ABI version the host accepts.
const MinVersion = 1

// The names of the module's exports and of the host's imports.
const (
	// ExportDescribe returns (ptr<<32 | len) of the module's encoded
	// Module description.
	ExportDescribe = "eddy_describe"
	// ExportBuffer takes a size and returns the address of a request
	// buffer of at least that many bytes (valid until the next call).
	ExportBuffer = "eddy_buffer"
	// ExportCall takes the length of the request written into the buffer
	// and returns (ptr<<32 | len) of the response.
	ExportCall = "eddy_call"
	// ImportModule is the module name of the host's functions.
	ImportModule = "eddy"
	// ImportHost is the host's callback: host(opsPtr, opsLen, reqPtr,
	// reqLen, outPtr, outCap) returns (status<<32 | len). It replays the
	// ops the guest collected so far, then answers the request; an answer
	// longer than outCap is kept for ImportResult.
	ImportHost = "host"
	// ImportResult copies the answer kept by the last host call into
	// (ptr, cap) and returns its length.
	ImportResult = "result"
)

// Call kinds: the first byte of a request to ExportCall.
const (
	CallEval       byte = 1 // Eval for one row (or once, without table arguments)
	CallTimer      byte = 2 // OnTimer
	CallChangelog  byte = 3 // the Changelog callback (planning)
	CallDerive     byte = 4 // the DeriveOutput callback (planning)
	CallStateJSON  byte = 5 // a value-state encoding as JSON (test harness)
	CallStateParse byte = 6 // JSON into a value-state encoding (test harness)
	CallProcTimer  byte = 7 // OnTimer for a processing-time timer (as CallTimer; version 2)
)

// Ops: what a function did during a call, in order, in the response (and
// in the ops a host callback replays first).
const (
	OpEnd           byte = 0 // end of the ops; the Result follows
	OpEmit          byte = 1 // kind, values
	OpFail          byte = 2 // Error
	OpRegisterTimer byte = 3 // name, time
	OpClearTimer    byte = 4 // name
	OpClearUnnamed  byte = 5 // time
	OpClearAllTimer byte = 6
	OpClearState    byte = 7 // name
	OpClearAllState byte = 8
	// Processing-time timers (version 2).
	OpRegisterProcTimer byte = 9  // name, time
	OpClearProcTimer    byte = 10 // name
	OpClearProcUnnamed  byte = 11 // time
)

// Host callback requests (the request of ImportHost).
const (
	HostViewOpen         byte = 1 // name, kind -> handle
	HostStateTTL         byte = 2 // name -> ttl, remaining, Error
	HostListLen          byte = 3 // handle -> n, Error
	HostListGet          byte = 4 // handle, i -> bytes, Error
	HostListAppend       byte = 5 // handle, bytes -> Error
	HostListSet          byte = 6 // handle, i, bytes -> Error
	HostListRemove       byte = 7 // handle, n -> Error
	HostListClear        byte = 8 // handle -> Error
	HostMapGet           byte = 9 // handle, key -> found, bytes, Error
	HostMapPut           byte = 10
	HostMapDelete        byte = 11
	HostMapRange         byte = 12 // handle -> n, (key, value)*, Error
	HostMapClear         byte = 13
	HostProcessingTime   byte = 14 // -> time (version 2)
	HostStatusOK              = 0  // the answer is in out
	HostStatusTooLarge        = 1  // the answer did not fit: fetch it with ImportResult
	HostStatusBadRequest      = 2  // the request was malformed (a bug)
)

// Result statuses of a call.
const (
	ResultOK    byte = 0
	ResultError byte = 1 // the callback returned an error
	ResultPanic byte = 2 // the callback panicked: message and stack
)

// Module describes what a module exports.
type Module struct {
	Version int
	// Err reports registrations the guest refused (an invalid definition,
	// an id registered twice); the host refuses such a module.
	Err       string
	Functions []Function
}

// Function describes one definition of a module.
type Function struct {
	ID, Doc, Output                   string
	Args                              []Arg
	State                             []State
	HasDerive, HasChangelog, HasTimer bool
}

// Arg is a declared argument.
type Arg struct {
	Name     string
	Kind     ptf.ArgKind
	Traits   ptf.Trait
	Type     string
	Optional bool
}

// State is a declared state entry.
type State struct {
	Name   string
	Kind   ptf.StateKind
	TTL    time.Duration
	Schema string
	// Init is the encoding of the initial value of a value-state entry and
	// InitEmpty whether that value counts as empty (then it is removed
	// instead of written).
	Init      []byte
	InitEmpty bool
}

// Encode appends m to e.
func (m *Module) Encode(e *Encoder) {
	e.Uvarint(uint64(m.Version))
	e.String(m.Err)
	e.Uvarint(uint64(len(m.Functions)))
	for i := range m.Functions {
		f := &m.Functions[i]
		e.String(f.ID)
		e.String(f.Doc)
		e.String(f.Output)
		e.Bool(f.HasDerive)
		e.Bool(f.HasChangelog)
		e.Bool(f.HasTimer)
		e.Uvarint(uint64(len(f.Args)))
		for _, a := range f.Args {
			e.String(a.Name)
			e.Byte(byte(a.Kind))
			e.Uvarint(uint64(a.Traits))
			e.String(a.Type)
			e.Bool(a.Optional)
		}
		e.Uvarint(uint64(len(f.State)))
		for _, s := range f.State {
			e.String(s.Name)
			e.Byte(byte(s.Kind))
			e.Varint(int64(s.TTL))
			e.String(s.Schema)
			e.Bytes(s.Init)
			e.Bool(s.InitEmpty)
		}
	}
}

// DecodeModule reads a Module.
func DecodeModule(b []byte) (*Module, error) {
	d := &Decoder{B: b}
	m := &Module{Version: d.Int()}
	if d.Err() == nil && (m.Version < MinVersion || m.Version > Version) {
		return m, fmt.Errorf("the module was built for Eddy function ABI version %d, this server speaks versions %d to %d: rebuild it against this version of github.com/eddy-sql/eddy", m.Version, MinVersion, Version)
	}
	m.Err = d.String()
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		f := Function{ID: d.String(), Doc: d.String(), Output: d.String(), HasDerive: d.Bool(), HasChangelog: d.Bool(), HasTimer: d.Bool()}
		na := d.Count()
		for j := 0; j < na && d.Err() == nil; j++ {
			f.Args = append(f.Args, Arg{Name: d.String(), Kind: ptf.ArgKind(d.Byte()), Traits: ptf.Trait(d.Uvarint()), Type: d.String(), Optional: d.Bool()})
		}
		ns := d.Count()
		for j := 0; j < ns && d.Err() == nil; j++ {
			f.State = append(f.State, State{Name: d.String(), Kind: ptf.StateKind(d.Byte()), TTL: time.Duration(d.Varint()), Schema: d.String(), Init: d.Bytes(), InitEmpty: d.Bool()})
		}
		m.Functions = append(m.Functions, f)
	}
	if d.Err() == nil && len(d.B) != 0 {
		d.Fail("%d bytes after the module description", len(d.B))
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("reading the module's description: %w", err)
	}
	return m, nil
}

// Sentinel errors of package ptf keep their identity across the boundary:
// an error the guest reports that wraps one of them wraps it on the host
// too (errors.Is still works).
var sentinels = []error{
	ptf.ErrTimersNotSupported, ptf.ErrEmptyTimerName, ptf.ErrTimerOutOfRange, ptf.ErrUnknownState,
	ptf.ErrNullListElement, ptf.ErrNullMapKey,
}

// EncodeError appends an error: present flag, message and the index (+1)
// of the ptf sentinel it wraps, if any.
func (e *Encoder) Error(err error) {
	if err == nil {
		e.Bool(false)
		return
	}
	e.Bool(true)
	e.String(err.Error())
	code := 0
	for i, s := range sentinels {
		if errors.Is(err, s) {
			code = i + 1
			break
		}
	}
	e.Uvarint(uint64(code))
}

// Error reads an error written by Encoder.Error.
func (d *Decoder) Error() error {
	if !d.Bool() {
		return nil
	}
	msg := d.String()
	code := d.Int()
	if code > 0 && code <= len(sentinels) {
		return &guestError{msg: msg, sentinel: sentinels[code-1]}
	}
	return &guestError{msg: msg}
}

// guestError is an error reported by a function in a module: its message
// as the guest formatted it, wrapping a sentinel of package ptf when the
// guest's error did.
type guestError struct {
	msg      string
	sentinel error
}

func (e *guestError) Error() string { return e.msg }
func (e *guestError) Unwrap() error { return e.sentinel }

// Setup is what a call sees that does not change from call to call of an
// operator instance: the scalar arguments, the table semantics, the
// produced changelog mode and whether timers are allowed. A request
// carries it when its generation differs from the last one the guest saw.
type Setup struct {
	Args     []NamedValue
	Tables   []Table
	Produced ptf.ChangelogMode
	TimersOK bool
}

// NamedValue is a scalar argument.
type NamedValue struct {
	Name    string
	Present bool
	Value   types.Value
}

// Table is a table argument's semantics (ptf.TableSemantics).
type Table struct {
	Name    string
	Present bool
	ptf.TableSemantics
}

// Encode appends s.
func (s *Setup) Encode(e *Encoder) {
	e.Uvarint(uint64(len(s.Args)))
	for _, a := range s.Args {
		e.String(a.Name)
		e.Bool(a.Present)
		e.Value(a.Value)
	}
	e.Uvarint(uint64(len(s.Tables)))
	for _, t := range s.Tables {
		e.String(t.Name)
		e.Bool(t.Present)
		EncodeTableSemantics(e, t.TableSemantics)
	}
	e.Mode(s.Produced)
	e.Bool(s.TimersOK)
}

// DecodeSetup reads a Setup.
func DecodeSetup(d *Decoder) Setup {
	var s Setup
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		s.Args = append(s.Args, NamedValue{Name: d.String(), Present: d.Bool(), Value: d.Value()})
	}
	n = d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		t := Table{Name: d.String(), Present: d.Bool()}
		t.TableSemantics = DecodeTableSemantics(d)
		s.Tables = append(s.Tables, t)
	}
	s.Produced = d.Mode()
	s.TimersOK = d.Bool()
	return s
}

// EncodeTableSemantics appends a table argument's semantics.
func EncodeTableSemantics(e *Encoder, t ptf.TableSemantics) {
	e.Schema(t.Schema)
	e.Ints(t.PartitionBy)
	e.Varint(int64(t.TimeColumn))
	e.Mode(t.Changelog)
	e.Ints(t.OrderBy)
	e.Bools(t.OrderByDesc)
	e.Bools(t.OrderByNullsFirst)
}

// DecodeTableSemantics reads a table argument's semantics.
func DecodeTableSemantics(d *Decoder) ptf.TableSemantics {
	return ptf.TableSemantics{
		Schema: d.Schema(), PartitionBy: d.Ints(), TimeColumn: int(d.Varint()), Changelog: d.Mode(),
		OrderBy: d.Ints(), OrderByDesc: d.Bools(), OrderByNullsFirst: d.Bools(),
	}
}

// Flags of the times of a call request.
const (
	FlagTime           byte = 1 << 0
	FlagWatermark      byte = 1 << 1
	FlagTableWatermark byte = 1 << 2
	// FlagKeyFromRow: the request carries no key; the key is the row's
	// PARTITION BY columns (an Eval of a polymorphic table argument, whose
	// row the engine passes as it is).
	FlagKeyFromRow byte = 1 << 3
)
