package kafka

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Sink writes a Kafka table. It is plain configuration until Open.
type Sink struct {
	cfg *Config
	// TimestampCol and HeadersCol are the positions, in the rows the sink
	// receives, of the writable metadata columns 'timestamp' and 'headers'
	// (-1: none). Physical columns come first, in table order.
	TimestampCol, HeadersCol int
}

// NewSink returns the sink of a table.
func NewSink(cfg *Config) *Sink { return &Sink{cfg: cfg, TimestampCol: -1, HeadersCol: -1} }

// marker is what a checkpoint records of the sink's open transaction: the
// decision that it is to be committed (docs/decisions/0008 §6.3).
type marker struct {
	N     int64           `json:"n"`
	TxID  string          `json:"txid"`
	PID   int64           `json:"pid"`
	Epoch int16           `json:"epoch"`
	Parts map[int32]int64 `json:"first_offsets"`
}

// writer is one job's Kafka output.
type writer struct {
	s          *Sink
	cfg        *Config
	env        connector.Env
	key, value format.Codec
	// changes encodes a changelog value format (debezium-json).
	changes   format.ChangelogCodec
	parts     int
	markerKey []byte
	copyKey   []byte
	clients   [2]*kgo.Client // exactly-once: T0, T1; otherwise clients[0]
	rr        atomic.Int64
	// keyIdentity and valueIdentity are set when the key (value) columns
	// are the row's first columns in order.
	keyIdentity, valueIdentity bool

	mu    sync.Mutex // guards the fields below and BeginTransaction
	n     int64      // number of the current transaction (exactly-once)
	inTxn bool
	// prepared is set once Prepare recorded the open transaction in a
	// checkpoint batch.
	prepared bool
	copy     []byte // encoded records of the open transaction
	count    int
	first    map[int32]int64
	pid      int64
	epoch    int16
	perr     error
	// verified[i] is set once a commit on clients[i] was confirmed with
	// the broker (see verifyCommitted).
	verified [2]bool
}

func (w *writer) eos() bool { return w.cfg.Delivery == ExactlyOnce }

func (w *writer) txid(n int64) string {
	prefix := w.cfg.TransactionPrefix
	if prefix == "" {
		prefix = "eddy"
	}
	return fmt.Sprintf("%s-%s-%d", prefix, w.env.Job, n%2)
}

// Open implements connector.Sink. For exactly-once it first settles the
// transaction the last checkpoint decided to commit (§6.4), then fences
// whatever an earlier run of the job left open.
func (s *Sink) Open(ctx context.Context, env connector.Env, kv connector.KV) (connector.SinkWriter, error) {
	c := s.cfg
	key, value, err := c.codecs(ctx, true)
	if err != nil {
		return nil, err
	}
	changes, err := c.changelogCodec()
	if err != nil {
		return nil, err
	}
	w := &writer{s: s, cfg: c, env: env, key: key, value: value, changes: changes, first: map[int32]int64{},
		keyIdentity: isPrefix(c.KeyFields), valueIdentity: isPrefix(c.ValueFields)}
	w.markerKey = append(append([]byte{}, env.KeyPrefix...), "txn/"+c.Table.Name...)
	w.copyKey = append(append([]byte{}, env.KeyPrefix...), "out/"+c.Table.Name...)
	admCl, err := c.newClient()
	if err != nil {
		return nil, err
	}
	defer admCl.Close()
	ends, err := kadm.NewClient(admCl).ListEndOffsets(ctx, c.Topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("looking up topic %s of table %s: %w", c.Topic, c.Table.Name, err)
	}
	ends.Each(func(kadm.ListedOffset) { w.parts++ })
	if w.parts == 0 {
		return nil, fmt.Errorf("topic %s of table %s does not exist", c.Topic, c.Table.Name)
	}
	opts := []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(c.Topic)}
	switch c.Delivery {
	case None:
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.LeaderAck()))
	case ExactlyOnce:
		if err := w.recover(ctx, kv, admCl); err != nil {
			return nil, err
		}
		opts = append(opts, kgo.TransactionTimeout(c.TransactionTimeout))
	}
	n := 1
	if w.eos() {
		n = 2
	}
	for i := 0; i < n; i++ {
		o := opts
		if w.eos() {
			o = append(o, kgo.TransactionalID(w.txid(int64(i))))
		}
		cl, err := c.newClient(o...)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.clients[i] = cl
		if w.eos() {
			// InitProducerID fences an earlier run's producer and aborts
			// the transaction it left open (output no checkpoint decided).
			if _, _, err := cl.ProducerID(ctx); err != nil {
				w.Close()
				return nil, fmt.Errorf("initializing transactional producer %s: %w", w.txid(int64(i)), err)
			}
		}
	}
	return w, nil
}

func (w *writer) cur() *kgo.Client {
	if w.eos() {
		return w.clients[w.n%2]
	}
	return w.clients[0]
}

// Write implements connector.SinkWriter.
func (w *writer) Write(ctx context.Context, row types.Row) error {
	rec, skip, err := w.encode(row)
	if err != nil || skip {
		return err
	}
	w.mu.Lock()
	if w.perr != nil {
		err := w.perr
		w.mu.Unlock()
		return err
	}
	cl := w.cur()
	if w.eos() {
		if !w.inTxn {
			if err := cl.BeginTransaction(); err != nil {
				w.mu.Unlock()
				return fmt.Errorf("beginning a transaction on %s: %w", w.txid(w.n), err)
			}
			w.inTxn = true
		}
		w.copy = appendCopy(w.copy, rec)
	}
	w.count++
	w.mu.Unlock()
	cl.Produce(ctx, rec, w.promise)
	return nil
}

func (w *writer) promise(r *kgo.Record, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		if w.perr == nil {
			w.perr = fmt.Errorf("writing to topic %s: %w", w.cfg.Topic, err)
		}
		return
	}
	if f, ok := w.first[r.Partition]; !ok || r.Offset < f {
		w.first[r.Partition] = r.Offset
	}
	w.pid, w.epoch = r.ProducerID, r.ProducerEpoch
}

// encode turns a row into a record; skip is set for rows the table does
// not store (the -U of an upsert table).
func (w *writer) encode(row types.Row) (*kgo.Record, bool, error) {
	c := w.cfg
	rec := &kgo.Record{Topic: c.Topic}
	switch c.Changelog {
	case "append":
		if row.Kind != types.Insert {
			return nil, false, fmt.Errorf("table %s is append-only ('changelog.mode' = 'append') and cannot store a %s row", c.Table.Name, row.Kind)
		}
	case "upsert":
		if row.Kind == types.UpdateBefore {
			return nil, true, nil
		}
	case "retract":
		if row.Kind != types.Insert && w.changes == nil {
			rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: "op", Value: []byte{byte(row.Kind)}})
		}
	}
	if w.key != nil {
		b, err := w.key.Encode(nil, w.columns(row.Values, c.KeyFields, w.keyIdentity))
		if err != nil {
			return nil, false, fmt.Errorf("encoding the key of a row for %s: %w", c.Table.Name, err)
		}
		rec.Key = b
	}
	switch {
	case w.changes != nil:
		// The change's kind is in the value (Debezium's "op").
		b, err := w.changes.EncodeChange(nil, row.Kind, w.columns(row.Values, c.ValueFields, w.valueIdentity))
		if err != nil {
			return nil, false, fmt.Errorf("encoding a row for %s: %w", c.Table.Name, err)
		}
		rec.Value = b
	case !(c.Changelog == "upsert" && row.Kind == types.Delete):
		b, err := w.value.Encode(nil, w.columns(row.Values, c.ValueFields, w.valueIdentity))
		if err != nil {
			return nil, false, fmt.Errorf("encoding a row for %s: %w", c.Table.Name, err)
		}
		rec.Value = b
	}
	switch {
	case c.Partitioner == "fixed":
		rec.Partition = 0
	case c.Partitioner == "default" && rec.Key != nil:
		rec.Partition = int32(logstore.Partition(rec.Key, w.parts))
	default:
		rec.Partition = int32((w.rr.Add(1) - 1) % int64(w.parts))
	}
	rec.Timestamp = w.env.Now()
	if i := w.s.TimestampCol; i >= 0 && !row.Values[i].IsNull() {
		rec.Timestamp = time.Unix(0, row.Values[i].Int())
	}
	if i := w.s.HeadersCol; i >= 0 && !row.Values[i].IsNull() {
		for _, e := range row.Values[i].Map() {
			var v []byte
			if !e.Val.IsNull() {
				v = e.Val.Bytes()
			}
			rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: e.Key.Str(), Value: v})
		}
	}
	return rec, false, nil
}

// columns returns the values of the given columns of a row: a prefix of
// the row when they are its first columns in order (no copy), else a copy
// (Write runs on several subtasks, so the copy is not a shared scratch).
func (w *writer) columns(vals []types.Value, idx []int, identity bool) []types.Value {
	if identity {
		return vals[:len(idx)]
	}
	out := make([]types.Value, len(idx))
	for i, k := range idx {
		out[i] = vals[k]
	}
	return out
}

// isPrefix reports whether idx is 0, 1, ..., len(idx)-1.
func isPrefix(idx []int) bool {
	for i, k := range idx {
		if k != i {
			return false
		}
	}
	return true
}

// Prepare implements connector.SinkWriter.
func (w *writer) Prepare(ctx context.Context, b connector.Batch) error {
	// Every guarantee flushes: 'none' only gives up idempotence and acks
	// from all replicas, not the output of a stop or a bounded end.
	if err := w.cur().Flush(ctx); err != nil {
		return fmt.Errorf("flushing output to topic %s: %w", w.cfg.Topic, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.perr != nil {
		return w.perr
	}
	if !w.eos() {
		return nil
	}
	if !w.inTxn || w.count == 0 {
		if err := b.Delete(w.markerKey); err != nil {
			return err
		}
		return b.Delete(w.copyKey)
	}
	// From here a checkpoint may decide the transaction: Close must not
	// abort it (recovery settles it).
	w.prepared = true
	m := marker{N: w.n, TxID: w.txid(w.n), PID: w.pid, Epoch: w.epoch, Parts: maps.Clone(w.first)}
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := b.Set(w.markerKey, v); err != nil {
		return err
	}
	return b.Set(w.copyKey, w.copy)
}

// MaxCheckpointInterval implements connector.CommitDeadline: an
// exactly-once writer's transaction must be committed well within its
// timeout, so checkpoints come at least every third of it.
func (w *writer) MaxCheckpointInterval() time.Duration {
	if !w.eos() {
		return 0
	}
	return w.cfg.TransactionTimeout / 3
}

// Commit implements connector.SinkWriter.
func (w *writer) Commit(ctx context.Context) error {
	if !w.eos() {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.inTxn {
		return nil
	}
	// The checkpoint decided: the commit must not be cut short by the
	// job's context (an unknown outcome is settled on the next Open).
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if !w.verified[w.n%2] {
		if err := awaitPartitionsStored(cctx, w.cur()); err != nil {
			return fmt.Errorf("committing transaction %s on topic %s: %w", w.txid(w.n), w.cfg.Topic, err)
		}
	}
	if err := w.cur().EndTransaction(cctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("committing transaction %s on topic %s: %w", w.txid(w.n), w.cfg.Topic, err)
	}
	if i := w.n % 2; !w.verified[i] {
		if err := verifyCommitted(cctx, w.cur(), w.txid(w.n), w.pid, w.epoch); err != nil {
			return fmt.Errorf("committing transaction %s on topic %s: %w", w.txid(w.n), w.cfg.Topic, err)
		}
		w.verified[i] = true
	}
	w.n++
	w.inTxn, w.prepared = false, false
	w.copy = w.copy[:0]
	w.count = 0
	clear(w.first)
	return nil
}

// Close implements connector.SinkWriter.
func (w *writer) Close() error {
	w.mu.Lock()
	open := w.eos() && w.inTxn && !w.prepared
	w.mu.Unlock()
	if open {
		// Abort what no checkpoint decided, so read_committed readers are
		// not held up until the transaction times out (a later Open would
		// fence it too; an INSERT's one-off id never comes back).
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cl := w.cur()
		// Flushed first, so that every record is in the transaction; then
		// ended with a raw EndTxn(abort) (kgo's EndTransaction may not
		// see the partitions of a first transaction, see verifyCommitted).
		_ = cl.Flush(ctx)
		if pid, epoch, err := cl.ProducerID(ctx); err == nil {
			req := kmsg.NewPtrEndTxnRequest()
			req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = w.txid(w.n), pid, epoch, false
			_, _ = req.RequestWith(ctx, cl)
		}
		cancel()
	}
	for _, cl := range w.clients {
		if cl != nil {
			cl.Close()
		}
	}
	return nil
}

// appendCopy appends a record's partition, timestamp, key, value and
// headers to the transaction's copy (used to produce it again if Kafka
// aborted a transaction the checkpoint had decided to commit).
func appendCopy(b []byte, r *kgo.Record) []byte {
	b = binary.AppendUvarint(b, uint64(r.Partition))
	b = binary.AppendVarint(b, r.Timestamp.UnixMilli())
	b = appendNullable(b, r.Key)
	b = appendNullable(b, r.Value)
	b = binary.AppendUvarint(b, uint64(len(r.Headers)))
	for _, h := range r.Headers {
		b = appendNullable(b, []byte(h.Key))
		b = appendNullable(b, h.Value)
	}
	return b
}

func appendNullable(b, v []byte) []byte {
	if v == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(v))+1)
	return append(b, v...)
}

var errCorruptCopy = errors.New("corrupt output copy")

func readCopy(b []byte, topic string) ([]*kgo.Record, error) {
	var out []*kgo.Record
	next := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errCorruptCopy
		}
		b = b[n:]
		return v, nil
	}
	bytesOf := func() ([]byte, error) {
		l, err := next()
		if err != nil || l == 0 {
			return nil, err
		}
		if uint64(len(b)) < l-1 {
			return nil, errCorruptCopy
		}
		v := b[: l-1 : l-1]
		b = b[l-1:]
		return v, nil
	}
	for len(b) > 0 {
		p, err := next()
		if err != nil {
			return nil, err
		}
		ts, n := binary.Varint(b)
		if n <= 0 {
			return nil, errCorruptCopy
		}
		b = b[n:]
		r := &kgo.Record{Topic: topic, Partition: int32(p), Timestamp: time.UnixMilli(ts)}
		if r.Key, err = bytesOf(); err != nil {
			return nil, err
		}
		if r.Value, err = bytesOf(); err != nil {
			return nil, err
		}
		nh, err := next()
		if err != nil {
			return nil, err
		}
		for i := uint64(0); i < nh; i++ {
			k, err := bytesOf()
			if err != nil {
				return nil, err
			}
			v, err := bytesOf()
			if err != nil {
				return nil, err
			}
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: string(k), Value: v})
		}
		out = append(out, r)
	}
	return out, nil
}

// recover settles the transaction of the last checkpoint's marker.
func (w *writer) recover(ctx context.Context, kv connector.KV, admCl *kgo.Client) error {
	v, ok, err := kv.Get(w.markerKey)
	if err != nil || !ok {
		return err
	}
	var m marker
	if err := json.Unmarshal(v, &m); err != nil {
		return fmt.Errorf("reading the transaction marker of %s: %w", w.cfg.Table.Name, err)
	}
	log := w.env.Logger
	committed, err := w.endTxn(ctx, admCl, m)
	if err != nil {
		return err
	}
	if !committed {
		log.Info("kafka sink: the broker aborted a checkpointed transaction; producing it again", "table", w.cfg.Table.Name, "txid", m.TxID)
		if err := w.reproduce(ctx, kv, m); err != nil {
			return err
		}
	} else {
		log.Debug("kafka sink: checkpointed transaction is committed", "table", w.cfg.Table.Name, "txid", m.TxID)
	}
	w.n = m.N + 1
	return kv.Commit(func(b connector.Batch) error {
		if err := b.Delete(w.markerKey); err != nil {
			return err
		}
		return b.Delete(w.copyKey)
	})
}

// endTxn commits the marker's transaction with a raw EndTxn request and
// reports whether it is committed (false: Kafka aborted it).
func (w *writer) endTxn(ctx context.Context, cl *kgo.Client, m marker) (bool, error) {
	for attempt := 0; ; attempt++ {
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = m.TxID, m.PID, m.Epoch, true
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, kerr.InvalidTxnState):
			return false, nil
		case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch),
			errors.Is(err, kerr.InvalidProducerIDMapping), errors.Is(err, kerr.TransactionalIDNotFound):
			return w.probe(ctx, cl, m)
		}
		if attempt >= 20 || ctx.Err() != nil {
			return false, fmt.Errorf("settling transaction %s of table %s: %w", m.TxID, w.cfg.Table.Name, err)
		}
		select {
		case <-time.After(250 * time.Millisecond):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// probe decides a transaction's outcome by reading its first record back
// with read_committed: committed iff the record at its first offset is the
// producer's.
func (w *writer) probe(ctx context.Context, admCl *kgo.Client, m marker) (bool, error) {
	var part int32 = -1
	var first int64
	for p, o := range m.Parts {
		if part < 0 || p < part {
			part, first = p, o
		}
	}
	if part < 0 {
		return true, nil
	}
	adm := kadm.NewClient(admCl)
	deadline := time.Now().Add(w.cfg.TransactionTimeout + 30*time.Second)
	for {
		lo, err := adm.ListCommittedOffsets(ctx, w.cfg.Topic)
		if err == nil {
			err = lo.Error()
		}
		if err != nil {
			return false, fmt.Errorf("probing transaction %s: %w", m.TxID, err)
		}
		if o, ok := lo.Lookup(w.cfg.Topic, part); ok && o.Offset > first {
			break
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("probing transaction %s: partition %d is still held by an open transaction", m.TxID, part)
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	cl, err := w.cfg.newClient(
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{w.cfg.Topic: {part: kgo.NewOffset().At(first)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(),
		// Never jump to the log start: a first offset that retention
		// removed cannot be decided by reading.
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.DisableFetchSessions()) // see the reader's client in Source.Open
	if err != nil {
		return false, err
	}
	defer cl.Close()
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	undecidable := func(why string) error {
		return fmt.Errorf("cannot tell whether transaction %s (partition %d from offset %d) was committed: %s; "+
			"check the topic and delete the statement's marker only if you know", m.TxID, part, first, why)
	}
	// Under read_committed an aborted transaction's records are filtered
	// out and its abort marker remains; a committed one shows its records
	// (or, compacted away, its commit marker). The first record of the
	// producer at or after the first offset decides.
	for {
		fs := cl.PollFetches(pctx)
		if pctx.Err() != nil {
			return false, undecidable("no record of the producer at or after that offset")
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) {
			if ferr == nil {
				ferr = err
			}
		})
		if ferr != nil {
			if errors.Is(ferr, kerr.OffsetOutOfRange) {
				return false, undecidable("the offset is no longer in the log (retention)")
			}
			return false, fmt.Errorf("probing transaction %s: %w", m.TxID, ferr)
		}
		var committed, decided bool
		fs.EachRecord(func(r *kgo.Record) {
			if decided || r.ProducerID != m.PID {
				return
			}
			decided = true
			if r.Attrs.IsControl() {
				// Control record key: int16 version, int16 type (0 abort, 1 commit).
				committed = len(r.Key) >= 4 && binary.BigEndian.Uint16(r.Key[2:4]) == 1
				return
			}
			committed = true
		})
		if decided {
			return committed, nil
		}
	}
}

// reproduce writes the marker's copy again in a new transaction on the
// same transactional id and commits it.
func (w *writer) reproduce(ctx context.Context, kv connector.KV, m marker) error {
	v, ok, err := kv.Get(w.copyKey)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("table %s: transaction %s was aborted by Kafka and its output copy is missing", w.cfg.Table.Name, m.TxID)
	}
	recs, err := readCopy(v, w.cfg.Topic)
	if err != nil {
		return fmt.Errorf("table %s: reading the output copy: %w", w.cfg.Table.Name, err)
	}
	cl, err := w.cfg.newClient(kgo.TransactionalID(m.TxID), kgo.TransactionTimeout(w.cfg.TransactionTimeout),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.BeginTransaction(); err != nil {
		return err
	}
	res := cl.ProduceSync(ctx, recs...)
	if err := res.FirstErr(); err != nil {
		return fmt.Errorf("producing transaction %s again: %w", m.TxID, err)
	}
	nm := marker{N: m.N, TxID: m.TxID, Parts: map[int32]int64{}}
	for _, r := range res {
		nm.PID, nm.Epoch = r.Record.ProducerID, r.Record.ProducerEpoch
		if f, ok := nm.Parts[r.Record.Partition]; !ok || r.Record.Offset < f {
			nm.Parts[r.Record.Partition] = r.Record.Offset
		}
	}
	mv, err := json.Marshal(nm)
	if err != nil {
		return err
	}
	if err := kv.Commit(func(b connector.Batch) error { return b.Set(w.markerKey, mv) }); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := awaitPartitionsStored(cctx, cl); err != nil {
		return fmt.Errorf("committing transaction %s again: %w", m.TxID, err)
	}
	if err := cl.EndTransaction(cctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("committing transaction %s again: %w", m.TxID, err)
	}
	// A fresh client's first transaction: the case verifyCommitted guards.
	if err := verifyCommitted(cctx, cl, m.TxID, nm.PID, nm.Epoch); err != nil {
		return fmt.Errorf("committing transaction %s again: %w", m.TxID, err)
	}
	return nil
}

// awaitPartitionsStored returns once cl has stored the partitions of the
// topics its flushed records went to, which EndTransaction needs to find
// the transaction's partitions (see verifyCommitted). franz-go v1.22.3
// partitions the records of a newly loaded topic and then stores the
// partitions under one lock, which AbortBufferedRecords also takes; with
// every record flushed it aborts nothing.
func awaitPartitionsStored(ctx context.Context, cl *kgo.Client) error {
	return cl.AbortBufferedRecords(ctx)
}

// errCommitLost is returned when a transaction that EndTransaction reported
// as ended was not committed.
var errCommitLost = errors.New("the transaction was aborted instead of committed")

// verifyCommitted confirms with the broker that a transaction that
// EndTransaction(TryCommit) ended without an error was committed, by
// sending its EndTxn(commit) again: a retry of a completed commit succeeds,
// a commit of an aborted transaction is INVALID_TXN_STATE (the retry rules
// recovery relies on, docs/decisions/0008 §6.4).
//
// franz-go v1.22.3 can silently abort instead of committing the first
// transaction a client writes to a topic: the records of a topic whose
// partitions are not yet loaded become producible before the client stores
// the loaded partitions (storePartitionsUpdate), and EndTransaction, which
// finds the transaction's partitions in that store, can then conclude that
// nothing was produced and send an abort while returning nil. Later
// transactions of the client are not affected (the partitions are stored),
// so the writer waits for the store (awaitPartitionsStored) and verifies
// the commit for each client's first transaction only. A lost commit
// fails the job; the next Open finds the checkpoint's marker, learns that
// Kafka aborted the transaction and produces the output copy again.
func verifyCommitted(ctx context.Context, cl *kgo.Client, txid string, pid int64, epoch int16) error {
	for attempt := 0; ; attempt++ {
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = txid, pid, epoch, true
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		switch {
		case err == nil:
			return nil
		case errors.Is(err, kerr.InvalidTxnState):
			return errCommitLost
		case errors.Is(err, kerr.ConcurrentTransactions), errors.Is(err, kerr.CoordinatorLoadInProgress),
			errors.Is(err, kerr.NotCoordinator), errors.Is(err, kerr.CoordinatorNotAvailable):
			// Kafka answers EndTxn once PrepareCommit is logged and
			// writes the markers afterwards: a retry meanwhile is
			// CONCURRENT_TRANSACTIONS. Wait and ask again.
			if attempt < 50 && ctx.Err() == nil {
				select {
				case <-time.After(time.Duration(20*(attempt+1)) * time.Millisecond):
					continue
				case <-ctx.Done():
				}
			}
		}
		return fmt.Errorf("confirming the commit: %w", err)
	}
}
