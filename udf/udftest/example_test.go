package udftest_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/udf"
	"github.com/eddy-sql/eddy/udf/udftest"
)

// Calling a scalar function as SQL would: the INT argument is cast to
// the BIGINT the function declares, and a NULL string gives NULL.
func ExampleCall() {
	pad := &udf.Scalar{Overloads: []udf.Overload{
		udf.Func2(func(_ context.Context, s string, n int64) (string, error) {
			return s + strings.Repeat(".", int(max(n-int64(len(s)), 0))), nil
		}),
	}}
	r, _ := udftest.Call(pad, "ab", int32(5))
	fmt.Println(r)
	r, _ = udftest.Call(pad, udftest.Typed("STRING", nil), int64(5))
	fmt.Println(r)
	// Output:
	// ab... : STRING NOT NULL
	// <NULL> : STRING
}
