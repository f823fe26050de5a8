package wire

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

func TestModuleRoundTrip(t *testing.T) {
	m := Module{Version: Version, Err: "", Functions: []Function{{
		ID: "examples.OrderStatusTracker", Doc: "doc", Output: "ROW<status STRING>", HasChangelog: true,
		Args:  []Arg{{Name: "input", Kind: ptf.TableArg, Traits: ptf.SetSemantic | ptf.RequireOnTime}, {Name: "n", Kind: ptf.ScalarArg, Type: "INT", Optional: true}},
		State: []State{{Name: "state", Kind: ptf.ValueStateKind, TTL: time.Hour, Schema: "examples.OrderState{Status string;}", Init: []byte{1, 2}}, {Name: "l", Kind: ptf.ListStateKind, TTL: ptf.NoTTL}},
	}}}
	var e Encoder
	m.Encode(&e)
	got, err := DecodeModule(e.B)
	require.NoError(t, err)
	require.Equal(t, &m, got)

	m.Version = 99
	e.B = e.B[:0]
	m.Encode(&e)
	_, err = DecodeModule(e.B)
	require.ErrorContains(t, err, "built for Eddy function ABI version 99")

	// Modules built before processing-time timers (version 1) still load:
	// they never send or receive the version 2 messages.
	require.Equal(t, 2, Version)
	m.Version = 1
	e.B = e.B[:0]
	m.Encode(&e)
	got, err = DecodeModule(e.B)
	require.NoError(t, err)
	require.Equal(t, 1, got.Version)
}

func TestSetupRoundTrip(t *testing.T) {
	schema := types.NewSchema(types.Field{Name: "order id", Type: types.Type{ID: types.TypeInt, NotNull: true}}, types.Field{Name: "`ts`", Type: types.Type{ID: types.TypeTimestamp, Precision: 3}})
	s := Setup{
		Args: []NamedValue{{Name: "n", Present: true, Value: types.NewInt(3)}, {Name: "missing"}},
		Tables: []Table{{Name: "input", Present: true, TableSemantics: ptf.TableSemantics{
			Schema: schema, PartitionBy: []int{0}, TimeColumn: -1, Changelog: ptf.Upsert(),
			OrderBy: []int{1}, OrderByDesc: []bool{true}, OrderByNullsFirst: []bool{false},
		}}},
		Produced: ptf.Retract(), TimersOK: true,
	}
	var e Encoder
	s.Encode(&e)
	d := &Decoder{B: e.B}
	got := DecodeSetup(d)
	require.NoError(t, d.Err())
	require.Empty(t, d.B)
	require.Equal(t, s.Args[0].Value.Int(), got.Args[0].Value.Int())
	require.False(t, got.Args[1].Present)
	require.Equal(t, schema.Fields, got.Tables[0].Schema.Fields)
	require.Equal(t, s.Tables[0].PartitionBy, got.Tables[0].PartitionBy)
	require.Equal(t, -1, got.Tables[0].TimeColumn)
	require.Equal(t, ptf.Upsert(), got.Tables[0].Changelog)
	require.Equal(t, ptf.Retract(), got.Produced)
	require.True(t, got.TimersOK)
}

func TestPrimitives(t *testing.T) {
	var e Encoder
	times := []time.Time{ptf.MaxTime, ptf.MinTime, ptf.MaxNanoTime, time.Unix(0, 0).UTC(), time.Date(2026, 8, 1, 9, 0, 0, 123456789, time.UTC)}
	for _, tm := range times {
		e.Time(tm)
	}
	modes := []ptf.ChangelogMode{ptf.InsertOnly(), ptf.Upsert(), ptf.UpsertFullDeletes(), ptf.Retract(), {}}
	for _, m := range modes {
		e.Mode(m)
	}
	e.Error(fmt.Errorf("wrapped: %w", ptf.ErrTimerOutOfRange))
	e.Error(errors.New("plain"))
	e.Error(nil)
	e.Values([]types.Value{types.NewInt(-5), types.NewString("héllo"), types.Null, types.NewFloat(1.5)})
	d := &Decoder{B: e.B}
	for _, tm := range times {
		require.True(t, tm.Equal(d.Time()), "%v", tm)
	}
	for _, m := range modes {
		require.Equal(t, m, d.Mode())
	}
	err := d.Error()
	require.ErrorIs(t, err, ptf.ErrTimerOutOfRange)
	require.Equal(t, "wrapped: "+ptf.ErrTimerOutOfRange.Error(), err.Error())
	require.EqualError(t, d.Error(), "plain")
	require.NoError(t, d.Error())
	vals := d.Values(nil)
	require.NoError(t, d.Err())
	require.Equal(t, "[-5 héllo <NULL> 1.5]", fmt.Sprint(vals))
	require.Empty(t, d.B)
}

// Malformed bytes give errors, never panics or large allocations.
func TestMalformed(t *testing.T) {
	var e Encoder
	(&Module{Version: Version, Functions: []Function{{ID: "a.B", Output: "INT", State: []State{{Name: "s"}}}}}).Encode(&e)
	good := e.B
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), good[:r.IntN(len(good)+1)]...)
		if len(b) > 0 && i%2 == 0 {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		m, err := DecodeModule(b)
		if err == nil {
			require.NotNil(t, m)
		}
		d := &Decoder{B: b}
		_ = DecodeSetup(d)
		d = &Decoder{B: b}
		_ = d.Values(nil)
		_ = d.Time()
	}
	d := &Decoder{B: []byte{0xff, 0xff, 0xff, 0xff, 0x0f}}
	require.Equal(t, 0, d.Count())
	require.ErrorIs(t, d.Err(), ErrMalformed)
}

func TestValuesInterned(t *testing.T) {
	long := strings.Repeat("x", 100)
	vals := []types.Value{types.NewString("SHIPPED"), types.NewInt(7), types.Null, types.NewString(""), types.NewString(long), types.NewString("SHIPPED"), types.NewBytes([]byte("SHIPPED")), types.NewInt(-1 << 62), types.NewFloat(2.5), types.NewBool(true)}
	var e Encoder
	e.Values(vals)
	e.Values(vals)
	var in Interner
	d := &Decoder{B: e.B}
	first := d.ValuesInterned(nil, &in)
	second := d.ValuesInterned(nil, &in)
	if err := d.Err(); err != nil || len(d.B) != 0 {
		t.Fatalf("err %v, %d bytes left", err, len(d.B))
	}
	for _, got := range [][]types.Value{first, second} {
		if len(got) != len(vals) {
			t.Fatalf("got %d values, want %d", len(got), len(vals))
		}
		for i := range vals {
			if types.Compare(got[i], vals[i]) != 0 || got[i].Kind() != vals[i].Kind() {
				t.Errorf("value %d: got %v, want %v", i, got[i], vals[i])
			}
		}
	}
	if unsafe.StringData(first[0].Str()) != unsafe.StringData(second[5].Str()) {
		t.Errorf("equal strings were not shared")
	}
	// A truncated string is an error, not a panic.
	d = &Decoder{B: e.B[:4]}
	d.ValuesInterned(nil, &in)
	if d.Err() == nil {
		t.Errorf("truncated values decoded without an error")
	}
}

func TestVarintsRoundTrip(t *testing.T) {
	xs := []int64{0, 1, -1, 63, -64, 64, -65, 127, 128, -129, 1 << 40, -1 << 40, math.MaxInt64, math.MinInt64}
	var e Encoder
	for _, x := range xs {
		e.Varint(x)
		e.Uvarint(uint64(x))
	}
	d := &Decoder{B: e.B}
	for _, x := range xs {
		if got := d.Varint(); got != x {
			t.Errorf("Varint: got %d, want %d", got, x)
		}
		if got := d.Uvarint(); got != uint64(x) {
			t.Errorf("Uvarint: got %d, want %d", got, uint64(x))
		}
	}
	if d.Err() != nil || len(d.B) != 0 {
		t.Fatalf("err %v, %d bytes left", d.Err(), len(d.B))
	}
}
