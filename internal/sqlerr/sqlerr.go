package sqlerr

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code.
type Code string

// The error codes. Keep this list the single catalogue of codes.
const (
	Syntax            Code = "SYNTAX_ERROR"
	UnknownTable      Code = "UNKNOWN_TABLE"
	UnknownColumn     Code = "UNKNOWN_COLUMN"
	UnknownFunction   Code = "UNKNOWN_FUNCTION"
	UnknownCatalog    Code = "UNKNOWN_CATALOG"
	UnknownDatabase   Code = "UNKNOWN_DATABASE"
	DuplicateObject   Code = "DUPLICATE_OBJECT"
	TypeMismatch      Code = "TYPE_MISMATCH"
	InvalidArgument   Code = "INVALID_ARGUMENT"
	InvalidFunction   Code = "INVALID_FUNCTION_CALL"
	ChangelogMismatch Code = "CHANGELOG_MISMATCH"
	Unsupported       Code = "UNSUPPORTED"
	InvalidOption     Code = "INVALID_OPTION"
	Runtime           Code = "RUNTIME_ERROR"
	Internal          Code = "INTERNAL_ERROR"
)

// Pos is a 1-based line and column in a SQL text. The zero Pos is unknown.
type Pos struct {
	Line, Col int
}

// IsValid reports whether p is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String renders "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Error is a user-facing error.
type Error struct {
	Code    Code
	Message string
	Pos     Pos
	Hint    string
	Cause   error
}

// Error renders "at 3:14: message (hint: ...)".
func (e *Error) Error() string {
	s := e.Message
	if e.Pos.IsValid() {
		s = fmt.Sprintf("at %s: %s", e.Pos, s)
	}
	if e.Hint != "" {
		s += "\nHint: " + e.Hint
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Newf returns an error with a code and a formatted message.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// At returns e with position p (e is modified and returned).
func (e *Error) At(p Pos) *Error { e.Pos = p; return e }

// WithHint returns e with a hint (e is modified and returned).
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// Wrapf wraps err with a code and message.
func Wrapf(err error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...) + ": " + err.Error(), Cause: err}
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Offset shifts a position inside a statement that starts at base (both
// 1-based) to a position in the enclosing script.
func Offset(p, base Pos) Pos {
	if !p.IsValid() || !base.IsValid() {
		return p
	}
	if p.Line == 1 {
		return Pos{Line: base.Line, Col: base.Col + p.Col - 1}
	}
	return Pos{Line: base.Line + p.Line - 1, Col: p.Col}
}
