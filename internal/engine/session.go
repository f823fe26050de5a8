package engine

import (
	"context"
	"maps"

	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
)

// SessionProperties returns the session's state as statement properties:
// the SET options, and 'sql.current-catalog' and 'sql.current-database'.
// A statement run with them (Run) sees what the session sees.
func (e *Engine) SessionProperties() map[string]string {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	props := maps.Clone(e.sess.Config)
	props["sql.current-catalog"] = e.sess.Catalog
	props["sql.current-database"] = e.sess.Database
	return props
}

// IsBackground reports whether sql starts a job that writes a table and
// runs on by itself: INSERT INTO … SELECT and CREATE TABLE … AS SELECT
// (not INSERT … VALUES, which writes its rows at once). The shell runs
// those as durable statements. A statement that does not parse is not
// background; Execute reports its error.
func IsBackground(sql string) bool {
	stmt, err := parser.ParseStatement(sql)
	if err != nil {
		return false
	}
	switch s := stmt.(type) {
	case *ast.Insert:
		_, values := s.Query.(*ast.Values)
		return !values
	case *ast.CreateTable:
		return s.Query != nil
	case *ast.StatementSet:
		return true
	}
	return false
}

// SyncAlso makes scripts (Execute with interactive false) wait, before each
// statement, for the jobs that jobs returns as well as for the session's
// own: the durable statements a shell started. A failure of one of them is
// reported by the next statement, as a failure of the session's own jobs
// is; the caller owns the jobs and their state.
func (e *Engine) SyncAlso(jobs func() []*runtime.Job) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.external = jobs
}

// Sync waits until every job of the session and every job SyncAlso
// returns has caught up with all data written so far, as a script does
// before each statement.
func (e *Engine) Sync(ctx context.Context) error { return e.syncJobs(ctx) }
