// Command custom-binary is a complete Eddy distribution with one extra
// process table function compiled in. It is the pattern for shipping your
// own functions: a main of a few lines around eddy.Main.
//
//	go build -o my-eddy ./examples/custom-binary
//	./my-eddy sql -e "CREATE FUNCTION Greet AS 'acme.Greet';
//	                  CREATE TABLE people (name STRING);
//	                  INSERT INTO people VALUES ('Ada'), ('Linus');
//	                  SET 'sql-client.execution.result-mode' = 'changelog';
//	                  SELECT * FROM Greet(input => TABLE people)"
package main

import (
	"github.com/eddy-sql/eddy"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
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

func main() {
	eddy.Main(eddy.WithFunctions(map[string]*ptf.Definition{"acme.Greet": Greet}))
}
