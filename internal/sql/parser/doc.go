// Package parser turns SQL text in Eddy's dialect (the Apache Flink SQL
// dialect) into the syntax tree of package ast.
//
// It is a hand-written scanner and recursive-descent parser in the style
// of go/parser. The entry points are ParseScript (a ';'-separated script),
// ParseStatement (exactly one statement) and Split (cut a script into
// statement texts without parsing them, as a shell does).
//
// # Errors
//
// Every error is a *sqlerr.Error whose Pos is the 1-based line and column
// (in characters) of the offending token in the parsed text, for example
// "at 1:10: unexpected 'FORM', expected FROM" with the hint "did you mean
// FROM?". Parsing stops at the first error. Syntax errors have code
// sqlerr.Syntax; constructs that are recognised but not supported (ALTER,
// CREATE VIEW, WITH, OVER, ...) have code sqlerr.Unsupported. Type texts
// are checked by types.ParseType, whose error code is kept.
//
// # Dialect notes
//
// Keywords are case-insensitive; identifiers, quoted with backticks or
// not, keep their case. The reserved words (ast.IsReserved) must be
// backticked to be used as names. Strings use single quotes with ”
// for a quote. Comments are -- to end of line and /* ... */.
//
// Operator precedence, loosest first: OR, AND, NOT, comparisons (=, <>,
// !=, <, <=, >, >=, IS, BETWEEN, IN, LIKE), ||, + and -, * / and %,
// unary - and +, then subscripts x[i]. A minus sign directly before a
// number is folded into the literal.
package parser
