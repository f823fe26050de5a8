package wasm

import (
	"bytes"
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
)

// proxy is the host side of one function of a module: a ptf.Definition
// with the module's declarations whose callbacks call into an instance.
type proxy struct {
	m       *Module
	index   int
	fn      wire.Function
	def     *ptf.Definition
	entries []*rawEntry // like def.State
	tables  []string    // table arguments in declaration order
	typed   []bool      // whether each table argument is typed (its rows are cast)
	scalars []string    // scalar arguments in declaration order
}

func newProxy(m *Module, index int, fn wire.Function) *proxy {
	p := &proxy{m: m, index: index, fn: fn}
	d := &ptf.Definition{Doc: fn.Doc, Output: fn.Output}
	for _, a := range fn.Args {
		d.Args = append(d.Args, ptf.Arg{Name: a.Name, Kind: a.Kind, Traits: a.Traits, Type: a.Type, Optional: a.Optional})
		if a.Kind == ptf.TableArg {
			p.tables = append(p.tables, a.Name)
			p.typed = append(p.typed, a.Type != "")
		} else {
			p.scalars = append(p.scalars, a.Name)
		}
	}
	for i, s := range fn.State {
		e := &rawEntry{p: p, index: i, name: s.Name, kind: s.Kind, ttl: s.TTL, schema: s.Schema, init: s.Init, initEmpty: s.InitEmpty}
		p.entries = append(p.entries, e)
		d.State = append(d.State, e)
	}
	d.Eval = func(ctx *ptf.Context, in ptf.Input) error {
		inst, err := m.sharedInstance()
		if err != nil {
			return p.wrap(err)
		}
		return p.eval(inst, ctx, &in)
	}
	if fn.HasTimer {
		d.OnTimer = func(ctx *ptf.Context) error {
			inst, err := m.sharedInstance()
			if err != nil {
				return p.wrap(err)
			}
			return p.eval(inst, ctx, nil)
		}
	}
	if fn.HasChangelog {
		d.Changelog = func(cc ptf.ChangelogContext) ptf.ChangelogMode {
			mode, err := p.changelog(cc)
			if err != nil {
				// Changelog cannot return an error: the planner turns
				// this panic into the statement's error.
				panic(err)
			}
			return mode
		}
	}
	if fn.HasDerive {
		d.DeriveOutput = p.derive
	}
	p.def = d
	return p
}

// wrap names the function in an error of its module.
func (p *proxy) wrap(err error) error {
	return fmt.Errorf("WebAssembly function %s: %w", p.fn.ID, err)
}

// entryFor returns the declared entry named name, or a stand-in for an
// undeclared one (the engine then reports it as unknown, as for a
// compiled-in function).
func (p *proxy) entryFor(name string, kind ptf.StateKind) ptf.StateEntry {
	for _, e := range p.entries {
		if e.name == name {
			return e
		}
	}
	return &rawEntry{p: p, index: -1, name: name, kind: kind}
}

// rawEntry is a state entry of a module's function on the host: the
// engine stores what the guest's codec encoded, byte for byte, so state is
// the same whether the function runs compiled in or in a module.
type rawEntry struct {
	p         *proxy
	index     int
	name      string
	kind      ptf.StateKind
	ttl       time.Duration
	schema    string
	init      []byte
	initEmpty bool
}

// rawValue is a value-state value: the guest's encoding, and whether the
// guest's type counts it as empty (removed instead of written).
type rawValue struct {
	e     *rawEntry
	b     []byte
	empty bool
}

func (e *rawEntry) StateName() string        { return e.name }
func (e *rawEntry) StateKind() ptf.StateKind { return e.kind }
func (e *rawEntry) StateTTL() time.Duration  { return e.ttl }
func (e *rawEntry) StateSchema() string      { return e.schema }

func (e *rawEntry) NewState() any {
	if e.kind != ptf.ValueStateKind {
		return nil
	}
	return &rawValue{e: e, b: e.init, empty: e.initEmpty}
}

func (e *rawEntry) EncodeState(v any) ([]byte, error) {
	switch x := v.(type) {
	case *rawValue:
		return x.b, nil
	case []byte:
		return x, nil
	}
	return nil, fmt.Errorf("state '%s' of a WebAssembly function holds %T, not its encoding", e.name, v)
}

func (e *rawEntry) DecodeState(b []byte) (any, error) {
	return &rawValue{e: e, b: bytes.Clone(b)}, nil
}

func (e *rawEntry) IsEmptyState(v any) bool {
	x, ok := v.(*rawValue)
	return ok && x.empty
}

// MarshalJSON renders the value as the guest's type marshals it (the test
// harness prints state as JSON).
func (v *rawValue) MarshalJSON() ([]byte, error) {
	if v.e == nil || v.e.index < 0 {
		return nil, fmt.Errorf("state value without its entry")
	}
	return v.e.p.stateJSON(v.e.index, v.b)
}

// UnmarshalJSON sets the value from JSON, through the guest's type.
func (v *rawValue) UnmarshalJSON(js []byte) error {
	if v.e == nil || v.e.index < 0 {
		return fmt.Errorf("state value without its entry")
	}
	b, empty, err := v.e.p.stateParse(v.e.index, js)
	if err != nil {
		return err
	}
	v.b, v.empty = b, empty
	return nil
}

// engineHost is what the proxy needs of the engine's host beyond
// ptf.Host: the current value-state values without marking them read, and
// whether timers are allowed. The runtime's PTF host implements both.
type engineHost interface {
	ptf.Host
	PeekValueState(e ptf.StateEntry) any
	TimersSupported() bool
}

// guestPanic is a panic of a function in a module, raised again on the
// host so that the engine reports it as it reports a compiled-in
// function's panic: "function X panicked: <value>".
type guestPanic struct {
	msg, stack string
}

func (p *guestPanic) String() string { return p.msg + "\n[in the WebAssembly module]\n" + p.stack }

// setup encodes what the guest keeps from call to call of one Context.
func (p *proxy) setup(ctx *ptf.Context, h engineHost, e *wire.Encoder) {
	var s wire.Setup
	for _, name := range p.scalars {
		v, ok := h.Arg(name)
		s.Args = append(s.Args, wire.NamedValue{Name: name, Present: ok, Value: v})
	}
	for _, name := range p.tables {
		ts, ok := h.TableSemantics(name)
		s.Tables = append(s.Tables, wire.Table{Name: name, Present: ok, TableSemantics: ts})
	}
	s.Produced = h.ChangelogMode()
	s.TimersOK = h.TimersSupported()
	s.Encode(e)
}

// polymorphic reports whether the table argument arg is polymorphic (its
// rows reach the function as they are).
func (p *proxy) polymorphic(arg string) bool {
	i := p.tableIndex(arg)
	return i > 0 && !p.typed[i-1]
}

// tableIndex returns 1 + the position of arg among the table arguments,
// or 0.
func (p *proxy) tableIndex(arg string) int {
	for i, t := range p.tables {
		if t == arg {
			return i + 1
		}
	}
	return 0
}
