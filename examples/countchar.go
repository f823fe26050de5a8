package examples

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// CountChar is the Nexmark suite's scalar UDF of q14
// (com.github.nexmark.flink.udf.CountChar): how many times the first
// character of the second argument occurs in the first. As the Java
// function, a NULL text counts 0 and the result is a BIGINT NOT NULL
// (its eval returns a primitive long); a NULL or empty character fails
// the call (Java's NullPointerException and
// StringIndexOutOfBoundsException). Characters are Unicode code points
// (Java compares UTF-16 code units, which is the same outside the
// supplementary planes).
var CountChar = &udf.Scalar{
	Doc: "CountChar(s, c) is the number of occurrences of the first character of c in s (0 when s is NULL); the Nexmark suite's count_char.",
	Overloads: []udf.Overload{{
		Args:   []string{"STRING", "STRING"},
		Result: "BIGINT NOT NULL",
		Eval: func(_ context.Context, args []types.Value) (types.Value, error) {
			if args[1].IsNull() {
				return types.Null, errors.New("count_char: the character argument is NULL")
			}
			c, n := utf8.DecodeRuneInString(args[1].Str())
			if n == 0 {
				return types.Null, errors.New("count_char: the character argument is empty")
			}
			if args[0].IsNull() {
				return types.NewInt(0), nil
			}
			return types.NewInt(int64(strings.Count(args[0].Str(), string(c)))), nil
		},
	}},
}

// SuiteFunctions maps the Java class names under which benchmark suites
// declare their functions (CREATE FUNCTION count_char AS
// 'com.github.nexmark.flink.udf.CountChar') to Go implementations, so
// that the suites' scripts run unchanged. RegisterUserFunctions registers
// them under those names.
func SuiteFunctions() map[string]udf.Function {
	return map[string]udf.Function{
		"com.github.nexmark.flink.udf.CountChar": CountChar,
	}
}
