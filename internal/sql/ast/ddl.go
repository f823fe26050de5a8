package ast

import "github.com/eddy-sql/eddy/internal/sqlerr"

// CreateTable is CREATE [TEMPORARY] TABLE [IF NOT EXISTS] name
// [(elements)] [COMMENT '...'] [DISTRIBUTED ...] [WITH (...)] [AS query].
//
// The parser guarantees that Columns or Query is set (a table needs a
// schema or a query to derive one from), that there is at most one primary
// key and at most one watermark, and that the primary key is NOT ENFORCED
// (the only mode Flink supports).
type CreateTable struct {
	Loc // the CREATE keyword
	// Temporary is set for CREATE TEMPORARY TABLE.
	Temporary   bool
	IfNotExists bool
	// OrReplace is set for CREATE OR REPLACE TABLE ... AS (Flink's RTAS):
	// an existing table is dropped and created anew from the query.
	OrReplace bool
	// Name has one to three parts.
	Name *ObjectName
	// Columns are the column definitions in declaration order.
	Columns []*ColumnDef
	// PrimaryKey is the table's primary key, declared either inline on a
	// column (PrimaryKey.Inline) or as a table constraint; nil if none.
	PrimaryKey *PrimaryKey
	// Watermark is the WATERMARK FOR clause; nil if none.
	Watermark *Watermark
	// Comment is the table comment; nil if none.
	Comment *StringLit
	// Distribution is the DISTRIBUTED BY/INTO clause; nil if none.
	Distribution *Distribution
	// PartitionedBy are the columns of PARTITIONED BY (...); nil if none.
	PartitionedBy []*Ident
	// Options are the WITH options in order. Keys are unique.
	Options []*Option
	// Query is the AS query of CREATE TABLE AS SELECT (CTAS); nil
	// otherwise.
	Query Query
	// Like is the LIKE clause; nil if none.
	Like *LikeClause
}

// ColumnKind says how a column gets its value.
type ColumnKind uint8

// The column kinds.
const (
	// PhysicalColumn is a regular column: name TYPE.
	PhysicalColumn ColumnKind = iota
	// ComputedColumn is name AS expr.
	ComputedColumn
	// MetadataColumn is name TYPE METADATA [FROM 'key'] [VIRTUAL].
	MetadataColumn
)

// String returns "physical", "computed" or "metadata".
func (k ColumnKind) String() string {
	switch k {
	case ComputedColumn:
		return "computed"
	case MetadataColumn:
		return "metadata"
	}
	return "physical"
}

// ColumnDef is one column of a CREATE TABLE.
type ColumnDef struct {
	Name *Ident
	Kind ColumnKind
	// Type is the declared type of physical and metadata columns; nil for
	// computed columns. NOT NULL is part of the type.
	Type *TypeName
	// Expr is the expression of a computed column; nil otherwise.
	Expr Expr
	// MetadataKey is the FROM 'key' of a metadata column; nil when the key
	// is the column name.
	MetadataKey *StringLit
	// Virtual marks a metadata column as read-only (excluded from sinks).
	Virtual bool
	// PrimaryKey is set when the column carries an inline
	// PRIMARY KEY NOT ENFORCED constraint. The key itself is
	// CreateTable.PrimaryKey.
	PrimaryKey bool
	// Comment is the column comment; nil if none.
	Comment *StringLit
}

// Pos returns the position of the column name.
func (c *ColumnDef) Pos() sqlerr.Pos { return c.Name.Pos() }

// PrimaryKey is [CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED.
type PrimaryKey struct {
	Loc // CONSTRAINT or PRIMARY
	// Name is the constraint name; nil if none.
	Name *Ident
	// Columns are the key columns; exactly one when Inline.
	Columns []*Ident
	// Inline is set when the key was declared on a column definition.
	Inline bool
}

// Watermark is WATERMARK FOR column AS expr.
type Watermark struct {
	Loc // the WATERMARK keyword
	// Column is the rowtime column.
	Column *Ident
	// Expr is the watermark strategy, e.g. ts - INTERVAL '5' SECOND.
	Expr Expr
}

// Distribution is DISTRIBUTED BY [HASH|RANGE] (cols) [INTO n BUCKETS] or
// DISTRIBUTED INTO n BUCKETS.
type Distribution struct {
	Loc // the DISTRIBUTED keyword
	// Algorithm is "HASH", "RANGE" or "" when not given.
	Algorithm string
	// Columns are the bucket key columns; empty for DISTRIBUTED INTO.
	Columns []*Ident
	// Buckets is the bucket count, > 0; 0 when INTO is absent.
	Buckets int
	// BucketsPos is the position of the bucket count.
	BucketsPos sqlerr.Pos
}

// DropTable is DROP [TEMPORARY] TABLE [IF EXISTS] name.
type DropTable struct {
	Loc
	Temporary bool
	IfExists  bool
	Name      *ObjectName
}

// CreateFunction is CREATE [TEMPORARY] [SYSTEM] FUNCTION [IF NOT EXISTS]
// name AS 'identifier' [LANGUAGE lang] [USING JAR 'path' [, JAR 'path']*].
type CreateFunction struct {
	Loc
	Temporary   bool
	System      bool
	IfNotExists bool
	// Name has one to three parts.
	Name *ObjectName
	// Identifier is the implementation identifier after AS (a class name
	// in Flink, a registered function id in Eddy).
	Identifier *StringLit
	// Language is "JAVA", "SCALA", "PYTHON", "SQL", or "" when not given.
	Language string
	// LanguagePos is the position of the language name.
	LanguagePos sqlerr.Pos
	// Resources are the USING JAR entries, in order.
	Resources []*Resource
}

// Resource is one JAR 'path' of a USING clause.
type Resource struct {
	Loc // the JAR keyword
	// Kind is "JAR".
	Kind string
	Path *StringLit
}

// DropFunction is DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name.
type DropFunction struct {
	Loc
	Temporary bool
	System    bool
	IfExists  bool
	Name      *ObjectName
}

// CreateCatalog is CREATE CATALOG [IF NOT EXISTS] name [COMMENT '...']
// [WITH (...)].
type CreateCatalog struct {
	Loc
	IfNotExists bool
	Name        *Ident
	Comment     *StringLit
	Options     []*Option
}

// DropCatalog is DROP CATALOG [IF EXISTS] name.
type DropCatalog struct {
	Loc
	IfExists bool
	Name     *Ident
}

// CreateDatabase is CREATE DATABASE [IF NOT EXISTS] [catalog.]name
// [COMMENT '...'] [WITH (...)].
type CreateDatabase struct {
	Loc
	IfNotExists bool
	// Name has one or two parts.
	Name    *ObjectName
	Comment *StringLit
	Options []*Option
}

// DropDatabase is DROP DATABASE [IF EXISTS] [catalog.]name
// [RESTRICT | CASCADE].
type DropDatabase struct {
	Loc
	IfExists bool
	// Name has one or two parts.
	Name    *ObjectName
	Cascade bool
}

func (*CreateTable) stmtNode()    {}
func (*DropTable) stmtNode()      {}
func (*CreateView) stmtNode()     {}
func (*DropView) stmtNode()       {}
func (*CreateFunction) stmtNode() {}
func (*DropFunction) stmtNode()   {}
func (*CreateCatalog) stmtNode()  {}
func (*DropCatalog) stmtNode()    {}
func (*CreateDatabase) stmtNode() {}
func (*DropDatabase) stmtNode()   {}

// CreateView is CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name [(columns)]
// [COMMENT '...'] AS query.
type CreateView struct {
	Loc
	Temporary   bool
	IfNotExists bool
	Name        *ObjectName
	// Columns rename the query's columns; empty keeps them.
	Columns []*Ident
	Comment *StringLit
	Query   Query
}

// DropView is DROP [TEMPORARY] VIEW [IF EXISTS] name.
type DropView struct {
	Loc
	Temporary bool
	IfExists  bool
	Name      *ObjectName
}
