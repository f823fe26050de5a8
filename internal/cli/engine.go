package cli

import (
	"context"

	"github.com/eddy-sql/eddy/types"
)

// Engine is what the shell needs from the SQL engine. The embedded engine
// (package engine) implements it; a REST-backed one comes later.
type Engine interface {
	// Execute runs one SQL statement (without the trailing ';'). Errors are
	// *sqlerr.Error with positions relative to the statement's first
	// character (line 1, column 1); the shell shifts them to the script.
	//
	// In a script (Interactive false), Execute returns only once every
	// statement started earlier has caught up with all data written so far,
	// and a SELECT result is a bounded snapshot.
	Execute(ctx context.Context, sql string, interactive bool) (*Result, error)
	// Config returns the session configuration set with SET.
	Config() map[string]string
	// Close stops running jobs and releases the data directory.
	Close() error
}

// Result is the outcome of one statement.
type Result struct {
	// Message is shown for statements without rows ("[INFO] Execute
	// statement succeeded.", "Table has been created.").
	Message string
	// Rows is set for statements that return rows (SELECT, SHOW, DESCRIBE,
	// EXPLAIN).
	Rows *RowStream
}

// RowStream is a possibly unbounded stream of changes.
type RowStream struct {
	Schema *types.Schema
	// Name is the statement whose results these are, on a server (the
	// shell shows it); "" for the embedded engine's own queries.
	Name string
	// Key lists the positions of the primary or upsert key columns used to
	// materialize the table result mode; empty means the whole row is the
	// key (an insert-only or retract stream is materialized by counting).
	Key []int
	// Static is true for SHOW/DESCRIBE/EXPLAIN output, always printed as a
	// plain table without an op column.
	Static bool
	// Order sorts the materialized table (table result mode): the ORDER BY
	// of a query whose rows cannot be sorted as they stream.
	Order []SortKey
	// Next returns the next change; ok is false at the end of a bounded
	// stream. It blocks for unbounded streams until a row arrives or ctx
	// is done.
	Next func(ctx context.Context) (row types.Row, ok bool, err error)
	// Close releases the stream (stops the job behind it).
	Close func()
}

// SortKey is one ORDER BY key of a result table: a column, its direction
// and where NULLs go.
type SortKey struct {
	Col              int
	Desc, NullsFirst bool
}
