package wasm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
)

// ErrNotFunctionModule is wrapped by the errors of modules that are valid
// WebAssembly but not Eddy function modules (wrong exports or imports).
var ErrNotFunctionModule = errors.New("not an Eddy function module")

const buildHint = "build function modules with: eddy function build ./your/package -o f.wasm (see docs/artifacts.md)"

// The WASI functions a module may import. Nothing else is provided: WASI
// runs with no file system, no network, a fake clock and a deterministic
// random source.
const wasiModule = "wasi_snapshot_preview1"

// checkInterface refuses modules that do not export the ABI's functions or
// import anything but WASI and the host's functions.
func checkInterface(c wazero.CompiledModule) error {
	exports := c.ExportedFunctions()
	var missing []string
	for _, name := range []string{wire.ExportDescribe, wire.ExportBuffer, wire.ExportCall, "_initialize"} {
		if _, ok := exports[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: it does not export %s; %s", ErrNotFunctionModule, strings.Join(missing, ", "), buildHint)
	}
	if _, ok := c.ExportedMemories()["memory"]; !ok {
		return fmt.Errorf("%w: it does not export its memory; %s", ErrNotFunctionModule, buildHint)
	}
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	for name, sig := range map[string][2][]api.ValueType{
		wire.ExportDescribe: {nil, {i64}},
		wire.ExportBuffer:   {{i32}, {i32}},
		wire.ExportCall:     {{i32}, {i64}},
		"_initialize":       {nil, nil},
	} {
		f := exports[name]
		if !slices.Equal(f.ParamTypes(), sig[0]) || !slices.Equal(f.ResultTypes(), sig[1]) {
			return fmt.Errorf("%w: it exports %s with the wrong signature (%v) -> (%v); %s", ErrNotFunctionModule, name, f.ParamTypes(), f.ResultTypes(), buildHint)
		}
	}
	for _, f := range c.ImportedFunctions() {
		mod, name, _ := f.Import()
		switch mod {
		case wasiModule:
		case wire.ImportModule:
			if name != wire.ImportHost && name != wire.ImportResult {
				return fmt.Errorf("%w: it imports %s.%s, which this version of Eddy does not provide; rebuild it against this version", ErrNotFunctionModule, mod, name)
			}
		default:
			return fmt.Errorf("%w: it imports %s.%s; function modules may import only WASI (%s) and Eddy's host functions", ErrNotFunctionModule, mod, name, wasiModule)
		}
	}
	for _, m := range c.ImportedMemories() {
		mod, name, _ := m.Import()
		return fmt.Errorf("%w: it imports the memory %s.%s; a function module must define its own memory", ErrNotFunctionModule, mod, name)
	}
	return nil
}

// Module is a loaded function module: compiled once, with the definitions
// it exports, each a ptf.Definition that calls into an instance of the
// module. Planning callbacks and calls outside a job (tests, the harness)
// share one instance; jobs give each subtask its own (Runtime.Instance).
type Module struct {
	r        *Runtime
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	limits   Limits
	hash     string
	size     int

	desc    *wire.Module
	proxies []*proxy
	byID    map[string]*proxy

	mu     sync.Mutex
	shared *instance
}

// Hash returns the SHA-256 of the module's bytes, in hex.
func (m *Module) Hash() string { return m.hash }

// Limits returns the limits the module's instances run under.
func (m *Module) Limits() Limits { return m.limits }

// IDs returns the ids of the module's functions, sorted.
func (m *Module) IDs() []string {
	ids := make([]string, 0, len(m.proxies))
	for _, p := range m.proxies {
		ids = append(ids, p.fn.ID)
	}
	sort.Strings(ids)
	return ids
}

// Definition returns the function registered under id in the module.
func (m *Module) Definition(id string) (*ptf.Definition, bool) {
	p, ok := m.byID[id]
	if !ok {
		return nil, false
	}
	return p.def, true
}

// describe reads the module's description through the shared instance
// and builds the definitions.
func (m *Module) describe(ctx context.Context) error {
	inst, err := m.newInstance(ctx)
	if err != nil {
		return err
	}
	m.shared = inst
	b, err := inst.describe(ctx)
	if err != nil {
		return err
	}
	desc, err := wire.DecodeModule(b)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotFunctionModule, err)
	}
	if desc.Err != "" {
		return fmt.Errorf("the module refused to register its functions: %s", desc.Err)
	}
	if len(desc.Functions) == 0 {
		return fmt.Errorf("%w: it registers no functions; call wasmguest.Register in an init function (a module's main function never runs)", ErrNotFunctionModule)
	}
	m.desc = desc
	m.byID = map[string]*proxy{}
	reg := ptf.NewRegistry() // the host's validation rules, on the host's side of the boundary
	for i, f := range desc.Functions {
		p := newProxy(m, i, f)
		if err := reg.Register(f.ID, p.def); err != nil {
			return fmt.Errorf("the module's function %s is invalid: %w", f.ID, err)
		}
		m.proxies = append(m.proxies, p)
		m.byID[f.ID] = p
	}
	return nil
}

// sharedInstance returns the module's shared instance, starting a new one
// when the last failed.
func (m *Module) sharedInstance() (*instance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shared != nil && m.shared.broken() == nil {
		return m.shared, nil
	}
	if m.shared != nil {
		m.shared.close()
	}
	inst, err := m.newInstance(context.Background())
	if err != nil {
		m.shared = nil
		return nil, err
	}
	m.shared = inst
	return inst, nil
}

// close releases the shared instance and the compiled module.
func (m *Module) close() {
	m.mu.Lock()
	if m.shared != nil {
		m.shared.close()
		m.shared = nil
	}
	m.mu.Unlock()
	_ = m.compiled.Close(context.Background())
}
