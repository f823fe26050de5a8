package udf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/eddy-sql/eddy/types"
)

// Aggregate is a user-defined aggregate function with accumulators of Go
// type ACC, like Flink's AggregateFunction<T, ACC>: called in the select
// list or HAVING of a GROUP BY query (or a global aggregate),
//
//	SELECT item, WeightedAvg(price, qty) FROM orders GROUP BY item
//
// Per group, the engine keeps one ACC in the operator's keyed state,
// encoded with Codec, so it is checkpointed and restored with the
// statement. Rows are accumulated (+I, +U) and retracted (-U, -D); the
// group's result is Value of the accumulator after each change. DISTINCT
// and FILTER (WHERE ...) work as for the built-in aggregates.
type Aggregate[ACC any] struct {
	// Doc is a one-paragraph description.
	Doc string
	// Args are the SQL types of the arguments, or Any. A row whose
	// argument declared NOT NULL is NULL is skipped; nullable arguments
	// see NULLs (handling them is the function's job, as in Flink).
	Args []string
	// Variadic lets the last argument repeat zero or more times.
	Variadic bool
	// Result is the SQL result type, or Infer derives it from the types
	// of the call's arguments.
	Result string
	Infer  func(args []types.Type) (types.Type, error)
	// Init sets up a new accumulator; nil leaves the zero ACC.
	Init func(acc *ACC)
	// Accumulate adds a row's arguments to acc.
	Accumulate func(ctx context.Context, acc *ACC, args []types.Value) error
	// Retract removes a row's arguments from acc. It is required to
	// aggregate an updating input (an upsert table, a join's result);
	// without it such queries fail to plan, as in Flink.
	Retract func(ctx context.Context, acc *ACC, args []types.Value) error
	// Merge adds the rows of other to acc. It is optional: no operator
	// merges accumulators yet (Flink needs it for session windows and
	// two-phase aggregation).
	Merge func(ctx context.Context, acc, other *ACC) error
	// Value returns the result for acc.
	Value func(ctx context.Context, acc *ACC) (types.Value, error)
	// Codec encodes accumulators for state; nil uses encoding/json, which
	// stores the exported fields.
	Codec Codec[ACC]
}

// Codec converts accumulators to and from bytes.
type Codec[T any] interface {
	Encode(v *T) ([]byte, error)
	Decode(b []byte, v *T) error
}

// JSONCodec is the default Codec: encoding/json of the value.
type JSONCodec[T any] struct{}

// Encode implements Codec.
func (JSONCodec[T]) Encode(v *T) ([]byte, error) { return json.Marshal(v) }

// Decode implements Codec.
func (JSONCodec[T]) Decode(b []byte, v *T) error { return json.Unmarshal(b, v) }

// AggregateFunction is an aggregate function with its accumulator type
// erased, as engines and harnesses call it; *Aggregate[ACC] implements it.
// Accumulators are *ACC values.
type AggregateFunction interface {
	Function
	// ArgTypes returns the parsed argument declarations.
	ArgTypes() OverloadArgs
	// ResultType returns the result type of a call with argument types
	// args (cast to the declared types decl).
	ResultType(decl []ArgType, args []types.Type) (types.Type, error)
	// CanRetract reports whether Retract is set.
	CanRetract() bool
	// AccumulatorType describes ACC, for state compatibility checks.
	AccumulatorType() string
	CreateAccumulator() (any, error)
	AccumulateAny(ctx context.Context, acc any, args []types.Value) error
	RetractAny(ctx context.Context, acc any, args []types.Value) error
	MergeAny(ctx context.Context, acc, other any) error
	ValueAny(ctx context.Context, acc any) (types.Value, error)
	EncodeAccumulator(acc any) ([]byte, error)
	DecodeAccumulator(b []byte) (any, error)
}

var _ AggregateFunction = (*Aggregate[struct{}])(nil)

// Kind implements Function.
func (a *Aggregate[ACC]) Kind() Kind { return AggregateKind }

// Description implements Function.
func (a *Aggregate[ACC]) Description() string { return a.Doc }

// Signatures implements Function.
func (a *Aggregate[ACC]) Signatures() []string {
	args, _ := parseArgTypes(a.Args)
	res := a.Result
	if a.Infer != nil {
		res = "(inferred)"
	}
	return []string{signature(args, a.Variadic, res)}
}

// Validate implements Function.
func (a *Aggregate[ACC]) Validate() error {
	switch {
	case a.Accumulate == nil:
		return errors.New("aggregate function has no Accumulate function")
	case a.Value == nil:
		return errors.New("aggregate function has no Value function")
	case a.Variadic && len(a.Args) == 0:
		return errors.New("a variadic aggregate needs at least one argument")
	}
	if _, err := parseArgTypes(a.Args); err != nil {
		return err
	}
	return validateResult(a.Result, a.Infer != nil)
}

// ArgTypes implements AggregateFunction.
func (a *Aggregate[ACC]) ArgTypes() OverloadArgs {
	args, _ := parseArgTypes(a.Args)
	return OverloadArgs{Args: args, Variadic: a.Variadic}
}

// ResultType implements AggregateFunction.
func (a *Aggregate[ACC]) ResultType(_ []ArgType, args []types.Type) (types.Type, error) {
	if a.Infer != nil {
		return a.Infer(args)
	}
	return types.ParseType(a.Result)
}

// CanRetract implements AggregateFunction.
func (a *Aggregate[ACC]) CanRetract() bool { return a.Retract != nil }

// AccumulatorType implements AggregateFunction.
func (a *Aggregate[ACC]) AccumulatorType() string { return reflect.TypeFor[ACC]().String() }

// CreateAccumulator implements AggregateFunction.
func (a *Aggregate[ACC]) CreateAccumulator() (any, error) {
	acc := new(ACC)
	if a.Init != nil {
		a.Init(acc)
	}
	return acc, nil
}

func (a *Aggregate[ACC]) typed(acc any) (*ACC, error) {
	p, ok := acc.(*ACC)
	if !ok || p == nil {
		return nil, fmt.Errorf("accumulator of type %T, want *%s", acc, reflect.TypeFor[ACC]())
	}
	return p, nil
}

// AccumulateAny implements AggregateFunction.
func (a *Aggregate[ACC]) AccumulateAny(ctx context.Context, acc any, args []types.Value) error {
	p, err := a.typed(acc)
	if err != nil {
		return err
	}
	return a.Accumulate(ctx, p, args)
}

// RetractAny implements AggregateFunction.
func (a *Aggregate[ACC]) RetractAny(ctx context.Context, acc any, args []types.Value) error {
	if a.Retract == nil {
		return errors.New("the function cannot retract (it has no Retract)")
	}
	p, err := a.typed(acc)
	if err != nil {
		return err
	}
	return a.Retract(ctx, p, args)
}

// MergeAny implements AggregateFunction.
func (a *Aggregate[ACC]) MergeAny(ctx context.Context, acc, other any) error {
	if a.Merge == nil {
		return errors.New("the function cannot merge accumulators (it has no Merge)")
	}
	p, err := a.typed(acc)
	if err != nil {
		return err
	}
	q, err := a.typed(other)
	if err != nil {
		return err
	}
	return a.Merge(ctx, p, q)
}

// ValueAny implements AggregateFunction.
func (a *Aggregate[ACC]) ValueAny(ctx context.Context, acc any) (types.Value, error) {
	p, err := a.typed(acc)
	if err != nil {
		return types.Null, err
	}
	return a.Value(ctx, p)
}

func (a *Aggregate[ACC]) codec() Codec[ACC] {
	if a.Codec != nil {
		return a.Codec
	}
	return JSONCodec[ACC]{}
}

// EncodeAccumulator implements AggregateFunction.
func (a *Aggregate[ACC]) EncodeAccumulator(acc any) ([]byte, error) {
	p, err := a.typed(acc)
	if err != nil {
		return nil, err
	}
	return a.codec().Encode(p)
}

// DecodeAccumulator implements AggregateFunction.
func (a *Aggregate[ACC]) DecodeAccumulator(b []byte) (any, error) {
	p := new(ACC)
	if err := a.codec().Decode(b, p); err != nil {
		return nil, fmt.Errorf("decoding an accumulator of type %s: %w", reflect.TypeFor[ACC](), err)
	}
	return p, nil
}
