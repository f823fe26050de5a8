// Command RunningMax is the example function examples.RunningMax as a WebAssembly
// module: build it with `eddy function build ./examples/wasm/RunningMax -o RunningMax.wasm`
// (or `make wasm-examples`), upload it with `eddy artifact create`, and
// bind it with CREATE FUNCTION RunningMax AS 'examples.RunningMax' USING JAR
// 'eddy-artifact://art-…'. See docs/artifacts.md.
package main

import (
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf/wasmguest"
)

// A module's main function never runs: functions register in init.
func init() {
	wasmguest.Register("examples.RunningMax", examples.RunningMax)
}

func main() {}
