package connector

import "github.com/eddy-sql/eddy/internal/sqlerr"

// The clauses of CREATE TABLE an OptionError may be about (besides an
// option or a column).
const (
	ClauseQuery        = "query"        // AS SELECT
	ClauseDistribution = "distribution" // DISTRIBUTED BY
	ClausePrimaryKey   = "primary key"
	ClausePartitioned  = "partitioned" // PARTITIONED BY
)

// OptionError is a validation error about one part of a table's
// definition: the option Key, else the column Column, else the CREATE
// TABLE clause Clause, else the table as a whole. The planner uses them to
// point at the place in the DDL.
type OptionError struct {
	Key, Column, Clause string
	Err                 *sqlerr.Error
}

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// WithHint adds a hint to the error.
func (e *OptionError) WithHint(format string, args ...any) *OptionError {
	e.Err.WithHint(format, args...)
	return e
}

// NewOptionError returns an INVALID_OPTION error about option key ("" for
// the table as a whole).
func NewOptionError(key, format string, args ...any) *OptionError {
	return &OptionError{Key: key, Err: sqlerr.Newf(sqlerr.InvalidOption, format, args...)}
}

// ColumnError returns an error about column name.
func ColumnError(column string, code sqlerr.Code, format string, args ...any) *OptionError {
	return &OptionError{Column: column, Err: sqlerr.Newf(code, format, args...)}
}

// ClauseError returns an error about a clause of CREATE TABLE (Clause*).
func ClauseError(clause string, code sqlerr.Code, format string, args ...any) *OptionError {
	return &OptionError{Clause: clause, Err: sqlerr.Newf(code, format, args...)}
}
