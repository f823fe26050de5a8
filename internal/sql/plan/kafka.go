package plan

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// kafkaMeta lists the metadata keys of Kafka tables: their type and
// whether they can be written (docs/decisions/0008 §2).
var kafkaMeta = map[string]struct {
	typ      types.Type
	writable bool
	index    int
}{
	"topic":          {types.String.NonNull(), false, jobgraph.MetaTopic},
	"partition":      {types.Int.NonNull(), false, jobgraph.MetaPartition},
	"offset":         {types.BigInt.NonNull(), false, jobgraph.MetaOffset},
	"timestamp":      {types.TimestampLTZ(3).NonNull(), true, jobgraph.MetaTimestamp},
	"timestamp-type": {types.String.NonNull(), false, jobgraph.MetaTimestampType},
	"headers":        {types.MapOf(types.String, types.Bytes).NonNull(), true, jobgraph.MetaHeaders},
	"leader-epoch":   {types.Int, false, jobgraph.MetaLeaderEpoch},
	"raw-key":        {types.Bytes, false, jobgraph.MetaRawKey},
	"raw-value":      {types.Bytes, false, jobgraph.MetaRawValue},
}

func metaKeys() []string {
	out := make([]string, 0, len(kafkaMeta))
	for k := range kafkaMeta {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// kafkaTable describes a catalog table to the connector.
func (p *Planner) kafkaTable(t *catalog.Table) kafka.Table {
	phys := t.PhysicalSchema()
	kt := kafka.Table{Name: t.FullName(), Columns: phys.Fields, Options: t.Options, Defaults: map[string]string{}}
	for _, k := range t.PrimaryKey {
		kt.PrimaryKey = append(kt.PrimaryKey, phys.Index(k))
	}
	if t.Distribution != nil {
		for _, c := range t.Distribution.Columns {
			kt.Distribution = append(kt.Distribution, phys.Index(c))
		}
		kt.Buckets = t.Distribution.Buckets
	}
	if p.Session != nil {
		for _, k := range []string{"eddy.kafka.bootstrap.servers", "eddy.schema-registry.url", "table.exec.source.idle-timeout"} {
			if v := p.Session.Config[k]; v != "" {
				kt.Defaults[k] = v
			}
		}
	}
	return kt
}

// KafkaConfig validates a Kafka table's options (CREATE TABLE, and every
// plan that reads or writes it).
func (p *Planner) KafkaConfig(t *catalog.Table, ct *ast.CreateTable) (*kafka.Config, error) {
	cfg, err := kafka.Parse(p.kafkaTable(t))
	if err == nil {
		return cfg, nil
	}
	var oe *kafka.OptionError
	if errors.As(err, &oe) {
		e := oe.Err
		if ct != nil {
			e.At(optionPosByKey(ct, oe.Key))
		}
		return nil, e
	}
	return nil, err
}

func optionPosByKey(ct *ast.CreateTable, key string) sqlerr.Pos {
	for _, o := range ct.Options {
		if o.Key.Value == key {
			return o.Value.Pos()
		}
	}
	return ct.Pos()
}

// checkKafkaColumn validates a metadata column of a Kafka table.
func checkKafkaColumn(c *ast.ColumnDef, key string) error {
	m, ok := kafkaMeta[key]
	if !ok {
		e := errAt(c.Pos(), sqlerr.InvalidOption, "Unknown metadata key '%s' for a Kafka table", key)
		return e.WithHint("Kafka tables provide: %s%s", strings.Join(metaKeys(), ", "), suggest(key, metaKeys()))
	}
	if !m.writable && !c.Virtual {
		return errAt(c.Pos(), sqlerr.InvalidOption, "Metadata column '%s' ('%s') is read-only, so it must be VIRTUAL", c.Name.Name, key).
			WithHint("write `%s` %s METADATA VIRTUAL", c.Name.Name, c.Type.Text)
	}
	return nil
}

// writable returns the columns an INSERT writes, in declaration order:
// the physical columns and, for a Kafka table, the persisted (not
// VIRTUAL) metadata columns.
func writable(t *catalog.Table) *types.Schema {
	if !kafka.IsConnector(t.Connector()) {
		return t.PhysicalSchema()
	}
	var fs []types.Field
	for _, c := range t.Columns {
		if c.Kind == catalog.Physical || c.Kind == catalog.Metadata && !c.Virtual {
			fs = append(fs, types.Field{Name: c.Name, Type: c.Type.Type})
		}
	}
	return types.NewSchema(fs...)
}

// sinkOrder maps the rows of a Kafka sink (physical columns, then the
// persisted metadata columns, as kafka.Sink reads them) to positions in
// writable(t); nil when the two orders are the same.
func sinkOrder(t *catalog.Table) []int {
	if !kafka.IsConnector(t.Connector()) {
		return nil
	}
	var phys, meta []int
	i := 0
	for _, c := range t.Columns {
		switch {
		case c.Kind == catalog.Physical:
			phys = append(phys, i)
		case c.Kind == catalog.Metadata && !c.Virtual:
			meta = append(meta, i)
		default:
			continue
		}
		i++
	}
	order := append(phys, meta...)
	for k, w := range order {
		if k != w {
			return order
		}
	}
	return nil
}

// reorder returns vals in the order given (nil: unchanged).
func reorder[T any](vals []T, order []int) []T {
	if order == nil {
		return vals
	}
	out := make([]T, len(order))
	for i, w := range order {
		out[i] = vals[w]
	}
	return out
}

// kafkaSink builds the sink of an INSERT into a Kafka table.
func (p *Planner) kafkaSink(t *catalog.Table) (*kafka.Sink, error) {
	cfg, err := p.KafkaConfig(t, nil)
	if err != nil {
		return nil, err
	}
	s := kafka.NewSink(cfg)
	i := t.PhysicalSchema().Len()
	for _, c := range t.Columns {
		if c.Kind != catalog.Metadata || c.Virtual {
			continue
		}
		key := c.MetadataKey
		if key == "" {
			key = c.Name
		}
		switch key {
		case "timestamp":
			s.TimestampCol = i
		case "headers":
			s.HeadersCol = i
		}
		i++
	}
	return s, nil
}

// KafkaSink returns the sink of a Kafka table (INSERT ... VALUES).
func (p *Planner) KafkaSink(t *catalog.Table) (*kafka.Sink, error) { return p.kafkaSink(t) }

// CheckDeadLetterTable reports whether t can be the dead-letter table of
// 'error-handling.mode' = 'log': an Eddy log table with the columns of
// jobgraph.DeadLetterSchema.
func CheckDeadLetterTable(t *catalog.Table) error {
	if t.Connector() != "" || t.Log == "" {
		return errors.New("it is not an Eddy log table")
	}
	want := jobgraph.DeadLetterSchema()
	have := t.PhysicalSchema()
	if have.Len() != want.Len() {
		return fmt.Errorf("it has %d columns, a dead-letter table has %d (%s)", have.Len(), want.Len(), strings.Join(want.Names(), ", "))
	}
	for i, f := range want.Fields {
		h := have.Fields[i]
		if h.Name != f.Name || !h.Type.Same(f.Type) {
			return fmt.Errorf("column %d is %s %s, not %s %s", i+1, h.Name, h.Type, f.Name, f.Type)
		}
	}
	return nil
}
