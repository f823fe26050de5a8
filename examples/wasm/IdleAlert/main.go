// Command IdleAlert is the example function examples.IdleAlert as a WebAssembly
// module: build it with `eddy function build ./examples/wasm/IdleAlert -o IdleAlert.wasm`
// (or `make wasm-examples`), upload it with `eddy artifact create`, and
// bind it with CREATE FUNCTION IdleAlert AS 'examples.IdleAlert' USING JAR
// 'eddy-artifact://art-…'. See docs/artifacts.md.
package main

import (
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf/wasmguest"
)

// A module's main function never runs: functions register in init.
func init() {
	wasmguest.Register("examples.IdleAlert", examples.IdleAlert)
}

func main() {}
