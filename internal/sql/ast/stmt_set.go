package ast

// StatementSet is EXECUTE STATEMENT SET BEGIN insert; insert; ... END:
// the INSERTs are planned together and run as one job with one sink per
// INSERT.
type StatementSet struct {
	Loc // the EXECUTE keyword
	// Inserts are the INSERT statements of the block, at least one.
	Inserts []*Insert
}

// BeginStatementSet is BEGIN STATEMENT SET, the SQL client's way to open a
// statement set: the INSERTs that follow are collected until END.
type BeginStatementSet struct{ Loc }

// EndStatementSet is the END that submits the statement set opened by
// BEGIN STATEMENT SET.
type EndStatementSet struct{ Loc }

// OnConflict is the conflict strategy of INSERT ... ON CONFLICT (Flink
// 2.3): what an upsert sink does when rows of different upsert keys map to
// one primary key.
type OnConflict uint8

// The conflict strategies.
const (
	// NoConflictClause: no ON CONFLICT clause.
	NoConflictClause OnConflict = iota
	// ConflictDoNothing keeps the first row per primary key.
	ConflictDoNothing
	// ConflictDoError fails the statement.
	ConflictDoError
	// ConflictDoDeduplicate keeps the rows in a sink upsert materializer
	// and writes the last one alive.
	ConflictDoDeduplicate
)

// String returns the SQL text after ON CONFLICT, e.g. "DO NOTHING".
func (c OnConflict) String() string {
	switch c {
	case ConflictDoNothing:
		return "DO NOTHING"
	case ConflictDoError:
		return "DO ERROR"
	case ConflictDoDeduplicate:
		return "DO DEDUPLICATE"
	}
	return ""
}

// AlterTable is ALTER TABLE [IF EXISTS] name action, with exactly one
// action: SET (options), RESET (keys), ADD (elements), MODIFY (elements),
// DROP (columns), DROP PRIMARY KEY, DROP WATERMARK, RENAME col TO col2
// or RENAME TO name.
type AlterTable struct {
	Loc
	IfExists bool
	Name     *ObjectName
	// Action is the position of the action's first keyword (SET, ADD,
	// DROP, ...).
	Action Loc
	// Set are the options of SET ('k' = 'v', ...).
	Set []*Option
	// Reset are the keys of RESET ('k', ...).
	Reset []*StringLit
	// Add holds the elements of ADD col ... / ADD (col, ..., PRIMARY KEY
	// (...) NOT ENFORCED, WATERMARK FOR ...): only its Columns,
	// PrimaryKey and Watermark are set. Positions of the added columns
	// are in AddPositions.
	Add *CreateTable
	// AddPositions gives, per column of Add, where it goes: "" (at the
	// end), "FIRST" or the name of the column it goes AFTER.
	AddPositions []string
	// Modify holds the elements of MODIFY col ... / MODIFY (col, ...,
	// PRIMARY KEY (...) NOT ENFORCED, WATERMARK FOR ...), as Add does;
	// positions of the modified columns are in ModifyPositions.
	Modify *CreateTable
	// ModifyPositions gives, per column of Modify, where it moves: ""
	// (where it is), "FIRST" or the name of the column it goes AFTER.
	ModifyPositions []string
	// Drop are the columns of DROP col / DROP (col, ...).
	Drop []*Ident
	// DropPrimaryKey is set for DROP PRIMARY KEY.
	DropPrimaryKey bool
	// DropWatermark is set for DROP WATERMARK.
	DropWatermark bool
	// RenameColumn and RenameColumnTo are the old and new names of
	// RENAME col TO col2.
	RenameColumn, RenameColumnTo *Ident
	// RenameTo is the new name of RENAME TO.
	RenameTo *ObjectName
}

// LikeClause is the LIKE clause of CREATE TABLE: LIKE source [(options)].
type LikeClause struct {
	Loc    // the LIKE keyword
	Source *ObjectName
	// Options are the like options in order.
	Options []*LikeOption
}

// LikeOption is one { INCLUDING | EXCLUDING | OVERWRITING } feature of a
// LIKE clause.
type LikeOption struct {
	Loc
	// Mode is "INCLUDING", "EXCLUDING" or "OVERWRITING".
	Mode string
	// Feature is "ALL", "CONSTRAINTS", "DISTRIBUTION", "PARTITIONS",
	// "GENERATED", "METADATA", "OPTIONS" or "WATERMARKS".
	Feature string
}

func (*StatementSet) stmtNode()      {}
func (*BeginStatementSet) stmtNode() {}
func (*EndStatementSet) stmtNode()   {}
func (*AlterTable) stmtNode()        {}
