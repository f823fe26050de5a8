package jobgraph

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
)

// Correlate joins each input row with the rows of a table function called
// on it (Flink's Correlate): LATERAL TABLE(f(...)) over a user-defined
// table function, or UNNEST(x). The output row is the input row's columns
// followed by the function's Columns, with the input row's kind, so that a
// change (+I, -U, +U, -D) of the input changes the same function rows.
// Inner (CROSS JOIN LATERAL, comma) drops an input row for which the
// function emits nothing; Left (LEFT JOIN LATERAL ... ON TRUE) keeps it,
// padded with NULLs. The operator is stateless.
type Correlate struct {
	// Name is the function's name in the call, for EXPLAIN.
	Name string
	// Func is the user-defined table function; nil for UNNEST.
	Func TableFunc
	// Unnest is set for UNNEST; Args is then the one collection.
	Unnest *Unnest
	// Args are the call's arguments, over the input row.
	Args []expr.Expr
	// Left keeps input rows without function rows, padded with NULLs.
	Left bool
	// Columns are the function's output columns.
	Columns *types.Schema
}

// Unnest is UNNEST(x) of an ARRAY, MAP or MULTISET: one row per element
// (an array of ROWs gives the row's fields as columns), per entry (key
// and value columns) or per occurrence (a multiset element repeated by
// its multiplicity); a NULL or empty collection gives no rows.
type Unnest struct {
	// Of is the type of x.
	Of types.Type
	// Ordinality appends the 1-based position of the element as an INT
	// column (WITH ORDINALITY).
	Ordinality bool
}

// TableFunc is a table function as the runtime calls it.
type TableFunc interface {
	// Eval calls the function on the argument values and passes each row
	// it emits (the function's columns) to emit, which may keep the slice.
	Eval(args []types.Value, emit func(row []types.Value) error) error
}
