package expr

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/types"
)

// Session options of the sink constraint enforcers, as in Flink.
const (
	NotNullEnforcerKey    = "table.exec.sink.not-null-enforcer"
	TypeLengthEnforcerKey = "table.exec.sink.type-length-enforcer"
)

// NotNullEnforcer says what a sink does with a NULL written into a NOT NULL
// column ('table.exec.sink.not-null-enforcer').
type NotNullEnforcer uint8

const (
	// NotNullError fails the statement (Flink's default).
	NotNullError NotNullEnforcer = iota
	// NotNullDrop drops the row silently.
	NotNullDrop
)

// LengthEnforcer says what a sink does with a value that does not fit the
// length of its CHAR(n), VARCHAR(n), BINARY(n) or VARBINARY(n) column
// ('table.exec.sink.type-length-enforcer').
type LengthEnforcer uint8

const (
	// LengthIgnore writes values unchanged (Flink's default): nothing is
	// cut and nothing is padded.
	LengthIgnore LengthEnforcer = iota
	// LengthTrimPad cuts longer values to the length and pads shorter
	// CHAR(n) values with spaces (BINARY(n) with zero bytes).
	LengthTrimPad
	// LengthError fails the statement on a longer value and pads shorter
	// CHAR(n) and BINARY(n) values. Flink has no such mode; Eddy adds it.
	LengthError
)

// ParseNotNullEnforcer parses ERROR or DROP (any case); "" is the default.
func ParseNotNullEnforcer(s string) (NotNullEnforcer, bool) {
	switch strings.ToUpper(s) {
	case "", "ERROR":
		return NotNullError, true
	case "DROP":
		return NotNullDrop, true
	}
	return 0, false
}

// ParseLengthEnforcer parses IGNORE, TRIM_PAD or ERROR (any case); "" is
// the default.
func ParseLengthEnforcer(s string) (LengthEnforcer, bool) {
	switch strings.ToUpper(s) {
	case "", "IGNORE":
		return LengthIgnore, true
	case "TRIM_PAD":
		return LengthTrimPad, true
	case "ERROR":
		return LengthError, true
	}
	return 0, false
}

func (l LengthEnforcer) String() string {
	return [...]string{"IGNORE", "TRIM_PAD", "ERROR"}[l]
}

// SinkValueType returns the type a value is converted to before it is
// written into a sink column of type t: t with every CHAR/VARCHAR made
// STRING and every BINARY/VARBINARY made BYTES, nested types included, so
// that the implicit conversion cuts and pads nothing (the length enforcer of
// SinkColumn decides that), and with nested types nullable, because a
// conversion does not check them (the NOT NULL enforcer does).
func SinkValueType(t types.Type) types.Type {
	return withNull(sinkValueType(t), t.NotNull)
}

func sinkValueType(t types.Type) types.Type {
	switch {
	case t.IsString():
		return types.String
	case isBinary(t):
		return types.Bytes
	case t.ID == types.TypeArray:
		return types.ArrayOf(sinkValueType(*t.Elem))
	case t.ID == types.TypeMap:
		return types.MapOf(sinkValueType(*t.Elem), sinkValueType(*t.Val))
	case t.ID == types.TypeRow:
		fs := make([]types.Field, len(t.Fields))
		for i, f := range t.Fields {
			fs[i] = types.Field{Name: f.Name, Type: sinkValueType(f.Type)}
		}
		return types.RowOf(fs...)
	}
	return withNull(t, false)
}

// SinkColumn returns the value of sink column name of type t computed by e
// (of type SinkValueType(t) or one that needs no conversion to it): e's
// value with the length enforcer applied, which fails with Flink's message
// on a NULL in a NOT NULL column or field when notNull is NotNullError (with
// NotNullDrop, SinkFilter drops such rows before). The result has type t.
func SinkColumn(e Expr, name string, t types.Type, length LengthEnforcer, notNull NotNullEnforcer) Expr {
	c := &sinkColumnExpr{e: e, name: name, t: t, length: length}
	c.checkNull = notNull == NotNullError && hasNotNull(t)
	c.fit = length != LengthIgnore && hasLength(t)
	if !c.fit && e.Type().Same(t) && coversNotNull(e.Type(), t) {
		return e
	}
	return c
}

// NotNullViolation reports whether v holds a NULL where t says NOT NULL,
// nested fields, elements and map entries included, and the path of the
// first one from column name: name, name.field, name[i] (1-based) or
// name[key].
func NotNullViolation(v types.Value, t types.Type, name string) (string, bool) {
	return nullPath(v, t, name)
}

// SinkFilter returns a boolean expression that is false for a row in which
// one of cols (the values of the sink columns of types ts) holds a NULL
// where its type says NOT NULL, nested fields included; nil when the types
// of cols guarantee that none does. It implements NotNullDrop.
func SinkFilter(cols []Expr, ts []types.Type) Expr {
	f := &notNullFilter{}
	for i, c := range cols {
		if !coversNotNull(c.Type(), ts[i]) {
			f.cols = append(f.cols, c)
			f.ts = append(f.ts, ts[i])
		}
	}
	if len(f.cols) == 0 {
		return nil
	}
	return f
}

type sinkColumnExpr struct {
	e         Expr
	name      string
	t         types.Type
	length    LengthEnforcer
	checkNull bool
	fit       bool
}

func (c *sinkColumnExpr) Type() types.Type { return c.t }

func (c *sinkColumnExpr) String() string {
	if !c.checkNull && !c.fit {
		return c.e.String()
	}
	var parts []string
	if c.checkNull {
		parts = append(parts, "NOT NULL")
	}
	if c.fit {
		parts = append(parts, c.length.String()+" "+typeString(c.t))
	}
	return "ENFORCE(" + c.e.String() + ", '" + c.name + "' " + strings.Join(parts, ", ") + ")"
}

func (c *sinkColumnExpr) Eval(row []types.Value) (types.Value, error) {
	v, err := c.e.Eval(row)
	if err != nil {
		return v, err
	}
	if c.checkNull {
		if path, bad := nullPath(v, c.t, c.name); bad {
			return types.Null, runtimeErrorf("Column '%s' is NOT NULL, however, a null value is being written into it. "+
				"You can set job configuration '%s'='DROP' to suppress this exception and drop such records silently.", path, NotNullEnforcerKey)
		}
	}
	if !c.fit {
		return v, nil
	}
	out, bad := fitValue(v, c.t, c.name, c.length == LengthError)
	if bad.path != "" {
		return types.Null, runtimeErrorf("Column '%s' is %s, however, a value of length %d is being written into it. "+
			"You can set job configuration '%s'='TRIM_PAD' to trim such values, or 'IGNORE' to write them unchanged.",
			bad.path, typeString(bad.t), bad.n, TypeLengthEnforcerKey)
	}
	return out, nil
}

type notNullFilter struct {
	cols []Expr
	ts   []types.Type
}

func (f *notNullFilter) Type() types.Type { return types.Boolean.NonNull() }

func (f *notNullFilter) String() string {
	var b strings.Builder
	b.WriteString("NOT_NULL_ENFORCER(")
	for i, c := range f.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.String())
	}
	return b.String() + ")"
}

func (f *notNullFilter) Eval(row []types.Value) (types.Value, error) {
	for i, c := range f.cols {
		v, err := c.Eval(row)
		if err != nil {
			return types.Null, err
		}
		if _, bad := nullPath(v, f.ts[i], ""); bad {
			return types.NewBool(false), nil
		}
	}
	return types.NewBool(true), nil
}

// coversNotNull reports whether type src guarantees every NOT NULL of dst
// (a value of type src never holds a NULL where dst forbids one).
func coversNotNull(src, dst types.Type) bool {
	if dst.NotNull && !src.NotNull {
		return false
	}
	if src.ID != dst.ID {
		return !hasNotNull(dst)
	}
	switch dst.ID {
	case types.TypeArray:
		return coversNotNull(*src.Elem, *dst.Elem)
	case types.TypeMap:
		return coversNotNull(*src.Elem, *dst.Elem) && coversNotNull(*src.Val, *dst.Val)
	case types.TypeRow:
		if len(src.Fields) != len(dst.Fields) {
			return !hasNotNull(dst)
		}
		for i := range dst.Fields {
			if !coversNotNull(src.Fields[i].Type, dst.Fields[i].Type) {
				return false
			}
		}
	}
	return true
}

// hasNotNull reports whether t or a type nested in it is NOT NULL.
func hasNotNull(t types.Type) bool {
	if t.NotNull {
		return true
	}
	return anyChild(t, hasNotNull)
}

// hasLength reports whether t or a type nested in it has a length below
// the maximum, or is CHAR/BINARY (which pad).
func hasLength(t types.Type) bool {
	if t.IsString() || isBinary(t) {
		return t.Length < types.MaxLength || t.ID == types.TypeChar || t.ID == types.TypeBinary
	}
	return anyChild(t, hasLength)
}

func anyChild(t types.Type, pred func(types.Type) bool) bool {
	switch t.ID {
	case types.TypeArray:
		return pred(*t.Elem)
	case types.TypeMap:
		return pred(*t.Elem) || pred(*t.Val)
	case types.TypeRow:
		for _, f := range t.Fields {
			if pred(f.Type) {
				return true
			}
		}
	}
	return false
}

// nullPath implements NotNullViolation.
func nullPath(v types.Value, t types.Type, name string) (string, bool) {
	if v.IsNull() {
		return name, t.NotNull
	}
	switch t.ID {
	case types.TypeRow:
		fs := v.Fields()
		for i, f := range t.Fields {
			if i < len(fs) {
				if p, bad := nullPath(fs[i], f.Type, name+"."+f.Name); bad {
					return p, true
				}
			}
		}
	case types.TypeArray:
		for i, e := range v.Array() {
			if p, bad := nullPath(e, *t.Elem, name+"["+strconv.Itoa(i+1)+"]"); bad {
				return p, true
			}
		}
	case types.TypeMap:
		for _, e := range v.Map() {
			if p, bad := nullPath(e.Key, *t.Elem, name+" (a key)"); bad {
				return p, true
			}
			if p, bad := nullPath(e.Val, *t.Val, name+"["+e.Key.String()+"]"); bad {
				return p, true
			}
		}
	}
	return "", false
}

// tooLong describes a value longer than its type allows: the path from the
// column, the type, and the value's length. The zero value means none.
type tooLong struct {
	path string
	t    types.Type
	n    int
}

// fitValue trims and pads v to the lengths in t. With strict, a value
// longer than its length is not cut: the first one is reported instead.
func fitValue(v types.Value, t types.Type, name string, strict bool) (types.Value, tooLong) {
	if v.IsNull() || !hasLength(t) {
		return v, tooLong{}
	}
	switch {
	case t.IsString():
		s := v.Str()
		if strict && len(s) > t.Length { // bytes >= runes: count only then
			if n := utf8.RuneCountInString(s); n > t.Length {
				return v, tooLong{name, t, n}
			}
		}
		if f := fitString(s, t); f != s {
			return types.NewString(f), tooLong{}
		}
		return v, tooLong{}
	case isBinary(t):
		s := v.Str()
		if strict && len(s) > t.Length {
			return v, tooLong{name, t, len(s)}
		}
		if f := fitBytes(s, t); f != s {
			return types.NewBytes([]byte(f)), tooLong{}
		}
		return v, tooLong{}
	case t.ID == types.TypeRow:
		fs := v.Fields()
		out := make([]types.Value, len(fs))
		for i := range fs {
			out[i] = fs[i]
			if i < len(t.Fields) {
				var bad tooLong
				if out[i], bad = fitValue(fs[i], t.Fields[i].Type, name+"."+t.Fields[i].Name, strict); bad.path != "" {
					return v, bad
				}
			}
		}
		return types.NewRow(out), tooLong{}
	case t.ID == types.TypeArray:
		es := v.Array()
		out := make([]types.Value, len(es))
		for i := range es {
			var bad tooLong
			if out[i], bad = fitValue(es[i], *t.Elem, name+"["+strconv.Itoa(i+1)+"]", strict); bad.path != "" {
				return v, bad
			}
		}
		return types.NewArray(out), tooLong{}
	case t.ID == types.TypeMap:
		es := v.Map()
		out := make([]types.MapEntry, len(es))
		for i, e := range es {
			var bad tooLong
			if out[i].Key, bad = fitValue(e.Key, *t.Elem, name+" (a key)", strict); bad.path != "" {
				return v, bad
			}
			if out[i].Val, bad = fitValue(e.Val, *t.Val, name+"["+e.Key.String()+"]", strict); bad.path != "" {
				return v, bad
			}
		}
		return types.NewMap(out), tooLong{}
	}
	return v, tooLong{}
}
