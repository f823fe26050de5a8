package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/types"
)

// The Kafka benchmarks run a stateful PTF between two Kafka topics of an
// in-process broker (kfake, through devkafka) and a schema registry
// (srfake), next to a hand-written franz-go loop doing the same work. See
// docs/performance.md, "Kafka → PTF → Kafka".
//
//	go test -run '^$' -bench 'KafkaPTFKafka|FranzLoop' -benchtime 1x -count 2 ./internal/engine/
//
// BenchmarkKafkaPTFKafka/{json,avro}/{exactly-once,at-least-once}/p{1,2}
// measures, on a fresh engine per run, the statement
//
//	INSERT INTO enriched
//	SELECT order_id, event_type, event_time, EXPR$0
//	FROM PassThroughEnrich(input => TABLE order_events PARTITION BY order_id)
//
// from its submission until its job has ended: order_events is a 'kafka'
// table with 'scan.bounded.mode' = 'latest-offset' over kbEvents
// pre-produced events, so the continuous job completes once it has read
// them and committed its last checkpoint (and, exactly-once, its last
// transaction). enriched is a 'kafka' table with the sub-benchmark's
// 'sink.delivery-guarantee'. Checkpoints every kbInterval.
//
// BenchmarkFranzLoop/... is the practical upper bound on the same input:
// consume, decode (encoding/json or hamba/avro), count per key in a Go map,
// encode and produce with plain franz-go clients; exactly-once commits one
// transaction per kbInterval, at-least-once flushes its idempotent producer
// as often. It keeps no durable state and commits no input offsets.
//
// Both check the output afterwards, outside the timer: the output topic
// read with read_committed must hold exactly kbEvents records whose counts
// sum to the expected total.
const (
	kbEvents = 200_000
	kbKeys   = 20_000
	// kbInterval is the checkpoint interval of the Eddy job and the
	// transaction (or flush) interval of the hand loop.
	kbInterval = 100 * time.Millisecond
	kbSeed1    = 20261129
	kbSeed2    = 7
	kbTSLayout = "2006-01-02 15:04:05.000"
)

// kbInSchema is the Avro writer schema of the input records, as a
// producer would declare it (no nullable unions). Its layout is the one
// Eddy derives from the NOT NULL columns of order_events.
const kbInSchema = `{"type":"record","name":"OrderEvent","namespace":"bench","fields":[
{"name":"order_id","type":"int"},
{"name":"event_type","type":"string"},
{"name":"event_time","type":{"type":"long","logicalType":"timestamp-millis"}}]}`

type kbEvent struct {
	id  int32
	typ string
	ts  time.Time
}

var kbTypes = [...]string{"PLACED", "FULFILLED", "SHIPPED", "DELIVERED", "CANCELED"}

// kbData returns the events (uniform over kbKeys order ids, one
// millisecond apart) and the expected sum of the output's counts: every
// key with n events emits the counts 1..n.
var kbData = sync.OnceValues(func() ([]kbEvent, int64) {
	r := rand.New(rand.NewPCG(kbSeed1, kbSeed2))
	base := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	events := make([]kbEvent, kbEvents)
	per := make([]int64, kbKeys)
	for i := range events {
		id := r.IntN(kbKeys)
		per[id]++
		events[i] = kbEvent{id: int32(id), typ: kbTypes[r.IntN(len(kbTypes))], ts: base.Add(time.Duration(i) * time.Millisecond)}
	}
	var sum int64
	for _, n := range per {
		sum += n * (n + 1) / 2
	}
	return events, sum
})

// JSON and Avro rows of the hand loop.
type kbJSONIn struct {
	OrderID   int32  `json:"order_id"`
	EventType string `json:"event_type"`
	EventTime string `json:"event_time"`
}

type kbJSONOut struct {
	OrderID   int32  `json:"order_id"`
	EventType string `json:"event_type"`
	EventTime string `json:"event_time"`
	Cnt       int64  `json:"cnt"`
}

type kbAvroIn struct {
	OrderID   int32     `avro:"order_id"`
	EventType string    `avro:"event_type"`
	EventTime time.Time `avro:"event_time"`
}

// kbAvroOut matches the schema Eddy derives from enriched's (nullable)
// columns.
type kbAvroOut struct {
	OrderID   *int32     `avro:"order_id"`
	EventType *string    `avro:"event_type"`
	EventTime *time.Time `avro:"event_time"`
	Cnt       *int64     `avro:"cnt"`
}

// kbOutColumns are the columns of enriched.
const kbOutColumns = "order_id INT, event_type STRING, event_time TIMESTAMP(3), cnt BIGINT"

// kbOutSchema is the Avro schema Eddy derives from kbOutColumns; the hand
// loop writes with it too.
var kbOutSchema = sync.OnceValues(func() (string, error) {
	var fields []types.Field
	for _, c := range strings.Split(kbOutColumns, ", ") {
		name, typ, _ := strings.Cut(c, " ")
		t, err := types.ParseType(typ)
		if err != nil {
			return "", err
		}
		fields = append(fields, types.Field{Name: name, Type: t})
	}
	return format.AvroSchema(types.NewSchema(fields...))
})

// kbCluster is the broker and registry shared by all runs of the process,
// with the pre-produced input topics. Its goroutines carry the profiler
// label kafka=kfake (pprof -tagfocus kafka=kfake), so a CPU profile tells
// the broker's share of the process CPU apart.
type kbCluster struct {
	kc  *devkafka.Cluster
	cl  *kgo.Client
	adm *kadm.Client
	rc  *sr.Client

	mu     sync.Mutex
	inputs map[string]*kbInput
	outs   atomic.Int64
}

// kbInput is a pre-produced input topic.
type kbInput struct {
	topic    string
	parts    int
	schemaID int // avro: the writer schema's registry id
	ends     map[int32]int64
}

// The cluster is started once and never closed: it lives as long as the
// test binary (output topics are deleted after each run).
var kbShared = sync.OnceValues(func() (*kbCluster, error) {
	var k *kbCluster
	var err error
	pprof.Do(context.Background(), pprof.Labels("kafka", "kfake"), func(ctx context.Context) {
		var kc *devkafka.Cluster
		if kc, err = devkafka.Start(ctx, devkafka.Options{}); err != nil {
			return
		}
		k = &kbCluster{kc: kc, inputs: map[string]*kbInput{}}
	})
	if err != nil {
		return nil, err
	}
	if k.cl, err = kgo.NewClient(kgo.SeedBrokers(k.kc.Bootstrap()), kgo.RecordPartitioner(kgo.ManualPartitioner())); err != nil {
		return nil, err
	}
	k.adm = kadm.NewClient(k.cl)
	if k.rc, err = sr.NewClient(sr.URLs(k.kc.RegistryURL())); err != nil {
		return nil, err
	}
	return k, nil
})

func kbGet(b *testing.B) *kbCluster {
	k, err := kbShared()
	if err != nil {
		b.Fatal(err)
	}
	return k
}

func kbKey(id int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(id)) }

// input returns the input topic of a format and partition count,
// producing it on first use: key = the order id as a 4-byte big-endian
// INT, partition = id mod parts, value = a JSON object or a
// Confluent-framed Avro record.
func (k *kbCluster) input(b *testing.B, fmtName string, parts int) *kbInput {
	k.mu.Lock()
	defer k.mu.Unlock()
	name := fmt.Sprintf("kb-in-%s-p%d", fmtName, parts)
	if in := k.inputs[name]; in != nil {
		return in
	}
	ctx := context.Background()
	in := &kbInput{topic: name, parts: parts}
	if _, err := k.adm.CreateTopic(ctx, int32(parts), 1, nil, name); err != nil {
		b.Fatal(err)
	}
	var schema avro.Schema
	if fmtName == "avro" {
		ss, err := k.rc.CreateSchema(ctx, name+"-value", sr.Schema{Schema: kbInSchema, Type: sr.TypeAvro})
		if err != nil {
			b.Fatal(err)
		}
		in.schemaID = ss.ID
		schema = avro.MustParse(kbInSchema)
	}
	events, _ := kbData()
	var perr atomic.Value
	for _, ev := range events {
		r := &kgo.Record{Topic: name, Partition: ev.id % int32(parts), Key: kbKey(ev.id), Timestamp: ev.ts}
		var err error
		switch fmtName {
		case "json":
			r.Value, err = json.Marshal(kbJSONIn{OrderID: ev.id, EventType: ev.typ, EventTime: ev.ts.Format(kbTSLayout)})
		case "avro":
			r.Value = format.AppendConfluentHeader(nil, uint32(in.schemaID))
			var body []byte
			body, err = avro.Marshal(schema, kbAvroIn{OrderID: ev.id, EventType: ev.typ, EventTime: ev.ts})
			r.Value = append(r.Value, body...)
		}
		if err != nil {
			b.Fatal(err)
		}
		k.cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				perr.CompareAndSwap(nil, err)
			}
		})
	}
	if err := k.cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if err, _ := perr.Load().(error); err != nil {
		b.Fatalf("producing %s: %v", name, err)
	}
	ends, err := k.adm.ListEndOffsets(ctx, name)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		b.Fatal(err)
	}
	in.ends = map[int32]int64{}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { in.ends[o.Partition] = o.Offset; total += o.Offset })
	if total != kbEvents {
		b.Fatalf("%s holds %d records, want %d", name, total, kbEvents)
	}
	k.inputs[name] = in
	return in
}

// outTopic returns a new output topic name.
func (k *kbCluster) outTopic(prefix string) string {
	return fmt.Sprintf("kb-out-%s-%d", prefix, k.outs.Add(1))
}

// check reads an output topic back with read_committed and checks that it
// holds exactly kbEvents records whose counts sum to want; then it deletes
// the topic (kfake keeps everything in the process's memory).
func (k *kbCluster) check(b *testing.B, topic, fmtName string, want int64) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	defer func() {
		if _, err := k.adm.DeleteTopics(context.Background(), topic); err != nil {
			b.Logf("deleting %s: %v", topic, err)
		}
		_, _ = k.rc.DeleteSubject(context.Background(), topic+"-value", sr.HardDelete)
	}()
	lso, err := k.adm.ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = lso.Error()
	}
	if err != nil {
		b.Fatal(err)
	}
	ends := map[int32]int64{}
	offsets := map[int32]kgo.Offset{}
	lso.Each(func(o kadm.ListedOffset) {
		ends[o.Partition] = o.Offset
		offsets[o.Partition] = kgo.NewOffset().AtStart()
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.kc.Bootstrap()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	schemas := map[uint32]avro.Schema{}
	got := map[int32]int64{}
	var n, sum int64
	done := func() bool {
		for p, o := range ends {
			if got[p] < o {
				return false
			}
		}
		return true
	}
	for !done() {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			b.Fatalf("reading %s back: at %v of %v", topic, got, ends)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			b.Fatalf("reading %s back: %v", topic, ferr)
		}
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Partition] = r.Offset + 1
			if r.Attrs.IsControl() || ferr != nil {
				return
			}
			n++
			switch fmtName {
			case "json":
				var v kbJSONOut
				ferr = json.Unmarshal(r.Value, &v)
				sum += v.Cnt
			case "avro":
				id, body, err := format.ConfluentHeader(r.Value)
				if err != nil {
					ferr = err
					return
				}
				s := schemas[id]
				if s == nil {
					text, err := k.rc.SchemaByID(ctx, int(id))
					if err != nil {
						ferr = err
						return
					}
					if s, ferr = avro.Parse(text.Schema); ferr != nil {
						return
					}
					schemas[id] = s
				}
				var v kbAvroOut
				if ferr = avro.Unmarshal(s, body, &v); ferr == nil && v.Cnt != nil {
					sum += *v.Cnt
				}
			}
		})
		if ferr != nil {
			b.Fatalf("decoding %s: %v", topic, ferr)
		}
	}
	if n != kbEvents || sum != want {
		b.Fatalf("%s holds %d committed records with counts summing to %d, want %d and %d", topic, n, sum, kbEvents, want)
	}
}

// kbMeter wraps pipelineMeter with the event count of these benchmarks.
type kbMeter struct {
	pipelineMeter
	checkpoints int64
	// commitTime sums the commit phase of the Eddy job's checkpoints
	// (sampled every millisecond, so approximate).
	commitTime time.Duration
}

func (m *kbMeter) report(b *testing.B) {
	n := float64(b.N) * kbEvents
	b.ReportMetric(n/m.wall.Seconds(), "events/s")
	b.ReportMetric(float64(m.wall.Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(m.cpu.Nanoseconds())/n, "cpu-ns/event")
	b.ReportMetric(float64(m.mallocs)/n, "allocs/event")
	b.ReportMetric(float64(m.bytes)/n, "B/event")
	b.ReportMetric(float64(m.checkpoints)/float64(b.N), "commits")
	if m.commitTime > 0 {
		b.ReportMetric(float64(m.commitTime.Microseconds())/1e3/float64(m.checkpoints), "ms/commit")
	}
}

// kbCases runs fn for every format, delivery guarantee and input
// partition count.
func kbCases(b *testing.B, fn func(b *testing.B, fmtName, guarantee string, parts int)) {
	for _, f := range []string{"json", "avro"} {
		b.Run(f, func(b *testing.B) {
			for _, g := range []string{"exactly-once", "at-least-once"} {
				b.Run(g, func(b *testing.B) {
					for _, p := range []int{1, 2} {
						b.Run(fmt.Sprintf("p%d", p), func(b *testing.B) { fn(b, f, g, p) })
					}
				})
			}
		})
	}
}

// BenchmarkKafkaPTFKafka measures Eddy reading a Kafka topic through
// PassThroughEnrich into another Kafka topic.
func BenchmarkKafkaPTFKafka(b *testing.B) {
	kbCases(b, func(b *testing.B, fmtName, guarantee string, parts int) {
		k := kbGet(b)
		in := k.input(b, fmtName, parts)
		_, want := kbData()
		ctx := context.Background()
		var m kbMeter
		b.ReportAllocs()
		b.StopTimer()
		b.ResetTimer()
		for range b.N {
			out := k.outTopic("eddy")
			e := pipelineEngine(ctx, b)
			valueFmt := "'value.format' = 'json'"
			if fmtName == "avro" {
				valueFmt = fmt.Sprintf("'value.format' = 'avro-confluent', 'value.avro-confluent.url' = '%s'", k.kc.RegistryURL())
			}
			pipelineExec(b, e, "CREATE FUNCTION PassThroughEnrich AS 'examples.PassThroughEnrich'")
			pipelineExec(b, e, fmt.Sprintf(`CREATE TABLE order_events (
  order_id INT NOT NULL,
  event_type STRING NOT NULL,
  event_time TIMESTAMP(3) NOT NULL,
  WATERMARK FOR event_time AS event_time
) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', %s)`,
				in.topic, k.kc.Bootstrap(), valueFmt))
			pipelineExec(b, e, fmt.Sprintf(`CREATE TABLE enriched (%s) DISTRIBUTED INTO %d BUCKETS
WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
  'key.format' = 'raw', 'key.fields' = 'order_id', %s, 'sink.delivery-guarantee' = '%s')`,
				kbOutColumns, parts, out, k.kc.Bootstrap(), valueFmt, guarantee))
			pipelineExec(b, e, fmt.Sprintf("SET 'execution.checkpointing.interval' = '%d ms'", kbInterval.Milliseconds()))

			var jobErr error
			m.begin(b)
			pprof.Do(ctx, pprof.Labels("phase", "eddy"), func(context.Context) {
				pipelineExec(b, e, `INSERT INTO enriched
SELECT order_id, event_type, event_time, EXPR$0
FROM PassThroughEnrich(input => TABLE order_events PARTITION BY order_id)`)
				e.mu.Lock()
				job := e.jobs[len(e.jobs)-1]
				e.mu.Unlock()
				// Sample the duration of each checkpoint's commit (sink
				// flush, Pebble commit, transaction commit), during which
				// the keyed task waits.
				stop := make(chan struct{})
				sampled := make(chan time.Duration)
				go func() {
					var seen int64
					var sum time.Duration
					t := time.NewTicker(time.Millisecond)
					defer t.Stop()
					for {
						select {
						case <-stop:
							sampled <- sum
							return
						case <-t.C:
							if met := job.Metrics(); met.Checkpoints > seen {
								seen = met.Checkpoints
								sum += met.LastCheckpointDuration
							}
						}
					}
				}()
				jobErr = job.Wait()
				close(stop)
				m.commitTime += <-sampled
				met := job.Metrics()
				m.checkpoints += met.Checkpoints
				if jobErr == nil && met.RecordsIn != kbEvents {
					jobErr = fmt.Errorf("the job read %d records, want %d", met.RecordsIn, kbEvents)
				}
			})
			m.end(b)
			if jobErr != nil {
				b.Fatal(jobErr)
			}
			k.check(b, out, fmtName, want)
			if err := e.Close(); err != nil {
				b.Fatal(err)
			}
		}
		m.report(b)
	})
}

// BenchmarkFranzLoop is the hand-written equivalent of
// BenchmarkKafkaPTFKafka on the same input topics.
func BenchmarkFranzLoop(b *testing.B) {
	kbCases(b, func(b *testing.B, fmtName, guarantee string, parts int) {
		k := kbGet(b)
		in := k.input(b, fmtName, parts)
		_, want := kbData()
		ctx := context.Background()
		var m kbMeter
		b.ReportAllocs()
		b.StopTimer()
		b.ResetTimer()
		for range b.N {
			out := k.outTopic("franz")
			if _, err := k.adm.CreateTopic(ctx, int32(parts), 1, nil, out); err != nil {
				b.Fatal(err)
			}
			var commits int64
			var err error
			m.begin(b)
			pprof.Do(ctx, pprof.Labels("phase", "franz"), func(ctx context.Context) {
				commits, err = kbFranzLoop(ctx, k, in, fmtName, guarantee, out, parts)
			})
			m.end(b)
			if err != nil {
				b.Fatal(err)
			}
			m.checkpoints += commits
			k.check(b, out, fmtName, want)
		}
		m.report(b)
	})
}

// kbFranzLoop consumes in from the start to its end, counts per key,
// and produces the enriched rows to out; it returns the number of
// transactions (exactly-once) or flushes (at-least-once).
func kbFranzLoop(ctx context.Context, k *kbCluster, in *kbInput, fmtName, guarantee, out string, parts int) (int64, error) {
	offsets := map[int32]kgo.Offset{}
	for p := range in.ends {
		offsets[p] = kgo.NewOffset().At(0)
	}
	// The consumer options of Eddy's Kafka source.
	cons, err := kgo.NewClient(kgo.SeedBrokers(k.kc.Bootstrap()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{in.topic: offsets}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		return 0, err
	}
	defer cons.Close()
	eos := guarantee == "exactly-once"
	popts := []kgo.Opt{kgo.SeedBrokers(k.kc.Bootstrap()), kgo.DefaultProduceTopic(out), kgo.RecordPartitioner(kgo.ManualPartitioner())}
	if eos {
		popts = append(popts, kgo.TransactionalID("kb-franz-"+out), kgo.TransactionTimeout(60*time.Second))
	}
	prod, err := kgo.NewClient(popts...)
	if err != nil {
		return 0, err
	}
	defer prod.Close()

	var inSchema, outSchema avro.Schema
	var outID int
	if fmtName == "avro" {
		inSchema = avro.MustParse(kbInSchema)
		text, err := kbOutSchema()
		if err != nil {
			return 0, err
		}
		outSchema = avro.MustParse(text)
		ss, err := k.rc.CreateSchema(ctx, out+"-value", sr.Schema{Schema: text, Type: sr.TypeAvro})
		if err != nil {
			return 0, err
		}
		outID = ss.ID
	}

	var perr atomic.Value
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			perr.CompareAndSwap(nil, err)
		}
	}
	var commits int64
	inTxn := false
	commit := func() error {
		if err := prod.Flush(ctx); err != nil {
			return err
		}
		if err, _ := perr.Load().(error); err != nil {
			return err
		}
		commits++
		if eos && inTxn {
			inTxn = false
			return prod.EndTransaction(ctx, kgo.TryCommit)
		}
		return nil
	}

	counts := make(map[int32]int64)
	pos := map[int32]int64{}
	done := func() bool {
		for p, o := range in.ends {
			if pos[p] < o {
				return false
			}
		}
		return true
	}
	last := time.Now()
	for !done() {
		fs := cons.PollFetches(ctx)
		var ferr error
		fs.EachError(func(t string, p int32, err error) { ferr = fmt.Errorf("fetching %s/%d: %w", t, p, err) })
		if ferr != nil {
			return commits, ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			pos[r.Partition] = r.Offset + 1
			if r.Attrs.IsControl() || ferr != nil {
				return
			}
			if eos && !inTxn {
				if ferr = prod.BeginTransaction(); ferr != nil {
					return
				}
				inTxn = true
			}
			rec := &kgo.Record{Key: r.Key}
			var id int32
			switch fmtName {
			case "json":
				var v kbJSONIn
				if ferr = json.Unmarshal(r.Value, &v); ferr != nil {
					return
				}
				ts, err := time.Parse(kbTSLayout, v.EventTime)
				if err != nil {
					ferr = err
					return
				}
				id = v.OrderID
				counts[id]++
				rec.Value, ferr = json.Marshal(kbJSONOut{OrderID: id, EventType: v.EventType, EventTime: ts.Format(kbTSLayout), Cnt: counts[id]})
			case "avro":
				sid, body, err := format.ConfluentHeader(r.Value)
				if err != nil || int(sid) != in.schemaID {
					ferr = fmt.Errorf("record at %d: schema id %d, want %d (%v)", r.Offset, sid, in.schemaID, err)
					return
				}
				var v kbAvroIn
				if ferr = avro.Unmarshal(inSchema, body, &v); ferr != nil {
					return
				}
				id = v.OrderID
				counts[id]++
				c := counts[id]
				rec.Value = format.AppendConfluentHeader(make([]byte, 0, 64), uint32(outID))
				var b []byte
				b, ferr = avro.Marshal(outSchema, kbAvroOut{OrderID: &v.OrderID, EventType: &v.EventType, EventTime: &v.EventTime, Cnt: &c})
				rec.Value = append(rec.Value, b...)
			}
			rec.Partition = id % int32(parts)
			prod.Produce(ctx, rec, promise)
		})
		if ferr != nil {
			return commits, ferr
		}
		if time.Since(last) >= kbInterval {
			if err := commit(); err != nil {
				return commits, err
			}
			last = time.Now()
		}
	}
	return commits, commit()
}
