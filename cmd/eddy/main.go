// Command eddy is the Eddy streaming SQL engine: an interactive SQL shell,
// script runner and (later) server and statement manager, with the
// examples.* process table functions built in.
//
// Build your own distribution with your functions compiled in with
// eddy.Main; see examples/custom-binary.
package main

import "github.com/eddy-sql/eddy"

func main() { eddy.Main() }
