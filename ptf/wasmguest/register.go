package wasmguest

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
)

// registry holds the module's definitions in registration order.
var registry struct {
	mu    sync.Mutex
	reg   *ptf.Registry // validation rules and duplicate ids, as the host's
	funcs []*function
	errs  []error
}

// Register adds a definition to the module under id (a dotted name such as
// "examples.OrderStatusTracker", the string CREATE FUNCTION ... AS names).
// Call it from an init function or a package-level variable initializer:
// a module's main function never runs. An invalid definition does not
// panic; the module then reports the error when Eddy loads it.
func Register(id string, def *ptf.Definition) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.reg == nil {
		registry.reg = ptf.NewRegistry()
	}
	if err := registry.reg.Register(id, def); err != nil {
		registry.errs = append(registry.errs, err)
		return
	}
	registry.funcs = append(registry.funcs, newFunction(id, def))
}

// RegisterAll adds every definition of defs under prefix+name, in name
// order (as examples.Register does: RegisterAll("examples.", examples.All())).
func RegisterAll(prefix string, defs map[string]*ptf.Definition) {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		Register(prefix+n, defs[n])
	}
}

// describe encodes the module's description.
func describe() []byte {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	m := wire.Module{Version: wire.Version}
	if err := errors.Join(registry.errs...); err != nil {
		m.Err = err.Error()
	}
	for _, f := range registry.funcs {
		m.Functions = append(m.Functions, f.describe())
	}
	var e wire.Encoder
	m.Encode(&e)
	return e.B
}

// function is a registered definition with what the guest needs to run it.
type function struct {
	id     string
	def    *ptf.Definition
	tables []string // the table arguments' names in declaration order
	host   *guestHost
	ctx    *ptf.Context
}

func newFunction(id string, def *ptf.Definition) *function {
	f := &function{id: id, def: def}
	for _, a := range def.TableArgs() {
		f.tables = append(f.tables, a.Name)
	}
	f.host = newGuestHost(f)
	f.ctx = ptf.NewContext(f.host)
	return f
}

func (f *function) describe() wire.Function {
	d := f.def
	w := wire.Function{
		ID: f.id, Doc: d.Doc, Output: d.Output,
		HasDerive: d.DeriveOutput != nil, HasChangelog: d.Changelog != nil, HasTimer: d.OnTimer != nil,
	}
	for _, a := range d.Args {
		w.Args = append(w.Args, wire.Arg{Name: a.Name, Kind: a.Kind, Traits: a.Traits, Type: a.Type, Optional: a.Optional})
	}
	for _, s := range d.State {
		ws := wire.State{Name: s.StateName(), Kind: s.StateKind(), TTL: s.StateTTL(), Schema: s.StateSchema()}
		if s.StateKind() == ptf.ValueStateKind {
			v := s.NewState()
			ws.InitEmpty = s.IsEmptyState(v)
			if !ws.InitEmpty {
				b, err := s.EncodeState(v)
				if err != nil {
					registry.errs = append(registry.errs, fmt.Errorf("function %q: encoding the initial value of state '%s': %w", f.id, s.StateName(), err))
				}
				ws.Init = b
			}
		}
		w.State = append(w.State, ws)
	}
	return w
}

// lookup returns the function at index i of the description. Functions
// are registered while the module initializes, before any call.
func lookup(i int) (*function, error) {
	if i < 0 || i >= len(registry.funcs) {
		return nil, fmt.Errorf("no function %d in the module (it has %d)", i, len(registry.funcs))
	}
	return registry.funcs[i], nil
}
