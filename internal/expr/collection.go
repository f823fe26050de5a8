package expr

import (
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Collection functions. Array positions are 1-based; element equality is
// SQL equality with NULL equal to NULL (IS NOT DISTINCT FROM), as Flink's
// ARRAY_CONTAINS, ARRAY_REMOVE and ARRAY_DISTINCT use.

func init() {
	register("collection", []funcDef{
		fdef("CARDINALITY", 1, 1, "CARDINALITY(array) -> INT; CARDINALITY(map) -> INT; CARDINALITY(multiset) -> INT",
			"The number of elements (entries of a map; elements of a multiset, counted with their multiplicity).",
			func(c *call) (Expr, error) {
				t := c.args[0].Type()
				if t.ID == types.TypeMultiset {
					return c.strictFn(types.Int, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
						var n int64
						for _, e := range a[0].Map() {
							n += e.Val.Int()
						}
						return types.NewInt(n), nil
					}), nil
				}
				if t.ID != types.TypeArray && t.ID != types.TypeMap && t.ID != types.TypeNull {
					return nil, argTypeError(c.name, c.args)
				}
				return c.strictFn(types.Int, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					if a[0].Kind() == types.KindMap {
						return types.NewInt(int64(len(a[0].Map()))), nil
					}
					return types.NewInt(int64(len(a[0].Array()))), nil
				}), nil
			}),
		fdef("ELEMENT", 1, 1, "ELEMENT(array)", "The only element of array; NULL when empty, an error when it has more than one.",
			arrayFn(func(c *call, et types.Type) (types.Type, func(a [maxFixedArgs]types.Value) (types.Value, error)) {
				return et.Nullable(), func(a [maxFixedArgs]types.Value) (types.Value, error) {
					switch arr := a[0].Array(); len(arr) {
					case 0:
						return types.Null, nil
					case 1:
						return arr[0], nil
					}
					return types.Null, runtimeErrorf("ELEMENT: the array has more than one element")
				}
			})),
		fdef("ARRAY_APPEND", 2, 2, "ARRAY_APPEND(array, element)", "array with element (which may be NULL) appended.",
			func(c *call) (Expr, error) { return newArrayAdd(c, false) }),
		fdef("ARRAY_PREPEND", 2, 2, "ARRAY_PREPEND(array, element)", "array with element (which may be NULL) prepended.",
			func(c *call) (Expr, error) { return newArrayAdd(c, true) }),
		fdef("ARRAY_CONTAINS", 2, 2, "ARRAY_CONTAINS(haystack, needle) -> BOOLEAN", "Whether haystack contains needle (which may be NULL).",
			needleFn(types.Boolean, func(arr []types.Value, needle types.Value, eq func(a, b types.Value) bool) types.Value {
				return types.NewBool(slices.ContainsFunc(arr, func(v types.Value) bool { return eq(v, needle) }))
			})),
		fdef("ARRAY_POSITION", 2, 2, "ARRAY_POSITION(haystack, needle) -> INT",
			"The 1-based position of the first occurrence of needle; 0 when absent.",
			needleFn(types.Int, func(arr []types.Value, needle types.Value, eq func(a, b types.Value) bool) types.Value {
				return types.NewInt(int64(slices.IndexFunc(arr, func(v types.Value) bool { return eq(v, needle) }) + 1))
			})),
		fdef("ARRAY_REMOVE", 2, 2, "ARRAY_REMOVE(haystack, needle)", "haystack without the elements equal to needle.",
			needleFn(types.Type{}, func(arr []types.Value, needle types.Value, eq func(a, b types.Value) bool) types.Value {
				out := make([]types.Value, 0, len(arr))
				for _, v := range arr {
					if !eq(v, needle) {
						out = append(out, v)
					}
				}
				return types.NewArray(out)
			})),
		fdef("ARRAY_DISTINCT", 1, 1, "ARRAY_DISTINCT(haystack)", "haystack without duplicates, keeping the first occurrences in order.",
			arrayFn(func(c *call, et types.Type) (types.Type, func(a [maxFixedArgs]types.Value) (types.Value, error)) {
				eq := equality(et)
				return c.args[0].Type(), func(a [maxFixedArgs]types.Value) (types.Value, error) {
					return types.NewArray(distinct(a[0].Array(), eq, nil)), nil
				}
			})),
		fdef("ARRAY_REVERSE", 1, 1, "ARRAY_REVERSE(haystack)", "The elements in reverse order.",
			arrayFn(func(c *call, et types.Type) (types.Type, func(a [maxFixedArgs]types.Value) (types.Value, error)) {
				return c.args[0].Type(), func(a [maxFixedArgs]types.Value) (types.Value, error) {
					out := slices.Clone(a[0].Array())
					slices.Reverse(out)
					return types.NewArray(out), nil
				}
			})),
		fdef("ARRAY_SLICE", 2, 3, "ARRAY_SLICE(array, start_offset [, end_offset])",
			"The elements from start_offset to end_offset (default: the end), inclusive and 1-based; negative offsets count from the end.",
			newArraySlice),
		fdef("ARRAY_SORT", 1, 3, "ARRAY_SORT(array [, ascending_order [, null_first]])",
			"The elements sorted, ascending by default; NULLs first when ascending, last when descending, unless null_first says otherwise.",
			newArraySort),
		fdef("ARRAY_CONCAT", 1, -1, "ARRAY_CONCAT(array1, ...)", "The arrays concatenated; NULL if any is NULL.",
			func(c *call) (Expr, error) { return newArraySet(c, "concat") }),
		fdef("ARRAY_UNION", 2, 2, "ARRAY_UNION(array1, array2)", "The distinct elements of both arrays, in order of appearance.",
			func(c *call) (Expr, error) { return newArraySet(c, "union") }),
		fdef("ARRAY_EXCEPT", 2, 2, "ARRAY_EXCEPT(array1, array2)", "The distinct elements of array1 that are not in array2.",
			func(c *call) (Expr, error) { return newArraySet(c, "except") }),
		fdef("ARRAY_INTERSECT", 2, 2, "ARRAY_INTERSECT(array1, array2)", "The distinct elements of array1 that are also in array2.",
			func(c *call) (Expr, error) { return newArraySet(c, "intersect") }),
		fdef("ARRAY_MAX", 1, 1, "ARRAY_MAX(array)", "The greatest non-NULL element; NULL when there is none.",
			func(c *call) (Expr, error) { return newArrayExtreme(c, 1) }),
		fdef("ARRAY_MIN", 1, 1, "ARRAY_MIN(array)", "The least non-NULL element; NULL when there is none.",
			func(c *call) (Expr, error) { return newArrayExtreme(c, -1) }),
		fdef("ARRAY_JOIN", 2, 3, "ARRAY_JOIN(array, delimiter [, nullReplacement]) -> STRING",
			"The string elements joined with delimiter; NULL elements are skipped unless nullReplacement is given.", newArrayJoin),
		fdef("MAP_KEYS", 1, 1, "MAP_KEYS(map) -> ARRAY", "The keys of map.", mapPart(0)),
		fdef("MAP_VALUES", 1, 1, "MAP_VALUES(map) -> ARRAY", "The values of map.", mapPart(1)),
		fdef("MAP_ENTRIES", 1, 1, "MAP_ENTRIES(map) -> ARRAY<ROW<key, value>>", "The entries of map as rows (key, value).", mapPart(2)),
		fdef("MAP_FROM_ARRAYS", 2, 2, "MAP_FROM_ARRAYS(array_of_keys, array_of_values) -> MAP",
			"The map of keys to values at the same positions; an error when the lengths differ.", newMapFromArrays),
		fdef("MAP_UNION", 1, -1, "MAP_UNION(map1, ...) -> MAP", "The maps merged; a key of a later map wins. NULL if any is NULL.", newMapUnion),
	})
}

// equality compares two elements of type t, NULL equal to NULL.
func equality(t types.Type) func(a, b types.Value) bool {
	cmp, ok := comparator(t, t)
	return func(a, b types.Value) bool {
		if a.IsNull() || b.IsNull() {
			return a.IsNull() == b.IsNull()
		}
		return ok && cmp(a, b) == 0
	}
}

// elemType is the element type of an ARRAY argument (NULL type: NULL).
func elemType(t types.Type) (types.Type, bool) {
	switch t.ID {
	case types.TypeArray:
		return *t.Elem, true
	case types.TypeNull:
		return types.NullType, true
	}
	return types.Type{}, false
}

func arrayFn(f func(c *call, et types.Type) (types.Type, func(a [maxFixedArgs]types.Value) (types.Value, error))) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		et, ok := elemType(c.args[0].Type())
		if !ok {
			return nil, argTypeError(c.name, c.args)
		}
		t, fn := f(c, et)
		e := c.strictFn(t, t.NotNull || t.ID == types.TypeArray, fn)
		if t.ID != types.TypeArray && !t.NotNull {
			e.t = t.Nullable()
		}
		return e, nil
	}
}

func distinct(arr []types.Value, eq func(a, b types.Value) bool, exclude []types.Value) []types.Value {
	out := make([]types.Value, 0, len(arr))
	for _, v := range arr {
		in := func(w types.Value) bool { return eq(v, w) }
		if !slices.ContainsFunc(out, in) && !slices.ContainsFunc(exclude, in) {
			out = append(out, v)
		}
	}
	return out
}

// arrayElemCommon returns the array type whose element type is common to
// the array and t.
func arrayElemCommon(c *call, at, t types.Type) (types.Type, error) {
	et, ok := elemType(at)
	if !ok {
		return types.Type{}, argTypeError(c.name, c.args)
	}
	ct, ok := CommonType(et, t)
	if !ok || ct.ID == types.TypeNull {
		if !ok {
			return types.Type{}, argTypeError(c.name, c.args)
		}
		ct = types.String
	}
	return ct, nil
}

func newArrayAdd(c *call, prepend bool) (Expr, error) {
	et, err := arrayElemCommon(c, c.args[0].Type(), c.args[1].Type())
	if err != nil {
		return nil, err
	}
	et = withNull(et, et.NotNull && c.args[1].Type().NotNull)
	conv := convOrSame(castFunc(withNull(c.args[1].Type(), false), et))
	at := withNull(types.ArrayOf(et), c.args[0].Type().NotNull)
	arrConv := convOrSame(castFunc(c.args[0].Type(), at))
	return c.lenientFn(at, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		if a[0].IsNull() {
			return types.Null, nil
		}
		arr, err := arrConv(a[0])
		if err != nil {
			return types.Null, err
		}
		v := a[1]
		if !v.IsNull() {
			if v, err = conv(v); err != nil {
				return types.Null, err
			}
		}
		out := make([]types.Value, 0, len(arr.Array())+1)
		if prepend {
			out = append(out, v)
		}
		out = append(out, arr.Array()...)
		if !prepend {
			out = append(out, v)
		}
		return types.NewArray(out), nil
	}), nil
}

// needleFn builds f(haystack, needle); t zero means the haystack's type.
func needleFn(t types.Type, f func(arr []types.Value, needle types.Value, eq func(a, b types.Value) bool) types.Value) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		et, err := arrayElemCommon(c, c.args[0].Type(), c.args[1].Type())
		if err != nil {
			return nil, err
		}
		eq := equality(et)
		rt := t
		if rt.ID == 0 && rt.Elem == nil {
			rt = c.args[0].Type()
		}
		rt = withNull(rt, c.args[0].Type().NotNull)
		return c.lenientFn(rt, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			if a[0].IsNull() {
				return types.Null, nil
			}
			return f(a[0].Array(), a[1], eq), nil
		}), nil
	}
}

func newArraySlice(c *call) (Expr, error) {
	if _, ok := elemType(c.args[0].Type()); !ok || !aInt.accepts(c.args[1].Type()) ||
		len(c.args) == 3 && !aInt.accepts(c.args[2].Type()) {
		return nil, argTypeError(c.name, c.args)
	}
	return c.strictFn(c.args[0].Type(), true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		arr := a[0].Array()
		n := int64(len(arr))
		from, to := a[1].Int(), n
		if len(c.args) == 3 {
			to = a[2].Int()
		}
		if from < 0 {
			from += n + 1
		}
		if to < 0 {
			to += n + 1
		}
		from = max(from, 1)
		to = min(to, n)
		if from > to {
			return types.NewArray([]types.Value{}), nil
		}
		return types.NewArray(slices.Clone(arr[from-1 : to])), nil
	}), nil
}

func newArraySort(c *call) (Expr, error) {
	et, ok := elemType(c.args[0].Type())
	if !ok || len(c.args) > 1 && !aBool.accepts(c.args[1].Type()) || len(c.args) > 2 && !aBool.accepts(c.args[2].Type()) {
		return nil, argTypeError(c.name, c.args)
	}
	cmp, ok := comparator(et, et)
	if !ok || et.ID == types.TypeMap {
		return nil, argTypeError(c.name, c.args)
	}
	return c.strictFn(c.args[0].Type(), true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		asc := len(c.args) < 2 || a[1].Bool()
		nullsFirst := asc
		if len(c.args) == 3 {
			nullsFirst = a[2].Bool()
		}
		out := slices.Clone(a[0].Array())
		slices.SortStableFunc(out, func(x, y types.Value) int {
			switch {
			case x.IsNull() && y.IsNull():
				return 0
			case x.IsNull():
				return map[bool]int{true: -1, false: 1}[nullsFirst]
			case y.IsNull():
				return map[bool]int{true: 1, false: -1}[nullsFirst]
			}
			if asc {
				return cmp(x, y)
			}
			return cmp(y, x)
		})
		return types.NewArray(out), nil
	}), nil
}

func newArraySet(c *call, op string) (Expr, error) {
	ts := make([]types.Type, len(c.args))
	for i, a := range c.args {
		ts[i] = a.Type()
		if _, ok := elemType(ts[i]); !ok {
			return nil, argTypeError(c.name, c.args)
		}
	}
	t, ok := CommonType(ts...)
	if !ok {
		return nil, incompatible(c.name, ts)
	}
	if t.ID == types.TypeNull {
		t = types.ArrayOf(types.String)
	}
	args := make([]Expr, len(c.args))
	for i, a := range c.args {
		args[i] = coerce(a, withNull(t, a.Type().NotNull))
	}
	c.args = args
	eq := equality(*t.Elem)
	return c.varFn(withNull(t, c.allNotNull()), false, func(a []types.Value) (types.Value, error) {
		switch op {
		case "concat":
			var out []types.Value
			for _, v := range a {
				out = append(out, v.Array()...)
			}
			if out == nil {
				out = []types.Value{}
			}
			return types.NewArray(out), nil
		case "union":
			return types.NewArray(distinct(append(slices.Clone(a[0].Array()), a[1].Array()...), eq, nil)), nil
		case "except":
			return types.NewArray(distinct(a[0].Array(), eq, a[1].Array())), nil
		}
		var out []types.Value
		for _, v := range distinct(a[0].Array(), eq, nil) {
			if slices.ContainsFunc(a[1].Array(), func(w types.Value) bool { return eq(v, w) }) {
				out = append(out, v)
			}
		}
		if out == nil {
			out = []types.Value{}
		}
		return types.NewArray(out), nil
	}), nil
}

func newArrayExtreme(c *call, sign int) (Expr, error) {
	et, ok := elemType(c.args[0].Type())
	if !ok {
		return nil, argTypeError(c.name, c.args)
	}
	cmp, ok := comparator(et, et)
	if !ok || et.ID == types.TypeMap {
		return nil, argTypeError(c.name, c.args)
	}
	return c.strictFn(et.Nullable(), false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		best := types.Null
		for _, v := range a[0].Array() {
			if !v.IsNull() && (best.IsNull() || cmp(v, best)*sign > 0) {
				best = v
			}
		}
		return best, nil
	}), nil
}

func newArrayJoin(c *call) (Expr, error) {
	et, ok := elemType(c.args[0].Type())
	if !ok || !aStr.accepts(et) {
		return nil, argTypeError(c.name, c.args)
	}
	if !aStr.accepts(c.args[1].Type()) || len(c.args) == 3 && !aStr.accepts(c.args[2].Type()) {
		return nil, argTypeError(c.name, c.args)
	}
	return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		var parts []string
		for _, v := range a[0].Array() {
			switch {
			case !v.IsNull():
				parts = append(parts, v.Str())
			case len(c.args) == 3:
				parts = append(parts, a[2].Str())
			}
		}
		return types.NewString(strings.Join(parts, a[1].Str())), nil
	}), nil
}

// mapPart builds MAP_KEYS (0), MAP_VALUES (1) and MAP_ENTRIES (2).
func mapPart(part int) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		t := c.args[0].Type()
		if t.ID != types.TypeMap {
			return nil, argTypeError(c.name, c.args)
		}
		var rt types.Type
		switch part {
		case 0:
			rt = types.ArrayOf(*t.Elem)
		case 1:
			rt = types.ArrayOf(*t.Val)
		default:
			rt = types.ArrayOf(types.RowOf(types.Field{Name: "key", Type: *t.Elem}, types.Field{Name: "value", Type: *t.Val}))
		}
		return c.strictFn(rt, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			m := a[0].Map()
			out := make([]types.Value, len(m))
			for i, e := range m {
				switch part {
				case 0:
					out[i] = e.Key
				case 1:
					out[i] = e.Val
				default:
					out[i] = types.NewRow([]types.Value{e.Key, e.Val})
				}
			}
			return types.NewArray(out), nil
		}), nil
	}
}

func newMapFromArrays(c *call) (Expr, error) {
	kt, ok1 := elemType(c.args[0].Type())
	vt, ok2 := elemType(c.args[1].Type())
	if !ok1 || !ok2 {
		return nil, argTypeError(c.name, c.args)
	}
	eq := equality(kt)
	return c.strictFn(types.MapOf(kt, vt), true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		ks, vs := a[0].Array(), a[1].Array()
		if len(ks) != len(vs) {
			return types.Null, runtimeErrorf("MAP_FROM_ARRAYS: the key array has %d elements and the value array %d", len(ks), len(vs))
		}
		return types.NewMap(mergeEntries(nil, ks, vs, eq)), nil
	}), nil
}

// mergeEntries adds keys and values to entries; a later key replaces the
// value of an earlier equal key in place.
func mergeEntries(entries []types.MapEntry, ks, vs []types.Value, eq func(a, b types.Value) bool) []types.MapEntry {
	for i, k := range ks {
		j := slices.IndexFunc(entries, func(e types.MapEntry) bool { return eq(e.Key, k) })
		if j >= 0 {
			entries[j].Val = vs[i]
			continue
		}
		entries = append(entries, types.MapEntry{Key: k, Val: vs[i]})
	}
	return entries
}

func newMapUnion(c *call) (Expr, error) {
	ts := make([]types.Type, len(c.args))
	for i, a := range c.args {
		ts[i] = a.Type()
		if ts[i].ID != types.TypeMap && ts[i].ID != types.TypeNull {
			return nil, argTypeError(c.name, c.args)
		}
	}
	t, ok := CommonType(ts...)
	if !ok || t.ID != types.TypeMap {
		return nil, incompatible(c.name, ts)
	}
	args := make([]Expr, len(c.args))
	for i, a := range c.args {
		args[i] = coerce(a, withNull(t, a.Type().NotNull))
	}
	c.args = args
	eq := equality(*t.Elem)
	return c.varFn(withNull(t, c.allNotNull()), false, func(a []types.Value) (types.Value, error) {
		var entries []types.MapEntry
		for _, m := range a {
			ks := make([]types.Value, len(m.Map()))
			vs := make([]types.Value, len(m.Map()))
			for i, e := range m.Map() {
				ks[i], vs[i] = e.Key, e.Val
			}
			entries = mergeEntries(entries, ks, vs, eq)
		}
		return types.NewMap(entries), nil
	}), nil
}

// Subscript returns arr[index] (1-based; NULL when out of range) or
// map[key] (NULL when absent).
func Subscript(x, index Expr) (Expr, error) {
	t := x.Type()
	c := &call{name: "ITEM", args: []Expr{x, index}}
	switch t.ID {
	case types.TypeArray:
		if !aInt.accepts(index.Type()) {
			return nil, typeErrorf("an array index must be an integer, not %s", typeString(index.Type()))
		}
		e := c.strictFn(t.Elem.Nullable(), false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			arr, i := a[0].Array(), a[1].Int()
			if i < 1 || i > int64(len(arr)) {
				return types.Null, nil
			}
			return arr[i-1], nil
		})
		e.render = func() string { return paren(x, precAtom) + "[" + index.String() + "]" }
		return e, nil
	case types.TypeMap:
		kt := *t.Elem
		if _, ok := CommonType(kt, index.Type()); !ok {
			return nil, typeErrorf("a key of %s cannot be %s", typeString(t), typeString(index.Type()))
		}
		eq := equality(kt)
		if !index.Type().Same(kt) && index.Type().ID != types.TypeNull {
			ct, _ := CommonType(kt, index.Type())
			index = coerce(index, withNull(ct, index.Type().NotNull))
			eq = equality(ct)
		}
		c.args[1] = index
		e := c.strictFn(t.Val.Nullable(), false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			for _, en := range a[0].Map() {
				if eq(en.Key, a[1]) {
					return en.Val, nil
				}
			}
			return types.Null, nil
		})
		e.render = func() string { return paren(x, precAtom) + "[" + index.String() + "]" }
		return e, nil
	}
	return nil, typeErrorf("cannot subscript a value of type %s", typeString(t))
}

// convOrSame returns f, or the identity when no conversion is needed.
func convOrSame(f convFunc) convFunc {
	if f == nil {
		return func(v types.Value) (types.Value, error) { return v, nil }
	}
	return f
}

// Field returns the field name of a ROW value (exact name first, then a
// unique case-insensitive match); NULL when the row is NULL.
func Field(x Expr, name string) (Expr, error) {
	t := x.Type()
	if t.ID != types.TypeRow {
		return nil, typeErrorf("cannot access field '%s' of a value of type %s", name, typeString(t))
	}
	idx := -1
	for i, f := range t.Fields {
		if f.Name == name {
			idx = i
			break
		}
	}
	if idx < 0 {
		for i, f := range t.Fields {
			if strings.EqualFold(f.Name, name) {
				if idx >= 0 {
					return nil, typeErrorf("field '%s' of %s is ambiguous", name, typeString(t))
				}
				idx = i
			}
		}
	}
	if idx < 0 {
		names := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			names[i] = f.Name
		}
		return nil, sqlerr.Newf(sqlerr.UnknownColumn, "%s has no field '%s'", typeString(t), name).
			WithHint("its fields are %s", strings.Join(names, ", "))
	}
	ft := t.Fields[idx].Type
	c := &call{name: "FIELD", args: []Expr{x}}
	e := c.strictFn(ft, t.NotNull && ft.NotNull, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		fs := a[0].Fields()
		if idx >= len(fs) {
			return types.Null, nil
		}
		return fs[idx], nil
	})
	e.t = withNull(ft, t.NotNull && ft.NotNull)
	e.render = func() string { return paren(x, precAtom) + "." + t.Fields[idx].Name }
	return e, nil
}
