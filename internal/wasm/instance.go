package wasm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// instKey finds the instance of a host callback in its context.
type instKey struct{}

// instance is one instance of a module: its own linear memory and Go
// runtime. It serves one call at a time (mu).
type instance struct {
	m            *Module
	mod          api.Module
	ctx          context.Context
	callFn       api.Function
	bufferFn     api.Function
	describeFn   api.Function
	stack        [1]uint64
	bufPtr       uint32
	bufCap       uint32
	timeoutTicks int64
	started      atomic.Int64 // watchdog tick at which the running call started; 0 when idle
	stdout       *tail
	stderr       *tail
	// interrupted is set by the watchdog; the module's next yield (see
	// instrument) then stops the call.
	interrupted atomic.Bool

	mu      sync.Mutex
	failMu  sync.Mutex
	failed  error
	closed  bool
	cur     *callState // the call in progress, for host callbacks
	call    callState
	pending []byte // an answer that did not fit the guest's buffer
	req     wire.Encoder
	ans     wire.Encoder
	scratch []types.Value
	strs    wire.Interner // the strings of emitted rows
	// gens remembers, per function of the module, the Context whose setup
	// the guest holds and its generation.
	gens []setupGen
}

type setupGen struct {
	ctx *ptf.Context
	gen uint64
}

// callState is what host callbacks need of the call in progress.
type callState struct {
	p     *proxy
	ctx   *ptf.Context
	h     ptf.Host
	views []any
}

func (m *Module) newInstance(ctx context.Context) (*instance, error) {
	inst := &instance{
		m: m, stdout: newTail(4 << 10), stderr: newTail(32 << 10),
	}
	tick := m.r.opts.Tick
	inst.timeoutTicks = int64((m.limits.CallTimeout + tick - 1) / tick)
	inst.ctx = context.WithValue(context.Background(), instKey{}, inst)
	// No file system, no arguments, no environment, no sockets; a wall
	// clock stopped at the epoch (functions get time from ctx.Time()), the
	// fake monotonic clock and the deterministic random source of wazero.
	// The start function runs below, under the watchdog.
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions().
		WithStdout(inst.stdout).WithStderr(inst.stderr).
		WithWalltime(func() (int64, int32) { return 0, 0 }, sys.ClockResolution(1))
	mod, err := m.rt.InstantiateModule(inst.ctx, m.compiled, cfg)
	if err != nil {
		return nil, inst.explain(fmt.Errorf("instantiating the module: %w", err), err)
	}
	inst.mod = mod
	inst.callFn = mod.ExportedFunction(wire.ExportCall)
	inst.bufferFn = mod.ExportedFunction(wire.ExportBuffer)
	inst.describeFn = mod.ExportedFunction(wire.ExportDescribe)
	if !m.r.register(inst) {
		_ = mod.Close(ctx)
		return nil, errors.New("the WebAssembly runtime is closed")
	}
	// The module's initialization (its Go runtime and package init
	// functions) runs under the call time limit too.
	if _, err := inst.invoke(mod.ExportedFunction("_initialize"), 0); err != nil {
		return nil, fmt.Errorf("initializing the module: %w", err)
	}
	if err := inst.grow(64 << 10); err != nil {
		inst.close()
		return nil, err
	}
	return inst, nil
}

// invoke calls fn under the watchdog.
func (inst *instance) invoke(fn api.Function, arg uint64) (uint64, error) {
	inst.stack[0] = arg
	inst.started.Store(inst.m.r.tick.Load())
	err := fn.CallWithStack(inst.ctx, inst.stack[:])
	inst.started.Store(0)
	if err != nil {
		return 0, inst.fail(err)
	}
	return inst.stack[0], nil
}

// grow makes the guest's request buffer hold at least n bytes.
func (inst *instance) grow(n int) error {
	if n > 1<<30 {
		return fmt.Errorf("a request of %d bytes is too large", n)
	}
	ptr, err := inst.invoke(inst.bufferFn, uint64(n))
	if err != nil {
		return err
	}
	inst.bufPtr, inst.bufCap = uint32(ptr), uint32(n)
	return nil
}

// roundTrip sends a request and returns the response, a view of the
// guest's memory valid until the next call.
func (inst *instance) roundTrip(req []byte) ([]byte, error) {
	if err := inst.broken(); err != nil {
		return nil, err
	}
	if len(req) > int(inst.bufCap) {
		if err := inst.grow(max(len(req), 2*int(inst.bufCap))); err != nil {
			return nil, err
		}
	}
	mem := inst.mod.Memory()
	if !mem.Write(inst.bufPtr, req) {
		return nil, inst.poison(fmt.Errorf("%w: its request buffer is outside its memory", ErrNotFunctionModule))
	}
	packed, err := inst.invoke(inst.callFn, uint64(len(req)))
	if err != nil {
		return nil, err
	}
	return inst.read(packed)
}

// read returns the guest memory at a packed (ptr<<32 | len).
func (inst *instance) read(packed uint64) ([]byte, error) {
	b, ok := inst.mod.Memory().Read(uint32(packed>>32), uint32(packed))
	if !ok {
		return nil, inst.poison(fmt.Errorf("%w: it answered with a buffer outside its memory", ErrNotFunctionModule))
	}
	return b, nil
}

func (inst *instance) describe(ctx context.Context) ([]byte, error) {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	packed, err := inst.invoke(inst.describeFn, 0)
	if err != nil {
		return nil, err
	}
	b, err := inst.read(packed)
	return append([]byte(nil), b...), err
}

// broken returns the failure that ended the instance, if any.
func (inst *instance) broken() error {
	inst.failMu.Lock()
	defer inst.failMu.Unlock()
	if inst.failed != nil {
		return inst.failed
	}
	if inst.closed {
		return errors.New("the function's WebAssembly instance was closed")
	}
	return nil
}

// poison records err as the instance's end and closes it.
func (inst *instance) poison(err error) error {
	inst.failMu.Lock()
	if inst.failed == nil {
		inst.failed = err
	}
	err = inst.failed
	inst.failMu.Unlock()
	inst.close()
	return err
}

// fail turns an error of a call into the instance's end, explained.
func (inst *instance) fail(err error) error {
	return inst.poison(inst.explain(err, err))
}

// LimitError is the error of a call that ran past its time limit or
// exhausted its memory.
type LimitError struct {
	// Memory is true for the memory limit, false for the time limit.
	Memory bool
	Limits Limits
	Detail string
}

func (e *LimitError) Error() string {
	if e.Memory {
		msg := fmt.Sprintf("the function exceeded its memory limit of %s", formatBytes(e.Limits.Memory))
		if e.Detail != "" {
			msg += " (" + e.Detail + ")"
		}
		return msg + "; allow more with SET 'eddy.wasm.memory-limit' = '...' before the statement"
	}
	return fmt.Sprintf("the function did not return within %s, its time limit per call (an endless loop?); allow more with SET 'eddy.wasm.call-timeout' = '...' before the statement", e.Limits.CallTimeout)
}

// explain describes why a call into the guest failed: the time limit,
// the memory limit, an exit, or a trap, with what the module printed on
// its standard error.
func (inst *instance) explain(wrapped, cause error) error {
	stderr := strings.TrimSpace(inst.stderr.String())
	var exit *sys.ExitError
	isExit := errors.As(cause, &exit)
	switch {
	case inst.interrupted.Load():
		return &LimitError{Limits: inst.m.limits}
	case strings.Contains(stderr, "out of memory"):
		return &LimitError{Memory: true, Limits: inst.m.limits, Detail: oomLine(stderr)}
	case isExit:
		msg := fmt.Sprintf("the function module exited with code %d (did the function call os.Exit?)", exit.ExitCode())
		if stderr != "" {
			msg += "; it printed: " + fatalLines(stderr, 3)
		}
		return errors.New(msg)
	}
	first, _, _ := strings.Cut(wrapped.Error(), "\n")
	msg := "the function module crashed: " + first
	if stderr != "" {
		msg += "; it printed: " + fatalLines(stderr, 3)
	}
	return errors.New(msg)
}

// errInterrupted stops a call from the host's yield.
var errInterrupted = errors.New("interrupted: the call ran past its time limit")

// kill stops the running call from another goroutine (the watchdog): the
// module's next yield, at most yieldEvery loop iterations away, fails.
func (inst *instance) kill() { inst.interrupted.Store(true) }

// close releases the instance (idempotent).
func (inst *instance) close() {
	inst.failMu.Lock()
	if inst.closed {
		inst.failMu.Unlock()
		return
	}
	inst.closed = true
	inst.failMu.Unlock()
	inst.m.r.unregister(inst)
	if inst.mod != nil {
		_ = inst.mod.Close(context.Background())
	}
}

// hostCallback is the guest's import "host" (see wire.ImportHost).
func hostCallback(ctx context.Context, mod api.Module, stack []uint64) {
	inst, _ := ctx.Value(instKey{}).(*instance)
	opsPtr, opsLen, reqPtr, reqLen := uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])
	outPtr, outCap := uint32(stack[4]), uint32(stack[5])
	if reqLen == 0 {
		// A yield of the instrumented loops (see instrument): stop a call
		// that ran past its time limit.
		if inst != nil && inst.interrupted.Load() {
			panic(errInterrupted)
		}
		stack[0] = uint64(wire.HostStatusOK) << 32
		return
	}
	mem := mod.Memory()
	ops, okOps := mem.Read(opsPtr, opsLen)
	req, okReq := mem.Read(reqPtr, reqLen)
	if inst == nil || inst.cur == nil || !okOps || !okReq {
		stack[0] = uint64(wire.HostStatusBadRequest) << 32
		return
	}
	ans, ok := inst.serveCallback(ops, req)
	switch {
	case !ok:
		stack[0] = uint64(wire.HostStatusBadRequest) << 32
	case len(ans) <= int(outCap):
		if !mem.Write(outPtr, ans) {
			stack[0] = uint64(wire.HostStatusBadRequest) << 32
			return
		}
		stack[0] = uint64(wire.HostStatusOK)<<32 | uint64(len(ans))
	default:
		inst.pending = append(inst.pending[:0], ans...)
		stack[0] = uint64(wire.HostStatusTooLarge)<<32 | uint64(len(ans))
	}
}

// hostResult is the guest's import "result" (see wire.ImportResult).
func hostResult(ctx context.Context, mod api.Module, stack []uint64) {
	inst, _ := ctx.Value(instKey{}).(*instance)
	ptr, capacity := uint32(stack[0]), uint32(stack[1])
	if inst == nil || len(inst.pending) > int(capacity) || !mod.Memory().Write(ptr, inst.pending) {
		stack[0] = 0
		return
	}
	stack[0] = uint64(len(inst.pending))
	inst.pending = inst.pending[:0]
}

// serveCallback replays the guest's ops, then answers its request.
func (inst *instance) serveCallback(ops, req []byte) ([]byte, bool) {
	c := inst.cur
	if err := inst.replay(c, &wire.Decoder{B: ops}, false); err != nil {
		return nil, false
	}
	d := &wire.Decoder{B: req}
	e := &inst.ans
	e.B = e.B[:0]
	op := d.Byte()
	switch op {
	case wire.HostViewOpen:
		name, kind := d.String(), ptf.StateKind(d.Byte())
		if d.Err() != nil {
			return nil, false
		}
		c.views = append(c.views, c.h.ViewState(c.p.entryFor(name, kind)))
		e.Varint(int64(len(c.views) - 1))
		return e.B, true
	case wire.HostProcessingTime:
		e.Time(c.h.CurrentProcessingTime())
		return e.B, true
	case wire.HostStateTTL:
		name := d.String()
		if d.Err() != nil {
			return nil, false
		}
		ttl, rem, err := c.h.StateTTL(name)
		e.Varint(int64(ttl))
		e.Varint(int64(rem))
		e.Error(err)
		return e.B, true
	}
	handle := d.Int()
	if d.Err() != nil || handle >= len(c.views) {
		return nil, false
	}
	switch op {
	case wire.HostListLen, wire.HostListGet, wire.HostListAppend, wire.HostListSet, wire.HostListRemove, wire.HostListClear:
		l, ok := c.views[handle].(ptf.ListHost)
		if !ok {
			return nil, false
		}
		return inst.listOp(op, l, d)
	case wire.HostMapGet, wire.HostMapPut, wire.HostMapDelete, wire.HostMapRange, wire.HostMapClear:
		m, ok := c.views[handle].(ptf.MapHost)
		if !ok {
			return nil, false
		}
		return inst.mapOp(op, m, d)
	}
	return nil, false
}

func (inst *instance) listOp(op byte, l ptf.ListHost, d *wire.Decoder) ([]byte, bool) {
	e := &inst.ans
	var err error
	switch op {
	case wire.HostListLen:
		var n int
		n, err = l.Len()
		e.Int(n)
	case wire.HostListGet:
		i := d.Int()
		if d.Err() != nil {
			return nil, false
		}
		var b []byte
		b, err = l.Get(i)
		e.Bytes(b)
	case wire.HostListAppend:
		b := d.Bytes()
		if d.Err() != nil {
			return nil, false
		}
		err = l.Append(b)
	case wire.HostListSet:
		i, b := d.Int(), d.Bytes()
		if d.Err() != nil {
			return nil, false
		}
		err = l.Set(i, b)
	case wire.HostListRemove:
		n := d.Int()
		if d.Err() != nil {
			return nil, false
		}
		err = l.RemoveFirst(n)
	case wire.HostListClear:
		err = l.Clear()
	}
	e.Error(err)
	return e.B, true
}

func (inst *instance) mapOp(op byte, m ptf.MapHost, d *wire.Decoder) ([]byte, bool) {
	e := &inst.ans
	var err error
	switch op {
	case wire.HostMapGet:
		k := d.Bytes()
		if d.Err() != nil {
			return nil, false
		}
		var b []byte
		var found bool
		b, found, err = m.Get(k)
		e.Bool(found)
		e.Bytes(b)
	case wire.HostMapPut:
		k, v := d.Bytes(), d.Bytes()
		if d.Err() != nil {
			return nil, false
		}
		err = m.Put(k, v)
	case wire.HostMapDelete:
		k := d.Bytes()
		if d.Err() != nil {
			return nil, false
		}
		err = m.Delete(k)
	case wire.HostMapRange:
		var entries wire.Encoder
		n := 0
		err = m.Range(func(k, v []byte) bool {
			entries.Bytes(k)
			entries.Bytes(v)
			n++
			return true
		})
		e.Int(n)
		e.B = append(e.B, entries.B...)
	case wire.HostMapClear:
		err = m.Clear()
	}
	e.Error(err)
	return e.B, true
}

// replay performs the ops the guest recorded, in order. With final set
// the ops must end with OpEnd (a response); a callback's ops end with the
// buffer.
func (inst *instance) replay(c *callState, d *wire.Decoder, final bool) error {
	h := c.h
	for d.Err() == nil {
		if len(d.B) == 0 {
			if final {
				d.Fail("the ops do not end")
			}
			break
		}
		switch op := d.Byte(); op {
		case wire.OpEnd:
			if !final {
				d.Fail("end of ops in a callback")
			}
			return d.Err()
		case wire.OpEmit:
			kind := d.Byte()
			inst.scratch = d.ValuesInterned(inst.scratch[:0], &inst.strs)
			if d.Err() == nil && kind > byte(types.Delete) {
				d.Fail("row kind %d", kind)
			}
			if d.Err() == nil {
				h.Emit(types.RowKind(kind), inst.scratch)
			}
		case wire.OpFail:
			if err := d.Error(); err != nil && d.Err() == nil {
				h.Fail(err)
			}
		case wire.OpRegisterTimer:
			name, t := d.String(), d.Time()
			if d.Err() == nil {
				// The guest checked the call and the time as the engine
				// does; a refusal here means the two disagree.
				if err := h.RegisterTimer(name, t); err != nil {
					h.Fail(err)
				}
			}
		case wire.OpClearTimer:
			if name := d.String(); d.Err() == nil {
				h.ClearTimer(name)
			}
		case wire.OpClearUnnamed:
			if t := d.Time(); d.Err() == nil {
				h.ClearUnnamedTimer(t)
			}
		case wire.OpClearAllTimer:
			h.ClearAllTimers()
		case wire.OpRegisterProcTimer:
			name, t := d.String(), d.Time()
			if d.Err() == nil {
				if err := h.RegisterProcessingTimer(name, t); err != nil {
					h.Fail(err)
				}
			}
		case wire.OpClearProcTimer:
			if name := d.String(); d.Err() == nil {
				h.ClearProcessingTimer(name)
			}
		case wire.OpClearProcUnnamed:
			if t := d.Time(); d.Err() == nil {
				h.ClearUnnamedProcessingTimer(t)
			}
		case wire.OpClearState:
			if name := d.String(); d.Err() == nil {
				h.ClearState(name)
			}
		case wire.OpClearAllState:
			h.ClearAllState()
		default:
			d.Fail("unknown op %d", op)
		}
	}
	return d.Err()
}

// tail keeps the last bytes written to it (a module's stdout or stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func newTail(n int) *tail { return &tail{max: n} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// oomLine returns the line of a module's standard error that reports
// running out of memory.
func oomLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "out of memory") {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}

// fatalLines returns what a module printed last before it died: from its
// last "panic:" or "fatal error:" line, n lines (the goroutine dumps
// follow them), or its last n lines.
func fatalLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	start := max(0, len(lines)-n)
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "panic:") || strings.HasPrefix(lines[i], "fatal error:") {
			start = i
			break
		}
	}
	lines = lines[start:min(len(lines), start+n)]
	return strings.Join(lines, " | ")
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
