package format

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
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
