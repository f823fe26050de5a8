// Command guest is the module the tests of package wasm load: every
// example function, plus functions that try to escape the sandbox or
// exhaust their limits.
package main

import (
	"errors"
	"net"
	"os"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/wasmguest"
	"github.com/eddy-sql/eddy/types"
)

var sink [][]byte

func probe(name string, f func(ctx *ptf.Context, in ptf.Input) error) *ptf.Definition {
	return &ptf.Definition{
		Doc:    name,
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<result STRING>",
		Eval:   f,
	}
}

func errText(err error) types.Value {
	if err == nil {
		return types.NewString("no error")
	}
	return types.NewString(err.Error())
}

// benchState is the state type of OrderStatusTracker, for the benchmarks.
type benchStatus struct {
	Status string
}

var benchState = ptf.NewValue[benchStatus]("state")

var (
	seen  = ptf.NewList[string]("seen")
	count = ptf.NewMap[string, int]("count")
)

func init() {
	wasmguest.RegisterAll("examples.", examples.All())
	wasmguest.Register("test.Noop", probe("noop", func(*ptf.Context, ptf.Input) error { return nil }))
	wasmguest.Register("test.EmitOnly", probe("emit", func(ctx *ptf.Context, in ptf.Input) error {
		ctx.Collect(types.NewString(in.Row.Get("event_type").Str()))
		return nil
	}))
	wasmguest.Register("test.StateOnly", &ptf.Definition{
		Args: []ptf.Arg{ptf.Table("input", ptf.SetSemantic)}, Output: "ROW<x STRING>",
		State: []ptf.StateEntry{benchState},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			benchState.Get(ctx).Status = in.Row.Get("event_type").Str()
			return nil
		},
	})
	wasmguest.Register("test.Spin", probe("spin", func(*ptf.Context, ptf.Input) error {
		for {
		}
	}))
	wasmguest.Register("test.Bomb", probe("bomb", func(*ptf.Context, ptf.Input) error {
		for {
			sink = append(sink, make([]byte, 1<<20))
		}
	}))
	wasmguest.Register("test.Panic", probe("panic", func(ctx *ptf.Context, in ptf.Input) error {
		ctx.Collect(types.NewString("before the panic"))
		var m map[string]int
		m[in.Row.Get("k").Str()] = 1 // assignment to entry in nil map
		return nil
	}))
	wasmguest.Register("test.Exit", probe("exit", func(*ptf.Context, ptf.Input) error {
		os.Exit(3)
		return nil
	}))
	wasmguest.Register("test.Escape", probe("escape", func(ctx *ptf.Context, in ptf.Input) error {
		_, err := os.ReadFile("/etc/passwd")
		ctx.Collect(types.NewString("read /etc/passwd: " + errText(err).Str()))
		err = os.WriteFile("/tmp/eddy-wasm-escape", []byte("x"), 0o644)
		ctx.Collect(types.NewString("write /tmp: " + errText(err).Str()))
		_, err = os.ReadDir(".")
		ctx.Collect(types.NewString("list .: " + errText(err).Str()))
		_, err = net.Dial("tcp", "127.0.0.1:22")
		ctx.Collect(types.NewString("dial: " + errText(err).Str()))
		ctx.Collect(types.NewString("env HOME: " + os.Getenv("HOME")))
		ctx.Collect(types.NewString("clock year: " + time.Now().UTC().Format("2006")))
		return nil
	}))
	wasmguest.Register("test.Views", &ptf.Definition{
		Doc:    "views",
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<n INT, all_seen STRING, cnt INT>",
		State:  []ptf.StateEntry{seen, count},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			w := in.Row.Get("w").Str()
			l := seen.Get(ctx)
			l.Add(w)
			m := count.Get(ctx)
			c, _ := m.Get(w)
			m.Put(w, c+1)
			if w == "reset" {
				ctx.ClearState("seen")
			}
			total := 0
			m.Range(func(_ string, v int) bool { total += v; return true })
			ctx.Collect(types.NewInt(int64(l.Len())), types.NewString(strings.Join(l.All(), ",")), types.NewInt(int64(total)))
			return nil
		},
	})
	wasmguest.Register("test.Fail", probe("fail", func(ctx *ptf.Context, in ptf.Input) error {
		if in.Row.Get("k").Str() == "bad" {
			return errors.New("bad key")
		}
		_, _, err := ctx.StateTTL("missing")
		if !errors.Is(err, ptf.ErrUnknownState) {
			return errors.New("StateTTL of a missing entry should be ErrUnknownState")
		}
		ctx.Collect(types.NewString(err.Error()))
		err = ctx.RegisterOnTime("t", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC))
		if !errors.Is(err, ptf.ErrTimerOutOfRange) {
			return errors.New("a timer in the year 3000 should be ErrTimerOutOfRange")
		}
		ctx.Collect(types.NewString(err.Error()))
		return nil
	}))
}

func main() {}
