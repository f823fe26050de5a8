package format

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/types"
)

func mustTS(t testing.TB, s string) types.Value {
	v, err := types.ParseTimestamp(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustDec(t testing.TB, s string) types.Value {
	d, err := types.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return types.NewDecimal(d)
}

func sameValue(a, b types.Value) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() && b.IsNull()
	}
	if a.Kind() == types.KindFloat && b.Kind() == types.KindFloat && math.IsNaN(a.Float()) {
		return math.IsNaN(b.Float())
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case types.KindArray:
		x, y := a.Array(), b.Array()
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case types.KindRow:
		x, y := a.Fields(), b.Fields()
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case types.KindMap:
		x, y := a.Map(), b.Map()
		if len(x) != len(y) {
			return false
		}
		for _, e := range x {
			found := false
			for _, f := range y {
				if sameValue(e.Key, f.Key) && sameValue(e.Val, f.Val) {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	return types.Compare(a, b) == 0
}

func sameRow(a, b []types.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameValue(a[i], b[i]) {
			return false
		}
	}
	return true
}

func f(name, typ string) types.Field { return types.Field{Name: name, Type: types.MustParseType(typ)} }

// allTypes is a schema with every type the structured formats support.
func allTypes() *types.Schema {
	return types.NewSchema(
		f("b", "BOOLEAN"), f("ti", "TINYINT"), f("si", "SMALLINT"), f("i", "INT NOT NULL"),
		f("bi", "BIGINT"), f("fl", "FLOAT"), f("db", "DOUBLE"), f("d1", "DECIMAL(10, 2)"),
		f("d2", "DECIMAL(38, 4)"), f("c", "CHAR(3)"), f("s", "STRING"), f("by", "BYTES"),
		f("dt", "DATE"), f("tm", "TIME(3)"), f("ts", "TIMESTAMP(3)"), f("ltz", "TIMESTAMP_LTZ(3)"),
		f("ts6", "TIMESTAMP(6)"),
		f("arr", "ARRAY<INT>"), f("m", "MAP<STRING, BIGINT>"), f("r", "ROW<a INT, b STRING>"),
	)
}

func allValues(t testing.TB) []types.Value {
	return []types.Value{
		types.NewBool(true), types.NewInt(-5), types.NewInt(300), types.NewInt(-70000),
		types.NewInt(1 << 40), types.NewFloat(1.5), types.NewFloat(-3.25e-7), mustDec(t, "123.45"),
		mustDec(t, "-12345678901234567890123456789012.3456"), types.NewString("abc"),
		types.NewString("h\u00e9llo \"q\"\n\t\\ \x01 \u2028"), types.NewBytes([]byte{0, 1, 0xff}),
		types.NewDate(types.DaysFromCivil(2026, 8, 1)), types.NewTime((9*3600+1)*1e9 + 123e6),
		mustTS(t, "2026-08-01 09:00:00.123"), mustTS(t, "1969-12-31 23:59:59.999"),
		mustTS(t, "2026-08-01 09:00:00.123456"),
		types.NewArray([]types.Value{types.NewInt(1), types.Null, types.NewInt(-3)}),
		types.NewMap([]types.MapEntry{{Key: types.NewString("x"), Val: types.NewInt(7)}, {Key: types.NewString("y"), Val: types.Null}}),
		types.NewRow([]types.Value{types.NewInt(4), types.NewString("z")}),
	}
}

func nullValues(s *types.Schema) []types.Value {
	vals := make([]types.Value, s.Len())
	for i, fl := range s.Fields {
		if fl.Type.NotNull {
			vals[i] = types.NewInt(0)
		}
	}
	return vals
}

func roundTrip(t *testing.T, c Codec, vals []types.Value) []byte {
	t.Helper()
	b, err := c.Encode(nil, vals)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	got, err := c.Decode(b, nil)
	if err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	if !sameRow(got, vals) {
		t.Fatalf("round trip:\n got %v\nwant %v\npayload %q", got, vals, b)
	}
	return b
}

func TestRoundTripStructured(t *testing.T) {
	s := allTypes()
	for _, name := range []string{"json", "avro", "avro-confluent", "avro-registry", "json-registry"} {
		t.Run(name, func(t *testing.T) {
			var opts map[string]string
			if name != "json" && name != "avro" {
				opts = map[string]string{"schema-id": "7"}
			}
			c, err := New(name, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, c, allValues(t))
			roundTrip(t, c, nullValues(s))
			// Decode appends to dst.
			b, _ := c.Encode(nil, allValues(t))
			got, err := c.Decode(b, []types.Value{types.NewInt(1)})
			if err != nil || len(got) != s.Len()+1 {
				t.Fatalf("append: %d values, %v", len(got), err)
			}
		})
	}
}

func TestRoundTripJSONISOAndIntervals(t *testing.T) {
	s := types.NewSchema(f("ts", "TIMESTAMP(3)"), f("ltz", "TIMESTAMP_LTZ(3)"), f("ym", "INTERVAL YEAR TO MONTH"), f("dt", "INTERVAL DAY TO SECOND(3)"), f("nan", "DOUBLE"), f("inf", "FLOAT"))
	c, err := New("json", s, map[string]string{"json.timestamp-format.standard": "ISO-8601"})
	if err != nil {
		t.Fatal(err)
	}
	b := roundTrip(t, c, []types.Value{mustTS(t, "2026-08-01 09:00:00.5"), mustTS(t, "2026-08-01 09:00:00"), types.NewIntervalMonths(14), types.NewInterval(90061001e6), types.NewFloat(math.NaN()), types.NewFloat(math.Inf(-1))})
	want := `{"ts":"2026-08-01T09:00:00.5","ltz":"2026-08-01T09:00:00Z","ym":14,"dt":90061001,"nan":"NaN","inf":"-Infinity"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestRoundTripRaw(t *testing.T) {
	cases := []struct {
		typ  string
		v    types.Value
		want string // hex
	}{
		{"BOOLEAN", types.NewBool(true), "01"},
		{"TINYINT", types.NewInt(-2), "fe"},
		{"SMALLINT", types.NewInt(258), "0102"},
		{"INT", types.NewInt(42), "0000002a"},
		{"INT", types.NewInt(-1), "ffffffff"},
		{"BIGINT", types.NewInt(101), "0000000000000065"},
		{"FLOAT", types.NewFloat(1.5), "3fc00000"},
		{"DOUBLE", types.NewFloat(-2), "c000000000000000"},
		{"STRING", types.NewString("PLACED"), hex.EncodeToString([]byte("PLACED"))},
		{"STRING", types.NewString(""), ""},
		{"CHAR(2)", types.NewString("ab"), "6162"},
		{"BYTES", types.NewBytes([]byte{0, 0xff}), "00ff"},
		{"BINARY(1)", types.NewBytes([]byte{7}), "07"},
	}
	for _, tc := range cases {
		c, err := New("raw", types.NewSchema(f("v", tc.typ)), nil)
		if err != nil {
			t.Fatal(err)
		}
		b := roundTrip(t, c, []types.Value{tc.v})
		if hex.EncodeToString(b) != tc.want || b == nil {
			t.Errorf("%s %v: got %x (nil %v), want %s", tc.typ, tc.v, b, b == nil, tc.want)
		}
		b, err = c.Encode([]byte("junk"), []types.Value{types.Null})
		if err != nil || b != nil {
			t.Errorf("%s NULL: got %q, %v; want a nil payload", tc.typ, b, err)
		}
		got, err := c.Decode(nil, nil)
		if err != nil || len(got) != 1 || !got[0].IsNull() {
			t.Errorf("%s decode nil: %v %v", tc.typ, got, err)
		}
	}
	c, _ := New("raw", types.NewSchema(f("v", "INT")), nil)
	if _, err := c.Decode([]byte{1, 2}, nil); err == nil || !strings.Contains(err.Error(), `column "v"`) || !strings.Contains(err.Error(), "needs 4 bytes") {
		t.Errorf("short INT: %v", err)
	}
	if _, err := New("raw", types.NewSchema(f("a", "INT"), f("b", "INT")), nil); err == nil {
		t.Error("raw with two columns accepted")
	}
	if _, err := New("raw", types.NewSchema(f("a", "DATE")), nil); err == nil {
		t.Error("raw DATE accepted")
	}
	if _, err := New("raw", types.NewSchema(f("a", "STRING")), map[string]string{"raw.charset": "latin1"}); err == nil {
		t.Error("raw.charset latin1 accepted")
	}
}

func orderEvents() (*types.Schema, func(testing.TB) []types.Value) {
	s := types.NewSchema(f("order_id", "BIGINT"), f("status", "STRING"), f("ts", "TIMESTAMP(3)"))
	return s, func(t testing.TB) []types.Value {
		return []types.Value{types.NewInt(101), types.NewString("PLACED"), mustTS(t, "2026-08-01 09:00:00")}
	}
}

func TestGoldenOrderEvents(t *testing.T) {
	s, row := orderEvents()
	j, _ := New("json", s, nil)
	b := roundTrip(t, j, row(t))
	if want := `{"order_id":101,"status":"PLACED","ts":"2026-08-01 09:00:00"}`; string(b) != want {
		t.Errorf("json:\n got %s\nwant %s", b, want)
	}
	a, _ := New("avro", s, nil)
	b = roundTrip(t, a, row(t))
	// union 1, zigzag 101; union 1, len 6, PLACED; union 1, zigzag 1785574800000 ms.
	if want := "02ca01" + "020c504c41434544" + "02" + "80eae9c8f767"; hex.EncodeToString(b) != want {
		t.Errorf("avro:\n got %x\nwant %s", b, want)
	}
	ac, _ := New("avro-confluent", s, map[string]string{"avro-confluent.schema-id": "258"})
	b = roundTrip(t, ac, row(t))
	if want := "0000000102" + "02ca01020c504c4143454402" + "80eae9c8f767"; hex.EncodeToString(b) != want {
		t.Errorf("avro-confluent:\n got %x\nwant %s", b, want)
	}
	sch, err := AvroSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[` +
		`{"name":"order_id","type":["null","long"],"default":null},` +
		`{"name":"status","type":["null","string"],"default":null},` +
		`{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null}]}`
	if sch != want {
		t.Errorf("schema:\n got %s\nwant %s", sch, want)
	}
}

func TestGoldenAvroTypes(t *testing.T) {
	s := types.NewSchema(f("d", "DECIMAL(10, 2) NOT NULL"), f("n", "DECIMAL(5, 0) NOT NULL"), f("p", "DECIMAL(5, 0) NOT NULL"),
		f("dt", "DATE NOT NULL"), f("r", "ROW<x INT NOT NULL> NOT NULL"), f("a", "ARRAY<BOOLEAN NOT NULL> NOT NULL"), f("fl", "FLOAT NOT NULL"))
	c, err := New("avro", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := roundTrip(t, c, []types.Value{mustDec(t, "123.45"), mustDec(t, "-100"), mustDec(t, "128"),
		types.NewDate(1), types.NewRow([]types.Value{types.NewInt(-1)}), types.NewArray([]types.Value{types.NewBool(true), types.NewBool(false)}), types.NewFloat(1.5)})
	want := "043039" + "029c" + "040080" + "02" + "01" + "04010000" + "0000c03f"
	if hex.EncodeToString(b) != want {
		t.Errorf("got %x\nwant %s", b, want)
	}
	sch, _ := AvroSchema(s)
	wantSch := `{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[` +
		`{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},` +
		`{"name":"n","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":0}},` +
		`{"name":"p","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":0}},` +
		`{"name":"dt","type":{"type":"int","logicalType":"date"}},` +
		`{"name":"r","type":{"type":"record","name":"record_r","fields":[{"name":"x","type":"int"}]}},` +
		`{"name":"a","type":{"type":"array","items":"boolean"}},` +
		`{"name":"fl","type":"float"}]}`
	if sch != wantSch {
		t.Errorf("schema:\n got %s\nwant %s", sch, wantSch)
	}
	// Negative block counts (with a byte size) are accepted.
	s2 := types.NewSchema(f("a", "ARRAY<INT NOT NULL> NOT NULL"))
	c2, _ := New("avro", s2, nil)
	got, err := c2.Decode([]byte{0x03, 0x04, 0x02, 0x04, 0x00}, nil)
	if err != nil || !sameRow(got, []types.Value{types.NewArray([]types.Value{types.NewInt(1), types.NewInt(2)})}) {
		t.Errorf("negative block: %v %v", got, err)
	}
}

func TestAvroErrors(t *testing.T) {
	s, row := orderEvents()
	c, _ := New("avro", s, nil)
	b, _ := c.Encode(nil, row(t))
	for i := 0; i < len(b); i++ {
		if _, err := c.Decode(b[:i], nil); err == nil {
			t.Fatalf("truncated at %d: no error", i)
		}
	}
	_, err := c.Decode(b[:5], nil)
	var fe *Error
	if !errors.As(err, &fe) || fe.Column != "status" || fe.Offset != 4 {
		t.Errorf("truncated string: %#v", err)
	}
	if _, err := c.Decode(append(b, 0), nil); err == nil || !strings.Contains(err.Error(), "left after") {
		t.Errorf("trailing byte: %v", err)
	}
	if _, err := c.Decode([]byte{0x04}, nil); err == nil || !strings.Contains(err.Error(), `"order_id"`) || !strings.Contains(err.Error(), "union branch 2") {
		t.Errorf("bad union: %v", err)
	}
	if _, err := c.Decode([]byte{0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, nil); err == nil {
		t.Error("overlong varint accepted")
	}
	s2 := types.NewSchema(f("s", "STRING NOT NULL"))
	c2, _ := New("avro", s2, nil)
	if _, err := c2.Decode([]byte{0xfe, 0xff, 0xff, 0xff, 0x0f}, nil); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("huge length: %v", err)
	}
	if _, err := c.Encode(nil, []types.Value{types.NewString("x"), types.Null, types.Null}); err == nil || !strings.Contains(err.Error(), `"order_id"`) {
		t.Errorf("wrong kind: %v", err)
	}
	if _, err := New("avro", types.NewSchema(f("m", "MAP<INT, INT>")), nil); err == nil {
		t.Error("MAP<INT, INT> accepted")
	}
	if _, err := New("avro", types.NewSchema(f("t", "TIMESTAMP(9)")), nil); err == nil {
		t.Error("TIMESTAMP(9) accepted")
	}
}

func TestConfluentHeader(t *testing.T) {
	s, row := orderEvents()
	c, err := New("avro-registry", s, map[string]string{"schema-id": "4294967295"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Encode([]byte("k"), row(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{'k', 0, 0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("header: %x", b)
	}
	vals, id, err := c.(*Confluent).DecodeID(b[1:], nil)
	if err != nil || id != math.MaxUint32 || !sameRow(vals, row(t)) {
		t.Fatalf("DecodeID: %v %d %v", vals, id, err)
	}
	id2, body, err := ConfluentHeader(b[1:])
	if err != nil || id2 != math.MaxUint32 || len(body) != len(b)-6 {
		t.Fatal("ConfluentHeader")
	}
	// Without schema-id: decoding takes any id, encoding fails clearly.
	any, _ := New("avro-confluent", s, nil)
	if _, err := any.Decode(b[1:], nil); err != nil {
		t.Errorf("any id: %v", err)
	}
	if _, err := any.Encode(nil, row(t)); err == nil || !strings.Contains(err.Error(), "schema-id") {
		t.Errorf("encode without id: %v", err)
	}
	bad := append([]byte{1}, b[2:]...)
	if _, err := c.Decode(bad, nil); err == nil || !strings.Contains(err.Error(), "magic byte is 1") {
		t.Errorf("magic: %v", err)
	}
	if _, err := c.Decode([]byte{0, 0, 0}, nil); err == nil || !strings.Contains(err.Error(), "shorter") {
		t.Errorf("short: %v", err)
	}
	other := AppendConfluentHeader(nil, 5)
	if _, err := c.Decode(append(other, b[6:]...), nil); err == nil || !strings.Contains(err.Error(), "schema id 5") {
		t.Errorf("other id: %v", err)
	}
	// Body errors report offsets in the whole payload.
	_, err = c.Decode(b[1:len(b)-2], nil)
	var fe *Error
	if !errors.As(err, &fe) || fe.Format != "avro-confluent" || fe.Column != "ts" || fe.Offset < 5 {
		t.Errorf("body error: %#v", err)
	}
	// json-registry: same header, JSON body.
	jr, err := New("json-registry", s, map[string]string{"json-registry.schema-id": "3", "json.timestamp-format.standard": "ISO-8601"})
	if err != nil {
		t.Fatal(err)
	}
	b = roundTrip(t, jr, row(t))
	if want := "\x00\x00\x00\x00\x03" + `{"order_id":101,"status":"PLACED","ts":"2026-08-01T09:00:00"}`; string(b) != want {
		t.Errorf("json-registry: %q", b)
	}
}

func TestJSONOptions(t *testing.T) {
	s, _ := orderEvents()
	strict, _ := New("json", s, nil)
	if _, err := strict.Decode([]byte(`{"order_id":"x"}`), nil); err == nil || !strings.Contains(err.Error(), `column "order_id"`) {
		t.Errorf("bad field: %v", err)
	}
	if _, err := strict.Decode([]byte(`{"order_id":1,`), nil); err == nil {
		t.Error("truncated JSON accepted")
	}
	if _, err := strict.Decode([]byte(`{"order_id":1} x`), nil); err == nil {
		t.Error("trailing data accepted")
	}
	if _, err := strict.Decode([]byte(`[1]`), nil); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("array: %v", err)
	}
	got, err := strict.Decode([]byte(`{"status":"S"}`), nil)
	if err != nil || !got[0].IsNull() || got[1].Str() != "S" || !got[2].IsNull() {
		t.Errorf("missing fields: %v %v", got, err)
	}
	// Lenient inputs Flink accepts: numbers as strings, non-string into STRING.
	got, err = strict.Decode([]byte(`{"order_id":"12","status":{"a":[1,2.50]},"ts":"2026-08-01T09:00:00.1239"}`), nil)
	if err != nil || got[0].Int() != 12 || got[1].Str() != `{"a":[1,2.50]}` || !sameValue(got[2], mustTS(t, "2026-08-01 09:00:00.123")) {
		t.Errorf("lenient: %v %v", got, err)
	}
	if got, err := strict.Decode(nil, nil); got != nil || err != nil {
		t.Errorf("nil payload: %v %v", got, err)
	}

	ign, err := New("json", s, map[string]string{"json.ignore-parse-errors": "true"})
	if err != nil {
		t.Fatal(err)
	}
	got, err = ign.Decode([]byte(`{"order_id":"x","status":"S"}`), nil)
	if err != nil || !got[0].IsNull() || got[1].Str() != "S" {
		t.Errorf("ignore bad field: %v %v", got, err)
	}
	got, err = ign.Decode([]byte(`{"order_id":`), []types.Value{types.NewInt(1)})
	if err != nil || got != nil {
		t.Errorf("ignore malformed: %v %v", got, err)
	}

	fail, _ := New("json", s, map[string]string{"fail-on-missing-field": "true"})
	if _, err := fail.Decode([]byte(`{"order_id":1,"status":"x"}`), nil); err == nil || !strings.Contains(err.Error(), `column "ts"`) {
		t.Errorf("missing field: %v", err)
	}
	if _, err := New("json", s, map[string]string{"json.fail-on-missing-field": "true", "json.ignore-parse-errors": "true"}); err == nil {
		t.Error("both options accepted")
	}
	if _, err := New("json", s, map[string]string{"json.timestamp-format.standard": "RFC"}); err == nil {
		t.Error("bad standard accepted")
	}
	if _, err := New("json", s, map[string]string{"json.ignore-parse-error": "true"}); err == nil || !strings.Contains(err.Error(), "unknown option") {
		t.Errorf("unknown option: %v", err)
	}

	ltz := types.NewSchema(f("t", "TIMESTAMP_LTZ(3)"))
	lc, _ := New("json", ltz, nil)
	b := roundTrip(t, lc, []types.Value{mustTS(t, "2026-08-01 09:00:00.120")})
	if string(b) != `{"t":"2026-08-01 09:00:00.12Z"}` {
		t.Errorf("ltz: %s", b)
	}

	// Decimals keep their precision.
	ds := types.NewSchema(f("d", "DECIMAL(38, 18)"))
	dc, _ := New("json", ds, nil)
	b = roundTrip(t, dc, []types.Value{mustDec(t, "12345678901234567890.123456789012345678")})
	if string(b) != `{"d":12345678901234567890.123456789012345678}` {
		t.Errorf("decimal: %s", b)
	}
	if _, err := dc.Decode([]byte(`{"d":1e30}`), nil); err == nil || !strings.Contains(err.Error(), `column "d"`) {
		t.Errorf("decimal overflow: %v", err)
	}

	// MAP null keys.
	ms := types.NewSchema(f("m", "MAP<STRING, INT>"))
	withNull := []types.Value{types.NewMap([]types.MapEntry{{Key: types.Null, Val: types.NewInt(1)}})}
	mc, _ := New("json", ms, nil)
	if _, err := mc.Encode(nil, withNull); err == nil {
		t.Error("null map key encoded in FAIL mode")
	}
	ml, _ := New("json", ms, map[string]string{"json.map-null-key.mode": "LITERAL", "json.map-null-key.literal": "N"})
	if b, err := ml.Encode(nil, withNull); err != nil || string(b) != `{"m":{"N":1}}` {
		t.Errorf("literal: %s %v", b, err)
	}
	md, _ := New("json", ms, map[string]string{"json.map-null-key.mode": "drop"})
	if b, err := md.Encode(nil, withNull); err != nil || string(b) != `{"m":{}}` {
		t.Errorf("drop: %s %v", b, err)
	}
	in, _ := New("json", s, map[string]string{"json.encode.ignore-null-fields": "true"})
	if b, _ := in.Encode(nil, []types.Value{types.Null, types.NewString("a"), types.Null}); string(b) != `{"status":"a"}` {
		t.Errorf("ignore-null-fields: %s", b)
	}
}

func TestNewErrors(t *testing.T) {
	s, _ := orderEvents()
	if _, err := New("protobuf", s, nil); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := New("json", types.NewSchema(), nil); err == nil {
		t.Error("empty schema accepted")
	}
	if _, err := New("avro-confluent", s, map[string]string{"schema-id": "-1"}); err == nil {
		t.Error("bad schema id accepted")
	}
	if _, err := New("json", types.NewSchema(f("m", "MAP<INT, INT>")), nil); err == nil {
		t.Error("json MAP<INT, INT> accepted")
	}
	if _, err := New("avro", s, map[string]string{"avro-confluent.url": "http://x"}); err == nil {
		t.Error("avro with avro-confluent option accepted")
	}
	if _, err := New("avro-confluent", s, map[string]string{"avro-confluent.url": "http://x", "avro-confluent.subject": "t-value"}); err != nil {
		t.Errorf("registry options: %v", err)
	}
}
