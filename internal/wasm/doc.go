// Package wasm runs process table functions compiled to WebAssembly
// (package ptf/wasmguest builds them) on wazero, sandboxed: no file
// system, no network, a fake clock, and per instance a memory limit and a
// time limit per call.
//
// A Runtime compiles modules once (wazero's compilation cache, on disk in
// the data directory) and loads each module's definitions as ordinary
// ptf.Definitions: the engine plans and runs them like compiled-in
// functions. Their Eval and OnTimer call into an instance of the module,
// crossing the boundary once each way per call (package wire): the engine's
// PTF host stays the one place where state, TTL, timers and output follow
// Flink's semantics, so a function behaves the same in a module and
// compiled in, and keeps the same state bytes. Jobs give every subtask its
// own instance (Runtime implements the runtime's FunctionInstances);
// planning and calls outside jobs share one instance per module.
//
// A function that loops, exhausts its memory, panics or traps fails its
// call with a clear error; the instance is discarded, and the engine and
// other statements keep running.
package wasm
