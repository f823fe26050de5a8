// Package expr builds, type-checks and evaluates typed scalar expressions
// with the semantics of Apache Flink SQL.
//
// The planner resolves names and builds expressions bottom-up with the
// constructors Col, Lit, Cast, Binary, Unary, Case, Call (CallEnv), Between,
// In, Subscript, IsJSON, JSONValue, JSONObject and JSONArray.
// Each constructor type-checks its operands and derives the result type
// (including nullability), so a constructed Expr only fails at Eval time
// for data-dependent reasons. Expressions are immutable and safe for
// concurrent use; the runtime calls Eval once per row:
//
//	a, _ := expr.Col(0, "a", types.Int)
//	v, t, _ := expr.NumericLiteral("10") // INT NOT NULL
//	ten, _ := expr.Lit(v, t)
//	gt, _ := expr.Binary(">", a, ten)
//	res, err := gt.Eval(row) // BOOLEAN; NULL if a is NULL
//
// # Types
//
// Type rules follow Flink (which follows Calcite and SQL Server for
// DECIMAL): numeric operands promote along TINYINT < SMALLINT < INT <
// BIGINT < DECIMAL < FLOAT < DOUBLE (DECIMAL with FLOAT gives DOUBLE), with
// DECIMAL results sized by Flink's precision/scale rules (see Binary) and
// capped at precision 38; comparisons need comparable types (numbers with
// numbers, strings with strings, timestamps with timestamps, ...);
// datetimes add and subtract intervals. CommonType,
// CanCastImplicitly and CanCast expose the rules the planner needs for
// VALUES, UNION, INSERT and explicit CAST. Literal helpers (NumericLiteral,
// StringLiteral, TimestampLiteral, IntervalLiteral, ...) type literal
// text exactly like Flink: 100.0 is DECIMAL(4, 1) NOT NULL.
//
// # Functions
//
// The built-in scalar functions live in one registry (registry.go) filled
// by a file per family: funcs.go (conditional, basic string), math.go,
// strings_more.go, regex.go, temporal_funcs.go (with datefmt.go), json.go,
// collection.go and hash.go (hashing, misc). Each entry has a name, a
// family, signatures, a description, an argument count and a constructor;
// Functions, LookupFunction and SuggestFunction read it for SHOW FUNCTIONS,
// DESCRIBE FUNCTION and did-you-mean hints. docs/functions.md lists them.
// The current-time functions read Env.Now, the statement's clock, which
// the planner injects through CallEnv; expressions never read the system
// clock.
//
// # Semantics
//
//   - NULL: operators and functions return NULL when an operand is NULL,
//     except AND/OR (three-valued logic: FALSE AND NULL is FALSE, TRUE OR
//     NULL is TRUE), the IS tests, IS [NOT] DISTINCT FROM, COALESCE, CASE
//     and IN (TRUE if any element matches, else NULL if any was NULL).
//   - Integer overflow wraps around like Java's int/long arithmetic, which
//     is what Flink does: INT 2147483647 + 1 is -2147483648. Integer and
//     DECIMAL division by zero is a runtime error; FLOAT/DOUBLE division
//     follows IEEE 754.
//   - DECIMAL arithmetic is exact (apd) and rounded HALF_UP to the result
//     scale. A result with too many integer digits is a runtime error
//     (Flink returns NULL).
//   - CAST fails with a runtime error on unparsable strings and values out
//     of range of the target type (including narrowing integer casts,
//     where Flink wraps); TRY_CAST returns NULL instead (errors of its
//     operand still propagate).
//   - TIMESTAMP_LTZ values are interpreted in UTC: the session time zone
//     is not modelled yet. Timestamps are int64 nanoseconds (types.Value),
//     so they range over 1677-09-22 .. 2262-04-10; results outside are
//     runtime errors.
//   - AND, OR, CASE, COALESCE and IN evaluate lazily, left to right.
//
// # Errors
//
// Constructor errors are *sqlerr.Error values without a position: code
// TypeMismatch for type errors ("cannot apply '+' to arguments of type
// STRING and INT", "cannot compare INT with STRING"), UnknownFunction
// ("unknown function 'FOO'"), InvalidFunction (argument count) and Syntax
// (malformed literals). The planner adds the position with At. Eval errors
// have code Runtime.
//
// # Performance
//
// Eval does not allocate for integer, boolean, datetime and interval
// arithmetic and comparisons, column references, literals, IS tests,
// logic and functions of up to four fixed-width arguments (math,
// EXTRACT, FLOOR/CEIL TO, TIMESTAMPADD, ...; their arguments travel in an
// array by value); string concatenation, string functions returning new
// strings, DECIMAL arithmetic, ROUND of a DOUBLE and casts to strings do.
// Regular expressions with a literal pattern are compiled once, when the
// call is built.
package expr
