//go:build unix

package runtime_test

// Throughput benchmarks of the PTF host (issue "Process table functions",
// "What it must show"). Each PTF is driven through runtime.FunctionHost,
// planned by plan.BuildPTF as SQL would plan the call, and runs beside a
// hand-written Go loop that produces the same output and persists the same
// state at the same checkpoints. One op is one input event, so ns/op and
// allocs/op are per event; the custom metrics events/s, ns/event and
// allocs/event say so explicitly.
//
//	GOMAXPROCS=1 go test -run '^$' -bench PTF -benchmem -count 3 ./internal/runtime/
//
// Inputs are pre-built rows (a ring of ringSize rows, not measured); keys
// are uniform over benchKeys BIGINT ids. Stateful benchmarks keep state in
// Pebble (state.NewPebble on an in-memory store's batch) and checkpoint
// every checkpointEvery events: FunctionHost.Flush, then batch commit.

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"math/rand/v2"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

const (
	benchKeys       = 100_000
	checkpointEvery = 10_000
	ringSize        = 1 << 16
	benchNS         = "bench"
	listKeep        = 10               // list-view PTF keeps the last listKeep elements
	idleTimeout     = 60 * time.Second // timer-heavy PTF, like InactivityAlert
	eventSpacing    = time.Millisecond // event time between consecutive events
	threshold       = 50.0
)

var benchBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

// benchSchema is the input table: ROW<id BIGINT, value DOUBLE, ts TIMESTAMP(3)>.
var benchSchema = types.NewSchema(
	types.Field{Name: "id", Type: types.BigInt},
	types.Field{Name: "value", Type: types.Double},
	types.Field{Name: "ts", Type: types.Timestamp(3)},
)

// --- the functions under test ---------------------------------------------

// thresholdFilter is examples.ThresholdFilter: pass-through columns plus one
// BOOLEAN.
var thresholdFilter = &ptf.Definition{
	Args: []ptf.Arg{
		ptf.Table("input", ptf.SetSemantic, ptf.PassColumnsThrough),
		ptf.Scalar("threshold", "DOUBLE"),
	},
	Output: "BOOLEAN",
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		v := in.Row.Get("value")
		threshold := ctx.Arg("threshold")
		ctx.Collect(types.NewBool(!v.IsNull() && !threshold.IsNull() && v.Float() > threshold.Float()))
		return nil
	},
}

type countState struct {
	N int64 `json:"n"`
}

var counterState = ptf.NewValue[countState]("count")

// counter is a keyed value-state PTF: a running count per key, emitted on
// every event (key prefix + EXPR$0).
var counter = &ptf.Definition{
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "BIGINT",
	State:  []ptf.StateEntry{counterState},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		c := counterState.Get(ctx)
		c.N++
		ctx.Collect(types.NewInt(c.N))
		return nil
	},
}

// binaryCountCodec replaces the default JSON codec of the counter, to
// separate the cost of encoding/json from the host's own cost.
type binaryCountCodec struct{}

func (binaryCountCodec) Encode(v *countState) ([]byte, error) {
	return binary.BigEndian.AppendUint64(nil, uint64(v.N)), nil
}

func (binaryCountCodec) Decode(b []byte, v *countState) error {
	v.N = int64(binary.BigEndian.Uint64(b))
	return nil
}

var counterStateBin = ptf.NewValue[countState]("count").WithCodec(binaryCountCodec{})

var counterBin = &ptf.Definition{
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "BIGINT",
	State:  []ptf.StateEntry{counterStateBin},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		c := counterStateBin.Get(ctx)
		c.N++
		ctx.Collect(types.NewInt(c.N))
		return nil
	},
}

type activityState struct {
	LastSeenMs int64 `json:"lastSeenMs"`
}

var activity = ptf.NewValue[activityState]("state")

// inactivity is examples.InactivityAlert: every event replaces the key's
// named timer; OnTimer emits ('inactive', idle_ms).
var inactivity = &ptf.Definition{
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.RequireOnTime)},
	Output: "ROW<alert_type STRING, idle_ms BIGINT>",
	State:  []ptf.StateEntry{activity},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		now, _ := ctx.Time()
		activity.Get(ctx).LastSeenMs = now.UnixMilli()
		ctx.ClearTimer("inactivity")
		return ctx.RegisterOnTime("inactivity", now.Add(idleTimeout))
	},
	OnTimer: func(ctx *ptf.Context) error {
		now, _ := ctx.Time()
		idle := now.UnixMilli() - activity.Get(ctx).LastSeenMs
		ctx.Collect(types.NewString("inactive"), types.NewInt(idle))
		return nil
	},
}

var recent = ptf.NewList[int64]("recent")

// lastN is a list-view PTF: it appends each event's value to the key's
// list and keeps the last listKeep elements. It emits nothing.
var lastN = &ptf.Definition{
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "BIGINT",
	State:  []ptf.StateEntry{recent},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		l := recent.Get(ctx)
		l.Add(int64(in.Row.Values[1].Float()))
		if n := l.Len(); n > listKeep {
			l.RemoveFirst(n - listKeep)
		}
		return nil
	},
}

// --- harness ------------------------------------------------------------

// sink receives output rows; engine and hand loop share it.
type sink struct {
	n    int
	last types.Row
}

func (s *sink) emit(r types.Row) error {
	s.n++
	s.last = r
	return nil
}

// benchRows returns the input ring. Row i has key ids[i], a value in
// [0,100) and event time benchBase + i*eventSpacing (fixed per lap by
// run).
func benchRows() []types.Row {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]types.Row, ringSize)
	for i := range rows {
		rows[i] = types.Row{Kind: types.Insert, Values: []types.Value{
			types.NewInt(int64(rng.IntN(benchKeys))),
			types.NewFloat(rng.Float64() * 100),
			types.NewTimestamp(benchBase + int64(i)*int64(eventSpacing)),
		}}
	}
	return rows
}

// warmupRows returns one event per key, in event-time order before
// benchBase. The age of each key's event is drawn from the distribution
// the measured stream (uniform keys, one event per eventSpacing) has in
// steady state, exponential with mean benchKeys*eventSpacing, so that the
// measurement starts with as many pending timers as it keeps.
func warmupRows() []types.Row {
	rng := rand.New(rand.NewPCG(3, 4))
	rows := make([]types.Row, benchKeys)
	for id := range rows {
		age := 1 + int64(rng.ExpFloat64()*float64(benchKeys)*float64(eventSpacing))
		rows[id] = types.Row{Kind: types.Insert, Values: []types.Value{
			types.NewInt(int64(id)),
			types.NewFloat(float64(id % 100)),
			types.NewTimestamp(benchBase - age),
		}}
	}
	slices.SortFunc(rows, func(a, b types.Row) int { return cmp.Compare(a.Values[2].Int(), b.Values[2].Int()) })
	return rows
}

// run warms up with one event per key (warmupRows; i runs from -benchKeys
// to -1, so the warm-up ends with a checkpoint), then calls fn for b.N
// events over the ring and reports events/s, ns/event and allocs/event of
// the steady state. Before each lap after the first it rewrites the event
// times of the ring, outside the timer, so that event time keeps
// increasing.
func run(b *testing.B, out *sink, fn func(i int, r *types.Row)) {
	rows := benchRows()
	for i, r := range warmupRows() {
		fn(i-benchKeys, &r)
	}
	out.n = 0 // count the rows of the measured events only
	b.ReportAllocs()
	var ms0, ms1 goruntime.MemStats
	goruntime.GC()
	b.ResetTimer()
	goruntime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	// The label lets a CPU profile keep only the measured events:
	// go tool pprof -tagfocus phase=measured.
	pprof.Do(context.Background(), pprof.Labels("phase", "measured"), func(context.Context) {
		for i := 0; i < b.N; i++ {
			j := i % ringSize
			if j == 0 && i > 0 {
				b.StopTimer()
				for k := range rows {
					rows[k].Values[2] = types.NewTimestamp(benchBase + int64(i+k)*int64(eventSpacing))
				}
				b.StartTimer()
			}
			fn(i, &rows[j])
		}
	})
	b.StopTimer()
	cpu := cpuTime() - cpu0
	goruntime.ReadMemStats(&ms1)
	el := b.Elapsed()
	b.ReportMetric(float64(b.N)/el.Seconds(), "events/s")
	b.ReportMetric(float64(el.Nanoseconds())/float64(b.N), "ns/event")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N), "allocs/event")
	// CPU time of the whole process (user+sys, including GC and Pebble's
	// background work) per event: less sensitive than wall time to other
	// processes on a shared machine. It includes the untimed lap rewrites
	// (about 1 ns/event).
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/event")
}

// cpuTime returns the user+system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pebbleBackend opens an in-memory store and returns a state backend on a
// batch, and the checkpoint commit.
func pebbleBackend(b *testing.B) (*state.Pebble, func()) {
	db, err := store.Open("", store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	batch := db.NewBatch()
	b.Cleanup(func() {
		_ = batch.Close()
		_ = db.Close()
	})
	return state.NewPebble(batch), func() {
		if err := batch.Commit(false); err != nil {
			b.Fatal(err)
		}
	}
}

// newHost plans def over the bench table partitioned by id and returns a
// host on be.
func newHost(b *testing.B, def *ptf.Definition, be state.Backend, scalars map[string]types.Value, onTime []string, out *sink) *runtime.FunctionHost {
	t := plan.TableSpec{Arg: "input", Schema: benchSchema, PartitionBy: []string{"id"}, Mode: jobgraph.Append}
	if len(onTime) > 0 {
		t.TimeAttribute = "ts"
	}
	spec, err := plan.BuildPTF("f", def, []plan.TableSpec{t}, scalars, onTime, "f", ptf.Retract())
	if err != nil {
		b.Fatal(err)
	}
	clock := &runtime.ManualClock{T: time.Unix(0, benchBase).UTC()}
	h, err := runtime.NewFunctionHost(spec, benchNS, be, clock, out.emit)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// keyBytes is the state key of id, as the host encodes partition keys.
func keyBytes(dst []byte, id int64) []byte {
	return types.AppendRow(dst[:0], types.Row{Values: []types.Value{types.NewInt(id)}})
}

// BenchmarkPTF measures the PTF host against hand-written loops.
func BenchmarkPTF(b *testing.B) {
	b.Run("stateless/engine", benchStatelessEngine)
	b.Run("stateless/hand", benchStatelessHand)
	b.Run("value-state/engine", func(b *testing.B) { benchCounterEngine(b, counter) })
	b.Run("value-state/engine-binary-codec", func(b *testing.B) { benchCounterEngine(b, counterBin) })
	b.Run("value-state/hand", benchCounterHand)
	b.Run("timers/engine", benchTimersEngine)
	b.Run("timers/hand", func(b *testing.B) { benchTimersHand(b, false) })
	b.Run("timers/hand-timer-api", func(b *testing.B) { benchTimersHand(b, true) })
	b.Run("list-view/engine", benchListEngine)
	b.Run("list-view/hand", benchListHand)
}

// --- 1. stateless ---------------------------------------------------------

func benchStatelessEngine(b *testing.B) {
	out := &sink{}
	h := newHost(b, thresholdFilter, state.NewMemory(), map[string]types.Value{"threshold": types.NewFloat(threshold)}, nil, out)
	run(b, out, func(_ int, r *types.Row) {
		if err := h.Process(0, *r); err != nil {
			b.Fatal(err)
		}
	})
	if out.n != b.N {
		b.Fatalf("emitted %d rows for %d events", out.n, b.N)
	}
}

func benchStatelessHand(b *testing.B) {
	out := &sink{}
	thr := types.NewFloat(threshold)
	run(b, out, func(_ int, r *types.Row) {
		v := r.Values[1]
		// The emitted row is owned by the receiver, as in the engine.
		vals := make([]types.Value, 0, len(r.Values)+1)
		vals = append(vals, r.Values...)
		vals = append(vals, types.NewBool(!v.IsNull() && !thr.IsNull() && v.Float() > thr.Float()))
		if err := out.emit(types.Row{Kind: types.Insert, Values: vals}); err != nil {
			b.Fatal(err)
		}
	})
}

// checkpointAt flushes the host and commits every checkpointEvery events,
// as a job's checkpoint would.
func checkpointAt(b *testing.B, i int, h *runtime.FunctionHost, commit func()) {
	if (i+1)%checkpointEvery == 0 {
		if err := h.Flush(); err != nil {
			b.Fatal(err)
		}
		commit()
	}
}

// --- 2. keyed value state (per-key counter) -------------------------------

func benchCounterEngine(b *testing.B, def *ptf.Definition) {
	be, commit := pebbleBackend(b)
	out := &sink{}
	h := newHost(b, def, be, nil, nil, out)
	run(b, out, func(i int, r *types.Row) {
		if err := h.Process(0, *r); err != nil {
			b.Fatal(err)
		}
		checkpointAt(b, i, h, commit)
	})
	if out.n != b.N {
		b.Fatalf("emitted %d rows for %d events", out.n, b.N)
	}
}

// benchCounterHand keeps the counts in a map, loads a key from Pebble the
// first time it is seen and writes the dirty counts at each checkpoint.
func benchCounterHand(b *testing.B) {
	be, commit := pebbleBackend(b)
	out := &sink{}
	counts := map[int64]int64{}
	dirty := map[int64]struct{}{}
	var kb, vb []byte
	run(b, out, func(i int, r *types.Row) {
		id := r.Values[0].Int()
		c, ok := counts[id]
		if !ok {
			kb = keyBytes(kb, id)
			v, found, err := be.Get(benchNS, "count", kb)
			if err != nil {
				b.Fatal(err)
			}
			if found {
				c = int64(binary.BigEndian.Uint64(v))
			}
		}
		c++
		counts[id] = c
		dirty[id] = struct{}{}
		if err := out.emit(types.Row{Kind: types.Insert, Values: []types.Value{r.Values[0], types.NewInt(c)}}); err != nil {
			b.Fatal(err)
		}
		if (i+1)%checkpointEvery == 0 {
			for id := range dirty {
				kb = keyBytes(kb, id)
				vb = binary.BigEndian.AppendUint64(vb[:0], uint64(counts[id]))
				if err := be.Put(benchNS, "count", kb, vb); err != nil {
					b.Fatal(err)
				}
			}
			clear(dirty)
			commit()
		}
	})
}

// --- 3. timers (InactivityAlert) ------------------------------------------

func benchTimersEngine(b *testing.B) {
	be, commit := pebbleBackend(b)
	out := &sink{}
	h := newHost(b, inactivity, be, nil, []string{"ts"}, out)
	run(b, out, func(i int, r *types.Row) {
		if err := h.Process(0, *r); err != nil {
			b.Fatal(err)
		}
		if err := h.Watermark(0, time.Unix(0, r.Values[2].Int())); err != nil {
			b.Fatal(err)
		}
		checkpointAt(b, i, h, commit)
	})
	b.ReportMetric(float64(out.n)/float64(b.N), "fired/event")
}

type handTimer struct {
	t  int64
	id int64
}

type handTimerHeap []handTimer

func (h handTimerHeap) Len() int { return len(h) }
func (h handTimerHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].id < h[j].id
}
func (h handTimerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *handTimerHeap) Push(x any)   { *h = append(*h, x.(handTimer)) }
func (h *handTimerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type handActivity struct {
	lastSeenMs int64
	timer      int64 // 0: none
}

// benchTimersHand keeps last-seen times and one timer per key in memory
// (a heap with lazy deletion), and writes dirty state and timers to Pebble
// at each checkpoint. With timerAPI the timers are written through the
// backend's timer API (RegisterTimer/DeleteTimer), as the engine persists
// them; without it each dirty key is one record (last seen, timer time),
// which is what a hand-written program would store.
func benchTimersHand(b *testing.B, timerAPI bool) {
	be, commit := pebbleBackend(b)
	out := &sink{}
	keys := map[int64]*handActivity{}
	dirty := map[int64]struct{}{}
	var th handTimerHeap
	var kb, vb []byte
	wm := int64(runtime.MinWatermark)
	run(b, out, func(i int, r *types.Row) {
		id, ts := r.Values[0].Int(), r.Values[2].Int()
		a := keys[id]
		if a == nil {
			a = &handActivity{}
			kb = keyBytes(kb, id)
			v, found, err := be.Get(benchNS, "state", kb)
			if err != nil {
				b.Fatal(err)
			}
			if found {
				a.lastSeenMs = int64(binary.BigEndian.Uint64(v))
			}
			keys[id] = a
		}
		a.lastSeenMs = ts / 1e6
		a.timer = ts + int64(idleTimeout)
		heap.Push(&th, handTimer{t: a.timer, id: id})
		dirty[id] = struct{}{}
		if ts > wm {
			wm = ts
			for len(th) > 0 && th[0].t <= wm {
				e := heap.Pop(&th).(handTimer)
				a := keys[e.id]
				if a.timer != e.t {
					continue // replaced
				}
				a.timer = 0
				dirty[e.id] = struct{}{}
				idle := e.t/1e6 - a.lastSeenMs
				if err := out.emit(types.Row{Kind: types.Insert, Values: []types.Value{
					types.NewInt(e.id), types.NewString("inactive"), types.NewInt(idle), types.NewTimestamp(e.t),
				}}); err != nil {
					b.Fatal(err)
				}
			}
		}
		if (i+1)%checkpointEvery == 0 {
			for id := range dirty {
				a := keys[id]
				kb = keyBytes(kb, id)
				vb = binary.BigEndian.AppendUint64(vb[:0], uint64(a.lastSeenMs))
				if !timerAPI {
					vb = binary.BigEndian.AppendUint64(vb, uint64(a.timer))
				}
				if err := be.Put(benchNS, "state", kb, vb); err != nil {
					b.Fatal(err)
				}
				if !timerAPI {
					continue
				}
				var err error
				if a.timer != 0 {
					err = be.RegisterTimer(benchNS, kb, "inactivity", a.timer)
				} else {
					err = be.DeleteTimer(benchNS, kb, "inactivity")
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			clear(dirty)
			commit()
		}
	})
	b.ReportMetric(float64(out.n)/float64(b.N), "fired/event")
}

// --- 4. list view (last N per key) ----------------------------------------

func benchListEngine(b *testing.B) {
	be, commit := pebbleBackend(b)
	out := &sink{}
	h := newHost(b, lastN, be, nil, nil, out)
	run(b, out, func(i int, r *types.Row) {
		if err := h.Process(0, *r); err != nil {
			b.Fatal(err)
		}
		checkpointAt(b, i, h, commit)
	})
}

type handRing struct {
	vals [listKeep]int64
	head int
	n    int
}

// benchListHand keeps the last listKeep values of each key in an in-memory
// ring, and writes each dirty ring as one value at each checkpoint.
func benchListHand(b *testing.B) {
	be, commit := pebbleBackend(b)
	out := &sink{}
	rings := map[int64]*handRing{}
	dirty := map[int64]struct{}{}
	var kb, vb []byte
	run(b, out, func(i int, r *types.Row) {
		id := r.Values[0].Int()
		g := rings[id]
		if g == nil {
			g = &handRing{}
			kb = keyBytes(kb, id)
			v, found, err := be.Get(benchNS, "recent", kb)
			if err != nil {
				b.Fatal(err)
			}
			for ; found && len(v) >= 8; v = v[8:] {
				g.vals[g.n] = int64(binary.BigEndian.Uint64(v))
				g.n++
			}
			rings[id] = g
		}
		x := int64(r.Values[1].Float())
		if g.n < listKeep {
			g.vals[(g.head+g.n)%listKeep] = x
			g.n++
		} else {
			g.vals[g.head] = x
			g.head = (g.head + 1) % listKeep
		}
		dirty[id] = struct{}{}
		if (i+1)%checkpointEvery == 0 {
			for id := range dirty {
				g := rings[id]
				kb = keyBytes(kb, id)
				vb = vb[:0]
				for k := 0; k < g.n; k++ {
					vb = binary.BigEndian.AppendUint64(vb, uint64(g.vals[(g.head+k)%listKeep]))
				}
				if err := be.Put(benchNS, "recent", kb, vb); err != nil {
					b.Fatal(err)
				}
			}
			clear(dirty)
			commit()
		}
	})
}
