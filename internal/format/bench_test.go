package format

import (
	"bytes"
	"math/big"
	"strconv"
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/hamba/avro/v2"
)

func benchCodec(b *testing.B, c Codec, vals []types.Value) {
	var buf []byte
	dec := make([]types.Value, 0, len(vals))
	var err error
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = c.Encode(buf[:0], vals); err != nil {
			b.Fatal(err)
		}
		if dec, err = c.Decode(buf, dec[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func benchOrder(b *testing.B, name string, opts map[string]string) {
	s, row := orderEvents()
	c, err := New(name, s, opts)
	if err != nil {
		b.Fatal(err)
	}
	benchCodec(b, c, row(b))
}

// BenchmarkRaw: raw has one column; a BIGINT key.
func BenchmarkRaw(b *testing.B) {
	c, err := New("raw", types.NewSchema(f("order_id", "BIGINT")), nil)
	if err != nil {
		b.Fatal(err)
	}
	benchCodec(b, c, []types.Value{types.NewInt(101)})
}

func BenchmarkJSON(b *testing.B) { benchOrder(b, "json", nil) }
func BenchmarkAvro(b *testing.B) { benchOrder(b, "avro", nil) }
func BenchmarkAvroConfluent(b *testing.B) {
	benchOrder(b, "avro-confluent", map[string]string{"schema-id": "1"})
}

// BenchmarkRegistryDecode compares the avro-confluent decoders: the fast
// decoder (records with the table's own writer schema), the compiled
// schema resolution (a producer's writer schema without the nullable
// unions) and, as the reference, hamba's generic resolution into
// map[string]any (which does not even include the conversion to
// types.Value).
func BenchmarkRegistryDecode(b *testing.B) {
	fake, reg := fakeRegistry(b, nil)
	s := orderTable()
	c := registryCodec(b, reg, "avro-confluent", s, "orders-value", true, nil)
	vals := []types.Value{types.NewInt(101), types.NewString("PLACED"), mustDec(b, "12.34"), mustTS(b, "2026-08-01 09:00:00.123"),
		types.NewArray([]types.Value{types.NewString("new"), types.NewString("web")}),
		types.NewRow([]types.Value{types.NewInt(1), types.NewString("x")})}
	own, err := c.Encode(nil, vals)
	if err != nil {
		b.Fatal(err)
	}
	writer := `{"type":"record","name":"record","namespace":"org.apache.flink.avro.generated","fields":[
		{"name":"id","type":"long"},{"name":"name","type":"string"},
		{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"tags","type":{"type":"array","items":"string"}},
		{"name":"r","type":{"type":"record","name":"record_r","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}}]}`
	_, other := produce(b, fake, "orders-value", writer, map[string]any{
		"id": int64(101), "name": "PLACED", "amount": big.NewRat(1234, 100), "ts": vals[3].Time(),
		"tags": []any{"new", "web"}, "r": map[string]any{"a": 1, "b": "x"}})
	if got, err := c.Decode(other, nil); err != nil || !sameRow(got, vals) {
		b.Fatalf("resolved: %v %v", got, err)
	}
	derived, _ := AvroSchema(s)
	resolved, err := avro.NewSchemaCompatibility().Resolve(avro.MustParse(derived), avro.MustParse(writer))
	if err != nil {
		b.Fatal(err)
	}
	decode := func(b *testing.B, payload []byte) {
		dst := make([]types.Value, 0, len(vals))
		b.ReportAllocs()
		for b.Loop() {
			if dst, err = c.Decode(payload, dst[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("fast", func(b *testing.B) { decode(b, own) })
	b.Run("resolved", func(b *testing.B) { decode(b, other) })
	b.Run("hamba-generic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			if err := avro.Unmarshal(resolved, other[5:], &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// jsonOrderRow is the 3-column row of the Kafka JSON pipelines.
func jsonOrderRow(b *testing.B) (*jsonCodec, []byte) {
	s := types.NewSchema(f("order_id", "BIGINT"), f("event_type", "STRING"), f("event_time", "TIMESTAMP(3)"))
	c, err := New("json", s, nil)
	if err != nil {
		b.Fatal(err)
	}
	return c.(*jsonCodec), []byte(`{"order_id":123,"event_type":"PLACED","event_time":"2026-08-01 09:00:00"}`)
}

// BenchmarkJSONDecode decodes the Kafka pipeline's 3-column row with the
// single-pass decoder (Decode) and with the generic one (encoding/json
// into map[string]any, then convert).
// The all-types sub-benchmarks decode a row of allTypes, nested columns
// included.
func BenchmarkJSONDecode(b *testing.B) {
	c, payload := jsonOrderRow(b)
	run := func(b *testing.B, decode func([]byte, []types.Value) ([]types.Value, error)) {
		dst := make([]types.Value, 0, 32)
		var err error
		b.ReportAllocs()
		for b.Loop() {
			if dst, err = decode(payload, dst[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("fast", func(b *testing.B) { run(b, c.Decode) })
	b.Run("generic", func(b *testing.B) { run(b, c.decodeGeneric) })
	all, err := New("json", allTypes(), nil)
	if err != nil {
		b.Fatal(err)
	}
	if payload, err = all.Encode(nil, allValues(b)); err != nil {
		b.Fatal(err)
	}
	ac := all.(*jsonCodec)
	b.Run("all-types/fast", func(b *testing.B) { run(b, ac.Decode) })
	b.Run("all-types/generic", func(b *testing.B) { run(b, ac.decodeGeneric) })
}

func BenchmarkCSV(b *testing.B) { benchOrder(b, "csv", nil) }

// BenchmarkCSVHandLoop is the same work as BenchmarkCSV written by hand
// for these three columns: append the fields, split the line, parse each
// field (the practical limit).
func BenchmarkCSVHandLoop(b *testing.B) {
	_, row := orderEvents()
	vals := row(b)
	var buf []byte
	dec := make([]types.Value, 0, 3)
	b.ReportAllocs()
	for b.Loop() {
		buf = strconv.AppendInt(buf[:0], vals[0].Int(), 10)
		buf = append(buf, ',')
		buf = append(buf, vals[1].Str()...)
		buf = append(buf, ',')
		buf = appendDate(buf, floorDiv(vals[2].Int(), nanosPerDay))
		buf = append(buf, ' ')
		buf = appendTimeOfDay(buf, vals[2].Int()-floorDiv(vals[2].Int(), nanosPerDay)*nanosPerDay, 3)
		f1, rest, _ := bytes.Cut(buf, []byte{','})
		f2, f3, _ := bytes.Cut(rest, []byte{','})
		n, err := strconv.ParseInt(string(f1), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		ts, err := types.ParseTimestamp(string(f3))
		if err != nil {
			b.Fatal(err)
		}
		dec = append(dec[:0], types.NewInt(n), types.NewString(string(f2)), ts)
	}
}

// BenchmarkDebeziumDecode decodes an update event (two rows) of the order
// columns.
func BenchmarkDebeziumDecode(b *testing.B) {
	s, row := orderEvents()
	c, err := NewChangelog("debezium-json", s, nil)
	if err != nil {
		b.Fatal(err)
	}
	msg := []byte(`{"before":{"order_id":101,"status":"PLACED","ts":"2026-08-01 09:00:00"},"after":{"order_id":101,"status":"SHIPPED","ts":"2026-08-01 09:00:05"},"op":"u","source":{"db":"shop"},"ts_ms":1785574805000}`)
	vals, kinds := make([]types.Value, 0, 6), make([]types.RowKind, 0, 2)
	_ = row
	b.ReportAllocs()
	for b.Loop() {
		if vals, kinds, err = c.DecodeChanges(msg, vals[:0], kinds[:0]); err != nil || len(kinds) != 2 {
			b.Fatal(err)
		}
	}
}
