// Command custom-binary is a complete Eddy distribution with one extra
// process table function and one user-defined scalar function compiled
// in. It is the pattern for shipping your own functions: a main of a few
// lines around eddy.Main.
//
//	go build -o my-eddy ./examples/custom-binary
//	./my-eddy sql -e "CREATE FUNCTION Greet AS 'acme.Greet';
//	                  CREATE TABLE people (name STRING);
//	                  INSERT INTO people VALUES ('Ada'), ('Linus');
//	                  SET 'sql-client.execution.result-mode' = 'changelog';
//	                  SELECT * FROM Greet(input => TABLE people)"
//	./my-eddy sql -e "CREATE FUNCTION Shout AS 'acme.Shout'; SELECT Shout('hi', 3)"
package main

import (
	"context"
	"strings"

	"github.com/eddy-sql/eddy"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// Greet is a stateless, row-semantic function that greets each row's name.
var Greet = &ptf.Definition{
	Doc:    "Greets every row's name.",
	Args:   []ptf.Arg{ptf.Table("input")},
	Output: "ROW<greeting STRING>",
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		ctx.Collect(types.NewString("Hello, " + in.Row.Get("name").Str() + "!"))
		return nil
	},
}

// Shout upper-cases a text and appends n exclamation marks (one without n).
var Shout = &udf.Scalar{
	Doc: "Shout(text[, n]) upper-cases text and appends n exclamation marks (1 by default).",
	Overloads: []udf.Overload{
		udf.Func1(func(_ context.Context, s string) (string, error) { return strings.ToUpper(s) + "!", nil }),
		udf.Func2(func(_ context.Context, s string, n int32) (string, error) {
			return strings.ToUpper(s) + strings.Repeat("!", int(max(n, 0))), nil
		}),
	},
}

func main() {
	eddy.Main(
		eddy.WithFunctions(map[string]*ptf.Definition{"acme.Greet": Greet}),
		eddy.WithUserFunctions(map[string]udf.Function{"acme.Shout": Shout}),
	)
}
