//go:build wasip1

package wasmguest

import (
	"errors"
	"unsafe"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
)

// The buffers shared with the engine. Go's garbage collector does not move
// objects, so their addresses stay valid while these variables hold them.
var (
	reqBuf      = make([]byte, 64<<10)
	ansBuf      = make([]byte, 16<<10)
	describeBuf []byte
	lastAnswer  []byte // the last response, kept alive until the next call
)

func addr(b []byte) uint32 {
	if cap(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

func pack(b []byte) uint64 { return uint64(addr(b))<<32 | uint64(len(b)) }

// linkHost is never set: it makes the linker keep the import eddy.host
// in every module, also those whose functions use no views (the engine
// requires it; its instrumented loops call it).
var linkHost bool

//go:wasmexport eddy_describe
func eddyDescribe() uint64 {
	if linkHost {
		hostImport(0, 0, 0, 0, 0, 0)
	}
	describeBuf = describe()
	return pack(describeBuf)
}

//go:wasmexport eddy_buffer
func eddyBuffer(n uint32) uint32 {
	if int(n) > cap(reqBuf) {
		reqBuf = make([]byte, n+n/4)
	}
	return addr(reqBuf)
}

//go:wasmexport eddy_call
func eddyCall(n uint32) uint64 {
	if int(n) > len(reqBuf) {
		lastAnswer = internalError(errors.New("request longer than the buffer"))
	} else {
		lastAnswer = serve(reqBuf[:n])
	}
	return pack(lastAnswer)
}

//go:wasmimport eddy host
func hostImport(opsPtr, opsLen, reqPtr, reqLen, outPtr, outCap uint32) uint64

//go:wasmimport eddy result
func resultImport(ptr, capacity uint32) uint32

// hostCall sends ops and a request to the engine and returns the answer
// (valid until the next call).
func hostCall(ops, req []byte) ([]byte, error) {
	r := hostImport(addr(ops), uint32(len(ops)), addr(req), uint32(len(req)), addr(ansBuf), uint32(len(ansBuf)))
	status, n := r>>32, uint32(r)
	switch status {
	case wire.HostStatusOK:
		return ansBuf[:n], nil
	case wire.HostStatusTooLarge:
		ansBuf = make([]byte, n)
		m := resultImport(addr(ansBuf), n)
		return ansBuf[:m], nil
	}
	return nil, errors.New("the engine refused a request of the function module (a version mismatch?)")
}
