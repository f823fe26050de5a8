// Package wasmguest turns process table functions into a WebAssembly
// module that a running Eddy server loads as an artifact, sandboxed, without
// a restart.
//
// A function is the same ptf.Definition that a custom eddy binary compiles
// in. The module is a main package that registers it in an init function
// (a module's main function never runs):
//
//	package main
//
//	import (
//		"github.com/eddy-sql/eddy/examples"
//		"github.com/eddy-sql/eddy/ptf/wasmguest"
//	)
//
//	func init() {
//		wasmguest.Register("examples.OrderStatusTracker", examples.OrderStatusTracker)
//	}
//
//	func main() {}
//
// Build it with
//
//	eddy function build ./path/to/package -o order_status.wasm
//
// or, equivalently, with the Go toolchain alone:
//
//	GOOS=wasip1 GOARCH=wasm GOWASM=satconv,signext go build -buildmode=c-shared -o order_status.wasm ./path/to/package
//
// then upload it (eddy artifact create) and bind it with CREATE FUNCTION
// OrderStatusTracker AS 'examples.OrderStatusTracker' USING JAR
// 'eddy-artifact://art-…'. See docs/artifacts.md.
//
// Inside the module a function sees exactly what it sees compiled in: the
// row, its value state, the call's times, timers, list and map views. The
// engine crosses the boundary once per call with everything the call needs
// and gets back everything the function did (package internal/wasm/wire
// describes the messages). The module has no file system, no network and
// no real clock (time.Now in a module is a fake clock; use ctx.Time()), and
// runs under a memory and a per-call time limit.
package wasmguest
