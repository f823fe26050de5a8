// Package filesystem is the 'filesystem' connector: a table is a
// directory of files in a row format (csv, json, or the debezium-json
// changelog), optionally PARTITIONED BY columns into Hive-style
// directories "col=value/" (docs/decisions/0018-connector-factories.md).
//
// Reading is bounded: a statement reads the files present when it first
// starts (hidden files, starting with '.' or '_', are skipped), each file
// up to its size at that moment, in the order of their paths. A file is a
// partition of the source: its position is a byte offset, so a resumed
// statement continues inside a file.
//
// Writing is exactly-once with Eddy's checkpoints, as Flink's file sink:
// rows go into hidden in-progress files (".part-<job>-0-<n>.inprogress");
// a checkpoint finishes them (flush, fsync, close), records the renames to
// their visible names ("part-<job>-0-<n>") in the checkpoint's commit batch,
// and, once the batch committed, renames them. A job that restarts first
// completes the renames its last checkpoint recorded, then deletes the
// in-progress files no checkpoint covered (their rows are written again
// from the checkpoint's positions). INSERT OVERWRITE deletes the table's
// (or each written partition's) files of other writers at the commit of
// the first checkpoint; the deletions are recorded with the renames, so a
// crash in between is completed by the restart.
package filesystem
