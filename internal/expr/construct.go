package expr

import (
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// Row returns ROW(fields...), a ROW value with fields named EXPR$0, EXPR$1,
// ... unless names are given.
func Row(fields []Expr, names []string) (Expr, error) {
	fs := make([]types.Field, len(fields))
	for i, f := range fields {
		if f == nil {
			return nil, errNilArg("ROW")
		}
		name := "EXPR$" + itoa(i)
		if i < len(names) && names[i] != "" {
			name = names[i]
		}
		fs[i] = types.Field{Name: name, Type: f.Type()}
	}
	return &ctorExpr{kind: "ROW", args: fields, t: types.RowOf(fs...).NonNull()}, nil
}

// Array returns ARRAY[elems...]; the element type is their common type.
func Array(elems []Expr) (Expr, error) {
	ts := make([]types.Type, len(elems))
	for i, e := range elems {
		if e == nil {
			return nil, errNilArg("ARRAY")
		}
		ts[i] = e.Type()
	}
	et, ok := CommonType(ts...)
	if !ok {
		return nil, typeErrorf("ARRAY elements have no common type: %s", typeList(ts))
	}
	args, err := castAll(elems, et)
	if err != nil {
		return nil, err
	}
	return &ctorExpr{kind: "ARRAY", args: args, t: types.ArrayOf(et).NonNull()}, nil
}

// Map returns MAP[k1, v1, k2, v2, ...].
func Map(kvs []Expr) (Expr, error) {
	if len(kvs)%2 != 0 || len(kvs) == 0 {
		return nil, typeErrorf("MAP needs an even, non-zero number of arguments (key, value, ...)")
	}
	var ks, vs []Expr
	var kts, vts []types.Type
	for i := 0; i < len(kvs); i += 2 {
		if kvs[i] == nil || kvs[i+1] == nil {
			return nil, errNilArg("MAP")
		}
		ks, vs = append(ks, kvs[i]), append(vs, kvs[i+1])
		kts, vts = append(kts, kvs[i].Type()), append(vts, kvs[i+1].Type())
	}
	kt, ok := CommonType(kts...)
	if !ok {
		return nil, typeErrorf("MAP keys have no common type: %s", typeList(kts))
	}
	vt, ok := CommonType(vts...)
	if !ok {
		return nil, typeErrorf("MAP values have no common type: %s", typeList(vts))
	}
	ks, err := castAll(ks, kt)
	if err != nil {
		return nil, err
	}
	if vs, err = castAll(vs, vt); err != nil {
		return nil, err
	}
	args := make([]Expr, 0, len(kvs))
	for i := range ks {
		args = append(args, ks[i], vs[i])
	}
	return &ctorExpr{kind: "MAP", args: args, t: types.MapOf(kt, vt).NonNull()}, nil
}

func castAll(es []Expr, t types.Type) ([]Expr, error) {
	out := make([]Expr, len(es))
	for i, e := range es {
		if e.Type().Same(t) {
			out[i] = e
			continue
		}
		c, err := Cast(e, t, false)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func typeList(ts []types.Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

// ctorExpr builds a ROW, ARRAY or MAP value.
type ctorExpr struct {
	kind string
	args []Expr
	t    types.Type
}

func (c *ctorExpr) Type() types.Type { return c.t }

func (c *ctorExpr) Eval(row []types.Value) (types.Value, error) {
	vals := make([]types.Value, len(c.args))
	for i, a := range c.args {
		v, err := a.Eval(row)
		if err != nil {
			return types.Null, err
		}
		vals[i] = v
	}
	switch c.kind {
	case "ARRAY":
		return types.NewArray(vals), nil
	case "MAP":
		es := make([]types.MapEntry, 0, len(vals)/2)
		for i := 0; i < len(vals); i += 2 {
			es = append(es, types.MapEntry{Key: vals[i], Val: vals[i+1]})
		}
		return types.NewMap(es), nil
	}
	return types.NewRow(vals), nil
}

func (c *ctorExpr) String() string {
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.String()
	}
	if c.kind == "ROW" {
		return "ROW(" + strings.Join(parts, ", ") + ")"
	}
	return c.kind + "[" + strings.Join(parts, ", ") + "]"
}
