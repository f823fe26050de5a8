package wasm_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

// BenchmarkGuestProfile calls OrderStatusTracker in a module compiled with
// a wazero function listener and logs, per guest function, the calls and
// the inclusive wall time per call of the function (-v shows the table).
// There is no sampling profiler for code wazero compiled (a CPU profile
// shows it as runtime._ExternalCode), so this is how the guest's time
// splits. The listener costs about 0.3 µs per guest call of its own
// and makes the whole call several times slower: read the table for where
// the time goes relative to the rest, not for absolute figures.
//
//	go test -run '^$' -bench GuestProfile -benchtime 20000x -v ./internal/wasm/
func BenchmarkGuestProfile(b *testing.B) {
	prof := &guestProfile{calls: map[string]int{}, times: map[string]time.Duration{}}
	r, err := wasm.New(wasm.Options{Tick: 10 * time.Millisecond, CacheDir: wasmtest.CacheDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := experimental.WithFunctionListenerFactory(context.Background(), prof)
	m, err := r.Load(ctx, moduleBytes(b), wasm.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	d, _ := m.Definition("examples.OrderStatusTracker")
	h, err := ptftest.New(d, ptftest.Table("input", "ROW<order_id INT NOT NULL, event_type STRING>", ptftest.PartitionBy("order_id")))
	if err != nil {
		b.Fatal(err)
	}
	events := []string{"PLACED", "FULFILLED", "SHIPPED", "DELIVERED", "CANCELED"}
	const keys = 20011
	// One call first, so that the setup of the Context is not counted.
	if err := h.Insert("input", types.NewInt(0), types.NewString(events[0])); err != nil {
		b.Fatal(err)
	}
	prof.reset()
	b.ResetTimer()
	for i := range b.N {
		key, ev := (i*7919)%keys, events[(i/keys)%len(events)]
		if err := h.Insert("input", types.NewInt(int64(key)), types.NewString(ev)); err != nil {
			b.Fatal(err)
		}
		if i%1024 == 0 {
			h.TakeOutput()
		}
	}
	b.StopTimer()
	b.Log("\n" + prof.table(b.N, 40))
}

// guestProfile is a wazero function listener factory that counts the calls
// of every guest function and sums their inclusive wall time. The
// benchmark calls the module from one goroutine, so it needs no lock.
type guestProfile struct {
	calls map[string]int
	times map[string]time.Duration
}

func (p *guestProfile) reset() { clear(p.calls); clear(p.times) }

func (p *guestProfile) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	return &guestListener{p: p, name: strings.TrimPrefix(def.DebugName(), ".")}
}

type guestListener struct {
	p      *guestProfile
	name   string
	starts []time.Time // of the calls in progress (recursion)
}

func (l *guestListener) Before(context.Context, api.Module, api.FunctionDefinition, []uint64, experimental.StackIterator) {
	l.p.calls[l.name]++
	l.starts = append(l.starts, time.Now())
}

func (l *guestListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {
	n := len(l.starts) - 1
	l.p.times[l.name] += time.Since(l.starts[n])
	l.starts = l.starts[:n]
}

func (l *guestListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {
	l.starts = l.starts[:len(l.starts)-1]
}

// table lists the top functions by inclusive time, per operation.
func (p *guestProfile) table(n, top int) string {
	names := make([]string, 0, len(p.calls))
	total := 0
	for name, c := range p.calls {
		names = append(names, name)
		total += c
	}
	sort.Slice(names, func(i, j int) bool { return p.times[names[i]] > p.times[names[j]] })
	var sb strings.Builder
	fmt.Fprintf(&sb, "%.1f guest calls per operation\n%8s %10s  %s\n", float64(total)/float64(n), "calls/op", "ns/op", "function (inclusive)")
	for i, name := range names {
		if i == top {
			break
		}
		fmt.Fprintf(&sb, "%8.2f %10.0f  %s\n", float64(p.calls[name])/float64(n), float64(p.times[name].Nanoseconds())/float64(n), name)
	}
	return sb.String()
}
