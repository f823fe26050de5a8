// Package udftest runs user-defined functions (package udf) without an
// engine, for unit tests. Calls are bound as SQL binds them: the overload
// is chosen by the SQL types of the arguments, the values are cast to the
// declared types, arguments declared NOT NULL turn a NULL into a NULL
// result (no rows, a skipped row), and a panic becomes an error.
//
// Arguments are Go values, converted as the typed helpers of package udf
// convert them (int64 is BIGINT NOT NULL, string is STRING NOT NULL, nil is
// an untyped NULL, ...), or SQL values of a given type made with Typed.
//
// Aggregate runs an aggregate function over one group: Add and Retract
// rows, read Value, and Restore the accumulator from its encoding as the
// engine does after a checkpoint.
package udftest
