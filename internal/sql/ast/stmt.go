package ast

import "github.com/eddy-sql/eddy/internal/sqlerr"

// Insert is INSERT INTO table [(columns)] query, where the query is a
// SELECT, a VALUES list or a set operation.
type Insert struct {
	Loc
	// Overwrite is INSERT OVERWRITE.
	Overwrite bool
	// Table has one to three parts.
	Table *ObjectName
	// Partition is the PARTITION (col = value, ...) clause; nil when
	// absent.
	Partition []*PartitionValue
	// Columns is the explicit target column list; nil when absent.
	Columns []*Ident
	Query   Query
	// OnConflict is the ON CONFLICT strategy (NoConflictClause when
	// absent) and OnConflictPos the position of its ON.
	OnConflict    OnConflict
	OnConflictPos sqlerr.Pos
}

// PartitionValue is one col = value of INSERT ... PARTITION (...): a
// static partition.
type PartitionValue struct {
	Name  *Ident
	Value Expr
}

// Pos returns the position of the column name.
func (v *PartitionValue) Pos() sqlerr.Pos { return v.Name.Pos() }

// Set is SET 'key' = 'value', or SET alone to list the configuration
// (Key and Value nil).
type Set struct {
	Loc
	Key   *StringLit
	Value *StringLit
}

// Reset is RESET 'key', or RESET alone to reset every key (Key nil).
type Reset struct {
	Loc
	Key *StringLit
}

// UseCatalog is USE CATALOG name.
type UseCatalog struct {
	Loc
	Name *Ident
}

// UseDatabase is USE [catalog.]database.
type UseDatabase struct {
	Loc
	// Name has one or two parts.
	Name *ObjectName
}

// ShowKind is what a SHOW statement lists.
type ShowKind uint8

// The SHOW statements.
const (
	ShowCatalogs        ShowKind = iota // SHOW CATALOGS
	ShowDatabases                       // SHOW DATABASES
	ShowTables                          // SHOW TABLES
	ShowFunctions                       // SHOW FUNCTIONS
	ShowViews                           // SHOW VIEWS
	ShowCurrentCatalog                  // SHOW CURRENT CATALOG
	ShowCurrentDatabase                 // SHOW CURRENT DATABASE
	ShowUserFunctions                   // SHOW USER FUNCTIONS
)

// String returns the SQL text after SHOW, e.g. "CURRENT CATALOG".
func (k ShowKind) String() string {
	switch k {
	case ShowCatalogs:
		return "CATALOGS"
	case ShowDatabases:
		return "DATABASES"
	case ShowTables:
		return "TABLES"
	case ShowFunctions:
		return "FUNCTIONS"
	case ShowViews:
		return "VIEWS"
	case ShowCurrentCatalog:
		return "CURRENT CATALOG"
	case ShowCurrentDatabase:
		return "CURRENT DATABASE"
	case ShowUserFunctions:
		return "USER FUNCTIONS"
	}
	return "?"
}

// Show is SHOW CATALOGS | DATABASES | TABLES | FUNCTIONS |
// CURRENT CATALOG | CURRENT DATABASE. SHOW TABLES and SHOW VIEWS take
// Flink's [FROM | IN [catalog.]database] [[NOT] LIKE 'pattern'].
type Show struct {
	Loc
	What ShowKind
	// From is the database of FROM/IN (nil: the current one).
	From *ObjectName
	// Like is the LIKE pattern (nil: none); NotLike negates it.
	Like    *StringLit
	NotLike bool
}

// ShowCreateTable is SHOW CREATE TABLE name.
type ShowCreateTable struct {
	Loc
	Name *ObjectName
}

// DescribeFunction is DESCRIBE FUNCTION [EXTENDED] name.
type DescribeFunction struct {
	Loc
	Extended bool
	Name     *ObjectName
}

// Describe is DESCRIBE name or DESC name.
type Describe struct {
	Loc
	// Extended is set for DESCRIBE EXTENDED: the columns are followed by
	// the table's details (owner, writers, options).
	Extended bool
	Name     *ObjectName
}

// Explain is EXPLAIN [detail, ...] statement, or EXPLAIN PLAN FOR
// statement. The statement is a query, an INSERT or a CREATE TABLE.
type Explain struct {
	Loc
	// Details are the requested extra details in upper case, in order:
	// ESTIMATED_COST, CHANGELOG_MODE, JSON_EXECUTION_PLAN, PLAN_ADVICE.
	Details   []string
	Statement Statement
}

// AddJar is ADD JAR 'path'.
type AddJar struct {
	Loc
	Path *StringLit
}

func (*Insert) stmtNode()           {}
func (*Set) stmtNode()              {}
func (*Reset) stmtNode()            {}
func (*UseCatalog) stmtNode()       {}
func (*UseDatabase) stmtNode()      {}
func (*Show) stmtNode()             {}
func (*ShowCreateTable) stmtNode()  {}
func (*Describe) stmtNode()         {}
func (*DescribeFunction) stmtNode() {}
func (*Explain) stmtNode()          {}
func (*AddJar) stmtNode()           {}
