package format

import (
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/types"
)

// TestJSONFastDepth: the single-pass decoder accepts encoding/json's
// nesting limit exactly, in skipped and in decoded values. (Deep inputs
// are too slow for the fuzz target's seeds.)
func TestJSONFastDepth(t *testing.T) {
	codecs := jsonDiffCodecs(t)
	for _, key := range []string{"x", "arr", "s", "ar", "ms", "m"} {
		for _, n := range []int{jsonMaxDepth - 1, jsonMaxDepth} {
			for _, open := range []string{"[", `{"k":`} {
				close := "]"
				if open != "[" {
					close = "}"
				}
				data := []byte(`{"` + key + `":` + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + "}")
				for _, c := range codecs {
					checkJSONFastVsSlow(t, c, data)
				}
				if _, ok, _ := codecs[0].decodeFast(data, nil); ok != (n < jsonMaxDepth) {
					t.Errorf("%s at depth %d: decodeFast ok = %v", key, n+1, ok)
				}
			}
		}
	}
}

// TestJSONFastCases checks hand-picked payloads against the generic
// decoder (the fuzz target's seeds run too, with go test).
func TestJSONFastCases(t *testing.T) {
	codecs := jsonDiffCodecs(t)
	for _, s := range []string{
		`{"b":"TRUE","ti":"127","si":-32769,"i":"-0","bi":9223372036854775808,"fl":1e39,"db":"-Infinity"}`,
		`{"c":"\u0000","s":"\ud83d\ude00\udbff\udfff\udc00\ud83d","by":"////","dt":" 2026-8-1 ","tm":"09:00:00.123456789"}`,
		`{"ts":"2026-08-01","ltz":"2026-08-01 09:00:00Z","ts6":"2026-08-01T09:00:00.1234567"}`,
		`{"dts":"12","dts":-9223372036854775808,"ym":2147483648}`,
		`{"ltz9":"1677-09-21 00:12:43.145224192Z","t0":"23:59:59.999999999"}`,
		`{"s":"é\u00e9\xc3\xa9","é":1,"\u00e9":"x"}`,
		`{"\ufffd":"a","` + "\xff" + `":"b"}`,
		`{"dup":"x","dup":"2026-08-01"}`,
	} {
		for _, c := range codecs {
			checkJSONFastVsSlow(t, c, []byte(s))
		}
	}
}

// TestJSONFastAllocs: decoding the Kafka pipeline's row allocates the
// STRING column only.
func TestJSONFastAllocs(t *testing.T) {
	s := types.NewSchema(f("order_id", "BIGINT"), f("event_type", "STRING"), f("event_time", "TIMESTAMP(3)"))
	c, err := New("json", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload := []byte(`{"order_id":123,"event_type":"PLACED","event_time":"2026-08-01 09:00:00"}`)
	dst := make([]types.Value, 0, 3)
	allocs := testing.AllocsPerRun(100, func() {
		if dst, err = c.Decode(payload, dst[:0]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations per row, want 1", allocs)
	}
	if dst[0].Int() != 123 || dst[1].Str() != "PLACED" || !sameValue(dst[2], mustTS(t, "2026-08-01 09:00:00")) {
		t.Errorf("decoded %v", dst)
	}
}
