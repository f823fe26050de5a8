package wasm

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// loopModule assembles a module exporting spin, an endless loop, and
// count(n), a loop of n iterations that returns n.
func loopModule() []byte {
	section := func(id byte, body ...byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	spin := []byte{0x00, 0x03, 0x40, 0x0C, 0x00, 0x0B, 0x0B} // loop br 0 end end
	count := []byte{0x01, 0x01, 0x7F,                        // one i32 local
		0x03, 0x40, // loop
		0x20, 0x01, 0x41, 0x01, 0x6A, 0x22, 0x01, // local1 = local1 + 1
		0x20, 0x00, 0x48, 0x0D, 0x00, // br_if 0 (local1 < n)
		0x0B, 0x20, 0x01, 0x0B} // end, return local1
	code := []byte{2, byte(len(spin))}
	code = append(code, spin...)
	code = append(code, byte(len(count)))
	code = append(code, count...)
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = append(out, section(1, 2, 0x60, 0, 0, 0x60, 1, 0x7F, 1, 0x7F)...)
	out = append(out, section(3, 2, 0, 1)...)
	out = append(out, section(7, 2, 4, 's', 'p', 'i', 'n', 0, 0, 5, 'c', 'o', 'u', 'n', 't', 0, 1)...)
	return append(out, section(10, code...)...)
}

func TestInstrumentInterruptsLoops(t *testing.T) {
	code := loopModule()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	_, err := r.CompileModule(ctx, code)
	require.NoError(t, err, "the test module itself must be valid")

	inst, err := instrument(code)
	require.NoError(t, err)
	mod, err := r.Instantiate(ctx, inst)
	require.NoError(t, err)
	flag, ok := mod.ExportedGlobal(InterruptGlobal).(api.MutableGlobal)
	require.True(t, ok, "the interrupt flag is exported and mutable")

	res, err := mod.ExportedFunction("count").Call(ctx, 1000)
	require.NoError(t, err)
	require.Equal(t, uint64(1000), res[0], "the checks change nothing while the flag is clear")

	go func() {
		time.Sleep(50 * time.Millisecond)
		flag.Set(1)
	}()
	_, err = mod.ExportedFunction("spin").Call(ctx)
	require.ErrorContains(t, err, "unreachable", "the endless loop stops at the flag")
}

func TestInstrumentRefusesUnknownInstructions(t *testing.T) {
	simd := []byte{
		0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0,
		3, 2, 1, 0,
		10, 7, 1, 5, 0, 0xFD, 0x0C, 0x00, 0x0B,
	}
	_, err := instrument(simd)
	require.ErrorContains(t, err, "SIMD")
	_, err = instrument([]byte("PK\x03\x04"))
	require.ErrorContains(t, err, "not a WebAssembly module")
}
