package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
)

// Default limits of a function instance.
const (
	DefaultMemoryLimit = 256 << 20
	DefaultCallTimeout = 10 * time.Second
	// minMemoryLimit is the smallest limit accepted: a Go module's runtime
	// needs a few MiB before any function runs.
	minMemoryLimit = 4 << 20
	pageSize       = 64 << 10
)

// Limits bound what one instance of a module may use.
type Limits struct {
	// Memory is the most linear memory an instance may grow to, in bytes
	// (rounded down to 64 KiB pages). Default: DefaultMemoryLimit.
	Memory int64
	// CallTimeout is the longest one call (an Eval, an OnTimer) may run
	// before the instance is stopped and its statement fails. Default:
	// DefaultCallTimeout.
	CallTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.Memory <= 0 {
		l.Memory = DefaultMemoryLimit
	}
	if l.CallTimeout <= 0 {
		l.CallTimeout = DefaultCallTimeout
	}
	return l
}

func (l Limits) pages() uint32 { return uint32(min(l.Memory, 4<<30) / pageSize) }

// Options configure a Runtime.
type Options struct {
	// CacheDir holds the compiled modules (wazero's compilation cache), so
	// that a module is compiled once per machine, not once per start. ""
	// keeps them in memory.
	CacheDir string
	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
	// Tick is how often the watchdog checks running calls against their
	// time limit (the precision of CallTimeout). Default: 50 ms.
	Tick time.Duration
}

// Runtime loads function modules and runs their instances. It is safe for
// concurrent use; Close releases everything it made.
type Runtime struct {
	opts  Options
	log   *slog.Logger
	cache wazero.CompilationCache

	mu      sync.Mutex
	closed  bool
	rts     map[uint32]wazero.Runtime // by memory limit (pages): the limit is per runtime in wazero
	modules map[moduleKey]*Module
	proxies map[*ptf.Definition]*proxy
	live    map[*instance]struct{} // instances the watchdog checks

	// tick counts watchdog ticks; a call records the tick it started at.
	tick     atomic.Int64
	stop     chan struct{}
	stopped  chan struct{}
	closeCtx context.Context
}

type moduleKey struct {
	hash   [32]byte
	limits Limits
}

// New starts a runtime.
func New(opts Options) (*Runtime, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Tick <= 0 {
		opts.Tick = 50 * time.Millisecond
	}
	r := &Runtime{
		opts: opts, log: opts.Logger.With("component", "wasm"),
		rts: map[uint32]wazero.Runtime{}, modules: map[moduleKey]*Module{},
		proxies: map[*ptf.Definition]*proxy{}, live: map[*instance]struct{}{},
		stop: make(chan struct{}), stopped: make(chan struct{}), closeCtx: context.Background(),
	}
	if opts.CacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(opts.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("opening the compiled-module cache %s: %w", opts.CacheDir, err)
		}
		r.cache = c
	} else {
		r.cache = wazero.NewCompilationCache()
	}
	go r.watchdog()
	return r, nil
}

// Close stops the watchdog and closes every module and instance.
func (r *Runtime) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	rts := r.rts
	r.rts = nil
	r.mu.Unlock()
	close(r.stop)
	<-r.stopped
	var errs []error
	for _, rt := range rts {
		errs = append(errs, rt.Close(r.closeCtx))
	}
	errs = append(errs, r.cache.Close(r.closeCtx))
	return errors.Join(errs...)
}

// watchdog stops instances whose current call ran past its time limit.
func (r *Runtime) watchdog() {
	defer close(r.stopped)
	t := time.NewTicker(r.opts.Tick)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		now := r.tick.Add(1)
		r.mu.Lock()
		for inst := range r.live {
			if start := inst.started.Load(); start != 0 && now-start > inst.timeoutTicks {
				inst.kill()
			}
		}
		r.mu.Unlock()
	}
}

// runtimeFor returns the wazero runtime of a memory limit, making it with
// the host functions and WASI on first use.
func (r *Runtime) runtimeFor(ctx context.Context, pages uint32) (wazero.Runtime, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("the WebAssembly runtime is closed")
	}
	if rt, ok := r.rts[pages]; ok {
		return rt, nil
	}
	// No WithCloseOnContextDone: instrument's interrupt checks stop calls
	// at a fraction of its cost.
	cfg := wazero.NewRuntimeConfig().
		WithCompilationCache(r.cache).
		WithMemoryLimitPages(pages)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("instantiating WASI: %w", err)
	}
	_, err := rt.NewHostModuleBuilder(wire.ImportModule).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostCallback),
		[]api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32},
		[]api.ValueType{api.ValueTypeI64}).Export(wire.ImportHost).
		NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostResult),
		[]api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).Export(wire.ImportResult).
		Instantiate(ctx)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("instantiating the host functions: %w", err)
	}
	r.rts[pages] = rt
	return rt, nil
}

// Hash returns the content hash of a module, as artifacts record it.
func Hash(code []byte) string {
	h := sha256.Sum256(code)
	return hex.EncodeToString(h[:])
}

// Load compiles a module (or finds it compiled), checks that it is an
// Eddy function module, and returns it with its definitions. Loading the
// same bytes with the same limits again returns the same Module.
func (r *Runtime) Load(ctx context.Context, code []byte, lim Limits) (*Module, error) {
	lim = lim.withDefaults()
	if lim.Memory < minMemoryLimit {
		return nil, fmt.Errorf("memory limit %d bytes is below the minimum of %d MiB a function module needs", lim.Memory, minMemoryLimit>>20)
	}
	key := moduleKey{hash: sha256.Sum256(code), limits: lim}
	r.mu.Lock()
	if m, ok := r.modules[key]; ok {
		r.mu.Unlock()
		return m, nil
	}
	r.mu.Unlock()
	m, err := r.load(ctx, code, key)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if have, ok := r.modules[key]; ok { // loaded concurrently
		m.close()
		return have, nil
	}
	r.modules[key] = m
	for _, p := range m.proxies {
		r.proxies[p.def] = p
	}
	return m, nil
}

func (r *Runtime) load(ctx context.Context, code []byte, key moduleKey) (*Module, error) {
	rt, err := r.runtimeFor(ctx, key.limits.pages())
	if err != nil {
		return nil, err
	}
	instrumented, err := instrument(code)
	if errors.Is(err, errNoHostImport) {
		// Say what is wrong with the module itself (its exports, its
		// imports) when its bytes tell.
		c, cerr := rt.CompileModule(ctx, code)
		if cerr != nil {
			return nil, fmt.Errorf("not a valid WebAssembly module: %w", cerr)
		}
		defer c.Close(ctx)
		if ierr := checkInterface(c); ierr != nil {
			return nil, ierr
		}
		return nil, fmt.Errorf("%w: %w; %s", ErrNotFunctionModule, err, buildHint)
	}
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	compiled, err := rt.CompileModule(ctx, instrumented)
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	if err := checkInterface(compiled); err != nil {
		_ = compiled.Close(ctx)
		return nil, err
	}
	m := &Module{r: r, rt: rt, compiled: compiled, limits: key.limits, hash: hex.EncodeToString(key.hash[:]), size: len(code)}
	if err := m.describe(ctx); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// Instance implements the runtime's FunctionInstances: a function of a
// loaded module gets an instance of its own per subtask.
func (r *Runtime) Instance(def *ptf.Definition) (*ptf.Definition, func(), bool, error) {
	r.mu.Lock()
	p, ok := r.proxies[def]
	r.mu.Unlock()
	if !ok {
		return nil, nil, false, nil
	}
	inst, err := p.m.newInstance(context.Background())
	if err != nil {
		return nil, nil, false, fmt.Errorf("starting an instance of %s: %w", p.fn.ID, err)
	}
	task := *def
	task.Eval = func(ctx *ptf.Context, in ptf.Input) error { return p.eval(inst, ctx, &in) }
	if def.OnTimer != nil {
		task.OnTimer = func(ctx *ptf.Context) error { return p.eval(inst, ctx, nil) }
	}
	return &task, inst.close, true, nil
}

// register makes the watchdog check inst.
func (r *Runtime) register(inst *instance) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.live[inst] = struct{}{}
	return true
}

func (r *Runtime) unregister(inst *instance) {
	r.mu.Lock()
	delete(r.live, inst)
	r.mu.Unlock()
}
