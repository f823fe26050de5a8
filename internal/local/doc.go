// Package local runs Eddy on a data directory inside the eddy process, the
// way `eddy sql` and `eddy statement … --data-dir` use it: the embedded
// engine with its durable statements, and the data directory's socket.
//
// A Session is the engine's SQL session plus the statement manager the
// server uses (package statement). A continuous INSERT INTO … SELECT or
// CREATE TABLE … AS SELECT typed in the shell becomes a durable statement:
// it survives the shell, resumes whenever the data directory is opened
// again (by a shell or by `eddy server`), and is listed and stopped with
// SHOW JOBS and STOP JOB or the `eddy statement` commands. Everything else
// (DDL, INSERT … VALUES, SELECT) runs in the session as before, so scripts
// stay deterministic: before each statement of a script, the session's
// jobs and the running statements catch up with all data written so far.
//
// While a Session is open it serves the REST API of its statements on the
// data directory's Unix socket (v1.SocketPath) to the processes of the same
// user, so that a second `eddy sql` or an `eddy statement … --data-dir`
// attaches to it instead of failing on the data directory's lock; Client
// returns an in-process client of the same API.
package local
