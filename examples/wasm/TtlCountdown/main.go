// Command TtlCountdown is the example function examples.TtlCountdown as a WebAssembly
// module: build it with `eddy function build ./examples/wasm/TtlCountdown -o TtlCountdown.wasm`
// (or `make wasm-examples`), upload it with `eddy artifact create`, and
// bind it with CREATE FUNCTION TtlCountdown AS 'examples.TtlCountdown' USING JAR
// 'eddy-artifact://art-…'. See docs/artifacts.md.
package main

import (
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf/wasmguest"
)

// A module's main function never runs: functions register in init.
func init() {
	wasmguest.Register("examples.TtlCountdown", examples.TtlCountdown)
}

func main() {}
