package plan

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector/datagen"
	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// connectors this version can run. Tables without 'connector' are Eddy
// log tables.
var knownConnectors = map[string]bool{datagen.Identifier: true, nexmark.Identifier: true, kafka.Kafka: true, kafka.UpsertKafka: true}

// TableFromDDL builds a catalog table from CREATE TABLE. For CREATE TABLE
// AS SELECT, query is the schema of the query (its columns come first).
func (p *Planner) TableFromDDL(ct *ast.CreateTable, query *types.Schema) (*catalog.Table, error) {
	cat, db, name, err := p.qualify(ct.Name)
	if err != nil {
		return nil, err
	}
	if err := p.checkDatabase(cat, db, ct.Name.Pos()); err != nil {
		return nil, err
	}
	t := &catalog.Table{Catalog: cat, Database: db, Name: name, Options: map[string]string{}}
	for _, o := range ct.Options {
		t.Options[o.Key.Value] = o.Value.Value
	}
	if ct.Comment != nil {
		t.Comment = ct.Comment.Value
	}
	if query != nil {
		if len(ct.Columns) > 0 {
			return nil, errAt(ct.Columns[0].Pos(), sqlerr.Unsupported, "CREATE TABLE ... AS SELECT takes its columns from the query; declare only constraints, a watermark and options here")
		}
		for _, f := range query.Fields {
			t.Columns = append(t.Columns, catalog.Column{Name: f.Name, Type: catalog.Type{Type: f.Type}, Kind: catalog.Physical})
		}
	}
	if err := p.addColumns(t, ct); err != nil {
		return nil, err
	}
	if err := p.addKeyAndDistribution(t, ct); err != nil {
		return nil, err
	}
	if err := p.addWatermark(t, ct); err != nil {
		return nil, err
	}
	if err := checkOptions(t, ct); err != nil {
		return nil, err
	}
	if t.Connector() == datagen.Identifier {
		if err := p.checkDatagen(t, ct); err != nil {
			return nil, err
		}
	}
	if t.Connector() == nexmark.Identifier {
		if err := p.checkNexmark(t, ct); err != nil {
			return nil, err
		}
	}
	if kafka.IsConnector(t.Connector()) {
		cfg, err := p.KafkaConfig(t, ct)
		if err != nil {
			return nil, err
		}
		// Session defaults are resolved now, so that the table works the
		// same in every later session and statement.
		if t.Options["properties.bootstrap.servers"] == "" {
			t.Options["properties.bootstrap.servers"] = strings.Join(cfg.Bootstrap, ",")
		}
		for _, part := range []string{"key", "value"} {
			f := t.Options[part+".format"]
			if part == "value" && f == "" {
				f = t.Options["format"]
			}
			if (f == "avro-confluent" || f == "avro-registry" || f == "json-registry") && !hasURL(t.Options, part) {
				t.Options[part+"."+f+".url"] = cfg.RegistryURL
			}
		}
	}
	return t, nil
}

// checkDatagen validates a 'datagen' table and stamps its creation time
// ('eddy.created-at', from the planner's clock) unless the DDL sets it.
func (p *Planner) checkDatagen(t *catalog.Table, ct *ast.CreateTable) error {
	if ct.Query != nil {
		return errAt(ct.Query.Pos(), sqlerr.Unsupported, "A 'datagen' table generates its rows, so it cannot be created AS SELECT").
			WithHint("omit 'connector' to create an Eddy log table from the query")
	}
	for i, c := range t.Columns {
		if c.Kind == catalog.Metadata {
			return errAt(ct.Columns[i].Pos(), sqlerr.InvalidOption, "Column '%s': the datagen connector has no metadata columns", c.Name).
				WithHint("declare a physical column, or a computed column over the generated ones")
		}
	}
	if ct.Distribution != nil {
		return errAt(ct.Distribution.Pos(), sqlerr.InvalidOption, "A 'datagen' table has no buckets: DISTRIBUTED BY applies to Eddy log tables").
			WithHint("remove the DISTRIBUTED clause")
	}
	if _, set := t.Options[datagen.OptCreatedAt]; !set && p.Now != nil {
		t.Options[datagen.OptCreatedAt] = p.Now().UTC().Format(time.RFC3339Nano)
	}
	if _, err := datagen.New(t.Name, t.PhysicalSchema().Fields, t.Options); err != nil {
		return datagenError(err, optionPos(ct, err))
	}
	return nil
}

// optionPos returns the position of the option a datagen error is about.
func optionPos(ct *ast.CreateTable, err error) sqlerr.Pos {
	var oe *datagen.OptionError
	if errors.As(err, &oe) {
		for _, o := range ct.Options {
			if o.Key.Value == oe.Key {
				return o.Value.Pos()
			}
		}
	}
	return ct.Pos()
}

// datagenError turns a datagen validation error into a user error at pos.
func datagenError(err error, pos sqlerr.Pos) error {
	var oe *datagen.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	e := errAt(pos, sqlerr.InvalidOption, "%s", oe.Message)
	if oe.Hint != "" {
		e.WithHint("%s", oe.Hint)
	}
	return e
}

func (p *Planner) addColumns(t *catalog.Table, ct *ast.CreateTable) error {
	seen := map[string]bool{}
	for _, c := range t.Columns {
		seen[c.Name] = true
	}
	// Computed columns may use every physical column, declared before or
	// after them, as in Flink.
	phys := t.PhysicalSchema().Fields
	for _, c := range ct.Columns {
		if c.Kind == ast.PhysicalColumn {
			phys = append(phys, types.Field{Name: c.Name.Name, Type: c.Type.Type})
		}
	}
	physScope := scopeOf(types.NewSchema(phys...), t.Name)
	for _, c := range ct.Columns {
		if seen[c.Name.Name] {
			return errAt(c.Pos(), sqlerr.DuplicateObject, "Column '%s' is declared twice", c.Name.Name)
		}
		seen[c.Name.Name] = true
		col := catalog.Column{Name: c.Name.Name}
		if c.Comment != nil {
			col.Comment = c.Comment.Value
		}
		switch c.Kind {
		case ast.PhysicalColumn:
			col.Kind, col.Type = catalog.Physical, catalog.Type{Type: c.Type.Type}
		case ast.MetadataColumn:
			key := c.Name.Name
			if c.MetadataKey != nil {
				key = c.MetadataKey.Value
				col.MetadataKey = key
			}
			if kafka.IsConnector(t.Connector()) {
				if err := checkKafkaColumn(c, key); err != nil {
					return err
				}
			} else if t.Options["connector"] == "" && key != "offset" && key != "partition" {
				return errAt(c.Pos(), sqlerr.InvalidOption, "Unknown metadata key '%s' for an Eddy log table", key).
					WithHint("log tables provide 'offset' (BIGINT) and 'partition' (INT)")
			}
			if !c.Virtual && t.Options["connector"] == "" {
				return errAt(c.Pos(), sqlerr.InvalidOption, "Metadata column '%s' of an Eddy log table must be VIRTUAL (it is read-only)", c.Name.Name).
					WithHint("write `%s` %s METADATA VIRTUAL", c.Name.Name, c.Type.Text)
			}
			col.Kind, col.Type, col.Virtual = catalog.Metadata, catalog.Type{Type: c.Type.Type}, c.Virtual
		case ast.ComputedColumn:
			x, err := bindExpr(c.Expr, physScope)
			if err != nil {
				return err
			}
			col.Kind, col.Type, col.Expr = catalog.Computed, catalog.Type{Type: x.Type()}, ast.Format(c.Expr)
		}
		if c.PrimaryKey {
			if len(t.PrimaryKey) > 0 {
				return errAt(c.Pos(), sqlerr.InvalidArgument, "A table can have only one primary key")
			}
			t.PrimaryKey = []string{c.Name.Name}
		}
		t.Columns = append(t.Columns, col)
	}
	if len(t.Columns) == 0 {
		return errAt(ct.Pos(), sqlerr.InvalidArgument, "Table '%s' has no columns", t.Name)
	}
	return nil
}

func (p *Planner) addKeyAndDistribution(t *catalog.Table, ct *ast.CreateTable) error {
	if pk := ct.PrimaryKey; pk != nil && !pk.Inline {
		if len(t.PrimaryKey) > 0 {
			return errAt(pk.Pos(), sqlerr.InvalidArgument, "A table can have only one primary key")
		}
		for _, c := range pk.Columns {
			t.PrimaryKey = append(t.PrimaryKey, c.Name)
		}
	}
	for _, k := range t.PrimaryKey {
		i := t.ColumnIndex(k)
		if i < 0 {
			return errAt(keyPos(ct, k), sqlerr.UnknownColumn, "Primary key column '%s' is not a column of %s. Available columns are: [%s]", k, t.Name, strings.Join(t.Schema().Names(), ", "))
		}
		if t.Columns[i].Kind != catalog.Physical {
			return errAt(keyPos(ct, k), sqlerr.InvalidArgument, "Primary key column '%s' must be a physical column", k)
		}
		// A primary key implies NOT NULL, as in Flink.
		t.Columns[i].Type = catalog.Type{Type: t.Columns[i].Type.NonNull()}
	}
	if d := ct.Distribution; d != nil {
		if d.Buckets < 0 || (d.Buckets == 0 && d.BucketsPos.IsValid()) {
			return errAt(d.BucketsPos, sqlerr.InvalidArgument, "The number of buckets must be positive")
		}
		dist := &catalog.Distribution{Buckets: d.Buckets}
		for _, c := range d.Columns {
			if t.ColumnIndex(c.Name) < 0 {
				return errAt(c.Pos(), sqlerr.UnknownColumn, "Invalid column '%s' in DISTRIBUTED BY. Available columns are: [%s]", c.Name, strings.Join(t.Schema().Names(), ", "))
			}
			dist.Columns = append(dist.Columns, c.Name)
		}
		if dist.Buckets == 0 {
			dist.Buckets = 1
		}
		t.Distribution = dist
	}
	return nil
}

func keyPos(ct *ast.CreateTable, name string) sqlerr.Pos {
	if ct.PrimaryKey != nil {
		for _, c := range ct.PrimaryKey.Columns {
			if c.Name == name {
				return c.Pos()
			}
		}
		return ct.PrimaryKey.Pos()
	}
	for _, c := range ct.Columns {
		if c.Name.Name == name {
			return c.Pos()
		}
	}
	return ct.Pos()
}

func (p *Planner) addWatermark(t *catalog.Table, ct *ast.CreateTable) error {
	w := ct.Watermark
	if w == nil {
		return nil
	}
	i := t.ColumnIndex(w.Column.Name)
	if i < 0 {
		return errAt(w.Column.Pos(), sqlerr.UnknownColumn, "The rowtime attribute field '%s' is not defined in the table schema. Available columns are: [%s]",
			w.Column.Name, strings.Join(t.Schema().Names(), ", "))
	}
	ctype := t.Columns[i].Type.Type
	if !ctype.IsTimestamp() || ctype.Precision > 3 {
		return errAt(w.Column.Pos(), sqlerr.TypeMismatch, "Invalid data type of time field for watermark definition. The field '%s' has type %s, but it must be TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p <= 3", w.Column.Name, ctype).
			WithHint("declare the column as TIMESTAMP(3)")
	}
	x, err := bindExpr(w.Expr, scopeOf(t.Schema(), t.Name))
	if err != nil {
		return err
	}
	if !x.Type().IsTimestamp() {
		return errAt(w.Expr.Pos(), sqlerr.TypeMismatch, "The watermark expression must return a TIMESTAMP, but %s has type %s", ast.Format(w.Expr), x.Type()).
			WithHint("for a delay write WATERMARK FOR %s AS %s - INTERVAL '5' SECOND", w.Column.Name, w.Column.Name)
	}
	t.Watermark = &catalog.Watermark{Column: w.Column.Name, Expr: ast.Format(w.Expr)}
	return nil
}

func checkOptions(t *catalog.Table, ct *ast.CreateTable) error {
	optPos := func(key string) sqlerr.Pos {
		for _, o := range ct.Options {
			if o.Key.Value == key {
				return o.Value.Pos()
			}
		}
		return ct.Pos()
	}
	if c := t.Options["connector"]; c != "" && !knownConnectors[c] {
		return errAt(optPos("connector"), sqlerr.Unsupported, "Connector '%s' is not available in this version of Eddy", c).
			WithHint("omit 'connector' to create an Eddy log table (like a topic in Confluent Cloud)")
	}
	mode := strings.ToLower(t.Options["changelog.mode"])
	if mode != "" && !slices.Contains([]string{"append", "upsert", "retract"}, mode) {
		return errAt(optPos("changelog.mode"), sqlerr.InvalidOption, "Invalid 'changelog.mode' = '%s'", t.Options["changelog.mode"]).
			WithHint("use 'append', 'upsert' or 'retract'")
	}
	if mode == "upsert" && len(t.PrimaryKey) == 0 {
		return errAt(optPos("changelog.mode"), sqlerr.InvalidOption, "'changelog.mode' = 'upsert' needs a PRIMARY KEY").
			WithHint("add PRIMARY KEY (col) NOT ENFORCED")
	}
	for _, k := range sortedKeys(t.Options) {
		switch k {
		case "connector", "changelog.mode", "scan.startup.mode", "value.format", "key.format":
		default:
			if t.Options["connector"] == "" && !strings.HasPrefix(k, "eddy.") {
				return errAt(optPos(k), sqlerr.InvalidOption, "Unsupported option '%s' for an Eddy log table", k).
					WithHint("supported options: 'changelog.mode'")
			}
		}
	}
	return nil
}

// hasURL reports whether a registry format of the key or value part has
// its URL option.
func hasURL(opts map[string]string, part string) bool {
	for k := range opts {
		if strings.HasPrefix(k, part+".") && strings.HasSuffix(k, ".url") {
			return true
		}
	}
	return false
}
