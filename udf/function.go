package udf

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// Kind is the kind of a user-defined function.
type Kind uint8

// The function kinds.
const (
	ScalarKind    Kind = iota + 1 // f(a, b) in any expression
	TableKind                     // LATERAL TABLE(f(a)) in FROM
	AggregateKind                 // f(a) in GROUP BY queries
)

// String returns "scalar", "table" or "aggregate".
func (k Kind) String() string {
	switch k {
	case ScalarKind:
		return "scalar"
	case TableKind:
		return "table"
	case AggregateKind:
		return "aggregate"
	}
	return "unknown"
}

// Function is a user-defined function: a *Scalar, a *Table or an
// *Aggregate[ACC].
type Function interface {
	// Kind says what kind of function it is.
	Kind() Kind
	// Description is the documentation shown by SHOW USER FUNCTIONS and
	// DESCRIBE FUNCTION.
	Description() string
	// Signatures lists the overloads as "(INT, STRING) -> STRING".
	Signatures() []string
	// Validate checks the declaration: every type string parses, every
	// overload has an implementation and a result type.
	Validate() error
}

// Any is the argument type that accepts a value of any type, passed as it
// is (no cast). Overloads with Any arguments usually derive their result
// type with Infer.
const Any = "ANY"

// ArgType is a declared argument type: a SQL type, or Any.
type ArgType struct {
	// Type is the parsed SQL type; its NotNull says the argument never
	// sees NULL.
	Type types.Type
	// Any is set for an argument that accepts every type.
	Any bool
}

// String returns the declaration as written in a signature.
func (a ArgType) String() string {
	if a.Any {
		return Any
	}
	return a.Type.String()
}

// Accepts reports whether a value of type t is passed to the argument
// without a cast: any type for Any, else the same type apart from
// nullability.
func (a ArgType) Accepts(t types.Type) bool { return a.Any || a.Type.Same(t) }

// parseArgTypes parses declared argument types.
func parseArgTypes(decl []string) ([]ArgType, error) {
	out := make([]ArgType, len(decl))
	for i, s := range decl {
		if strings.EqualFold(strings.TrimSpace(s), Any) {
			out[i] = ArgType{Any: true}
			continue
		}
		t, err := types.ParseType(s)
		if err != nil {
			return nil, fmt.Errorf("argument %d: invalid type %q: %w", i+1, s, err)
		}
		out[i] = ArgType{Type: t}
	}
	return out, nil
}

// signature renders (args) -> result.
func signature(args []ArgType, variadic bool, result string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
		if variadic && i == len(args)-1 {
			parts[i] += "..."
		}
	}
	return "(" + strings.Join(parts, ", ") + ") -> " + result
}

// Signature is what a call site resolves an overload to: the argument
// types the values are cast to (one per argument of the call, Any ones
// taking the call's type) and the result type.
type Signature struct {
	Args   []types.Type
	Result types.Type
}
