package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// The planner knows connectors only through the registry (Planner.Connectors):
// a table's 'connector' option names a factory, which validates the table
// and builds its source and sink. Tables without 'connector' are Eddy log
// tables.

// logMeta declares the metadata keys of Eddy log tables (read-only).
var logMeta = []connector.Metadata{
	{Key: "offset", Type: types.BigInt.NonNull(), Slot: connector.MetaOffset},
	{Key: "partition", Type: types.Int.NonNull(), Slot: connector.MetaPartition},
}

// sessionDefaults are the session settings connectors may fall back to.
var sessionDefaults = []string{"eddy.kafka.bootstrap.servers", "eddy.schema-registry.url", "table.exec.source.idle-timeout"}

// connectorTable describes a catalog table to its connector factory.
func (p *Planner) connectorTable(t *catalog.Table) *connector.Table {
	phys := t.PhysicalSchema()
	ct := &connector.Table{Name: t.Name, FullName: t.FullName(), Columns: phys.Fields, Options: t.Options,
		Defaults: map[string]string{}, Now: p.Now}
	for _, k := range t.PrimaryKey {
		ct.PrimaryKey = append(ct.PrimaryKey, phys.Index(k))
	}
	if t.Distribution != nil {
		for _, c := range t.Distribution.Columns {
			ct.Distribution = append(ct.Distribution, phys.Index(c))
		}
		ct.Buckets = t.Distribution.Buckets
	}
	for _, k := range t.PartitionKeys {
		ct.PartitionKeys = append(ct.PartitionKeys, phys.Index(k))
	}
	for _, c := range t.Columns {
		if c.Kind == catalog.Metadata {
			ct.Metadata = append(ct.Metadata, connector.MetaColumn{Name: c.Name, Key: metadataKey(c), Type: c.Type.Type, Virtual: c.Virtual})
		}
	}
	if p.Session != nil {
		for _, k := range sessionDefaults {
			if v := p.Session.Config[k]; v != "" {
				ct.Defaults[k] = v
			}
		}
	}
	return ct
}

func metadataKey(c catalog.Column) string {
	if c.MetadataKey != "" {
		return c.MetadataKey
	}
	return c.Name
}

// factory validates a connector table and returns its factory. ct, the
// CREATE TABLE statement, positions errors (nil: at pos).
func (p *Planner) factory(t *catalog.Table, tab *connector.Table, ct *ast.CreateTable, pos sqlerr.Pos) (connector.Factory, error) {
	if p.Connectors == nil {
		return nil, errAt(pos, sqlerr.Internal, "No connectors are registered with the planner")
	}
	f, err := p.Connectors.Validate(tab)
	if err != nil {
		return nil, ConnectorError(err, ct, pos)
	}
	return f, nil
}

// ConnectorError turns a connector's error into a user error: an
// *connector.OptionError points at its option, column or clause of the
// CREATE TABLE statement ct (or at pos without one).
func ConnectorError(err error, ct *ast.CreateTable, pos sqlerr.Pos) error {
	var oe *connector.OptionError
	if !errors.As(err, &oe) {
		if e, ok := sqlerr.As(err); ok {
			if !e.Pos.IsValid() {
				e.At(pos)
			}
			return e
		}
		return err
	}
	e := oe.Err
	if e.Pos.IsValid() {
		return e
	}
	if ct == nil {
		return e.At(pos)
	}
	switch {
	case oe.Key != "":
		return e.At(optionPosByKey(ct, oe.Key))
	case oe.Column != "":
		for _, c := range ct.Columns {
			if c.Name.Name == oe.Column {
				return e.At(c.Pos())
			}
		}
	case oe.Clause == connector.ClauseQuery && ct.Query != nil:
		return e.At(ct.Query.Pos())
	case oe.Clause == connector.ClauseDistribution && ct.Distribution != nil:
		return e.At(ct.Distribution.Pos())
	case oe.Clause == connector.ClausePrimaryKey && ct.PrimaryKey != nil:
		return e.At(ct.PrimaryKey.Pos())
	case oe.Clause == connector.ClausePartitioned && len(ct.PartitionedBy) > 0:
		return e.At(ct.PartitionedBy[0].Pos())
	}
	return e.At(ct.Name.Pos())
}

func optionPosByKey(ct *ast.CreateTable, key string) sqlerr.Pos {
	for _, o := range ct.Options {
		if o.Key.Value == key {
			return o.Value.Pos()
		}
	}
	return ct.Pos()
}

// ConnectorTable validates a connector table (CREATE TABLE, and every plan
// that reads or writes it) and returns its factory and description.
func (p *Planner) ConnectorTable(t *catalog.Table, pos sqlerr.Pos) (connector.Factory, *connector.Table, error) {
	tab := p.connectorTable(t)
	f, err := p.factory(t, tab, nil, pos)
	return f, tab, err
}

// metadataOf returns the declaration of a metadata key of a table.
func (p *Planner) metadataOf(t *catalog.Table, key string) (*connector.Metadata, bool) {
	decl := logMeta
	if c := t.Connector(); c != "" {
		f, ok := p.Connectors.Lookup(c)
		if !ok {
			return nil, false
		}
		decl = f.Spec().Metadata
	}
	for i := range decl {
		if decl[i].Key == key {
			return &decl[i], true
		}
	}
	return nil, false
}

// TableMode returns the changelog mode of a table, as a source and as a
// sink.
func (p *Planner) TableMode(t *catalog.Table) jobgraph.Mode {
	mode := t.ChangelogMode()
	if c := t.Connector(); c != "" {
		if f, ok := p.Connectors.Lookup(c); ok {
			mode = f.ChangelogMode(p.connectorTable(t))
		}
	}
	switch mode {
	case connector.Upsert:
		return jobgraph.Upsert
	case connector.Retract:
		return jobgraph.Retract
	}
	return jobgraph.Append
}

// source builds the input of a connector table.
func (p *Planner) source(in *jobgraph.Input, t *catalog.Table, pos sqlerr.Pos) error {
	f, tab, err := p.ConnectorTable(t, pos)
	if err != nil {
		return err
	}
	sf, ok := f.(connector.SourceFactory)
	if !ok {
		return errAt(pos, sqlerr.Unsupported, "Connector '%s' can only be used as a sink. It cannot be used as a source.", f.Spec().Identifier).
			WithHint("read the table the rows were written to instead; a '%s' table only takes INSERT INTO", f.Spec().Identifier)
	}
	src, err := sf.Source(tab)
	if err != nil {
		return ConnectorError(err, nil, pos)
	}
	switch {
	case src.Generator != nil:
		// A generated table is read from its generator instead of a log.
		in.Log, in.Partitions, in.Generator = "", 1, src.Generator
	case src.Source != nil:
		in.Source, in.Log, in.Partitions = src.Source, src.Source.Name(), 1
	default:
		return fmt.Errorf("connector %s returned no source for %s", f.Spec().Identifier, t.Name)
	}
	in.Errors = jobgraph.ErrorHandling{Mode: src.Errors.Mode}
	if src.Errors.Mode == "log" {
		dlq, ok := p.Catalog.Table(t.Catalog, t.Database, src.Errors.Target)
		if !ok {
			return errAt(pos, sqlerr.UnknownTable, "The dead-letter table '%s' of %s does not exist", src.Errors.Target, t.Name).
				WithHint("it is created with the table; create it again or set 'error-handling.log.target'")
		}
		if err := CheckDeadLetterTable(dlq); err != nil {
			return errAt(pos, sqlerr.InvalidOption, "Table '%s' cannot take the bad records of %s: %v", dlq.Name, t.Name, err).
				WithHint("set 'error-handling.log.target' to a new name (it is created with the right columns) or drop that table")
		}
		in.Errors.Log = dlq.Log
	}
	return nil
}

// ErrorHandling returns the handling of bad records of a connector table
// that can be read (the zero value for other tables).
func (p *Planner) ErrorHandling(t *catalog.Table, pos sqlerr.Pos) (connector.ErrorHandling, error) {
	f, tab, err := p.ConnectorTable(t, pos)
	if err != nil {
		return connector.ErrorHandling{}, err
	}
	sf, ok := f.(connector.SourceFactory)
	if !ok {
		return connector.ErrorHandling{}, nil
	}
	src, err := sf.Source(tab)
	if err != nil {
		return connector.ErrorHandling{}, ConnectorError(err, nil, pos)
	}
	return src.Errors, nil
}

// Sink returns the sink of an INSERT into a connector table. Its rows are
// the physical columns, then the persisted metadata columns (sinkOrder).
func (p *Planner) Sink(t *catalog.Table, opts connector.SinkOptions, pos sqlerr.Pos) (connector.Sink, error) {
	f, tab, err := p.ConnectorTable(t, pos)
	if err != nil {
		return nil, err
	}
	sf, ok := f.(connector.SinkFactory)
	if !ok {
		return nil, errAt(pos, sqlerr.Unsupported, "Connector '%s' can only be used as a source. It cannot be used as a sink.", f.Spec().Identifier).
			WithHint("write into an Eddy log table (a table without 'connector') instead")
	}
	if (opts.Overwrite || len(opts.Static) > 0) && !f.Spec().Partitioned {
		what := "INSERT OVERWRITE"
		if !opts.Overwrite {
			what = "INSERT ... PARTITION"
		}
		return nil, errAt(pos, sqlerr.Unsupported, "%s is not supported by connector '%s' (table '%s')", what, f.Spec().Identifier, t.Name).
			WithHint("the 'filesystem' connector supports it")
	}
	s, err := sf.Sink(tab, opts)
	if err != nil {
		return nil, ConnectorError(err, nil, pos)
	}
	return s, nil
}

// writable returns the columns an INSERT writes, in declaration order:
// the physical columns and the persisted (not VIRTUAL) metadata columns.
func writable(t *catalog.Table) *types.Schema {
	var fs []types.Field
	for _, c := range t.Columns {
		if c.Kind == catalog.Physical || c.Kind == catalog.Metadata && !c.Virtual {
			fs = append(fs, types.Field{Name: c.Name, Type: c.Type.Type})
		}
	}
	return types.NewSchema(fs...)
}

// sinkOrder maps the rows of a connector sink (physical columns, then the
// persisted metadata columns) to positions in writable(t); nil when the
// two orders are the same.
func sinkOrder(t *catalog.Table) []int {
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
