package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Source reads a Kafka table. It is plain configuration until Open.
type Source struct {
	cfg *Config

	mu         sync.Mutex
	key, value format.Codec
	// changes decodes a changelog value format (debezium-json) instead of
	// value.
	changes format.ChangelogCodec
	// keyBuf and valBuf are decoding scratch (Decode runs on the job's
	// source task only).
	keyBuf, valBuf []types.Value
}

// NewSource returns the source of a table.
func NewSource(cfg *Config) *Source { return &Source{cfg: cfg} }

// Name implements connector.Source.
func (s *Source) Name() string { return "kafka:" + s.cfg.Table.Name }

// Topic implements connector.Source.
func (s *Source) Topic() string { return s.cfg.Topic }

// IdleTimeout implements connector.Source.
func (s *Source) IdleTimeout() time.Duration { return s.cfg.IdleTimeout }

// Describe implements connector.Source.
func (s *Source) Describe(r *connector.Record) string {
	return fmt.Sprintf("topic %s partition %d offset %d", s.cfg.Topic, r.Partition, r.Offset)
}

// newClient returns a franz-go client for the table's cluster.
func (c *Config) newClient(extra ...kgo.Opt) (*kgo.Client, error) {
	opts := append([]kgo.Opt{kgo.SeedBrokers(c.Bootstrap...)}, c.Client...)
	opts = append(opts, extra...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to Kafka %v: %w", c.Bootstrap, err)
	}
	return cl, nil
}

// Open implements connector.Source: it resolves the start (and, for a
// bounded table, the end) offset of every partition and starts fetching.
func (s *Source) Open(ctx context.Context, env connector.Env, from map[int32]int64) (connector.Reader, error) {
	c := s.cfg
	key, value, err := c.codecs(ctx, false)
	if err != nil {
		return nil, err
	}
	changes, err := c.changelogCodec()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.key, s.value, s.changes = key, value, changes
	s.mu.Unlock()
	admCl, err := c.newClient()
	if err != nil {
		return nil, err
	}
	adm := kadm.NewClient(admCl)
	r := &reader{cfg: c, adm: adm, admCl: admCl, next: map[int32]int64{}}
	ok := false
	defer func() {
		if !ok {
			r.Close()
		}
	}()
	ends, err := r.Targets(ctx)
	if err != nil {
		return nil, err
	}
	if len(ends) == 0 {
		return nil, fmt.Errorf("topic %s of table %s does not exist", c.Topic, c.Table.Name)
	}
	start, err := r.resolve(ctx, c.Startup, ends)
	if err != nil {
		return nil, err
	}
	for p, off := range from {
		if _, known := start[p]; known {
			start[p] = off
		}
	}
	r.start = start
	for p, o := range start {
		r.next[p] = o
	}
	if c.Bounded.Mode != Unbounded {
		if env.Bounds != nil {
			r.bounds = maps.Clone(env.Bounds) // resolved by an earlier run
		} else if r.bounds, err = r.resolve(ctx, c.Bounded, ends); err != nil {
			return nil, err
		}
	}
	offsets := map[int32]kgo.Offset{}
	for p, o := range start {
		offsets[p] = kgo.NewOffset().At(o)
	}
	iso := kgo.ReadUncommitted()
	if c.ReadCommitted {
		iso = kgo.ReadCommitted()
	}
	r.cl, err = c.newClient(
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{c.Topic: offsets}),
		kgo.FetchIsolationLevel(iso),
		kgo.KeepControlRecords(),
		kgo.FetchMaxWait(200*time.Millisecond),
		// One reader per job input reads few partitions: fetch sessions
		// (KIP-227) save little, and kgo v1.22.3's Close tears a session
		// down without synchronizing with an in-flight fetch (a data race
		// under -race whenever a reader is closed while fetching).
		kgo.DisableFetchSessions(),
	)
	if err != nil {
		return nil, err
	}
	ok = true
	return r, nil
}

// Decode implements connector.Source.
func (s *Source) Decode(rec *connector.Record, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error) {
	if s.changes != nil {
		return s.decodeChanges(rec, dst, kinds)
	}
	vals, kind, err := s.decode(rec, dst)
	if err != nil || vals == nil {
		return dst, kinds, err
	}
	return vals, append(kinds, kind), nil
}

// decodeChanges decodes a record of a changelog value format: the rows
// its value holds, each with the key columns of the record's key.
func (s *Source) decodeChanges(rec *connector.Record, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error) {
	c := s.cfg
	var kv []types.Value
	if len(c.KeyFields) > 0 && s.key != nil && rec.Key != nil {
		var err error
		if kv, err = s.key.Decode(rec.Key, s.keyBuf[:0]); err != nil {
			return dst, kinds, badRecord("key", err)
		}
		s.keyBuf = kv
	}
	n := len(kinds)
	vv, kinds, err := s.changes.DecodeChanges(rec.Value, s.valBuf[:0], kinds)
	if err != nil {
		return dst, kinds[:n], badRecord("value", err)
	}
	s.valBuf = vv
	w := len(c.ValueFields)
	for r := range kinds[n:] {
		base := len(dst)
		for range c.Table.Columns {
			dst = append(dst, types.Value{})
		}
		for i, k := range c.ValueFields {
			dst[base+k] = vv[r*w+i]
		}
		if kv != nil {
			for i, k := range c.KeyFields {
				if !slices.Contains(c.ValueFields, k) {
					dst[base+k] = kv[i]
				}
			}
		}
	}
	return dst, kinds, nil
}

// decode decodes a record into one row (nil: skip the record).
func (s *Source) decode(rec *connector.Record, dst []types.Value) ([]types.Value, types.RowKind, error) {
	c := s.cfg
	if s.value == nil {
		return nil, 0, fmt.Errorf("kafka source %s: Decode before Open", c.Table.Name)
	}
	n := len(c.Table.Columns)
	base := len(dst)
	for i := 0; i < n; i++ {
		dst = append(dst, types.Value{})
	}
	kind := types.Insert
	if len(c.KeyFields) > 0 && s.key != nil {
		if rec.Key == nil {
			if c.Connector == UpsertKafka {
				return nil, 0, badRecord("key", &format.Error{Format: c.KeyFormat, Offset: -1, Reason: "record without a key in an upsert-kafka table"})
			}
		} else {
			kv, err := s.key.Decode(rec.Key, s.keyBuf[:0])
			if err != nil {
				return nil, 0, badRecord("key", err)
			}
			if kv == nil {
				return nil, 0, nil
			}
			s.keyBuf = kv
			for i, k := range c.KeyFields {
				dst[base+k] = kv[i]
			}
		}
	}
	if rec.Value == nil {
		if c.Connector == UpsertKafka {
			return dst, types.Delete, nil
		}
		if c.ValueFormat == "raw" {
			return dst, kind, nil // raw: a null value is a NULL column
		}
		// A tombstone in a 'kafka' table is skipped (and counted by the
		// runtime), as Flink's json and avro formats skip a null message
		// (docs/decisions/0008 §2, "Changelog on the wire").
		return nil, 0, nil
	}
	vv, err := s.value.Decode(rec.Value, s.valBuf[:0])
	if err != nil {
		return nil, 0, badRecord("value", err)
	}
	if vv == nil {
		return nil, 0, nil
	}
	s.valBuf = vv
	for i, k := range c.ValueFields {
		dst[base+k] = vv[i]
	}
	switch c.Changelog {
	case "upsert":
		kind = types.UpdateAfter
	case "retract":
		kind, err = opHeader(rec.Headers)
		if err != nil {
			return nil, 0, badRecord("header", err)
		}
	}
	return dst, kind, nil
}

// opHeader reads Confluent's 'op' header of a retract table: 0..3 for
// +I, -U, +U, -D (a one-byte value, or its decimal digit); no header is +I.
func opHeader(hs []connector.Header) (types.RowKind, error) {
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].Key != "op" {
			continue
		}
		v := hs[i].Value
		if len(v) == 1 {
			b := v[0]
			if b >= '0' && b <= '3' {
				b -= '0'
			}
			switch b {
			case 0:
				return types.Insert, nil
			case 1:
				return types.UpdateBefore, nil
			case 2:
				return types.UpdateAfter, nil
			case 3:
				return types.Delete, nil
			}
		}
		return 0, &format.Error{Format: "op header", Offset: -1, Reason: fmt.Sprintf("header 'op' = %q is not 0, 1, 2 or 3", v)}
	}
	return types.Insert, nil
}

// reader fetches a topic's partitions.
type reader struct {
	cfg           *Config
	cl, admCl     *kgo.Client
	adm           *kadm.Client
	start, bounds map[int32]int64
	mu            sync.Mutex
	next          map[int32]int64
}

func (r *reader) Start() map[int32]int64  { return maps.Clone(r.start) }
func (r *reader) Bounds() map[int32]int64 { return maps.Clone(r.bounds) }

// Targets implements connector.Reader: the last stable offsets
// (read_committed) or the high watermarks.
func (r *reader) Targets(ctx context.Context) (map[int32]int64, error) {
	var lo kadm.ListedOffsets
	var err error
	if r.cfg.ReadCommitted {
		lo, err = r.adm.ListCommittedOffsets(ctx, r.cfg.Topic)
	} else {
		lo, err = r.adm.ListEndOffsets(ctx, r.cfg.Topic)
	}
	if err == nil {
		err = lo.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("listing offsets of topic %s: %w", r.cfg.Topic, err)
	}
	out := map[int32]int64{}
	lo.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out, nil
}

// resolve turns a startup or bounded position into offsets.
func (r *reader) resolve(ctx context.Context, p Position, ends map[int32]int64) (map[int32]int64, error) {
	out := map[int32]int64{}
	topic := r.cfg.Topic
	listed := func(lo kadm.ListedOffsets, err error) error {
		if err == nil {
			err = lo.Error()
		}
		if err != nil {
			return fmt.Errorf("listing offsets of topic %s: %w", topic, err)
		}
		lo.Each(func(o kadm.ListedOffset) {
			if o.Offset < 0 {
				out[o.Partition] = ends[o.Partition]
			} else {
				out[o.Partition] = o.Offset
			}
		})
		return nil
	}
	switch p.Mode {
	case Earliest:
		if err := listed(r.adm.ListStartOffsets(ctx, topic)); err != nil {
			return nil, err
		}
	case Latest:
		return maps.Clone(ends), nil
	case Timestamp:
		if err := listed(r.adm.ListOffsetsAfterMilli(ctx, p.TimestampMs, topic)); err != nil {
			return nil, err
		}
	case Specific:
		if err := listed(r.adm.ListStartOffsets(ctx, topic)); err != nil {
			return nil, err
		}
		for part, off := range p.Offsets {
			if _, ok := out[part]; !ok {
				return nil, fmt.Errorf("topic %s has no partition %d (named in specific-offsets)", topic, part)
			}
			out[part] = off
		}
	case Group:
		resp, err := r.adm.FetchOffsetsForTopics(ctx, r.cfg.GroupID, topic)
		if err == nil {
			err = resp.Error()
		}
		if errors.Is(err, kerr.GroupIDNotFound) {
			// A group that never committed may not exist at all (kfake
			// answers GROUP_ID_NOT_FOUND where older brokers answer -1
			// offsets): no committed offsets, auto.offset.reset decides.
			resp, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("fetching offsets of group %s: %w", r.cfg.GroupID, err)
		}
		var fallback map[int32]int64
		reset := r.cfg.AutoOffsetReset
		parts := make([]int32, 0, len(ends))
		for part := range ends {
			parts = append(parts, part)
		}
		slices.Sort(parts) // the first partition without an offset is named in errors
		for _, part := range parts {
			if o, ok := resp.Lookup(topic, part); ok && o.At >= 0 {
				out[part] = o.At
				continue
			}
			switch reset {
			case "earliest":
				if fallback == nil {
					fallback = map[int32]int64{}
					lo, err := r.adm.ListStartOffsets(ctx, topic)
					if err == nil {
						err = lo.Error()
					}
					if err != nil {
						return nil, fmt.Errorf("listing offsets of topic %s: %w", topic, err)
					}
					lo.Each(func(o kadm.ListedOffset) { fallback[o.Partition] = o.Offset })
				}
				out[part] = fallback[part]
			case "latest":
				out[part] = ends[part]
			default: // "" or none (Flink's default for group-offsets)
				return nil, fmt.Errorf("group %s has no committed offset for topic %s partition %d and 'properties.auto.offset.reset' is %s: set it to 'earliest' or 'latest' to start such partitions there",
					r.cfg.GroupID, topic, part, orNotSet(reset))
			}
		}
	}
	return out, nil
}

func orNotSet(v string) string {
	if v == "" {
		return "not set"
	}
	return "'" + v + "'"
}

// Fetch implements connector.Reader.
func (r *reader) Fetch(ctx context.Context) ([]connector.Record, error) {
	fs := r.cl.PollFetches(ctx)
	if fs.IsClientClosed() {
		return nil, errors.New("kafka client closed")
	}
	var err error
	fs.EachError(func(t string, p int32, e error) {
		if err == nil && !errors.Is(e, context.Canceled) && !errors.Is(e, context.DeadlineExceeded) {
			err = fmt.Errorf("fetching %s partition %d: %w", t, p, e)
		}
	})
	if err != nil {
		return nil, err
	}
	var out []connector.Record
	r.mu.Lock()
	defer r.mu.Unlock()
	fs.EachRecord(func(rec *kgo.Record) {
		if rec.Offset+1 > r.next[rec.Partition] {
			r.next[rec.Partition] = rec.Offset + 1
		}
		if rec.Attrs.IsControl() {
			return
		}
		cr := connector.Record{
			Partition: rec.Partition, Offset: rec.Offset, Timestamp: rec.Timestamp.UnixMilli(),
			TimestampType: connector.CreateTime, LeaderEpoch: rec.LeaderEpoch, Key: rec.Key, Value: rec.Value,
		}
		if rec.Attrs.TimestampType() == 1 {
			cr.TimestampType = connector.LogAppendTime
		}
		for _, h := range rec.Headers {
			cr.Headers = append(cr.Headers, connector.Header{Key: h.Key, Value: h.Value})
		}
		out = append(out, cr)
	})
	return out, nil
}

// Next implements connector.Reader.
func (r *reader) Next(p int32) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next[p]
}

// Close implements connector.Reader.
func (r *reader) Close() error {
	if r.cl != nil {
		r.cl.Close()
	}
	r.admCl.Close()
	return nil
}

// badRecord marks a decoding error as the record's fault when it is a
// format error; other errors (registry unreachable) fail the statement.
func badRecord(part string, err error) error {
	var fe *format.Error
	if errors.As(err, &fe) {
		return &connector.BadRecordError{Err: fmt.Errorf("%s: %w", part, err)}
	}
	return fmt.Errorf("%s: %w", part, err)
}
