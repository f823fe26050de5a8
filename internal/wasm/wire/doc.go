// Package wire is the binary interface between Eddy and a function module
// compiled to WebAssembly: the messages that cross the boundary and their
// encoding. The guest runtime (package ptf/wasmguest) and the host
// (package internal/wasm) both use it, so the two sides cannot drift.
//
// A call crosses the boundary twice: the host writes one request into the
// guest's buffer (the row, the key, the call's times, the key's current
// value-state encodings, and on the first call of an operator instance the
// Setup), the guest runs the function against a local ptf.Host and answers
// with one response: the ops the function performed in order (collected
// rows, timer and clear calls, recorded failures), the final encodings of
// the value-state entries it read, and how the callback returned. Only
// list and map views, StateTTL and the first Context call that needs host
// data call back into the host while the guest runs; such a callback first
// replays the ops collected so far, so the host sees everything in the
// order the function did it.
//
// Eval and OnTimer requests:
//
//	call byte (CallEval, CallTimer, CallProcTimer), function uvarint, generation uvarint,
//	hasSetup bool [Setup], flags byte (bit 0 time, 1 watermark, 2 table
//	watermark, 3 key from row) [time] [watermark] [table watermark],
//	CallTimer, CallProcTimer: timer name string, timer time,
//	key Values (unless bit 3),
//	CallEval: table uvarint (1 + index among the table arguments; 0 none),
//	          kind byte, row Values,
//	per value-state entry: present bool [bytes]
//
// Responses:
//
//	ops (Op… until OpEnd), accessed count, per entry (index uvarint,
//	empty bool, bytes), result byte (ResultOK; ResultError Error;
//	ResultPanic message string, stack string)
package wire
