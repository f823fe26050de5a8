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
//     is printed; on a terminal the shell redraws it in place as it changes.
//   - changelog, tableau: every change is printed with an op column (+I,
//     -U, +U, -D).
//
// SHOW, DESCRIBE and EXPLAIN results print as plain tables.
//
// # Adding commands
//
// Commands written in this package (server, statement, api-key) are added
// in NewRootCommand; commands from elsewhere can be passed in
// Options.Commands.
package cli
