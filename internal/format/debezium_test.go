package format

import (
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/types"
)

// renderChanges prints decoded changes as "+I[1, a] -U[...]".
func renderChanges(s *types.Schema, vals []types.Value, kinds []types.RowKind) string {
	var out []string
	w := s.Len()
	for i, k := range kinds {
		var parts []string
		for j, v := range vals[i*w : (i+1)*w] {
			if v.IsNull() {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, types.Format(v, s.Fields[j].Type))
			}
		}
		out = append(out, k.String()+"["+strings.Join(parts, ", ")+"]")
	}
	return strings.Join(out, " ")
}

func TestDebeziumDecode(t *testing.T) {
	s := types.NewSchema(f("id", "INT"), f("name", "STRING"), f("weight", "DOUBLE"))
	strict, err := NewChangelog("debezium-json", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	lenient, _ := NewChangelog("debezium-json", s, map[string]string{"debezium-json.ignore-parse-errors": "true"})
	withSchema, _ := NewChangelog("debezium-json", s, map[string]string{"debezium-json.schema-include": "true"})
	for _, tc := range []struct {
		c        ChangelogCodec
		in, want string
	}{
		{strict, `{"before":null,"after":{"id":101,"name":"scooter","weight":3.14},"op":"c","ts_ms":1589355606100,"source":{"db":"inventory"}}`, "+I[101, scooter, 3.14]"},
		{strict, `{"before":null,"after":{"id":1,"name":"a","weight":1},"op":"r"}`, "+I[1, a, 1.0]"},
		{strict, `{"before":{"id":1,"name":"a","weight":1},"after":{"id":1,"name":"b","weight":2},"op":"u"}`, "-U[1, a, 1.0] +U[1, b, 2.0]"},
		{strict, `{"before":{"id":1,"name":"b","weight":2},"after":null,"op":"d"}`, "-D[1, b, 2.0]"},
		{strict, ``, ""},
		{strict, `{"before":null,"after":{"id":1},"op":"u"}`, `error: debezium-json: The "before" field of UPDATE message is null, if you are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level. The Debezium JSON message is '{"before":null,"after":{"id":1},"op":"u"}'.`},
		{strict, `{"before":null,"after":null,"op":"d"}`, `error: debezium-json: The "before" field of DELETE message`},
		{strict, `{"after":{"id":1},"op":"x"}`, `error: debezium-json: Unknown "op" value "x". The Debezium JSON message is`},
		{strict, `{"after":{"id":1}}`, `error: debezium-json: The message has no "op".`},
		{strict, `{"after":{"id":"one"},"op":"c"}`, `error: debezium-json: column "after.id"`},
		{strict, `not json`, `error: debezium-json at byte 2: invalid character`},
		{lenient, `not json`, ""},
		{lenient, `{"after":{"id":1},"op":"x"}`, ""},
		{lenient, `{"after":{"id":"one","name":"n"},"op":"c"}`, "+I[NULL, n, NULL]"},
		{withSchema, `{"schema":{"type":"struct"},"payload":{"before":null,"after":{"id":7,"name":"s","weight":0.5},"op":"c"}}`, "+I[7, s, 0.5]"},
		{withSchema, `{"before":null,"after":{"id":7},"op":"c"}`, `error: debezium-json: The message has no "payload"`},
	} {
		vals, kinds, err := tc.c.DecodeChanges([]byte(tc.in), nil, nil)
		got := renderChanges(s, vals, kinds)
		if err != nil {
			got = "error: " + err.Error()
			if _, ok := err.(*Error); !ok {
				t.Errorf("%s: error %v is not a *Error", tc.in, err)
			}
		}
		if !strings.HasPrefix(got, tc.want) || tc.want == "" && got != "" {
			t.Errorf("decoding %s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestDebeziumEncode(t *testing.T) {
	s := types.NewSchema(f("id", "INT"), f("name", "STRING"))
	c, err := NewChangelog("debezium-json", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := []types.Value{types.NewInt(1), types.NewString("a")}
	for kind, want := range map[types.RowKind]string{
		types.Insert:       `{"before":null,"after":{"id":1,"name":"a"},"op":"c"}`,
		types.UpdateAfter:  `{"before":null,"after":{"id":1,"name":"a"},"op":"c"}`,
		types.UpdateBefore: `{"before":{"id":1,"name":"a"},"after":null,"op":"d"}`,
		types.Delete:       `{"before":{"id":1,"name":"a"},"after":null,"op":"d"}`,
	} {
		b, err := c.EncodeChange(nil, kind, row)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%v: %s, want %s", kind, b, want)
		}
		vals, kinds, err := c.DecodeChanges(b, nil, nil)
		if err != nil || len(kinds) != 1 || !sameRow(vals, row) {
			t.Errorf("%v: %s decodes to %v %v %v", kind, b, vals, kinds, err)
		}
	}
	inc, _ := NewChangelog("debezium-json", s, map[string]string{"schema-include": "true"})
	if _, err := inc.EncodeChange(nil, types.Insert, row); err == nil {
		t.Error("schema-include encodes")
	}
}

func TestDebeziumAllTypes(t *testing.T) {
	s := allTypes()
	c, err := NewChangelog("debezium-json", s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, vals := range [][]types.Value{allValues(t), nullValues(s)} {
		b, err := c.EncodeChange(nil, types.Delete, vals)
		if err != nil {
			t.Fatal(err)
		}
		got, kinds, err := c.DecodeChanges(b, nil, nil)
		if err != nil || len(kinds) != 1 || kinds[0] != types.Delete || !sameRow(vals, got) {
			t.Fatalf("round trip of %s: %v %v %v", b, got, kinds, err)
		}
	}
}
