package docexample_test

import (
	"fmt"
	"testing"

	"github.com/eddy-sql/eddy/internal/docexample"
	"github.com/stretchr/testify/require"
)

const src = `package x_test

func ExampleA() {
	a := 1

	b := a + 1
	_ = b
}

func ExampleB() {}
`

func TestCheck(t *testing.T) {
	doc := "text\n<!-- ex: ExampleA -->\n```go\n  a := 1\n  b := a + 1\n```\n" +
		"<!-- ex: ExampleA -->\n```go\nb := a + 2\n```\n" +
		"<!-- ex: ExampleC -->\n```go\nx\n```\n" +
		"<!-- other: ExampleB -->\n```go\n```\n"
	r, err := docexample.Check([]byte(doc), []byte(src), "x_test.go", "ex")
	require.NoError(t, err)
	require.Equal(t, 3, r.Blocks)
	require.Len(t, r.Problems, 2)
	require.Contains(t, r.Problems[0], "the block marked ExampleA is not part of that example")
	require.Contains(t, r.Problems[1], "ExampleC, which is not in x_test.go")
	require.Equal(t, []string{"ExampleB"}, r.Unshown)
}

func ExampleCheck() {
	doc := "<!-- ex: ExampleB -->\n```go\n```\n"
	r, err := docexample.Check([]byte(doc), []byte(src), "x_test.go", "ex")
	fmt.Println(r.Blocks, len(r.Problems), r.Unshown, err)
	// Output: 1 0 [ExampleA] <nil>
}
