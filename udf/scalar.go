package udf

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// Scalar is a user-defined scalar function: one value per call, like
// Flink's ScalarFunction. A call is resolved to the first overload whose
// arguments take the call's types exactly (apart from nullability), else
// to the first one they can be cast to implicitly (INT to BIGINT, CHAR to
// STRING, ...).
type Scalar struct {
	// Doc is a one-paragraph description.
	Doc string
	// Overloads are the signatures, in order of preference.
	Overloads []Overload
	// NonDeterministic marks a function whose result may differ between
	// calls with the same arguments (random numbers, clocks, lookups), as
	// Flink's isDeterministic() = false: it is never evaluated at
	// planning time.
	NonDeterministic bool
}

// Overload is one signature of a scalar function and its implementation.
// Build it with the typed helpers (Func0 ... Func4, FuncN) or write it out
// with Eval over SQL values.
type Overload struct {
	// Args are the SQL types of the arguments, or Any. An argument
	// declared NOT NULL never sees NULL: a NULL there makes the call
	// return NULL without Eval being called.
	Args []string
	// Variadic lets the last argument repeat zero or more times.
	Variadic bool
	// Result is the SQL result type. Unless it is Infer'd, the result is
	// nullable whenever an argument declared NOT NULL may be NULL in the
	// call.
	Result string
	// Infer, when set, derives the result type from the types of the
	// call's arguments (after the casts to Args) instead of Result, for
	// functions whose result type follows their input (type inference).
	Infer func(args []types.Type) (types.Type, error)
	// Eval computes the result from the argument values, cast to the
	// declared types; the slice is valid only during the call. A returned
	// error fails the statement.
	Eval func(ctx context.Context, args []types.Value) (types.Value, error)

	// Set by the typed helpers: which Go parameters cannot hold NULL, and
	// a Go type without a SQL type.
	goNotNull []bool
	goErr     error
}

// WithArgs returns o with the argument types declared as args (the
// values are cast to them before the call). A parameter of a typed
// overload whose Go type cannot hold NULL (int64, string, ...) stays NOT
// NULL.
func (o Overload) WithArgs(args ...string) Overload {
	o.Args = withGoNulls(args, o.goNotNull)
	return o
}

// withGoNulls adds NOT NULL to the declarations of non-nullable Go
// parameters.
func withGoNulls(args []string, notNull []bool) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if i < len(notNull) && notNull[i] && !strings.EqualFold(strings.TrimSpace(a), Any) {
			if t, err := types.ParseType(a); err == nil && !t.NotNull {
				out[i] = t.NonNull().String()
			}
		}
	}
	return out
}

// Returns returns o with the result type declared as result.
func (o Overload) Returns(result string) Overload {
	o.Result = result
	return o
}

// WithInfer returns o with its result type derived by infer.
func (o Overload) WithInfer(infer func(args []types.Type) (types.Type, error)) Overload {
	o.Infer = infer
	return o
}

// Kind implements Function.
func (s *Scalar) Kind() Kind { return ScalarKind }

// Description implements Function.
func (s *Scalar) Description() string { return s.Doc }

// Signatures implements Function.
func (s *Scalar) Signatures() []string {
	var out []string
	for _, o := range s.Overloads {
		args, _ := parseArgTypes(o.Args)
		res := o.Result
		if o.Infer != nil {
			res = "(inferred)"
		}
		out = append(out, signature(args, o.Variadic, res))
	}
	return out
}

// Validate implements Function.
func (s *Scalar) Validate() error {
	if len(s.Overloads) == 0 {
		return errors.New("scalar function has no overloads")
	}
	for i, o := range s.Overloads {
		if err := o.validate(); err != nil {
			return fmt.Errorf("overload %d: %w", i+1, err)
		}
	}
	return nil
}

func (o Overload) validate() error {
	if o.goErr != nil {
		return o.goErr
	}
	if o.Eval == nil {
		return errors.New("no Eval function")
	}
	if _, err := parseArgTypes(o.Args); err != nil {
		return err
	}
	if o.Variadic && len(o.Args) == 0 {
		return errors.New("a variadic overload needs at least one argument")
	}
	return validateResult(o.Result, o.Infer != nil)
}

func validateResult(result string, inferred bool) error {
	if inferred {
		return nil
	}
	if result == "" {
		return errors.New("no result type: set Result (or Returns) or Infer")
	}
	if _, err := types.ParseType(result); err != nil {
		return fmt.Errorf("invalid result type %q: %w", result, err)
	}
	return nil
}

// Resolved is an overload chosen for a call.
type Resolved struct {
	// Index of the overload in Overloads.
	Index int
	// Args are the declared types of the call's arguments (one per
	// argument; the variadic one repeated).
	Args []ArgType
	// Exact is set when every argument's type is taken as it is.
	Exact bool
}

// match returns the declared types of a call with the given argument
// types under decl, or false when the argument count does not fit.
func matchArity(decl []ArgType, variadic bool, n int) ([]ArgType, bool) {
	switch {
	case !variadic && n != len(decl):
		return nil, false
	case variadic && n < len(decl)-1:
		return nil, false
	}
	out := make([]ArgType, n)
	for i := range out {
		out[i] = decl[min(i, len(decl)-1)]
	}
	return out, true
}

// Resolve picks the overload for a call with argument types args: the
// first one taking every type as it is, else the first one whose types
// the arguments convert to with castable(from, to) (the engine's implicit
// casts). ok is false when none fits.
func Resolve(overloads []OverloadArgs, args []types.Type, castable func(from, to types.Type) bool) (Resolved, bool) {
	for pass := range 2 {
		for i, o := range overloads {
			decl, ok := matchArity(o.Args, o.Variadic, len(args))
			if !ok {
				continue
			}
			fits := true
			for j, d := range decl {
				switch {
				case d.Accepts(args[j]), args[j].ID == types.TypeNull:
				case pass == 1 && castable(args[j], d.Type):
				default:
					fits = false
				}
			}
			if fits {
				return Resolved{Index: i, Args: decl, Exact: pass == 0}, true
			}
		}
	}
	return Resolved{}, false
}

// OverloadArgs are the parsed argument declarations of an overload.
type OverloadArgs struct {
	Args     []ArgType
	Variadic bool
}

// ArgTypes returns the parsed argument declarations of every overload
// (after Validate succeeded).
func (s *Scalar) ArgTypes() []OverloadArgs {
	out := make([]OverloadArgs, len(s.Overloads))
	for i, o := range s.Overloads {
		a, _ := parseArgTypes(o.Args)
		out[i] = OverloadArgs{Args: a, Variadic: o.Variadic}
	}
	return out
}

// ResultType returns the result type of overload o for a call whose
// arguments have types args (already cast to the declared types) and
// declared types decl.
func (o Overload) ResultType(decl []ArgType, args []types.Type) (types.Type, error) {
	if o.Infer != nil {
		return o.Infer(args)
	}
	t, err := types.ParseType(o.Result)
	if err != nil {
		return t, err
	}
	if StrictNullable(decl, args) {
		t = t.Nullable()
	}
	return t, nil
}

// StrictNullable reports whether an argument declared NOT NULL may be NULL
// in a call with argument types args: the call may then return NULL
// without calling the function.
func StrictNullable(decl []ArgType, args []types.Type) bool {
	for i, d := range decl {
		if !d.Any && d.Type.NotNull && !args[i].NotNull {
			return true
		}
	}
	return false
}
