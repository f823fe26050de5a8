package examples

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// The user-defined function examples (package udf), registered by
// RegisterUserFunctions as examples.<Name> beside the PTFs:
//
//	CREATE FUNCTION Slugify AS 'examples.Slugify';       -- scalar, two overloads
//	CREATE FUNCTION Head AS 'examples.Head';             -- scalar, type inference
//	CREATE FUNCTION SplitWords AS 'examples.SplitWords'; -- table function
//	CREATE FUNCTION WeightedAvg AS 'examples.WeightedAvg'; -- aggregate, retractable
//	CREATE FUNCTION count_char AS 'examples.CountChar';  -- scalar, Nexmark's q14
//
// The functions of SuiteFunctions are registered under their suites' Java
// class names as well (CREATE FUNCTION count_char AS
// 'com.github.nexmark.flink.udf.CountChar').

// Slugify turns a title into a URL slug: lower-case letters and digits
// joined by '-' (or by the separator of the two-argument form).
var Slugify = &udf.Scalar{
	Doc: "Slugify(title) turns a title into a URL slug ('Hello, World!' -> 'hello-world'); Slugify(title, sep) joins the words with sep.",
	Overloads: []udf.Overload{
		udf.Func1(func(_ context.Context, s string) (string, error) { return slugify(s, "-"), nil }),
		udf.Func2(func(_ context.Context, s, sep string) (string, error) { return slugify(s, sep), nil }),
	},
}

func slugify(s, sep string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(words, sep)
}

// Head returns the first element of an array, typed as the array's
// elements: its result type is inferred from the argument.
var Head = &udf.Scalar{
	Doc: "Head(array) is the first element of array (NULL when it is empty or NULL); the result has the element type.",
	Overloads: []udf.Overload{{
		Args: []string{udf.Any},
		Infer: func(args []types.Type) (types.Type, error) {
			if args[0].ID != types.TypeArray {
				return types.Type{}, fmt.Errorf("the argument must be an ARRAY, not %s", args[0])
			}
			return args[0].Elem.Nullable(), nil
		},
		Eval: func(_ context.Context, args []types.Value) (types.Value, error) {
			if a := args[0].Array(); len(a) > 0 {
				return a[0], nil
			}
			return types.Null, nil
		},
	}},
}

// SplitWords emits one row per word of a text, with its 1-based position.
var SplitWords = &udf.Table{
	Doc:    "SplitWords(text) emits a row (word, pos) per word of text, split on spaces and punctuation; pos counts from 1.",
	Output: "ROW<word STRING NOT NULL, pos INT NOT NULL>",
	Overloads: []udf.TableOverload{
		udf.Table1(func(_ context.Context, out *udf.Collector, s string) error {
			for i, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				if err := out.Emit(w, int32(i+1)); err != nil {
					return err
				}
			}
			return nil
		}),
	},
}

// weightedAvgAcc is WeightedAvg's accumulator, kept in state.
type weightedAvgAcc struct {
	Sum    float64 // sum of value * weight
	Weight int64   // sum of weights
}

// WeightedAvg is the weighted average of Flink's user-defined aggregate
// function documentation, with retraction.
var WeightedAvg = &udf.Aggregate[weightedAvgAcc]{
	Doc:    "WeightedAvg(value, weight) is the average of value weighted by weight; rows with a NULL value or weight do not count; NULL when the weights sum to 0.",
	Args:   []string{"DOUBLE NOT NULL", "BIGINT NOT NULL"},
	Result: "DOUBLE",
	Accumulate: func(_ context.Context, acc *weightedAvgAcc, args []types.Value) error {
		acc.Sum += args[0].Float() * float64(args[1].Int())
		acc.Weight += args[1].Int()
		return nil
	},
	Retract: func(_ context.Context, acc *weightedAvgAcc, args []types.Value) error {
		acc.Sum -= args[0].Float() * float64(args[1].Int())
		acc.Weight -= args[1].Int()
		return nil
	},
	Merge: func(_ context.Context, acc, other *weightedAvgAcc) error {
		acc.Sum += other.Sum
		acc.Weight += other.Weight
		return nil
	},
	Value: func(_ context.Context, acc *weightedAvgAcc) (types.Value, error) {
		if acc.Weight == 0 {
			return types.Null, nil
		}
		return types.NewFloat(acc.Sum / float64(acc.Weight)), nil
	},
}

// UserFunctions maps each user-defined function example's name to it.
func UserFunctions() map[string]udf.Function {
	return map[string]udf.Function{
		"Slugify":     Slugify,
		"Head":        Head,
		"SplitWords":  SplitWords,
		"WeightedAvg": WeightedAvg,
		"CountChar":   CountChar,
	}
}

// RegisterUserFunctions adds every user-defined function example to r
// under "examples.<Name>", and the functions of SuiteFunctions under their
// class names.
func RegisterUserFunctions(r *udf.Registry) error {
	var errs []error
	for name, f := range UserFunctions() {
		errs = append(errs, r.Register("examples."+name, f))
	}
	for id, f := range SuiteFunctions() {
		errs = append(errs, r.Register(id, f))
	}
	return errors.Join(errs...)
}
