package expr

import (
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

func init() {
	register("conditional", []funcDef{
		fdef("COALESCE", 1, -1, "COALESCE(value1 [, value2]*)",
			"The first argument that is not NULL (evaluated lazily, left to right); the type is the common type.",
			func(c *call) (Expr, error) { return newCoalesce(c.args) }),
		fdef("NULLIF", 2, 2, "NULLIF(value1, value2)", "NULL if value1 = value2, else value1.",
			func(c *call) (Expr, error) { return newNullIf(c.args[0], c.args[1]) }),
		fdef("IF", 3, 3, "IF(condition, true_value, false_value)",
			"true_value if condition is TRUE, else false_value.", newIf),
		fdef("IFNULL", 2, 2, "IFNULL(input, null_replacement)",
			"null_replacement if input is NULL, else input; NOT NULL when null_replacement is NOT NULL.",
			func(c *call) (Expr, error) {
				e, err := newCoalesce(c.args)
				if err != nil {
					return nil, argTypeError(c.name, c.args)
				}
				return &renamed{Expr: e, name: c.name, args: c.args}, nil
			}),
	})
	register("arithmetic", []funcDef{
		fdef("MOD", 2, 2, "MOD(numeric1, numeric2)",
			"The remainder of numeric1 divided by numeric2 (exact numbers); its sign is that of numeric1.",
			func(c *call) (Expr, error) {
				e, err := newArith('%', c.args[0], c.args[1])
				if err != nil {
					return nil, argTypeError(c.name, c.args)
				}
				return &renamed{Expr: e, name: c.name, args: c.args}, nil
			}),
		fdef("ABS", 1, 1, "ABS(numeric)", "The absolute value, of the argument's type; integers wrap like Java.",
			func(c *call) (Expr, error) {
				t := c.args[0].Type()
				if !t.IsNumeric() {
					return nil, argTypeError(c.name, c.args)
				}
				return newStrict(c.name, c.args, t, func(a [3]types.Value) (types.Value, bool) {
					return absValue(a[0], t), true
				}), nil
			}),
	})
	register("string", []funcDef{
		fdef("CONCAT", 1, -1, "CONCAT(string1, string2, ...)", "The concatenation of the arguments; NULL if any is NULL.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr); err != nil {
					return nil, err
				}
				return newConcat(false, c.args), nil
			}),
		fdef("UPPER", 1, 1, "UPPER(string)", "The string in upper case.", plain(caseFunc(javaUpper))),
		fdef("LOWER", 1, 1, "LOWER(string)", "The string in lower case.", plain(caseFunc(javaLower))),
		fdef("SUBSTRING", 2, 3, "SUBSTRING(string FROM integer1 [FOR integer2]); SUBSTRING(string, integer1 [, integer2])",
			"The substring starting at 1-based position integer1 (negative counts from the end) of length integer2 (to the end by default); NULL for a negative length.",
			plain(newSubstring)),
		fdef("SUBSTR", 2, 3, "SUBSTR(string, integer1 [, integer2])", "Same as SUBSTRING.", plain(newSubstring)),
		fdef("CHAR_LENGTH", 1, 1, "CHAR_LENGTH(string)", "The number of characters, as INT.", plain(newCharLength)),
		fdef("CHARACTER_LENGTH", 1, 1, "CHARACTER_LENGTH(string)", "Same as CHAR_LENGTH.", plain(newCharLength)),
		fdef("TRIM", 1, 2, "TRIM([BOTH | LEADING | TRAILING] [string1] FROM string2); TRIM(string [, chars])",
			"Removes the characters of string1 (a set, default ' ') from both ends (or the start, or the end) of string2.",
			plain(trimFunc(true, true))),
		fdef("LTRIM", 1, 2, "LTRIM(string [, chars])", "Removes the characters of chars (default ' ') from the start.", plain(trimFunc(true, false))),
		fdef("RTRIM", 1, 2, "RTRIM(string [, chars])", "Removes the characters of chars (default ' ') from the end.", plain(trimFunc(false, true))),
		fdef("BTRIM", 1, 2, "BTRIM(string [, chars])", "Removes the characters of chars (default ' ') from both ends.", plain(trimFunc(true, true))),
	})
}

// plain adapts a builder of the form f(name, args).
func plain(f func(fn string, args []Expr) (Expr, error)) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) { return f(c.name, c.args) }
}

func newIf(c *call) (Expr, error) {
	e, err := Case(nil, c.args[:1], c.args[1:2], c.args[2])
	if err != nil {
		return nil, argTypeError(c.name, c.args)
	}
	return &renamed{Expr: e, name: c.name, args: c.args}, nil
}

// arity checks the argument count; hi < 0 means unbounded.
func arity(fn string, args []Expr, lo, hi int) error {
	n := len(args)
	if n >= lo && (hi < 0 || n <= hi) {
		return nil
	}
	var want string
	switch {
	case hi < 0:
		want = "at least " + itoa(lo)
	case lo == hi:
		want = itoa(lo)
	case hi == lo+1:
		want = itoa(lo) + " or " + itoa(hi)
	default:
		want = itoa(lo) + " to " + itoa(hi)
	}
	return sqlerr.Newf(sqlerr.InvalidFunction,
		"invalid number of arguments to function '%s': expected %s, got %d", fn, want, n)
}

func itoa(n int) string { return string(appendPad(nil, int64(n), 1)) }

func argTypeError(fn string, args []Expr) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = typeString(a.Type())
	}
	return typeErrorf("cannot apply '%s' to arguments of type %s", fn, strings.Join(ts, ", "))
}

// renamed renders a desugared expression as the function call it came from.
type renamed struct {
	Expr
	name string
	args []Expr
}

func (r *renamed) String() string { return r.name + "(" + joinExprs(r.args) + ")" }

// strictExpr is a function of up to three arguments that returns NULL when
// any argument is NULL. fn reports ok false to return NULL.
type strictExpr struct {
	name string
	args []Expr
	t    types.Type
	fn   func(a [3]types.Value) (types.Value, bool)
}

func newStrict(name string, args []Expr, t types.Type, fn func(a [3]types.Value) (types.Value, bool)) *strictExpr {
	nn := true
	for _, a := range args {
		nn = nn && a.Type().NotNull
	}
	return &strictExpr{name: name, args: args, t: withNull(t, nn && t.NotNull), fn: fn}
}

func (s *strictExpr) Type() types.Type { return s.t }
func (s *strictExpr) String() string   { return s.name + "(" + joinExprs(s.args) + ")" }

func (s *strictExpr) Eval(row []types.Value) (types.Value, error) {
	var a [3]types.Value
	for i, e := range s.args {
		v, err := e.Eval(row)
		if err != nil || v.IsNull() {
			return types.Null, err
		}
		a[i] = v
	}
	v, ok := s.fn(a)
	if !ok {
		return types.Null, nil
	}
	return v, nil
}

// stringArgs checks that args[i] is a string for i in strs and an integer
// for the others.
func stringArgs(fn string, args []Expr, strs ...int) error {
	for i, a := range args {
		t := a.Type()
		want := isStringish(t)
		isStr := false
		for _, j := range strs {
			isStr = isStr || i == j
		}
		if !isStr {
			want = t.IsInteger() || t.ID == types.TypeNull
		}
		if !want {
			return argTypeError(fn, args)
		}
	}
	return nil
}

// resultString is the VARCHAR type of a function returning (part of) a
// string of type t.
func resultString(t types.Type) types.Type {
	if t.ID == types.TypeNull {
		return types.String.NonNull()
	}
	return types.VarChar(t.Length).NonNull()
}

func caseFunc(f func(string) string) func(string, []Expr) (Expr, error) {
	return func(fn string, args []Expr) (Expr, error) {
		if err := arity(fn, args, 1, 1); err != nil {
			return nil, err
		}
		if err := stringArgs(fn, args, 0); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if t.ID == types.TypeNull {
			t = types.String
		}
		return newStrict(fn, args, t.NonNull(), func(a [3]types.Value) (types.Value, bool) {
			return types.NewString(f(a[0].Str())), true
		}), nil
	}
}

func newSubstring(fn string, args []Expr) (Expr, error) {
	if err := arity(fn, args, 2, 3); err != nil {
		return nil, err
	}
	if err := stringArgs(fn, args, 0); err != nil {
		return nil, err
	}
	t := resultString(args[0].Type())
	if len(args) == 3 {
		// A negative length gives NULL, so the result is nullable unless the
		// length is a non-negative literal.
		l, ok := args[2].(*litExpr)
		t.NotNull = ok && !l.v.IsNull() && l.v.Int() >= 0
	}
	return newStrict("SUBSTRING", args, t, func(a [3]types.Value) (types.Value, bool) {
		length := int64(math.MaxInt64)
		if len(args) == 3 {
			length = a[2].Int()
		}
		s, ok := substringSQL(a[0].Str(), a[1].Int(), length)
		return types.NewString(s), ok
	}), nil
}

func newCharLength(fn string, args []Expr) (Expr, error) {
	if err := arity(fn, args, 1, 1); err != nil {
		return nil, err
	}
	if err := stringArgs(fn, args, 0); err != nil {
		return nil, err
	}
	return newStrict(fn, args, types.Int.NonNull(), func(a [3]types.Value) (types.Value, bool) {
		return types.NewInt(int64(utf8.RuneCountInString(a[0].Str()))), true
	}), nil
}

func trimFunc(left, right bool) func(string, []Expr) (Expr, error) {
	return func(fn string, args []Expr) (Expr, error) {
		if err := arity(fn, args, 1, 2); err != nil {
			return nil, err
		}
		if err := stringArgs(fn, args, 0, 1); err != nil {
			return nil, err
		}
		return newStrict(fn, args, resultString(args[0].Type()), func(a [3]types.Value) (types.Value, bool) {
			cut := " "
			if len(args) == 2 {
				cut = a[1].Str()
			}
			return types.NewString(trimChars(a[0].Str(), cut, left, right)), true
		}), nil
	}
}

// ---------------------------------------------------------------------------
// COALESCE and NULLIF.

type coalesceExpr struct {
	args []Expr
	t    types.Type
}

func newCoalesce(args []Expr) (Expr, error) {
	ts := make([]types.Type, len(args))
	nn := false
	for i, a := range args {
		ts[i] = a.Type()
		nn = nn || ts[i].NotNull
	}
	t, ok := CommonType(ts...)
	if !ok {
		return nil, incompatible("COALESCE", ts)
	}
	cargs := make([]Expr, len(args))
	for i, a := range args {
		cargs[i] = coerce(a, t)
	}
	return &coalesceExpr{args: cargs, t: withNull(t, nn)}, nil
}

func (c *coalesceExpr) Type() types.Type { return c.t }
func (c *coalesceExpr) String() string   { return "COALESCE(" + joinExprs(c.args) + ")" }

func (c *coalesceExpr) Eval(row []types.Value) (types.Value, error) {
	for _, a := range c.args {
		v, err := a.Eval(row)
		if err != nil || !v.IsNull() {
			return v, err
		}
	}
	return types.Null, nil
}

type nullIfExpr struct {
	a, b Expr
	cmp  cmpFunc
}

func newNullIf(a, b Expr) (Expr, error) {
	cmp, ok := comparator(a.Type(), b.Type())
	if !ok {
		return nil, argTypeError("NULLIF", []Expr{a, b})
	}
	return &nullIfExpr{a: a, b: b, cmp: cmp}, nil
}

func (n *nullIfExpr) Type() types.Type { return n.a.Type().Nullable() }
func (n *nullIfExpr) String() string   { return "NULLIF(" + n.a.String() + ", " + n.b.String() + ")" }

func (n *nullIfExpr) Eval(row []types.Value) (types.Value, error) {
	x, err := n.a.Eval(row)
	if err != nil || x.IsNull() {
		return types.Null, err
	}
	y, err := n.b.Eval(row)
	if err != nil {
		return types.Null, err
	}
	if !y.IsNull() && n.cmp(x, y) == 0 {
		return types.Null, nil
	}
	return x, nil
}

// incompatible reports that no common type exists.
func incompatible(what string, ts []types.Type) error {
	var names []string
	seen := map[string]bool{}
	for _, t := range ts {
		if t.ID == types.TypeNull {
			continue
		}
		if s := typeString(t); !seen[s] {
			seen[s] = true
			names = append(names, s)
		}
	}
	return typeErrorf("incompatible types in %s: %s", what, strings.Join(names, " and "))
}

// javaUpper and javaLower map case as Java's String.toUpperCase and
// toLowerCase (in the root locale) do, which Flink's UPPER and LOWER call:
// full Unicode case mapping, so 'ß' becomes "SS" (Go's strings.ToUpper
// keeps it). ASCII strings take the fast path.
func javaUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

func javaLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return cases.Lower(language.Und).String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
