package plan

import (
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

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
	if err := legacyOptions(t.Options, ct); err != nil {
		return nil, err
	}
	if ct.Comment != nil {
		t.Comment = ct.Comment.Value
	}
	if query != nil {
		if err := p.addQueryColumns(t, ct, query); err != nil {
			return nil, err
		}
	} else if err := p.addColumns(t, ct); err != nil {
		return nil, err
	}
	if err := p.addKeyAndDistribution(t, ct); err != nil {
		return nil, err
	}
	if err := p.addWatermark(t, ct); err != nil {
		return nil, err
	}
	if err := p.addPartitions(t, ct); err != nil {
		return nil, err
	}
	if err := checkOptions(t, ct); err != nil {
		return nil, err
	}
	if t.Connector() != "" {
		// The connector validates the table; at CREATE TABLE it may record
		// resolved options (session defaults, a creation time), so that the
		// table works the same in every later session and statement.
		tab := p.connectorTable(t)
		tab.Creating, tab.AsSelect = true, ct.Query != nil
		if _, err := p.factory(t, tab, ct, ct.Pos()); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// addPartitions records PARTITIONED BY: physical columns, each once.
func (p *Planner) addPartitions(t *catalog.Table, ct *ast.CreateTable) error {
	for _, c := range ct.PartitionedBy {
		i := t.ColumnIndex(c.Name)
		if i < 0 {
			return errAt(c.Pos(), sqlerr.UnknownColumn, "Partition column '%s' not defined in the table schema. Available columns: [%s]", c.Name, strings.Join(t.Schema().Names(), ", "))
		}
		if t.Columns[i].Kind != catalog.Physical {
			return errAt(c.Pos(), sqlerr.InvalidArgument, "Partition column '%s' must be a physical column", c.Name)
		}
		if slices.Contains(t.PartitionKeys, c.Name) {
			return errAt(c.Pos(), sqlerr.InvalidArgument, "Partition column '%s' is listed twice", c.Name)
		}
		t.PartitionKeys = append(t.PartitionKeys, c.Name)
	}
	if len(t.PartitionKeys) > 0 && t.Connector() == "" {
		return errAt(ct.PartitionedBy[0].Pos(), sqlerr.Unsupported, "An Eddy log table cannot be PARTITIONED BY: it is split into buckets by DISTRIBUTED BY").
			WithHint("use DISTRIBUTED BY (col) INTO n BUCKETS, or a connector that writes partition directories ('connector' = 'filesystem')")
	}
	return nil
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
			// A connector table's metadata columns are checked by the
			// registry against the connector's declarations.
			if t.Options["connector"] == "" && key != "offset" && key != "partition" {
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
	if fc, ok := w.Expr.(*ast.FuncCall); ok && isSourceWatermark(fc) && len(fc.Args) == 0 {
		t.Watermark = &catalog.Watermark{Column: w.Column.Name, Expr: sourceWatermarkText}
		return nil
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
