package catalog

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// Default names of the built-in catalog and database.
const (
	DefaultCatalog  = "default_catalog"
	DefaultDatabase = "default_database"
)

// ColumnKind distinguishes physical, computed and metadata columns.
type ColumnKind string

// The column kinds.
const (
	Physical ColumnKind = "physical"
	Computed ColumnKind = "computed"
	Metadata ColumnKind = "metadata"
)

// Column is one column of a table.
type Column struct {
	Name string     `json:"name"`
	Type Type       `json:"type"`
	Kind ColumnKind `json:"kind"`
	// Expr is the SQL expression of a computed column.
	Expr string `json:"expr,omitempty"`
	// MetadataKey is the key of a metadata column (defaults to its name).
	MetadataKey string `json:"metadata_key,omitempty"`
	// Virtual metadata columns are read-only.
	Virtual bool   `json:"virtual,omitempty"`
	Comment string `json:"comment,omitempty"`
}

// Type wraps types.Type with a JSON form that is its SQL string.
type Type struct{ types.Type }

// MarshalJSON renders the type as its SQL string.
func (t Type) MarshalJSON() ([]byte, error) { return json.Marshal(t.Type.String()) }

// UnmarshalJSON parses the SQL string.
func (t *Type) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	parsed, err := types.ParseType(s)
	if err != nil {
		return fmt.Errorf("parsing stored type %q: %w", s, err)
	}
	t.Type = parsed
	return nil
}

// Watermark is a table's WATERMARK FOR column AS expr.
type Watermark struct {
	Column string `json:"column"`
	Expr   string `json:"expr"`
}

// Distribution is DISTRIBUTED BY (columns) INTO n BUCKETS.
type Distribution struct {
	Columns []string `json:"columns,omitempty"`
	Buckets int      `json:"buckets"`
}

// Table is a table in the catalog.
type Table struct {
	Catalog      string        `json:"catalog"`
	Database     string        `json:"database"`
	Name         string        `json:"name"`
	Columns      []Column      `json:"columns"`
	PrimaryKey   []string      `json:"primary_key,omitempty"`
	Watermark    *Watermark    `json:"watermark,omitempty"`
	Distribution *Distribution `json:"distribution,omitempty"`
	// PartitionKeys are the PARTITIONED BY columns (connectors that write
	// partition directories, such as 'filesystem').
	PartitionKeys []string          `json:"partition_keys,omitempty"`
	Options       map[string]string `json:"options,omitempty"`
	Comment       string            `json:"comment,omitempty"`
	// Log is the name of the table's embedded log (tables without a
	// 'connector' option).
	Log string `json:"log,omitempty"`
	// Owner is the statement that created the table with CREATE TABLE AS
	// SELECT ("statement <name>" for a durable statement, "an interactive
	// session" for a job of a session); empty for tables created
	// by plain DDL. Only the owner may resume writing into the table under
	// the same CTAS (see docs/decisions/0011-table-ownership.md).
	Owner string `json:"owner,omitempty"`
	// View is the query of a view (CREATE VIEW), in canonical SQL; empty
	// for tables. A view's Columns are the query's.
	View string `json:"view,omitempty"`
	// Temporary views and tables live in the session only.
	Temporary bool `json:"temporary,omitempty"`
}

// FullName returns catalog.database.name.
func (t *Table) FullName() string { return t.Catalog + "." + t.Database + "." + t.Name }

// ColumnIndex returns the position of the named column, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Schema returns all columns as a schema.
func (t *Table) Schema() *types.Schema {
	fields := make([]types.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = types.Field{Name: c.Name, Type: c.Type.Type}
	}
	return types.NewSchema(fields...)
}

// PhysicalSchema returns the stored (physical) columns in order.
func (t *Table) PhysicalSchema() *types.Schema {
	var fields []types.Field
	for _, c := range t.Columns {
		if c.Kind == Physical {
			fields = append(fields, types.Field{Name: c.Name, Type: c.Type.Type})
		}
	}
	return types.NewSchema(fields...)
}

// Connector returns the 'connector' option ("" for an Eddy log table).
func (t *Table) Connector() string { return t.Options["connector"] }

// Buckets returns the number of partitions (1 when not distributed).
func (t *Table) Buckets() int {
	if t.Distribution != nil && t.Distribution.Buckets > 0 {
		return t.Distribution.Buckets
	}
	return 1
}

// ChangelogMode returns the table's 'changelog.mode' with Confluent's
// default: upsert for tables with a primary key, append otherwise.
func (t *Table) ChangelogMode() string {
	if m := strings.ToLower(t.Options["changelog.mode"]); m != "" {
		return m
	}
	if len(t.PrimaryKey) > 0 {
		return "upsert"
	}
	return "append"
}

// BucketKey returns the columns records are hashed by: DISTRIBUTED BY
// columns, else the primary key, else none.
func (t *Table) BucketKey() []string {
	if t.Distribution != nil && len(t.Distribution.Columns) > 0 {
		return t.Distribution.Columns
	}
	return t.PrimaryKey
}

// Function binds a SQL name to a registered function id, or to a
// function of an artifact (CREATE FUNCTION ... USING JAR
// 'eddy-artifact://...').
type Function struct {
	Catalog   string `json:"catalog"`
	Database  string `json:"database"`
	Name      string `json:"name"`
	ID        string `json:"id"`
	Temporary bool   `json:"temporary,omitempty"`
	// Artifact is the id of the artifact whose module holds the function
	// (empty for functions of the eddy binary); Version pins one of its
	// versions ("" follows the latest each time a statement is planned).
	Artifact string `json:"artifact,omitempty"`
	Version  string `json:"version,omitempty"`
}

// Database is a database in a catalog.
type Database struct {
	Catalog string `json:"catalog"`
	Name    string `json:"name"`
}

// CatalogInfo is a catalog.
type CatalogInfo struct {
	Name    string            `json:"name"`
	Options map[string]string `json:"options,omitempty"`
}
