package udf

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// Table is a user-defined table function: zero or more rows per call,
// like Flink's TableFunction, called in FROM with
//
//	SELECT ... FROM t, LATERAL TABLE(f(t.a)) AS x(c1, c2)
//	SELECT ... FROM t CROSS JOIN LATERAL TABLE(f(t.a))
//	SELECT ... FROM t LEFT JOIN LATERAL TABLE(f(t.a)) AS x ON TRUE
//
// Each input row is joined with the rows the call emits for it (the left
// join keeps an input row without any, padded with NULLs); an input
// change (+I, -U, +U, -D) produces the function's rows with the same
// kind, so the function should be deterministic for retractions to
// match. Overloads are resolved as for Scalar.
type Table struct {
	// Doc is a one-paragraph description.
	Doc string
	// Output is the type of the emitted rows: "ROW<word STRING, n INT>"
	// gives one column per field, an atomic type ("STRING") one column
	// named f0. AS x(c1, ...) renames them.
	Output string
	// Overloads are the signatures, in order of preference.
	Overloads []TableOverload
	// NonDeterministic marks a function whose rows may differ between
	// calls with the same arguments.
	NonDeterministic bool
}

// TableOverload is one signature of a table function and its
// implementation. Build it with Table0 ... Table3 or TableN, or write it
// out with Eval over SQL values.
type TableOverload struct {
	// Args are the SQL types of the arguments, or Any; a NULL argument
	// declared NOT NULL makes the call emit no rows without Eval being
	// called.
	Args []string
	// Variadic lets the last argument repeat zero or more times.
	Variadic bool
	// Eval emits the rows of one call through out; args is valid only
	// during the call. A returned error fails the statement.
	Eval func(ctx context.Context, out *Collector, args []types.Value) error

	goNotNull []bool
	goErr     error
}

// WithArgs returns o with the argument types declared as args.
func (o TableOverload) WithArgs(args ...string) TableOverload {
	o.Args = withGoNulls(args, o.goNotNull)
	return o
}

// Kind implements Function.
func (t *Table) Kind() Kind { return TableKind }

// Description implements Function.
func (t *Table) Description() string { return t.Doc }

// Signatures implements Function.
func (t *Table) Signatures() []string {
	var out []string
	for _, o := range t.Overloads {
		args, _ := parseArgTypes(o.Args)
		out = append(out, signature(args, o.Variadic, "TABLE "+t.Output))
	}
	return out
}

// Validate implements Function.
func (t *Table) Validate() error {
	if _, err := t.Columns(); err != nil {
		return err
	}
	if len(t.Overloads) == 0 {
		return errors.New("table function has no overloads")
	}
	for i, o := range t.Overloads {
		switch {
		case o.goErr != nil:
			return fmt.Errorf("overload %d: %w", i+1, o.goErr)
		case o.Eval == nil:
			return fmt.Errorf("overload %d: no Eval function", i+1)
		case o.Variadic && len(o.Args) == 0:
			return fmt.Errorf("overload %d: a variadic overload needs at least one argument", i+1)
		}
		if _, err := parseArgTypes(o.Args); err != nil {
			return fmt.Errorf("overload %d: %w", i+1, err)
		}
	}
	return nil
}

// Columns returns the columns of the emitted rows.
func (t *Table) Columns() (*types.Schema, error) {
	if t.Output == "" {
		return nil, errors.New("table function has no Output type")
	}
	ot, err := types.ParseType(t.Output)
	if err != nil {
		return nil, fmt.Errorf("invalid output type %q: %w", t.Output, err)
	}
	if ot.ID != types.TypeRow {
		return types.NewSchema(types.Field{Name: "f0", Type: ot}), nil
	}
	if len(ot.Fields) == 0 {
		return nil, errors.New("the output row type has no fields")
	}
	return types.NewSchema(ot.Fields...), nil
}

// ArgTypes returns the parsed argument declarations of every overload
// (after Validate succeeded).
func (t *Table) ArgTypes() []OverloadArgs {
	out := make([]OverloadArgs, len(t.Overloads))
	for i, o := range t.Overloads {
		a, _ := parseArgTypes(o.Args)
		out[i] = OverloadArgs{Args: a, Variadic: o.Variadic}
	}
	return out
}

// Collector receives the rows of a table function call.
type Collector struct {
	cols *types.Schema
	emit func(row []types.Value) error
}

// NewCollector returns a collector of rows with the given columns that
// passes each row to emit. Engines and test harnesses create collectors;
// functions only use them.
func NewCollector(cols *types.Schema, emit func(row []types.Value) error) *Collector {
	return &Collector{cols: cols, emit: emit}
}

// Emit emits one row: one value per output column, as Go values (see the
// types of the typed helpers; nil is NULL) or types.Values. Integers are
// accepted for FLOAT, DOUBLE and DECIMAL columns.
func (c *Collector) Emit(values ...any) error {
	if len(values) != c.cols.Len() {
		return fmt.Errorf("emitted %d values, but the output has %d columns %v", len(values), c.cols.Len(), c.cols.Names())
	}
	row := make([]types.Value, len(values))
	for i, x := range values {
		v, err := Coerce(toValueAny(x), c.cols.Fields[i].Type)
		if err != nil {
			return fmt.Errorf("column %s: %w", c.cols.Fields[i].Name, err)
		}
		row[i] = v
	}
	return c.emit(row)
}

// EmitRow emits one row of SQL values, one per output column; the
// collector may keep the slice.
func (c *Collector) EmitRow(row []types.Value) error {
	if len(row) != c.cols.Len() {
		return fmt.Errorf("emitted %d values, but the output has %d columns %v", len(row), c.cols.Len(), c.cols.Names())
	}
	for i, v := range row {
		w, err := Coerce(v, c.cols.Fields[i].Type)
		if err != nil {
			return fmt.Errorf("column %s: %w", c.cols.Fields[i].Name, err)
		}
		row[i] = w
	}
	return c.emit(row)
}

// Coerce checks that value v can be a value of SQL type t and returns it
// in t's representation: integers become floats or decimals for FLOAT,
// DOUBLE and DECIMAL; NULL is an error for a NOT NULL type.
func Coerce(v types.Value, t types.Type) (types.Value, error) {
	if v.IsNull() {
		if t.NotNull {
			return v, fmt.Errorf("NULL for a %s value", t)
		}
		return v, nil
	}
	want, ok := kindOf(t)
	if !ok || v.Kind() == want {
		return v, nil
	}
	if v.Kind() == types.KindInt {
		switch want {
		case types.KindFloat:
			return types.NewFloat(float64(v.Int())), nil
		case types.KindDecimal:
			return types.NewDecimal(apd.New(v.Int(), 0)), nil
		}
	}
	return v, fmt.Errorf("a %s value (%s) for type %s", kindName(v), v, t)
}

// kindOf returns the value kind of SQL type t.
func kindOf(t types.Type) (types.Kind, bool) {
	switch t.ID {
	case types.TypeBoolean:
		return types.KindBool, true
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		return types.KindInt, true
	case types.TypeFloat, types.TypeDouble:
		return types.KindFloat, true
	case types.TypeDecimal:
		return types.KindDecimal, true
	case types.TypeChar, types.TypeVarChar:
		return types.KindString, true
	case types.TypeBinary, types.TypeVarBinary:
		return types.KindBytes, true
	case types.TypeDate:
		return types.KindDate, true
	case types.TypeTime:
		return types.KindTime, true
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		return types.KindTimestamp, true
	case types.TypeIntervalYearMonth:
		return types.KindIntervalMonths, true
	case types.TypeIntervalDayTime:
		return types.KindIntervalNanos, true
	case types.TypeArray:
		return types.KindArray, true
	case types.TypeMap, types.TypeMultiset:
		return types.KindMap, true
	case types.TypeRow:
		return types.KindRow, true
	}
	return 0, false
}

func kindName(v types.Value) string { return v.InferType().Nullable().String() }
