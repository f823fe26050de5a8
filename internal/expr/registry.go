package expr

import (
	"slices"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Env is what a function call needs from the statement it runs in.
type Env struct {
	// Now returns the current time as epoch nanoseconds. The current-time
	// functions (CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, UNIX_TIMESTAMP(),
	// ...) call it once per evaluation, which is Flink's per-record
	// semantics in streaming mode; a clock that returns the statement's
	// start time gives Flink's batch semantics. Nil makes those functions
	// fail to build.
	Now func() int64
	// Database is the session's current database, for
	// CURRENT_DATABASE(); "" makes that function fail to build.
	Database string
	// Zone is the session time zone ('table.local-time-zone'); nil is
	// UTC. LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME, LOCALTIME,
	// FROM_UNIXTIME, UNIX_TIMESTAMP(string), DATE_FORMAT and EXTRACT (and
	// YEAR ... SECOND) and FLOOR/CEIL(... TO unit) of a TIMESTAMP_LTZ use it, and CastIn converts
	// between TIMESTAMP_LTZ and the zone-less types in it.
	Zone *time.Location
}

// zone returns the session time zone of the call, UTC by default.
func (c *call) zone() *time.Location {
	if c.env.Zone == nil {
		return time.UTC
	}
	return c.env.Zone
}

// FuncInfo describes a built-in function for SHOW FUNCTIONS and DESCRIBE
// FUNCTION.
type FuncInfo struct {
	Name        string   // upper case
	Family      string   // "comparison", "math", "string", ...
	Signatures  []string // e.g. "POWER(numeric1, numeric2) -> DOUBLE"
	Description string
	// Deterministic is false for functions whose result differs between
	// calls with the same arguments (RAND, UUID, CURRENT_TIMESTAMP, ...).
	Deterministic bool
}

// funcDef is one entry of the function registry.
type funcDef struct {
	info     FuncInfo
	min, max int // argument count; max < 0 is unbounded
	build    func(c *call) (Expr, error)
}

// call is a function call being built.
type call struct {
	name string // upper case
	args []Expr
	env  Env
}

// registry maps upper-case names to their definitions. It is filled by
// the family files (math.go, strings_more.go, ...) in init and read-only
// afterwards.
var registry = map[string]*funcDef{}

func register(family string, defs []funcDef) {
	for i := range defs {
		d := &defs[i]
		d.info.Family = family
		if _, dup := registry[d.info.Name]; dup {
			panic("expr: function registered twice: " + d.info.Name)
		}
		registry[d.info.Name] = d
	}
}

// fdef is shorthand for a deterministic registry entry.
func fdef(name string, lo, hi int, sigs, desc string, build func(c *call) (Expr, error)) funcDef {
	return funcDef{
		info:  FuncInfo{Name: name, Signatures: strings.Split(sigs, "; "), Description: desc, Deterministic: true},
		min:   lo,
		max:   hi,
		build: build,
	}
}

// nondet marks a definition as non-deterministic.
func nondet(d funcDef) funcDef {
	d.info.Deterministic = false
	return d
}

// Functions lists the built-in scalar functions sorted by name.
func Functions() []FuncInfo {
	out := make([]FuncInfo, 0, len(registry))
	for _, d := range registry {
		out = append(out, d.info)
	}
	slices.SortFunc(out, func(a, b FuncInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupFunction returns the description of a built-in function
// (case-insensitive).
func LookupFunction(name string) (FuncInfo, bool) {
	d, ok := registry[strings.ToUpper(name)]
	if !ok {
		return FuncInfo{}, false
	}
	return d.info, true
}

// SuggestFunction returns the built-in function name closest to name, or
// "" when none is close.
func SuggestFunction(name string) string {
	up := strings.ToUpper(name)
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names) // deterministic choice between equally close names
	within := 3
	if len(up) <= 4 {
		within = 2
	}
	return sqlerr.Closest(up, names, within)
}

// Call returns a call of the built-in function name (case-insensitive)
// without a clock: the current-time functions fail to build. See CallEnv.
//
// An unknown name gives an error with code sqlerr.UnknownFunction ("unknown
// function 'FOO'") and a did-you-mean hint, a wrong argument count
// sqlerr.InvalidFunction and bad argument types sqlerr.TypeMismatch; both
// carry a hint that lists the accepted signatures. The functions are listed
// by Functions and documented in docs/functions.md.
func Call(name string, args ...Expr) (Expr, error) { return CallEnv(Env{}, name, args...) }

// CallEnv is Call with the statement environment env.
func CallEnv(env Env, name string, args ...Expr) (Expr, error) {
	for _, a := range args {
		if a == nil {
			return nil, errNilArg(name)
		}
	}
	fn := strings.ToUpper(name)
	d, ok := registry[fn]
	if !ok {
		err := sqlerr.Newf(sqlerr.UnknownFunction, "unknown function '%s'", name)
		if s := SuggestFunction(fn); s != "" {
			err = err.WithHint("did you mean %s? SHOW FUNCTIONS lists the functions", s)
		} else {
			err = err.WithHint("SHOW FUNCTIONS lists the functions")
		}
		return nil, err
	}
	if err := arity(fn, args, d.min, d.max); err != nil {
		return nil, withSignatures(err, d)
	}
	e, err := d.build(&call{name: fn, args: args, env: env})
	if err != nil {
		return nil, withSignatures(err, d)
	}
	return e, nil
}

// withSignatures adds the accepted signatures to an argument error.
func withSignatures(err error, d *funcDef) error {
	se, ok := sqlerr.As(err)
	if !ok || se.Hint != "" || (se.Code != sqlerr.TypeMismatch && se.Code != sqlerr.InvalidFunction) {
		return err
	}
	return se.WithHint("accepted signatures: %s", strings.Join(d.info.Signatures, "; "))
}

// ---------------------------------------------------------------------------
// Argument checks.

// argKind is a family of argument types a function accepts.
type argKind uint8

const (
	aAny      argKind = iota
	aStr              // CHAR, VARCHAR
	aInt              // TINYINT .. BIGINT
	aNum              // any numeric
	aBool             // BOOLEAN
	aBin              // BINARY, VARBINARY
	aStrBin           // string or binary
	aTs               // TIMESTAMP, TIMESTAMP_LTZ
	aDateTs           // DATE, TIMESTAMP, TIMESTAMP_LTZ
	aTemporal         // DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ
	aArray            // ARRAY
	aMap              // MAP
	aNumStr           // numeric or string
)

func (k argKind) accepts(t types.Type) bool {
	if t.ID == types.TypeNull {
		return true
	}
	switch k {
	case aStr:
		return t.IsString()
	case aInt:
		return t.IsInteger()
	case aNum:
		return t.IsNumeric()
	case aBool:
		return t.ID == types.TypeBoolean
	case aBin:
		return isBinary(t)
	case aStrBin:
		return t.IsString() || isBinary(t)
	case aTs:
		return t.ID == types.TypeTimestamp || t.ID == types.TypeTimestampLTZ
	case aDateTs:
		return t.ID == types.TypeDate || t.ID == types.TypeTimestamp || t.ID == types.TypeTimestampLTZ
	case aTemporal:
		return t.ID == types.TypeDate || t.ID == types.TypeTime || t.ID == types.TypeTimestamp || t.ID == types.TypeTimestampLTZ
	case aArray:
		return t.ID == types.TypeArray
	case aMap:
		return t.ID == types.TypeMap
	case aNumStr:
		return t.IsNumeric() || t.IsString()
	}
	return true
}

// want checks args[i] against kinds[i]; the last kind repeats for extra
// arguments.
func (c *call) want(kinds ...argKind) error {
	for i, a := range c.args {
		k := kinds[min(i, len(kinds)-1)]
		if !k.accepts(a.Type()) {
			return argTypeError(c.name, c.args)
		}
	}
	return nil
}

// allNotNull reports whether every argument is NOT NULL.
func (c *call) allNotNull() bool {
	for _, a := range c.args {
		if !a.Type().NotNull {
			return false
		}
	}
	return true
}

// literal returns the value of args[i] when it is a literal.
func (c *call) literal(i int) (types.Value, bool) {
	if i >= len(c.args) {
		return types.Null, false
	}
	l, ok := c.args[i].(*litExpr)
	if !ok {
		return types.Null, false
	}
	return l.v, true
}

// ---------------------------------------------------------------------------
// The generic function expression.

// maxFixedArgs is the number of arguments fnExpr passes without allocating.
const maxFixedArgs = 4

// fnExpr is a function of up to maxFixedArgs arguments. Unless keepNulls
// is set it returns NULL when any argument is NULL without calling fn. fn
// returns types.Null for a NULL result. The arguments travel in an array
// by value so that evaluation does not allocate.
type fnExpr struct {
	name      string
	args      []Expr
	t         types.Type
	keepNulls bool
	fn        func(a [maxFixedArgs]types.Value) (types.Value, error)
	render    func() string // nil renders name(args)
}

// strictFn returns a function that is NULL when any argument is NULL; its
// type is t, NOT NULL when every argument is NOT NULL and notNull is set.
func (c *call) strictFn(t types.Type, notNull bool, fn func(a [maxFixedArgs]types.Value) (types.Value, error)) *fnExpr {
	return &fnExpr{name: c.name, args: c.args, t: withNull(t, notNull && c.allNotNull()), fn: fn}
}

// lenientFn returns a function that sees NULL arguments.
func (c *call) lenientFn(t types.Type, fn func(a [maxFixedArgs]types.Value) (types.Value, error)) *fnExpr {
	return &fnExpr{name: c.name, args: c.args, t: t, keepNulls: true, fn: fn}
}

func (f *fnExpr) Type() types.Type { return f.t }

func (f *fnExpr) String() string {
	if f.render != nil {
		return f.render()
	}
	return f.name + "(" + joinExprs(f.args) + ")"
}

func (f *fnExpr) Eval(row []types.Value) (types.Value, error) {
	var a [maxFixedArgs]types.Value
	for i, e := range f.args {
		v, err := e.Eval(row)
		if err != nil {
			return types.Null, err
		}
		if v.IsNull() && !f.keepNulls {
			return types.Null, nil
		}
		a[i] = v
	}
	return f.fn(a)
}

// varFnExpr is a function of any number of arguments; evaluation
// allocates the argument slice.
type varFnExpr struct {
	name      string
	args      []Expr
	t         types.Type
	keepNulls bool
	fn        func(a []types.Value) (types.Value, error)
}

func (c *call) varFn(t types.Type, keepNulls bool, fn func(a []types.Value) (types.Value, error)) *varFnExpr {
	return &varFnExpr{name: c.name, args: c.args, t: t, keepNulls: keepNulls, fn: fn}
}

func (f *varFnExpr) Type() types.Type { return f.t }
func (f *varFnExpr) String() string   { return f.name + "(" + joinExprs(f.args) + ")" }

func (f *varFnExpr) Eval(row []types.Value) (types.Value, error) {
	a := make([]types.Value, len(f.args))
	for i, e := range f.args {
		v, err := e.Eval(row)
		if err != nil {
			return types.Null, err
		}
		if v.IsNull() && !f.keepNulls {
			return types.Null, nil
		}
		a[i] = v
	}
	return f.fn(a)
}

// okNull returns v, or NULL when ok is false.
func okNull(v types.Value, ok bool) (types.Value, error) {
	if !ok {
		return types.Null, nil
	}
	return v, nil
}
