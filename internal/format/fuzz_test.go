package format

import (
	"testing"

	"strconv"

	"github.com/eddy-sql/eddy/types"
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
