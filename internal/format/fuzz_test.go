package format

import (
	"slices"
	"strconv"
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"
)

// fuzzReencode checks that what decodes re-encodes and decodes to the same
// values.
func fuzzReencode(t *testing.T, c Codec, data []byte) {
	vals, err := c.Decode(data, nil)
	if err != nil || vals == nil {
		return
	}
	b, err := c.Encode(nil, vals)
	if err != nil {
		t.Fatalf("decoded %v from %q but cannot re-encode: %v", vals, data, err)
	}
	again, err := c.Decode(b, nil)
	if err != nil {
		t.Fatalf("re-encoded %q does not decode: %v", b, err)
	}
	if !sameRow(vals, again) {
		t.Fatalf("re-decode differs:\n%v\n%v", vals, again)
	}
}

func FuzzDecodeJSON(f *testing.F) {
	s := allTypes()
	c, err := New("json", s, nil)
	if err != nil {
		f.Fatal(err)
	}
	ign, _ := New("json", s, map[string]string{"json.ignore-parse-errors": "true"})
	b, _ := c.Encode(nil, allValues(f))
	f.Add(b)
	b, _ = c.Encode(nil, nullValues(s))
	f.Add(b)
	f.Add([]byte(`{"i":1,"d1":"1e3","ts":"2026-08-01T09:00:00Z","arr":[1,null],"m":{"a":null},"r":{"a":"2"}}`))
	f.Add([]byte(`{"i":1,"fl":"NaN","db":1e400,"s":[true,{}],"by":"AAE="}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzReencode(t, c, data)
		fuzzReencode(t, ign, data)
	})
}

func FuzzDecodeAvro(f *testing.F) {
	s := allTypes()
	c, err := New("avro", s, nil)
	if err != nil {
		f.Fatal(err)
	}
	sc := types.NewSchema(f0("id", "BIGINT"), f0("s", "STRING"), f0("ts", "TIMESTAMP(3)"))
	c2, _ := New("avro-confluent", sc, nil)
	b, _ := c.Encode(nil, allValues(f))
	f.Add(b)
	b, _ = c.Encode(nil, nullValues(s))
	f.Add(b)
	f.Add([]byte{0, 0, 0, 0, 1, 2, 0xca, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzReencode(t, c, data)
		vals, err := c2.Decode(data, nil)
		if err == nil {
			id, _, _ := ConfluentHeader(data)
			c3, _ := New("avro-confluent", sc, map[string]string{"schema-id": itoa(id)})
			if _, err := c3.Encode(nil, vals); err != nil {
				t.Fatalf("re-encode: %v", err)
			}
		}
	})
}

func FuzzDecodeRaw(f *testing.F) {
	var codecs []Codec
	for _, typ := range []string{"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "STRING", "BYTES"} {
		c, err := New("raw", types.NewSchema(f0("v", typ)), nil)
		if err != nil {
			f.Fatal(err)
		}
		codecs = append(codecs, c)
	}
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Add([]byte{0, 0, 0, 42})
	f.Add([]byte("PLACED"))
	f.Add([]byte{0xff, 0xf8, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range codecs {
			fuzzReencode(t, c, data)
		}
	})
}

func f0(name, typ string) types.Field { return f(name, typ) }

func itoa(id uint32) string { return strconv.FormatUint(uint64(id), 10) }

// FuzzDecodeRegistry decodes arbitrary payloads with registry-backed
// avro-confluent codecs: the fast decoder (the codec's own id), schema
// resolution (other writer schemas in the registry) and registry lookups
// (unknown ids). Decoding must not panic, must fail only with *Error (the
// registry is up), and what decodes must re-encode. For the codec's own id
// the compiled resolution of the derived schema must agree with the fast
// decoder.
func FuzzDecodeRegistry(f *testing.F) {
	fake, reg := fakeRegistry(f, nil)
	s := allTypes()
	c := registryCodec(f, reg, "avro-confluent", s, "all-value", true, nil)
	own, _ := c.SchemaID()
	derived, _ := AvroSchema(s)
	self, err := compileAvroRecord(avro.MustParse(derived), s.Fields, "", 0)
	if err != nil {
		f.Fatal(err)
	}
	// Another writer: the same columns in reverse order.
	revFields := slices.Clone(s.Fields)
	slices.Reverse(revFields)
	rev := types.NewSchema(revFields...)
	revSchema, _ := AvroSchema(rev)
	revID, _, err := fake.RegisterSchema("all-value", sr.Schema{Schema: revSchema})
	if err != nil {
		f.Fatal(err)
	}
	revCodec, _ := New("avro", rev, nil)
	oc := registryCodec(f, reg, "avro-confluent", orderTable(), "orders-value", true, nil)
	_, orderPayload := produce(f, fake, "orders-value", orderWriter, orderValue("n", "com.acme"))

	for _, vals := range [][]types.Value{allValues(f), nullValues(s)} {
		b, _ := c.Encode(nil, vals)
		f.Add(b)
		rv := slices.Clone(vals)
		slices.Reverse(rv)
		body, err := revCodec.Encode(nil, rv)
		if err != nil {
			f.Fatal(err)
		}
		payload := append(AppendConfluentHeader(nil, uint32(revID)), body...)
		if got, err := c.Decode(payload, nil); err != nil || !sameRow(got, vals) {
			f.Fatalf("reversed writer: %v %v", got, err)
		}
		f.Add(payload)
	}
	f.Add(orderPayload)
	f.Add(append(AppendConfluentHeader(nil, 4242), 2, 0))
	f.Add([]byte{1, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, cd := range []*RegistryCodec{c, oc} {
			vals, err := cd.Decode(data, nil)
			if err != nil {
				if _, ok := asFormatError(err); !ok {
					t.Fatalf("not a *Error: %v", err)
				}
				continue
			}
			b, err := cd.Encode(nil, vals)
			if err != nil {
				t.Fatalf("decoded %v from %x but cannot re-encode: %v", vals, data, err)
			}
			again, err := cd.Decode(b, nil)
			if err != nil || !sameRow(vals, again) {
				t.Fatalf("re-decode differs: %v %v\n%v", again, err, vals)
			}
		}
		if id, body, err := ConfluentHeader(data); err == nil && id == own {
			fast, ferr := c.Decode(data, nil)
			slow, serr := decodeResolved(self, body, nil)
			if (ferr == nil) != (serr == nil) || !sameRow(fast, slow) {
				t.Fatalf("fast and resolved decoders disagree on %x:\n%v %v\n%v %v", data, fast, ferr, slow, serr)
			}
		}
	})
}
