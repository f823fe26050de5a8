//go:build !wasip1

package wasmguest

import "errors"

// hostCall is answered by the engine only inside a WebAssembly module.
var hostCall = func(ops, req []byte) ([]byte, error) {
	return nil, errors.New("wasmguest: host callbacks work only in a module built with GOOS=wasip1 GOARCH=wasm")
}
