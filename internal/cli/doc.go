// Package cli is Eddy's command line: the cobra commands of the eddy
// binary and the SQL shell.
//
// NewRootCommand builds the eddy command from Options; Run executes it and
// returns the exit status. The SQL engine is injected through
// Options.OpenEngine (interface Engine), so this package does not import
// the engine and tests use a fake one.
//
// # eddy sql
//
// With -f FILE or -e STATEMENTS it runs a script: Split cuts the text into
// statements on top-level ';' (not inside '…' strings, `…` identifiers,
// comments or an EXECUTE STATEMENT SET block) and remembers where each
// starts, so an error, positioned relative to its statement, is reported as
// FILE:LINE:COL of the script. The script stops at the first error (exit
// status 1).
//
// Without them it runs the interactive shell: prompt "Eddy SQL> ",
// multi-line entries ended by ';' (IsComplete), line editing and history
// with github.com/knz/bubbline on a terminal, plain line reading otherwise.
// SELECTs run continuously until Ctrl-C.
//
// # Results
//
// Results print as the Flink SQL client prints them: a bordered table with
// right-aligned cells and a footer ("3 rows in set", "Received a total of 8
// rows", "Empty set"). The session key sql-client.execution.result-mode
// selects the form of a SELECT result:
//
//   - table (default): the changelog is materialized, by key when the
//     stream has one (upsert) or as a multiset of rows, and the final table
//     is printed.
//   - changelog: every change is printed with an op column (+I, -U, +U,
//     -D).
//   - tableau: every change is printed as it comes.
//
// On a terminal the table and changelog modes are full-screen views with
// the Flink SQL client's keys (view.go, view_run.go). SHOW, DESCRIBE and
// EXPLAIN results print as plain tables.
//
// # Background statements and other processes
//
// An engine may have a statements API (statementClienter): SHOW JOBS and
// STOP JOB are answered over it (jobs.go). When Options.OpenEngine fails
// with ErrDataDirInUse, eddy sql attaches to the process holding the data
// directory through its socket (local.go) and runs as eddy sql --server
// does; eddy statement --data-dir uses Options.OpenStatements or the
// socket the same way (statement_local.go).
//
// # Adding commands
//
// Commands written in this package (server, statement, api-key) are added
// in NewRootCommand; commands from elsewhere can be passed in
// Options.Commands.
package cli
