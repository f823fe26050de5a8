// Package printsink is the 'print' connector, a sink that writes every row
// to the standard output (or standard error) of the Eddy process, in
// Flink's format: the row kind and the fields as Java prints them,
// "+I[1, Alice, 2024-01-01T10:00]", after an optional 'print-identifier'
// prefix ("orders> +I[...]"). Eddy's sink runs as one writer, so the
// subtask number Flink adds at parallelism > 1 never appears.
package printsink
