package ptf

import (
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
)

// The compiled emptiness test agrees with reflect.Value.IsZero, field by
// field: each variant below sets one field of an otherwise zero value.
func TestCompiledZeroMatchesReflect(t *testing.T) {
	c, ok := compile(reflect.TypeFor[everything](), 0)
	require.True(t, ok)
	dec, _, _ := apd.NewFromString("0")
	variants := []func(*everything){
		func(*everything) {},
		func(v *everything) { v.S = "x" },
		func(v *everything) { v.B = true },
		func(v *everything) { v.I = -1 },
		func(v *everything) { v.I8 = 1 },
		func(v *everything) { v.U = 1 },
		func(v *everything) { v.F = float32(math.Copysign(0, -1)) }, // -0 == 0, as for reflect
		func(v *everything) { v.D = math.Copysign(0, -1) },
		func(v *everything) { v.D = math.NaN() },
		func(v *everything) { v.D = 1e-300 },
		func(v *everything) { v.T = time.Unix(0, 0).UTC() },
		func(v *everything) { v.T = time.Time{}.In(time.FixedZone("X", 0)) }, // zero instant, not the zero value
		func(v *everything) { v.Dec = dec },
		func(v *everything) { v.P = &inner{} },
		func(v *everything) { v.List = []float64{} },
		func(v *everything) { v.M = map[string]int64{} },
		func(v *everything) { v.Units = make([]struct{}, 0) },
	}
	for i, set := range variants {
		var v everything
		set(&v)
		require.Equal(t, reflect.ValueOf(v).IsZero(), c.zero(unsafe.Pointer(&v)), "variant %d: %+v", i, v)
	}
	type empty struct{}
	e, ok := compile(reflect.TypeFor[empty](), 0)
	require.True(t, ok)
	require.True(t, e.zero(unsafe.Pointer(&empty{})))
}

func TestIsEmptyStateWithoutReflect(t *testing.T) {
	type order struct{ Status string }
	v := NewValue[order]("s")
	require.NotNil(t, v.zero, "a struct of strings has a compiled emptiness test")
	require.True(t, v.IsEmptyState(&order{}))
	require.False(t, v.IsEmptyState(&order{Status: "X"}))
	require.False(t, v.IsEmptyState((*order)(nil)))
	require.False(t, v.WithInit(func(*order) {}).IsEmptyState(&order{}), "with an Init function zero values are kept")
	type withAny struct{ X any }
	w := NewValue[withAny]("w")
	require.Nil(t, w.zero, "JSON types use reflect")
	require.True(t, w.IsEmptyState(&withAny{}))
	require.False(t, w.IsEmptyState(&withAny{X: 1}))
}

func TestStateSlot(t *testing.T) {
	type order struct {
		Status string
		N      int64
	}
	v := NewValue[order]("s")
	var _ SlotEntry = v
	s := v.NewSlot()
	b, err := v.EncodeState(&order{Status: "SHIPPED", N: 3})
	require.NoError(t, err)

	got, err := s.Load(b)
	require.NoError(t, err)
	require.Equal(t, &order{Status: "SHIPPED", N: 3}, got)
	enc, empty, err := s.Store(got)
	require.NoError(t, err)
	require.False(t, empty)
	require.Equal(t, b, enc, "Store encodes as EncodeState")

	// The same value is reused: Load overwrites every field, Reset
	// returns the initial value.
	again, err := s.Load([]byte{0, 0})
	require.NoError(t, err)
	require.Same(t, got, again)
	require.Equal(t, &order{}, again)
	_, empty, err = s.Store(again)
	require.NoError(t, err)
	require.True(t, empty)
	again.(*order).Status = "X"
	require.Equal(t, &order{}, s.Reset())

	_, err = s.Load(b[:2])
	require.ErrorContains(t, err, "decoding state 's'")
	require.Equal(t, &order{}, got, "a failed Load leaves the initial value")
	_, _, err = s.Store(&struct{}{})
	require.ErrorContains(t, err, "holds *struct {}")

	withInit := NewValue[order]("i").WithInit(func(o *order) { o.N = 7 })
	si := withInit.NewSlot()
	require.Equal(t, &order{N: 7}, si.Reset())
	enc, empty, err = si.Store(&order{})
	require.NoError(t, err)
	require.False(t, empty, "with an Init function zero values are kept")
	require.Equal(t, []byte{0, 0}, enc)
}

// Loading, testing and encoding the value of a call allocates nothing
// once the slot's strings are interned and its buffer has grown.
func TestStateSlotDoesNotAllocate(t *testing.T) {
	type order struct{ Status string }
	v := NewValue[order]("s")
	s := v.NewSlot()
	encs := [][]byte{}
	for _, st := range []string{"PENDING", "SHIPPED", "DELIVERED"} {
		b, _ := v.EncodeState(&order{Status: st})
		encs = append(encs, b)
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		x, err := s.Load(encs[i%len(encs)])
		if err != nil {
			t.Fatal(err)
		}
		x.(*order).Status = "DELIVERED"
		if _, _, err := s.Store(x); err != nil {
			t.Fatal(err)
		}
		i++
	})
	require.Zero(t, allocs)
}

// A custom codec is used by the slot as by DecodeState.
func TestStateSlotCustomCodec(t *testing.T) {
	type order struct{ Status string }
	v := NewValue[order]("s").WithCodec(jsonCodec[order]{})
	s := v.NewSlot()
	got, err := s.Load([]byte(`{"Status":"A"}`))
	require.NoError(t, err)
	require.Equal(t, &order{Status: "A"}, got)
	enc, empty, err := s.Store(got)
	require.NoError(t, err)
	require.False(t, empty)
	require.JSONEq(t, `{"Status":"A"}`, string(enc))
	got, err = s.Load([]byte(`{}`))
	require.NoError(t, err)
	require.Equal(t, &order{}, got, "fields of the previous value do not survive")
}

type leaves struct {
	S   string
	B   bool
	I   int
	I8  int8
	I16 int16
	I32 int32
	U   uint
	U8  uint8
	U16 uint16
	U32 uint32
	F   float32
	D   float64
}

// A struct of strings, booleans and numbers takes the flat plan, which
// encodes exactly as the general one (the concatenation of its fields'
// encodings), decodes back, rejects truncated input and tests emptiness
// as reflect does.
func TestFlatPlanMatchesGeneralPlan(t *testing.T) {
	typ := reflect.TypeFor[leaves]()
	flat, ok := flatPlan(typ)
	require.True(t, ok)
	long := string(make([]byte, 300)) // a length of two varint bytes
	values := []leaves{
		{},
		{S: "PENDING", B: true, I: -1 << 40, I8: -128, I16: 300, I32: -70000, U: 1 << 50, U8: 255, U16: 65535, U32: 1 << 31, F: 1.5, D: -2.25},
		{S: long, D: math.Copysign(0, -1)},
		{F: float32(math.Copysign(0, -1))},
		{U8: 1},
	}
	for i, v := range values {
		var general []byte
		for k := 0; k < typ.NumField(); k++ {
			fp, ok := compile(typ.Field(k).Type, 1)
			require.True(t, ok)
			general = fp.enc(general, unsafe.Add(unsafe.Pointer(&v), typ.Field(k).Offset))
		}
		b := flat.enc(nil, unsafe.Pointer(&v))
		require.Equal(t, general, b, "value %d", i)
		var out leaves
		var in interner
		rest, err := flat.dec(b, unsafe.Pointer(&out), &in)
		require.NoError(t, err)
		require.Empty(t, rest)
		require.Equal(t, v, out)
		require.Equal(t, reflect.ValueOf(v).IsZero(), flat.zero(unsafe.Pointer(&v)), "value %d", i)
		for n := 0; n < len(b); n++ {
			_, err := flat.dec(b[:n], unsafe.Pointer(&out), nil)
			require.Error(t, err, "value %d cut at %d bytes", i, n)
		}
	}
	type withTime struct {
		S string
		T time.Time
	}
	_, ok = flatPlan(reflect.TypeFor[withTime]())
	require.False(t, ok, "time.Time is not a leaf")
}
