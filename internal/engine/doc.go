// Package engine is the embedded Eddy engine: it opens a data directory
// (one Pebble instance holding the catalog, every log table and all state),
// keeps a SQL session (current catalog and database, SET options), and
// executes statements: DDL against the catalog, INSERT ... VALUES directly
// into logs, and queries as jobs on the runtime.
//
// Scripts are deterministic (DESIGN.md §5): before each statement runs,
// every job started earlier in the session has caught up with all data
// written so far, and a script SELECT is a bounded snapshot.
package engine
