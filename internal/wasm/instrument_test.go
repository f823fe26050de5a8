package wasm

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// loopModule assembles a module importing eddy.host and exporting spin,
// an endless loop, and count(n), a loop of n iterations that returns n.
func loopModule() []byte {
	section := func(id byte, body ...byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	spin := []byte{0x00, 0x03, 0x40, 0x0C, 0x00, 0x0B, 0x0B} // loop br 0 end end
	count := []byte{0x01, 0x01, 0x7F,                        // one i32 local
		0x03, 0x40, // loop
		0x20, 0x01, 0x41, 0x01, 0x6A, 0x21, 0x01, // local1 = local1 + 1
		0x20, 0x01, 0x20, 0x00, 0x48, 0x0D, 0x00, // br_if 0 (local1 < n)
		0x0B, 0x20, 0x01, 0x0B} // end, return local1
	code := []byte{2, byte(len(spin))}
	code = append(code, spin...)
	code = append(code, byte(len(count)))
	code = append(code, count...)
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = append(out, section(1, 3, 0x60, 0, 0, 0x60, 1, 0x7F, 1, 0x7F, 0x60, 6, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7e)...)
	out = append(out, section(2, 1, 4, 'e', 'd', 'd', 'y', 4, 'h', 'o', 's', 't', 0, 2)...)
	out = append(out, section(3, 2, 0, 1)...)
	out = append(out, section(7, 2, 4, 's', 'p', 'i', 'n', 0, 1, 5, 'c', 'o', 'u', 'n', 't', 0, 2)...)
	return append(out, section(10, code...)...)
}

func TestInstrumentYields(t *testing.T) {
	code := loopModule()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	var yields atomic.Int64
	var stop atomic.Bool
	_, err := r.NewHostModuleBuilder("eddy").NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
			yields.Add(1)
			if stop.Load() {
				panic(errInterrupted)
			}
			stack[0] = 0
		}), []api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32},
			[]api.ValueType{api.ValueTypeI64}).Export("host").Instantiate(ctx)
	require.NoError(t, err)
	_, err = r.CompileModule(ctx, code)
	require.NoError(t, err, "the test module itself must be valid")

	inst, err := instrument(code)
	require.NoError(t, err)
	mod, err := r.Instantiate(ctx, inst)
	require.NoError(t, err)

	res, err := mod.ExportedFunction("count").Call(ctx, 3*yieldEvery+10)
	require.NoError(t, err)
	require.Equal(t, uint64(3*yieldEvery+10), res[0], "the checks change nothing else")
	require.Equal(t, int64(3), yields.Load(), "one yield per yieldEvery iterations")

	go func() {
		time.Sleep(50 * time.Millisecond)
		stop.Store(true)
	}()
	_, err = mod.ExportedFunction("spin").Call(ctx)
	require.ErrorContains(t, err, errInterrupted.Error(), "the endless loop stops at a yield")
}

func TestInstrumentRefusesUnknownInstructions(t *testing.T) {
	simd := []byte{
		0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0,
		2, 13, 1, 4, 'e', 'd', 'd', 'y', 4, 'h', 'o', 's', 't', 0, 0,
		3, 2, 1, 0,
		10, 7, 1, 5, 0, 0xFD, 0x0C, 0x00, 0x0B,
	}
	_, err := instrument(simd)
	require.ErrorContains(t, err, "SIMD")
	_, err = instrument([]byte("PK\x03\x04"))
	require.ErrorContains(t, err, "not a WebAssembly module")
}
