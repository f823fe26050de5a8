package engine_test

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/types"
	"github.com/hamba/avro/v2"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// TestKafka runs testdata/kafka/* against an in-process Kafka and schema
// registry (kfake and srfake, started per file). Besides the commands of
// TestSQL (whose input may use ${BOOTSTRAP} and ${REGISTRY}):
//
//	produce topic=T [partition=P] [header=K:V]...
//	             produce one record per line with a plain franz-go client,
//	             "key|value" (either may be "null"; a key "int:N" is N as
//	             a 4-byte big-endian INT, as Flink's raw format writes it)
//	produce-avro topic=T subject=S
//	             the first line is an Avro schema, registered under S by
//	             the plain client; each further line is "key|json" with
//	             the key as above and the value a JSON object encoded with
//	             that schema behind the Confluent header
//	consume topic=T [isolation=read_uncommitted] [value=avro|hex|string] [key=int|string|hex]
//	             read the whole topic back with a plain client (read
//	             committed by default) and print each record
func TestKafka(t *testing.T) {
	datadriven.Walk(t, "testdata/kafka", func(t *testing.T, path string) {
		k := newKafkaHarness(t)
		datadriven.RunTest(t, path, k.run)
	})
}

type kafkaHarness struct {
	*harness
	kc *devkafka.Cluster
}

func newKafkaHarness(t *testing.T) *kafkaHarness {
	kc, err := devkafka.Start(t.Context(), devkafka.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { kc.Close() })
	return &kafkaHarness{harness: newHarness(t, true), kc: kc}
}

func (k *kafkaHarness) subst(s string) string {
	return strings.NewReplacer("${BOOTSTRAP}", k.kc.Bootstrap(), "${REGISTRY}", k.kc.RegistryURL()).Replace(s)
}

func (k *kafkaHarness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "produce":
		return k.produce(t, d, false)
	case "produce-avro":
		return k.produce(t, d, true)
	case "consume":
		return k.consume(t, d)
	}
	d.Input = k.subst(d.Input)
	out := k.harness.run(t, d)
	// The addresses change with every run.
	return strings.NewReplacer(k.kc.Bootstrap(), "${BOOTSTRAP}", k.kc.RegistryURL(), "${REGISTRY}").Replace(out)
}

func (k *kafkaHarness) client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(k.kc.Bootstrap())}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

func parseBytes(s string) []byte {
	switch {
	case s == "null":
		return nil
	case strings.HasPrefix(s, "int:"):
		n, _ := strconv.ParseInt(s[4:], 10, 32)
		return binary.BigEndian.AppendUint32(nil, uint32(n))
	case strings.HasPrefix(s, "hex:"):
		b, _ := hex.DecodeString(s[4:])
		return b
	}
	return []byte(s)
}

func (k *kafkaHarness) produce(t *testing.T, d *datadriven.TestData, isAvro bool) string {
	var topic string
	d.ScanArgs(t, "topic", &topic)
	lines := strings.Split(strings.TrimSpace(d.Input), "\n")
	var schema avro.Schema
	var id int
	if isAvro {
		var subject string
		d.ScanArgs(t, "subject", &subject)
		rc, err := sr.NewClient(sr.URLs(k.kc.RegistryURL()))
		require.NoError(t, err)
		ss, err := rc.CreateSchema(t.Context(), subject, sr.Schema{Schema: lines[0], Type: sr.TypeAvro})
		require.NoError(t, err)
		id = ss.ID
		schema, err = avro.Parse(lines[0])
		require.NoError(t, err)
		lines = lines[1:]
	}
	var recs []*kgo.Record
	for _, line := range lines {
		key, val, ok := strings.Cut(line, "|")
		if !ok {
			d.Fatalf(t, "want key|value, got %q", line)
		}
		r := &kgo.Record{Topic: topic, Key: parseBytes(key), Value: parseBytes(val)}
		if isAvro && val != "null" {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(val), &m))
			body, err := avro.Marshal(schema, avroNative(schema, m))
			require.NoError(t, err, "encoding %s", val)
			r.Value = append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), body...)
		}
		if d.HasArg("partition") {
			var p int
			d.ScanArgs(t, "partition", &p)
			r.Partition = int32(p)
		}
		for _, a := range d.CmdArgs {
			if a.Key == "header" {
				for _, v := range a.Vals {
					hk, hv, _ := strings.Cut(v, ":")
					r.Headers = append(r.Headers, kgo.RecordHeader{Key: hk, Value: parseBytes(hv)})
				}
			}
		}
		recs = append(recs, r)
	}
	cl := k.client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, cl.ProduceSync(t.Context(), recs...).FirstErr())
	return fmt.Sprintf("produced %d records\n", len(recs))
}

// avroNative converts JSON-decoded values to what hamba/avro encodes:
// numbers to the schema's int/long/double, RFC 3339 strings to times.
func avroNative(s avro.Schema, m map[string]any) map[string]any {
	rs := s.(*avro.RecordSchema)
	out := map[string]any{}
	for _, f := range rs.Fields() {
		v, ok := m[f.Name()]
		if !ok {
			continue
		}
		ft := f.Type()
		if u, isUnion := ft.(*avro.UnionSchema); isUnion {
			if v == nil {
				out[f.Name()] = nil
				continue
			}
			for _, x := range u.Types() {
				if x.Type() != avro.Null {
					ft = x
				}
			}
		}
		out[f.Name()] = nativeValue(ft, v)
	}
	return out
}

func nativeValue(s avro.Schema, v any) any {
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		switch ls.Logical().Type() {
		case avro.TimestampMillis, avro.TimestampMicros:
			ts, err := time.Parse(time.RFC3339Nano, v.(string))
			if err != nil {
				panic(err)
			}
			return ts.UTC()
		}
	}
	switch s.Type() {
	case avro.Int:
		return int(v.(float64))
	case avro.Long:
		return int64(v.(float64))
	case avro.Float:
		return float32(v.(float64))
	}
	return v
}

func (k *kafkaHarness) consume(t *testing.T, d *datadriven.TestData) string {
	var topic string
	d.ScanArgs(t, "topic", &topic)
	iso := kgo.ReadCommitted()
	if d.HasArg("isolation") {
		var s string
		d.ScanArgs(t, "isolation", &s)
		if s == "read_uncommitted" {
			iso = kgo.ReadUncommitted()
		}
	}
	valueAs, keyAs := "string", "string"
	if d.HasArg("value") {
		d.ScanArgs(t, "value", &valueAs)
	}
	if d.HasArg("key") {
		d.ScanArgs(t, "key", &keyAs)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	adm := kadm.NewClient(k.client(t))
	var ends kadm.ListedOffsets
	var err error
	if iso == kgo.ReadCommitted() {
		ends, err = adm.ListCommittedOffsets(ctx, topic)
	} else {
		ends, err = adm.ListEndOffsets(ctx, topic)
	}
	require.NoError(t, err)
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { want[o.Partition] = o.Offset })
	cl := k.client(t, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords())
	got := map[int32]int64{}
	var recs []*kgo.Record
	done := func() bool {
		for p, o := range want {
			if got[p] < o {
				return false
			}
		}
		return true
	}
	for !done() {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "reading %s: have %v, want %v", topic, got, want)
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Partition] = r.Offset + 1
			if !r.Attrs.IsControl() {
				recs = append(recs, r)
			}
		})
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Partition != recs[j].Partition {
			return recs[i].Partition < recs[j].Partition
		}
		return recs[i].Offset < recs[j].Offset
	})
	var b strings.Builder
	rc, _ := sr.NewClient(sr.URLs(k.kc.RegistryURL()))
	for _, r := range recs {
		fmt.Fprintf(&b, "p%d key=%s value=%s", r.Partition, showBytes(r.Key, keyAs), k.showValue(t, rc, r.Value, valueAs))
		for _, h := range r.Headers {
			fmt.Fprintf(&b, " %s=%s", h.Key, showBytes(h.Value, "auto"))
		}
		b.WriteString("\n")
	}
	if len(recs) == 0 {
		b.WriteString("(empty)\n")
	}
	return b.String()
}

func showBytes(b []byte, as string) string {
	switch {
	case b == nil:
		return "null"
	case as == "int" && len(b) == 4:
		return strconv.Itoa(int(int32(binary.BigEndian.Uint32(b))))
	case as == "hex", as == "auto" && (!utf8.Valid(b) || len(b) == 1):
		return "hex:" + hex.EncodeToString(b)
	}
	return string(b)
}

// showValue prints a value; "avro" decodes the Confluent wire format with
// the writer schema fetched from the registry, as any consumer would.
func (k *kafkaHarness) showValue(t *testing.T, rc *sr.Client, b []byte, as string) string {
	if as != "avro" || b == nil {
		return showBytes(b, as)
	}
	require.True(t, len(b) > 5 && b[0] == 0, "not the Confluent wire format: %x", b)
	id := int(binary.BigEndian.Uint32(b[1:5]))
	ss, err := rc.SchemaByID(t.Context(), id)
	require.NoError(t, err)
	schema, err := avro.Parse(ss.Schema)
	require.NoError(t, err)
	var v any
	require.NoError(t, avro.Unmarshal(schema, b[5:], &v))
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return string(out)
}

// TestKafkaTutorial runs docs/tutorial/order_status_kafka.sql, as written
// but for the two addresses, against an in-process Kafka: its table and
// changelog results must match the acceptance expectations.
func TestKafkaTutorial(t *testing.T) {
	src, err := os.ReadFile("../../docs/tutorial/order_status_kafka.sql")
	require.NoError(t, err)
	k := newKafkaHarness(t)
	text := strings.NewReplacer("127.0.0.1:9092", k.kc.Bootstrap(), "http://127.0.0.1:8081", k.kc.RegistryURL()).Replace(string(src))
	n := 0
	for _, st := range cli.Split(text) {
		res, err := k.execute(t, st)
		require.NoError(t, err, "%s", st.Text)
		if res.Rows == nil {
			continue
		}
		n++
		ctx, cancel := context.WithTimeout(t.Context(), statementTimeout)
		var rows []types.Row
		for {
			r, ok, err := res.Rows.Next(ctx)
			require.NoError(t, err)
			if !ok {
				break
			}
			rows = append(rows, r)
		}
		cancel()
		closeStream(res.Rows)
		require.NoError(t, checkExpected(fmt.Sprintf("order_status:%d", n), k.resultMode(), res.Rows, rows))
	}
	require.Equal(t, 2, n, "the tutorial has two queries")
}
