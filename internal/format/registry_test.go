package format

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/types"
	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// fakeRegistry starts an in-process registry and returns it with the shared
// *Registry of its URL (opts: format options, e.g. credentials).
func fakeRegistry(t testing.TB, opts map[string]string, fo ...srfake.Option) (*srfake.Registry, *Registry) {
	t.Helper()
	fake := srfake.New(fo...)
	t.Cleanup(func() {
		fake.Close()
		forgetRegistries(fake.URL())
	})
	reg, err := NewRegistry(fake.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return fake, reg
}

func registryCodec(t testing.TB, reg *Registry, format string, s *types.Schema, subject string, register bool, opts map[string]string) *RegistryCodec {
	t.Helper()
	c, err := NewRegistryCodec(context.Background(), format, s.Fields, opts, RegistryOptions{Registry: reg, Subject: subject, Register: register})
	if err != nil {
		t.Fatal(err)
	}
	return c.(*RegistryCodec)
}

// produce registers writer under subject as another producer would and
// returns its id and a payload of value encoded with hamba.
func produce(t testing.TB, fake *srfake.Registry, subject, writer string, value any) (int, []byte) {
	t.Helper()
	id, _, err := fake.RegisterSchema(subject, sr.Schema{Schema: writer, Type: sr.TypeAvro})
	if err != nil {
		t.Fatal(err)
	}
	body, err := avro.Marshal(avro.MustParse(writer), value)
	if err != nil {
		t.Fatal(err)
	}
	return id, append(AppendConfluentHeader(nil, uint32(id)), body...)
}

func asFormatError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func TestRegistryRoundTripAllTypes(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	s := allTypes()
	c := registryCodec(t, reg, "avro-confluent", s, "all-value", true, nil)
	id, ok := c.SchemaID()
	if !ok {
		t.Fatal("no schema id after registration")
	}
	want, _ := AvroSchema(s)
	ss, found := fake.GetSchema("all-value", 1)
	if !found || ss.ID != int(id) || ss.Schema.Schema != want || ss.Type != sr.TypeAvro {
		t.Fatalf("registered %+v (found %v), codec id %d", ss, found, id)
	}
	plain, _ := New("avro", s, nil)
	for _, vals := range [][]types.Value{allValues(t), nullValues(s)} {
		b := roundTrip(t, c, vals)
		body, _ := plain.Encode(nil, vals)
		if !bytes.Equal(b, append(AppendConfluentHeader(nil, id), body...)) {
			t.Errorf("payload %x is not header(%d) + avro body %x", b, id, body)
		}
		got, gotID, err := c.DecodeID(b, nil)
		if err != nil || gotID != id || !sameRow(got, vals) {
			t.Errorf("DecodeID: %v %d %v", got, gotID, err)
		}
	}
	// A source codec (no registration) finds the same id under the subject
	// and decodes what the sink wrote.
	src := registryCodec(t, reg, "avro-registry", s, "all-value", false, nil)
	if sid, ok := src.SchemaID(); !ok || sid != id {
		t.Errorf("source id %d %v, want %d", sid, ok, id)
	}
	b, _ := c.Encode(nil, allValues(t))
	if got, err := src.Decode(b, nil); err != nil || !sameRow(got, allValues(t)) {
		t.Errorf("source decode: %v %v", got, err)
	}
	// The fixed schema-id path of New keeps working alongside.
	fixed, err := New("avro-confluent", s, map[string]string{"schema-id": fmt.Sprint(id)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fixed.Decode(b, nil); err != nil || !sameRow(got, allValues(t)) {
		t.Errorf("fixed schema-id decode: %v %v", got, err)
	}
	if b2, err := fixed.Encode(nil, allValues(t)); err != nil || !bytes.Equal(b, b2) {
		t.Errorf("fixed schema-id encode differs: %v", err)
	}
	// Encode errors name the format.
	if _, err := c.Encode(nil, allValues(t)[:3]); err == nil {
		t.Error("short row encoded")
	} else if e, ok := asFormatError(err); !ok || e.Format != "avro-confluent" {
		t.Errorf("encode error: %#v", err)
	}
}

func TestRegistryIdempotent(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	ctx := context.Background()
	if again, _ := NewRegistry(fake.URL(), nil); again != reg {
		t.Error("NewRegistry does not share the registry of a URL")
	}
	if other, _ := NewRegistry(fake.URL(), map[string]string{"bearer-auth.token": "x"}); other == reg {
		t.Error("other credentials share a client")
	}
	s, row := orderEvents()
	schema, _ := AvroSchema(s)
	id1, err := reg.Register(ctx, "orders-value", schema, "AVRO")
	if err != nil {
		t.Fatal(err)
	}
	id2, err := reg.Register(ctx, "orders-value", schema, "AVRO")
	if err != nil || id2 != id1 {
		t.Fatalf("second registration: %d %v, first %d", id2, err, id1)
	}
	// Not from the cache: a new Registry asks the registry, which returns
	// the same id.
	forgetRegistries(fake.URL())
	fresh, _ := NewRegistry(fake.URL(), nil)
	if id3, err := fresh.Register(ctx, "orders-value", schema, "AVRO"); err != nil || id3 != id1 {
		t.Fatalf("registration by a new client: %d %v", id3, err)
	}
	c1 := registryCodec(t, fresh, "avro-confluent", s, "orders-value", true, nil)
	c2 := registryCodec(t, fresh, "avro-confluent", s, "orders-value", true, nil)
	i1, _ := c1.SchemaID()
	i2, _ := c2.SchemaID()
	if int(i1) != id1 || int(i2) != id1 {
		t.Errorf("codec ids %d %d, want %d", i1, i2, id1)
	}
	if _, found := fake.GetSchema("orders-value", 2); found {
		t.Error("a second version was registered")
	}
	text, typ, err := fresh.SchemaByID(ctx, id1)
	if err != nil || text != schema || typ != "AVRO" {
		t.Errorf("SchemaByID: %q %q %v", text, typ, err)
	}
	lid, ltext, ok, err := fresh.Latest(ctx, "orders-value")
	if err != nil || !ok || lid != id1 || ltext != schema {
		t.Errorf("Latest: %d %q %v %v", lid, ltext, ok, err)
	}
	if _, _, ok, err := fresh.Latest(ctx, "nobody-value"); ok || err != nil {
		t.Errorf("Latest of an unknown subject: %v %v", ok, err)
	}
	if _, _, err := fresh.SchemaByID(ctx, 12345); !errors.Is(err, ErrSchemaNotFound) {
		t.Errorf("SchemaByID of an unknown id: %v", err)
	}
	roundTrip(t, c1, row(t))
}

// orderWriter is an order schema of "another producer": other record
// names, an int id, an extra field with a default, no amount, micros
// timestamps, a nested record with its fields reordered plus one, and a
// map of records the table does not have.
const orderWriter = `{"type":"record","name":"Order","namespace":"com.acme","fields":[
	{"name":"extra","type":"string","default":"x"},
	{"name":"id","type":"int"},
	{"name":"name","type":["null","string"],"default":null},
	{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
	{"name":"tags","type":{"type":"array","items":"string"}},
	{"name":"r","type":{"type":"record","name":"Inner","fields":[
		{"name":"b","type":"string"},{"name":"z","type":["null","double"]},{"name":"a","type":"int"}]}},
	{"name":"misc","type":{"type":"map","values":{"type":"record","name":"Misc","fields":[
		{"name":"q","type":{"type":"array","items":["null","Misc"]}},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"f","type":{"type":"fixed","name":"F","size":3}}]}}}
]}`

func orderTable() *types.Schema {
	return types.NewSchema(f("id", "BIGINT"), f("name", "STRING"), f("amount", "DECIMAL(10, 2)"),
		f("ts", "TIMESTAMP(3)"), f("tags", "ARRAY<STRING>"), f("r", "ROW<a INT, b STRING>"))
}

func orderValue(name any, ns string) map[string]any {
	return map[string]any{
		"extra": "hello", "id": 7, "name": name, "ts": int64(1785574800123456),
		"tags": []any{"a", "b"},
		"r":    map[string]any{"b": "bee", "z": 1.5, "a": -3},
		"misc": map[string]any{"k": map[string]any{
			"q": []any{nil, map[string]any{ns + ".Misc": map[string]any{"q": []any{}, "e": "B", "f": [3]byte{1, 2, 3}}}},
			"e": "A", "f": [3]byte{4, 5, 6}}},
	}
}

func TestRegistryOtherProducer(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	s := orderTable()
	c := registryCodec(t, reg, "avro-confluent", s, "orders-value", true, nil)
	own, _ := c.SchemaID()
	wid, payload := produce(t, fake, "orders-value", orderWriter, orderValue("n", "com.acme"))
	if uint32(wid) == own {
		t.Fatal("the writer schema got the table's id")
	}
	want := []types.Value{types.NewInt(7), types.NewString("n"), types.Null,
		types.NewTimestamp(1785574800123 * 1e6), // micros truncated to TIMESTAMP(3)
		types.NewArray([]types.Value{types.NewString("a"), types.NewString("b")}),
		types.NewRow([]types.Value{types.NewInt(-3), types.NewString("bee")})}
	got, id, err := c.DecodeID(payload, nil)
	if err != nil || int(id) != wid || !sameRow(got, want) {
		t.Fatalf("other producer:\n got %v (id %d) %v\nwant %v", got, id, err, want)
	}
	// NULL through the writer's union; dst is appended to.
	_, payload = produce(t, fake, "orders-value", orderWriter, orderValue(nil, "com.acme"))
	want[1] = types.Null
	got, err = c.Decode(payload, []types.Value{types.NewInt(99)})
	if err != nil || !sameRow(got, append([]types.Value{types.NewInt(99)}, want...)) {
		t.Fatalf("null name: %v %v", got, err)
	}
	// Errors in the resolved body are *Errors with offsets in the payload.
	for i := 5; i < len(payload); i++ {
		_, err := c.Decode(payload[:i], nil)
		if e, ok := asFormatError(err); !ok || e.Offset < 5 || e.Format != "avro-confluent" {
			t.Fatalf("truncated at %d: %#v", i, err)
		}
	}
	if _, err := c.Decode(append(payload, 0), nil); err == nil || !strings.Contains(err.Error(), "left after") {
		t.Errorf("trailing byte: %v", err)
	}
}

func TestRegistryResolution(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	table := types.NewSchema(f("id", "BIGINT"), f("score", "DOUBLE"), f("d", "DECIMAL(10, 2)"), f("s", "STRING"), f("by", "BYTES NOT NULL"))
	c := registryCodec(t, reg, "avro-confluent", table, "res-value", true, nil)
	cases := []struct {
		name, writer string
		value        any
		want         []types.Value
		err          string // part of the *Error, "" for success
	}{
		{
			name: "promotions",
			writer: `{"type":"record","name":"W","fields":[{"name":"id","type":["null","int"]},{"name":"score","type":"float"},
				{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":3}},{"name":"s","type":"bytes"},{"name":"by","type":"string"}]}`,
			value: map[string]any{"id": 5, "score": float32(0.5), "d": big.NewRat(12345, 1000), "s": []byte("hé"), "by": "raw"},
			want:  []types.Value{types.NewInt(5), types.NewFloat(0.5), mustDec(t, "12.35"), types.NewString("hé"), types.NewBytes([]byte("raw"))},
		},
		{
			name:   "long union branch",
			writer: `{"type":"record","name":"W","fields":[{"name":"id","type":["null","long","string"]},{"name":"by","type":"bytes"}]}`,
			value:  map[string]any{"id": int64(1) << 40, "by": []byte{1}},
			want:   []types.Value{types.NewInt(1 << 40), types.Null, types.Null, types.Null, types.NewBytes([]byte{1})},
		},
		{
			name:   "string union branch cannot be read as BIGINT",
			writer: `{"type":"record","name":"W","fields":[{"name":"id","type":["null","long","string"]},{"name":"by","type":"bytes"}]}`,
			value:  map[string]any{"id": "x", "by": []byte{1}},
			err:    "union branch 2 (string)",
		},
		{
			name:   "NULL for a NOT NULL column",
			writer: `{"type":"record","name":"W","fields":[{"name":"by","type":["null","bytes"]}]}`,
			value:  map[string]any{"by": nil},
			err:    "NOT NULL",
		},
		{
			name:   "incompatible type",
			writer: `{"type":"record","name":"W","fields":[{"name":"id","type":"string"},{"name":"by","type":"bytes"}]}`,
			value:  map[string]any{"id": "x", "by": []byte{1}},
			err:    `column "id": the writer's string cannot be read as BIGINT`,
		},
		{
			name:   "missing NOT NULL column",
			writer: `{"type":"record","name":"W","fields":[{"name":"id","type":"long"}]}`,
			value:  map[string]any{"id": int64(1)},
			err:    `column "by" is NOT NULL`,
		},
		{
			name:   "not a record",
			writer: `"long"`,
			value:  int64(3),
			err:    "cannot be read as a record",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, payload := produce(t, fake, "other-value", tc.writer, tc.value)
			got, err := c.Decode(payload, nil)
			if tc.err == "" {
				if err != nil || !sameRow(got, tc.want) {
					t.Fatalf("got %v %v\nwant %v", got, err, tc.want)
				}
				return
			}
			if e, ok := asFormatError(err); !ok || !strings.Contains(e.Reason, tc.err) {
				t.Fatalf("error %v, want a *Error with %q", err, tc.err)
			}
		})
	}
	// A JSON schema id is a bad record for avro-confluent.
	jid, _, err := fake.RegisterSchema("j-value", sr.Schema{Schema: `{"type":"object"}`, Type: sr.TypeJSON})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Decode(append(AppendConfluentHeader(nil, uint32(jid)), 0), nil); err == nil || !strings.Contains(err.Error(), "JSON schema, not Avro") {
		t.Errorf("JSON writer schema: %v", err)
	}
}

// TestRegistryMatchesHamba checks the compiled resolution against hamba's
// generic resolution (the reference implementation): Resolve, then
// Unmarshal into generic values.
func TestRegistryMatchesHamba(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	s := orderTable()
	c := registryCodec(t, reg, "avro-confluent", s, "orders-value", true, nil)
	// hamba compares record names: use the table's.
	writer := strings.NewReplacer(`"name":"Order","namespace":"com.acme"`, `"name":"record","namespace":"org.apache.flink.avro.generated"`,
		`"name":"Inner"`, `"name":"record_r"`,
		// hamba (as Java) reads a writer's micros as the reader's millis;
		// Eddy converts units (TestRegistryOtherProducer).
		"timestamp-micros", "timestamp-millis").Replace(orderWriter)
	value := orderValue("n", AvroNamespace)
	value["ts"] = int64(1785574800123)
	_, payload := produce(t, fake, "orders-value", writer, value)
	got, err := c.Decode(payload, nil)
	if err != nil {
		t.Fatal(err)
	}
	derived, _ := AvroSchema(s)
	resolved, err := avro.NewSchemaCompatibility().Resolve(avro.MustParse(derived), avro.MustParse(writer))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]any
	if err := avro.Unmarshal(resolved, payload[5:], &ref); err != nil {
		t.Fatal(err)
	}
	unwrap := func(x any) any { // hamba returns unions of named types as {name: value}
		if m, ok := x.(map[string]any); ok && len(m) == 1 {
			for _, v := range m {
				return v
			}
		}
		return x
	}
	r := unwrap(ref["r"]).(map[string]any)
	checks := []struct {
		col  int
		want any
	}{
		{0, ref["id"]}, {1, ref["name"]}, {2, ref["amount"]}, {3, ref["ts"]}, {4, ref["tags"]}, {5, []any{r["a"], r["b"]}},
	}
	for _, ck := range checks {
		g := got[ck.col]
		w := unwrap(ck.want)
		ok := false
		switch x := w.(type) {
		case nil:
			ok = g.IsNull()
		case int64:
			ok = g.Int() == x
		case string:
			ok = g.Str() == x
		case time.Time:
			// hamba keeps the micros; the column is TIMESTAMP(3).
			ok = g.Int() == x.Truncate(time.Millisecond).UnixNano()
		case []any:
			ok = len(x) == len(g.Array()) || len(x) == len(g.Fields())
			for i, e := range x {
				var gv types.Value
				if g.Kind() == types.KindArray {
					gv = g.Array()[i]
				} else {
					gv = g.Fields()[i]
				}
				ok = ok && fmt.Sprint(unwrap(e)) == gv.String()
			}
		}
		if !ok {
			t.Errorf("column %s: got %v, hamba %#v", s.Fields[ck.col].Name, g, w)
		}
	}
}

func TestRegistryBadRecords(t *testing.T) {
	_, reg := fakeRegistry(t, nil)
	s, row := orderEvents()
	c := registryCodec(t, reg, "avro-confluent", s, "orders-value", true, nil)
	b, err := c.Encode(nil, row(t))
	if err != nil {
		t.Fatal(err)
	}
	unknown := append(AppendConfluentHeader(nil, 999), b[5:]...)
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{"unknown id", unknown, "unknown schema id 999"},
		{"bad magic", append([]byte{1}, b[1:]...), "magic byte is 1"},
		{"short", b[:3], "shorter than the 5-byte"},
		{"truncated body", b[:len(b)-1], "truncated"},
	} {
		_, err := c.Decode(tc.payload, nil)
		if e, ok := asFormatError(err); !ok || !strings.Contains(e.Reason, tc.want) {
			t.Errorf("%s: %#v, want a *Error with %q", tc.name, err, tc.want)
		}
	}
	// The not-found answer is cached for a while: no request per record.
	if _, err := c.Decode(unknown, nil); err == nil {
		t.Error("unknown id decoded")
	}
}

func TestRegistryUnavailable(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	s, row := orderEvents()
	c := registryCodec(t, reg, "avro-confluent", s, "orders-value", true, nil)
	own, _ := c.Encode(nil, row(t))
	writer := `{"type":"record","name":"O","fields":[{"name":"order_id","type":"int"}]}`
	_, payload := produce(t, fake, "orders-value", writer, map[string]any{"order_id": 3})

	// A registry that answers 503: an infrastructure error, not a *Error,
	// and not cached.
	fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	_, err := c.Decode(payload, nil)
	if err == nil {
		t.Fatal("decoded without the registry")
	}
	if _, ok := asFormatError(err); ok {
		t.Fatalf("registry failure reported as a bad record: %v", err)
	}
	if got, err := c.Decode(own, nil); err != nil || !sameRow(got, row(t)) {
		t.Errorf("own id needs no registry: %v %v", got, err)
	}
	fake.ClearInterceptors()
	if got, err := c.Decode(payload, nil); err != nil || !sameRow(got, []types.Value{types.NewInt(3), types.Null, types.Null}) {
		t.Errorf("after recovery: %v %v", got, err)
	}

	// A registry that is gone.
	lazy := registryCodec(t, reg, "avro-confluent", s, "new-value", false, nil)
	_, payload2 := produce(t, fake, "orders-value", `{"type":"record","name":"O2","fields":[{"name":"status","type":"string"}]}`, map[string]any{"status": "x"})
	fake.Close()
	_, err = c.Decode(payload2, nil)
	if err == nil {
		t.Fatal("decoded with a closed registry")
	}
	if _, ok := asFormatError(err); ok {
		t.Fatalf("closed registry reported as a bad record: %v", err)
	}
	if got, err := c.Decode(payload, nil); err != nil || got[0].Int() != 3 {
		t.Errorf("a known writer schema needs no registry: %v %v", got, err)
	}
	// Lazy registration fails the same way.
	if _, err := lazy.Encode(nil, row(t)); err == nil {
		t.Error("registered with a closed registry")
	} else if _, ok := asFormatError(err); ok {
		t.Errorf("failed registration reported as a bad value: %v", err)
	}
}

func TestRegistryConcurrentLookups(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	var lookups atomic.Int32
	fake.Intercept(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasPrefix(r.URL.Path, "/schemas/ids/") {
			lookups.Add(1)
			time.Sleep(20 * time.Millisecond) // let the decoders pile up
		}
		return false
	})
	s, _ := orderEvents()
	c := registryCodec(t, reg, "avro-confluent", s, "orders-value", true, nil)
	writer := `{"type":"record","name":"O","fields":[{"name":"status","type":"string"},{"name":"order_id","type":"long"}]}`
	_, payload := produce(t, fake, "orders-value", writer, map[string]any{"status": "S", "order_id": int64(9)})
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				got, err := c.Decode(payload, nil)
				if err != nil || got[0].Int() != 9 || got[1].Str() != "S" {
					t.Errorf("decode: %v %v", got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := lookups.Load(); n != 1 {
		t.Errorf("%d schema lookups, want 1", n)
	}
}

func TestRegistryJSON(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	s := types.NewSchema(f("order_id", "BIGINT NOT NULL"), f("status", "VARCHAR(10)"), f("ts", "TIMESTAMP(3)"),
		f("tags", "ARRAY<INT>"), f("m", "MAP<STRING, DOUBLE>"), f("r", "ROW<a BOOLEAN NOT NULL, b BYTES>"), f("d", "DATE"), f("dec", "DECIMAL(5, 1)"))
	c := registryCodec(t, reg, "json-registry", s, "orders-value", true, map[string]string{"json.timestamp-format.standard": "ISO-8601"})
	id, _ := c.SchemaID()
	ss, found := fake.GetSchema("orders-value", 1)
	want, _ := JSONSchema(s)
	if !found || ss.Type != sr.TypeJSON || ss.Schema.Schema != want || ss.ID != int(id) {
		t.Fatalf("registered %+v", ss)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(want), &doc); err != nil {
		t.Fatalf("JSON schema is not JSON: %v\n%s", err, want)
	}
	if doc["type"] != "object" || fmt.Sprint(doc["required"]) != "[order_id]" {
		t.Errorf("schema: %s", want)
	}
	props := doc["properties"].(map[string]any)
	if got := fmt.Sprint(props["order_id"]); got != "map[connect.type:int64 type:integer]" {
		t.Errorf("order_id: %s", got)
	}
	if got := fmt.Sprint(props["status"]); got != "map[oneOf:[map[type:null] map[maxLength:10 type:string]]]" {
		t.Errorf("status: %s", got)
	}
	vals := []types.Value{types.NewInt(1), types.NewString("PLACED"), mustTS(t, "2026-08-01 09:00:00.5"),
		types.NewArray([]types.Value{types.NewInt(1), types.Null}), types.NewMap([]types.MapEntry{{Key: types.NewString("k"), Val: types.NewFloat(0.25)}}),
		types.NewRow([]types.Value{types.NewBool(true), types.NewBytes([]byte{0, 1})}), types.NewDate(3), mustDec(t, "12.5")}
	b := roundTrip(t, c, vals)
	if !bytes.HasPrefix(b, append(AppendConfluentHeader(nil, id), `{"order_id":1,"status":"PLACED","ts":"2026-08-01T09:00:00.5"`...)) {
		t.Errorf("payload %q", b)
	}
	roundTrip(t, c, nullValues(s))
	// Another source codec finds the registered schema; any id decodes.
	src := registryCodec(t, reg, "json-registry", s, "orders-value", false, nil)
	if sid, ok := src.SchemaID(); !ok || sid != id {
		t.Errorf("source id %d %v", sid, ok)
	}
	other := append(AppendConfluentHeader(nil, 4242), b[5:]...)
	if got, err := src.Decode(other, nil); err != nil || !sameRow(got, vals) {
		t.Errorf("json body with another id: %v %v", got, err)
	}
	if _, err := src.Decode([]byte{0, 0, 0, 0, 1, '{'}, nil); err == nil {
		t.Error("bad json decoded")
	} else if e, ok := asFormatError(err); !ok || e.Format != "json-registry" || (e.Offset >= 0 && e.Offset < 5) {
		t.Errorf("bad json: %#v", err)
	}
	// A JSON schema is never taken for an Avro one.
	ac, err := NewRegistryCodec(context.Background(), "avro-confluent", s.Fields, nil, RegistryOptions{Registry: reg, Subject: "orders-value"})
	if err != nil {
		t.Fatal(err)
	}
	if aid, ok := ac.(*RegistryCodec).SchemaID(); ok {
		t.Errorf("avro codec took JSON schema %d", aid)
	}
}

func TestRegistryAuth(t *testing.T) {
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:pa:ss"))
	fake, reg := fakeRegistry(t, map[string]string{"basic-auth.user-info": "user:pa:ss"}, srfake.WithAuth(basic))
	s, row := orderEvents()
	c := registryCodec(t, reg, "avro-confluent", s, "orders-value", true, nil)
	roundTrip(t, c, row(t))
	// Without or with wrong credentials: an error from the registry.
	for _, opts := range []map[string]string{nil, {"basic-auth.user-info": "user:wrong"}, {"bearer-auth.token": "tok"}} {
		r2, err := NewRegistry(fake.URL(), opts)
		if err != nil {
			t.Fatal(err)
		}
		_, err = NewRegistryCodec(context.Background(), "avro-confluent", s.Fields, nil, RegistryOptions{Registry: r2, Subject: "x-value", Register: true})
		if err == nil {
			t.Errorf("credentials %v accepted", opts)
		}
	}
	// The registry is built from the options when the caller has none.
	c2, err := NewRegistryCodec(context.Background(), "avro-confluent", s.Fields,
		map[string]string{"avro-confluent.url": fake.URL(), "avro-confluent.basic-auth.user-info": "user:pa:ss", "avro-confluent.subject": "y-value"},
		RegistryOptions{Register: true})
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, c2, row(t))
	// Bearer tokens.
	bfake, breg := fakeRegistry(t, map[string]string{"bearer-auth.token": "tok"}, srfake.WithAuth("Bearer tok"))
	_ = bfake
	roundTrip(t, registryCodec(t, breg, "avro-confluent", s, "orders-value", true, nil), row(t))
	if _, err := NewRegistry("http://x", map[string]string{"basic-auth.user-info": "nocolon"}); err == nil {
		t.Error("user-info without a colon accepted")
	}
	if _, err := NewRegistry(" ", nil); err == nil {
		t.Error("empty URL accepted")
	}
}

func TestRegistryOptions(t *testing.T) {
	fake, reg := fakeRegistry(t, nil)
	ctx := context.Background()
	s, row := orderEvents()
	derived, _ := AvroSchema(s)

	// A source before any producer: nothing registered until Encode.
	src := registryCodec(t, reg, "avro-confluent", s, "lazy-value", false, nil)
	if _, ok := src.SchemaID(); ok || fake.SubjectExists("lazy-value") {
		t.Fatal("a source registered a schema")
	}
	b := roundTrip(t, src, row(t))
	if id, ok := src.SchemaID(); !ok || !bytes.Equal(b[:5], AppendConfluentHeader(nil, id)) || !fake.SubjectExists("lazy-value") {
		t.Errorf("lazy registration: %d %v", id, ok)
	}

	// The latest schema matches up to record names: used, not re-registered.
	renamed := strings.Replace(derived, `"name":"record","namespace":"org.apache.flink.avro.generated"`, `"name":"Order","namespace":"com.acme","doc":"d"`, 1)
	rid, _, err := fake.RegisterSchema("renamed-value", sr.Schema{Schema: renamed})
	if err != nil {
		t.Fatal(err)
	}
	rc := registryCodec(t, reg, "avro-confluent", s, "renamed-value", false, nil)
	if id, ok := rc.SchemaID(); !ok || int(id) != rid {
		t.Errorf("renamed latest: %d %v, want %d", id, ok, rid)
	}
	// And records with it take the fast path (same layout).
	if p, err := registryCodec(t, reg, "avro-confluent", s, "z-value", true, nil).plan(uint32(rid)); err != nil || p.prog != nil || p.err != nil {
		t.Errorf("renamed writer schema plan: %+v %v", p, err)
	}

	// auto.register.schemas = false.
	noAuto := map[string]string{"avro-confluent.auto.register.schemas": "false"}
	if _, err := NewRegistryCodec(ctx, "avro-confluent", s.Fields, noAuto, RegistryOptions{Registry: reg, Subject: "none-value", Register: true}); err == nil || !strings.Contains(err.Error(), "auto.register.schemas") {
		t.Errorf("no auto registration for a sink: %v", err)
	}
	na := registryCodec(t, reg, "avro-confluent", s, "none-value", false, noAuto)
	if _, err := na.Encode(nil, row(t)); err == nil || !strings.Contains(err.Error(), "auto.register.schemas") {
		t.Errorf("encode without auto registration: %v", err)
	}
	na2 := registryCodec(t, reg, "avro-confluent", s, "renamed-value", true, noAuto)
	if id, _ := na2.SchemaID(); int(id) != rid {
		t.Errorf("no auto registration, matching latest: %d", id)
	}

	// Option 'schema': an explicit writer schema of the same layout.
	sc := registryCodec(t, reg, "avro-confluent", s, "explicit-value", true, map[string]string{"avro-confluent.schema": renamed})
	if ss, _ := fake.GetSchema("explicit-value", 1); ss.Schema.Schema != renamed {
		t.Errorf("registered %q", ss.Schema.Schema)
	}
	roundTrip(t, sc, row(t))
	if _, err := NewRegistryCodec(ctx, "avro-confluent", s.Fields, map[string]string{"schema": `{"type":"record","name":"x","fields":[{"name":"order_id","type":"long"}]}`},
		RegistryOptions{Registry: reg, Subject: "bad-value", Register: true}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("mismatching option 'schema': %v", err)
	}

	// Option 'schema-id'.
	fixed := registryCodec(t, reg, "avro-confluent", s, "fixed-value", true, map[string]string{"schema-id": fmt.Sprint(rid)})
	if b := roundTrip(t, fixed, row(t)); !bytes.Equal(b[:5], AppendConfluentHeader(nil, uint32(rid))) || fake.SubjectExists("fixed-value") {
		t.Errorf("schema-id: header %x", b[:5])
	}
	for _, v := range []string{"777", "x"} {
		if _, err := NewRegistryCodec(ctx, "avro-confluent", s.Fields, map[string]string{"schema-id": v}, RegistryOptions{Registry: reg, Subject: "f-value"}); err == nil {
			t.Errorf("schema-id %s accepted", v)
		}
	}
	other, _, _ := fake.RegisterSchema("o-value", sr.Schema{Schema: `{"type":"record","name":"x","fields":[{"name":"order_id","type":"int"}]}`})
	if _, err := NewRegistryCodec(ctx, "avro-confluent", s.Fields, map[string]string{"schema-id": fmt.Sprint(other)}, RegistryOptions{Registry: reg, Subject: "f-value"}); err == nil {
		t.Error("schema-id of another layout accepted")
	}

	// Misuse.
	for _, tc := range []struct {
		format string
		opts   map[string]string
		ro     RegistryOptions
		want   string
	}{
		{"avro", nil, RegistryOptions{Registry: reg, Subject: "s"}, "does not use a schema registry"},
		{"avro-confluent", nil, RegistryOptions{Registry: reg}, "subject"},
		{"avro-confluent", map[string]string{"subject": "s"}, RegistryOptions{}, "URL"},
		{"avro-confluent", map[string]string{"avro-confluent.urll": "x"}, RegistryOptions{Registry: reg, Subject: "s"}, "unknown option"},
	} {
		if _, err := NewRegistryCodec(ctx, tc.format, s.Fields, tc.opts, tc.ro); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want %q", tc.format, tc.opts, err, tc.want)
		}
	}
}
