package expr

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// JSON functions. Paths are SQL/JSON paths in lax (default) or strict
// mode over member accessors (.key, ."key", ['key']) and array indexes
// ([0]) and [*]; member wildcards (.*) and filters are not supported. The defaults are
// Flink's: NULL ON EMPTY and NULL ON ERROR for JSON_VALUE and JSON_QUERY,
// FALSE ON ERROR for JSON_EXISTS, NULL ON NULL for JSON_OBJECT and ABSENT
// ON NULL for JSON_ARRAY.

func init() {
	register("json", []funcDef{
		fdef("JSON_VALUE", 2, 3, "JSON_VALUE(jsonValue, path [RETURNING type] [{NULL | ERROR | DEFAULT expr} ON EMPTY] [{NULL | ERROR | DEFAULT expr} ON ERROR])",
			"The scalar at path as STRING (or the RETURNING type); NULL when the path is missing, is not a scalar or the JSON is invalid.",
			func(c *call) (Expr, error) { return JSONValue(c.args[0], c.args[1], nil) }),
		fdef("JSON_QUERY", 2, 2, "JSON_QUERY(jsonValue, path [RETURNING {STRING | ARRAY<STRING>}] [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER] [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [... ON ERROR])",
			"The JSON object or array at path as a string (a wrapper collects several values or a scalar into an array); NULL when missing, a scalar without a wrapper, or invalid JSON.", newJSONQuery),
		fdef("JSON_EXISTS", 2, 2, "JSON_EXISTS(jsonValue, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR]) -> BOOLEAN",
			"Whether path selects a value in jsonValue; FALSE (or the ON ERROR choice) for invalid JSON or a strict-mode error.", newJSONExists),
		fdef("JSON_STRING", 1, 1, "JSON_STRING(value) -> STRING", "The value serialized as JSON; NULL for NULL.", newJSONString),
		fdef("JSON_OBJECT", 0, -1, "JSON_OBJECT([[KEY] key VALUE value]* [{NULL | ABSENT} ON NULL]) -> STRING",
			"A JSON object of the key/value pairs; NULL values become JSON null. Nested JSON_OBJECT and JSON_ARRAY calls are embedded as JSON.",
			newJSONObject),
		fdef("JSON_ARRAY", 0, -1, "JSON_ARRAY([value]* [{NULL | ABSENT} ON NULL]) -> STRING",
			"A JSON array of the values; NULL values are left out. Nested JSON_OBJECT and JSON_ARRAY calls are embedded as JSON.",
			newJSONArray),
		fdef("JSON", 1, 1, "JSON(value) -> STRING",
			"The string value as raw JSON: inside JSON_OBJECT or JSON_ARRAY it is embedded as JSON rather than as a string; an error when it is not valid JSON.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr); err != nil {
					return nil, err
				}
				return jsonCtor{c.varFn(withNull(types.String, c.args[0].Type().NotNull), false, func(a []types.Value) (types.Value, error) {
					if _, ok := decodeJSON(a[0].Str()); !ok {
						return types.Null, runtimeErrorf("JSON: '%s' is not valid JSON", a[0].Str())
					}
					return a[0], nil
				})}, nil
			}),
		fdef("JSON_QUOTE", 1, 1, "JSON_QUOTE(string) -> STRING", "string as a quoted JSON string literal.",
			str1(func(s string) string { return string(jsonQuote(nil, s)) })),
		fdef("JSON_UNQUOTE", 1, 1, "JSON_UNQUOTE(string) -> STRING", "The value of a JSON string literal; other input unchanged.",
			str1(func(s string) string {
				var out string
				if json.Unmarshal([]byte(s), &out) == nil && strings.HasPrefix(strings.TrimSpace(s), `"`) {
					return out
				}
				return s
			})),
		fdef("IS JSON", 1, 2, "value IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT] -> BOOLEAN",
			"Whether the string is valid JSON (of the given kind, VALUE by default); FALSE for NULL.",
			func(c *call) (Expr, error) {
				kind := "VALUE"
				if v, ok := c.literal(1); ok && !v.IsNull() {
					kind = strings.ToUpper(v.Str())
				}
				return IsJSON(c.args[0], kind, false)
			}),
	})
}

// jsonStep is one accessor of a path: a member name or an array index.
type jsonStep struct {
	key      string
	index    int
	isKey    bool
	wildcard bool // [*]
}

type jsonPath struct {
	strict bool
	steps  []jsonStep
}

func parseJSONPath(p string) (jsonPath, bool) {
	var jp jsonPath
	s := strings.TrimSpace(p)
	switch {
	case strings.HasPrefix(s, "strict "):
		jp.strict, s = true, strings.TrimSpace(s[7:])
	case strings.HasPrefix(s, "lax "):
		s = strings.TrimSpace(s[4:])
	}
	if !strings.HasPrefix(s, "$") {
		return jp, false
	}
	s = s[1:]
	for s != "" {
		switch {
		case s[0] == '.':
			s = s[1:]
			if strings.HasPrefix(s, `"`) {
				end := strings.Index(s[1:], `"`)
				if end < 0 {
					return jp, false
				}
				jp.steps = append(jp.steps, jsonStep{key: s[1 : end+1], isKey: true})
				s = s[end+2:]
				continue
			}
			n := 0
			for n < len(s) && s[n] != '.' && s[n] != '[' {
				n++
			}
			if n == 0 || s[:n] == "*" {
				return jp, false
			}
			jp.steps = append(jp.steps, jsonStep{key: s[:n], isKey: true})
			s = s[n:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return jp, false
			}
			in := strings.TrimSpace(s[1:end])
			s = s[end+1:]
			if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
				jp.steps = append(jp.steps, jsonStep{key: in[1 : len(in)-1], isKey: true})
				continue
			}
			if in == "*" {
				jp.steps = append(jp.steps, jsonStep{wildcard: true})
				continue
			}
			i, err := strconv.Atoi(in)
			if err != nil || i < 0 {
				return jp, false
			}
			jp.steps = append(jp.steps, jsonStep{index: i})
		default:
			return jp, false
		}
	}
	return jp, true
}

// eval walks the path over a decoded document and returns the items it
// selects. In lax mode a missing member or index selects nothing and a
// member step applies to each element of an array; in strict mode both
// are structural errors (structErr).
func (jp jsonPath) eval(doc any) (items []any, structErr bool) {
	items = []any{doc}
	for _, st := range jp.steps {
		var next []any
		for _, v := range items {
			switch x := v.(type) {
			case *jsonObject:
				if !st.isKey {
					if jp.strict {
						return nil, true
					}
					if st.wildcard || st.index == 0 {
						next = append(next, x) // lax: a non-array is a one-element array
					}
					continue
				}
				m, ok := x.get(st.key)
				if !ok {
					if jp.strict {
						return nil, true
					}
					continue
				}
				next = append(next, m)
			case []any:
				switch {
				case st.wildcard:
					next = append(next, x...)
				case st.isKey:
					if jp.strict {
						return nil, true
					}
					for _, e := range x {
						if o, ok := e.(*jsonObject); ok {
							if m, ok := o.get(st.key); ok {
								next = append(next, m)
							}
						}
					}
				case st.index < len(x):
					next = append(next, x[st.index])
				case jp.strict:
					return nil, true
				}
			default:
				if jp.strict {
					return nil, true
				}
				if !st.isKey && (st.wildcard || st.index == 0) {
					next = append(next, x)
				}
			}
		}
		items = next
	}
	return items, false
}

// jsonObject is a decoded JSON object that keeps its members in input
// order, as Flink's Jackson-based functions print them.
type jsonObject struct {
	keys []string
	vals []any
}

func (o *jsonObject) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// decodeJSON parses one JSON value (objects as *jsonObject, arrays as
// []any, numbers as json.Number); trailing content is an error.
func decodeJSON(s string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false
	}
	return v, true
}

var errJSONSyntax = errors.New("invalid JSON")

func decodeValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jsonObject{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errJSONSyntax
				}
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				if i := slices.Index(o.keys, k); i >= 0 {
					o.vals[i] = v // a later duplicate wins, as in Jackson
					continue
				}
				o.keys, o.vals = append(o.keys, k), append(o.vals, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			arr := []any{}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, errJSONSyntax
	}
	return t, nil
}

// pathArg compiles a literal path once.
func pathArg(c *call, i int) (func(a [maxFixedArgs]types.Value) (jsonPath, bool), error) {
	if v, ok := c.literal(i); ok && !v.IsNull() {
		p, ok := parseJSONPath(v.Str())
		if !ok {
			return nil, typeErrorf("invalid or unsupported JSON path '%s' in %s", v.Str(), c.name)
		}
		return func([maxFixedArgs]types.Value) (jsonPath, bool) { return p, true }, nil
	}
	return func(a [maxFixedArgs]types.Value) (jsonPath, bool) { return parseJSONPath(a[i].Str()) }, nil
}

// JSONOnClause is the behaviour of JSON_VALUE ON EMPTY or ON ERROR.
type JSONOnClause struct {
	Error   bool // ERROR ON ...
	Default Expr // DEFAULT expr ON ...; nil (and not Error) is NULL ON ...
}

// JSONValueOptions are the clauses of JSON_VALUE.
type JSONValueOptions struct {
	Returning        *types.Type // nil is STRING
	OnEmpty, OnError JSONOnClause
}

// JSONValue builds JSON_VALUE(json, path ...) with the given clauses (nil:
// the defaults).
func JSONValue(j, path Expr, opts *JSONValueOptions) (Expr, error) {
	c := &call{name: "JSON_VALUE", args: []Expr{j, path}}
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &JSONValueOptions{}
	}
	rt := types.String
	if opts.Returning != nil {
		rt = opts.Returning.Nullable()
	}
	conv := castFunc(types.String, rt)
	if conv == nil {
		conv = func(v types.Value) (types.Value, error) { return v, nil }
	}
	var onEmpty, onError Expr
	for _, d := range []struct {
		in  Expr
		out *Expr
	}{{opts.OnEmpty.Default, &onEmpty}, {opts.OnError.Default, &onError}} {
		if d.in != nil {
			e, err := Cast(d.in, rt, false)
			if err != nil {
				return nil, err
			}
			*d.out = e
		}
	}
	pat, err := pathArg(c, 1)
	if err != nil {
		return nil, err
	}
	e := &jsonValueExpr{j: j, path: path, t: rt, conv: conv, pat: pat, opts: opts, onEmpty: onEmpty, onError: onError}
	return e, nil
}

type jsonValueExpr struct {
	j, path          Expr
	t                types.Type
	conv             convFunc
	pat              func(a [maxFixedArgs]types.Value) (jsonPath, bool)
	opts             *JSONValueOptions
	onEmpty, onError Expr
}

func (e *jsonValueExpr) Type() types.Type { return e.t }
func (e *jsonValueExpr) String() string {
	s := "JSON_VALUE(" + e.j.String() + ", " + e.path.String()
	if e.opts.Returning != nil {
		s += " RETURNING " + typeString(*e.opts.Returning)
	}
	for _, cl := range []struct {
		c    JSONOnClause
		what string
	}{{e.opts.OnEmpty, "EMPTY"}, {e.opts.OnError, "ERROR"}} {
		switch {
		case cl.c.Error:
			s += " ERROR ON " + cl.what
		case cl.c.Default != nil:
			s += " DEFAULT " + cl.c.Default.String() + " ON " + cl.what
		}
	}
	return s + ")"
}

func (e *jsonValueExpr) Eval(row []types.Value) (types.Value, error) {
	var a [maxFixedArgs]types.Value
	var err error
	if a[0], err = e.j.Eval(row); err != nil || a[0].IsNull() {
		return types.Null, err
	}
	if a[1], err = e.path.Eval(row); err != nil || a[1].IsNull() {
		return types.Null, err
	}
	p, ok := e.pat(a)
	if !ok {
		return e.on(row, e.opts.OnError, e.onError, "invalid JSON path '"+a[1].Str()+"'")
	}
	doc, ok := decodeJSON(a[0].Str())
	if !ok {
		return e.on(row, e.opts.OnError, e.onError, "invalid JSON")
	}
	items, structErr := p.eval(doc)
	switch {
	case structErr:
		return e.on(row, e.opts.OnError, e.onError, "path '"+a[1].Str()+"' does not exist (strict mode)")
	case len(items) == 0 || len(items) == 1 && items[0] == nil:
		return e.on(row, e.opts.OnEmpty, e.onEmpty, "no value at path '"+a[1].Str()+"'")
	case len(items) > 1:
		return e.on(row, e.opts.OnError, e.onError, "path '"+a[1].Str()+"' selects more than one value")
	}
	v := items[0]
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case bool:
		s = strconv.FormatBool(x)
	default:
		return e.on(row, e.opts.OnError, e.onError, "the value at path '"+a[1].Str()+"' is not a scalar")
	}
	r, cerr := e.conv(types.NewString(s))
	if cerr != nil {
		return e.on(row, e.opts.OnError, e.onError, "cannot convert '"+s+"' to "+typeString(e.t))
	}
	return r, nil
}

func (e *jsonValueExpr) on(row []types.Value, cl JSONOnClause, def Expr, what string) (types.Value, error) {
	switch {
	case cl.Error:
		return types.Null, runtimeErrorf("JSON_VALUE: %s", what)
	case def != nil:
		return def.Eval(row)
	}
	return types.Null, nil
}

func newJSONQuery(c *call) (Expr, error) { return JSONQuery(c.args[0], c.args[1], nil) }

func newJSONExists(c *call) (Expr, error) { return JSONExists(c.args[0], c.args[1], "") }

// JSONQueryOptions are the clauses of JSON_QUERY.
type JSONQueryOptions struct {
	// Returning is nil (STRING), STRING or ARRAY<STRING>.
	Returning *types.Type
	// Wrapper is "" or "WITHOUT" (no wrapper), "CONDITIONAL" or
	// "UNCONDITIONAL".
	Wrapper string
	// OnEmpty and OnError are "" or "NULL", "EMPTY ARRAY", "EMPTY OBJECT"
	// or "ERROR".
	OnEmpty, OnError string
}

// JSONQuery builds JSON_QUERY(json, path ...) with the given clauses (nil:
// the defaults: no wrapper, NULL ON EMPTY, NULL ON ERROR).
func JSONQuery(j, path Expr, opts *JSONQueryOptions) (Expr, error) {
	c := &call{name: "JSON_QUERY", args: []Expr{j, path}}
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	if opts == nil {
		opts = &JSONQueryOptions{}
	}
	rt := types.String
	asArray := false
	if r := opts.Returning; r != nil {
		switch {
		case r.IsString():
			rt = r.Nullable()
		case r.ID == types.TypeArray && r.Elem.IsString():
			rt, asArray = r.Nullable(), true
		default:
			return nil, typeErrorf("JSON_QUERY can return STRING or ARRAY<STRING>, not %s", typeString(*r))
		}
	}
	pat, err := pathArg(c, 1)
	if err != nil {
		return nil, err
	}
	fail := func(clause, what string) (types.Value, error) {
		switch clause {
		case "ERROR":
			return types.Null, runtimeErrorf("JSON_QUERY: %s", what)
		case "EMPTY ARRAY":
			if asArray {
				return types.NewArray([]types.Value{}), nil
			}
			return types.NewString("[]"), nil
		case "EMPTY OBJECT":
			if asArray {
				return types.Null, runtimeErrorf("JSON_QUERY: EMPTY OBJECT is not an ARRAY<STRING>")
			}
			return types.NewString("{}"), nil
		}
		return types.Null, nil
	}
	e := c.strictFn(rt, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		p, ok := pat(a)
		if !ok {
			return fail(opts.OnError, "invalid JSON path '"+a[1].Str()+"'")
		}
		doc, ok := decodeJSON(a[0].Str())
		if !ok {
			return fail(opts.OnError, "invalid JSON")
		}
		items, structErr := p.eval(doc)
		if structErr {
			return fail(opts.OnError, "path '"+a[1].Str()+"' does not exist (strict mode)")
		}
		if len(items) == 0 {
			return fail(opts.OnEmpty, "no value at path '"+a[1].Str()+"'")
		}
		var v any
		switch opts.Wrapper {
		case "UNCONDITIONAL":
			v = items
		case "CONDITIONAL":
			v = items
			if len(items) == 1 {
				switch items[0].(type) {
				case *jsonObject, []any:
					v = items[0]
				}
			}
		default:
			if len(items) > 1 {
				return fail(opts.OnError, "path '"+a[1].Str()+"' selects more than one value; use WITH WRAPPER")
			}
			switch items[0].(type) {
			case *jsonObject, []any:
				v = items[0]
			default:
				return fail(opts.OnError, "the value at path '"+a[1].Str()+"' is a scalar; use WITH WRAPPER")
			}
		}
		if !asArray {
			return types.NewString(string(appendJSONAny(nil, v))), nil
		}
		arr, ok := v.([]any)
		if !ok {
			return fail(opts.OnError, "the value at path '"+a[1].Str()+"' is not an array")
		}
		out := make([]types.Value, len(arr))
		for i, x := range arr {
			switch x := x.(type) {
			case nil:
				out[i] = types.Null
			case string:
				out[i] = types.NewString(x)
			default:
				out[i] = types.NewString(string(appendJSONAny(nil, x)))
			}
		}
		return types.NewArray(out), nil
	})
	e.render = func() string {
		s := "JSON_QUERY(" + j.String() + ", " + path.String()
		if opts.Returning != nil {
			s += " RETURNING " + typeString(*opts.Returning)
		}
		if opts.Wrapper != "" && opts.Wrapper != "WITHOUT" {
			s += " WITH " + opts.Wrapper + " ARRAY WRAPPER"
		}
		if opts.OnEmpty != "" {
			s += " " + opts.OnEmpty + " ON EMPTY"
		}
		if opts.OnError != "" {
			s += " " + opts.OnError + " ON ERROR"
		}
		return s + ")"
	}
	return e, nil
}

// JSONExists builds JSON_EXISTS(json, path [onError ON ERROR]); onError is
// "" (FALSE), "TRUE", "FALSE", "UNKNOWN" or "ERROR".
func JSONExists(j, path Expr, onError string) (Expr, error) {
	c := &call{name: "JSON_EXISTS", args: []Expr{j, path}}
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	pat, err := pathArg(c, 1)
	if err != nil {
		return nil, err
	}
	fail := func(what string) (types.Value, error) {
		switch onError {
		case "TRUE":
			return types.NewBool(true), nil
		case "UNKNOWN":
			return types.Null, nil
		case "ERROR":
			return types.Null, runtimeErrorf("JSON_EXISTS: %s", what)
		}
		return types.NewBool(false), nil
	}
	e := c.strictFn(types.Boolean, onError != "UNKNOWN", func(a [maxFixedArgs]types.Value) (types.Value, error) {
		p, ok := pat(a)
		if !ok {
			return fail("invalid JSON path '" + a[1].Str() + "'")
		}
		doc, ok := decodeJSON(a[0].Str())
		if !ok {
			return fail("invalid JSON")
		}
		items, structErr := p.eval(doc)
		if structErr {
			return fail("path '" + a[1].Str() + "' does not exist (strict mode)")
		}
		return types.NewBool(len(items) > 0), nil
	})
	if onError != "" {
		e.render = func() string {
			return "JSON_EXISTS(" + j.String() + ", " + path.String() + " " + onError + " ON ERROR)"
		}
	}
	return e, nil
}

// appendJSONAny renders a decoded document compactly, members in input
// order.
func appendJSONAny(b []byte, v any) []byte {
	switch x := v.(type) {
	case *jsonObject:
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonQuote(b, k)
			b = append(b, ':')
			b = appendJSONAny(b, x.vals[i])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONAny(b, e)
		}
		return append(b, ']')
	case string:
		return jsonQuote(b, x)
	case json.Number:
		return append(b, x...)
	case bool:
		return strconv.AppendBool(b, x)
	}
	return append(b, "null"...)
}

func jsonQuote(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// appendJSON renders a SQL value of type t as JSON, like Flink's
// JSON_STRING: rows become objects, maps objects with string keys.
func appendJSON(b []byte, v types.Value, t types.Type) []byte {
	if v.IsNull() {
		return append(b, "null"...)
	}
	if t.ID == types.TypeMultiset {
		t = multisetMap(t)
	}
	switch {
	case t.ID == types.TypeBoolean:
		return strconv.AppendBool(b, v.Bool())
	case t.IsInteger():
		return strconv.AppendInt(b, v.Int(), 10)
	case t.ID == types.TypeDecimal:
		return append(b, v.Decimal().Text('f')...)
	case isApprox(t):
		return append(b, javaFloat(v.Float(), floatBits(t))...)
	case t.IsString():
		return jsonQuote(b, v.Str())
	case t.ID == types.TypeArray:
		b = append(b, '[')
		for i, e := range v.Array() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e, *t.Elem)
		}
		return append(b, ']')
	case t.ID == types.TypeMap:
		b = append(b, '{')
		for i, e := range v.Map() {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonQuote(b, flinkString(e.Key, *t.Elem))
			b = append(b, ':')
			b = appendJSON(b, e.Val, *t.Val)
		}
		return append(b, '}')
	case t.ID == types.TypeRow:
		b = append(b, '{')
		for i, f := range v.Fields() {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonQuote(b, t.Fields[i].Name)
			b = append(b, ':')
			b = appendJSON(b, f, t.Fields[i].Type)
		}
		return append(b, '}')
	}
	return jsonQuote(b, flinkString(v, t))
}

func newJSONString(c *call) (Expr, error) {
	t := c.args[0].Type()
	return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		return types.NewString(string(appendJSON(nil, a[0], t))), nil
	}), nil
}

// jsonCtor is a JSON_OBJECT or JSON_ARRAY call; nested in another one, its
// result is embedded as JSON rather than as a string.
type jsonCtor struct{ *varFnExpr }

func isJSONCtor(e Expr) bool { _, ok := e.(jsonCtor); return ok }

// appendJSONArg renders argument i: raw JSON for nested constructors.
func appendJSONArg(b []byte, raw bool, v types.Value, t types.Type) []byte {
	if raw && !v.IsNull() {
		return append(b, v.Str()...)
	}
	return appendJSON(b, v, t)
}

// JSONObject builds JSON_OBJECT(KEY k VALUE v, ... [absentOnNull]).
func JSONObject(kvs []Expr, absentOnNull bool) (Expr, error) {
	c := &call{name: "JSON_OBJECT", args: kvs}
	if len(kvs)%2 != 0 {
		return nil, typeErrorf("JSON_OBJECT needs KEY key VALUE value pairs")
	}
	for i := 0; i < len(kvs); i += 2 {
		if !aStr.accepts(kvs[i].Type()) {
			return nil, typeErrorf("a JSON_OBJECT key must be a string, not %s", typeString(kvs[i].Type()))
		}
	}
	raw := make([]bool, len(kvs))
	ts := make([]types.Type, len(kvs))
	for i, a := range kvs {
		raw[i], ts[i] = isJSONCtor(a), a.Type()
	}
	return jsonCtor{c.varFn(types.String.NonNull(), true, func(a []types.Value) (types.Value, error) {
		b := []byte{'{'}
		first := true
		for i := 0; i < len(a); i += 2 {
			if a[i].IsNull() {
				return types.Null, runtimeErrorf("JSON_OBJECT: a key is NULL")
			}
			if absentOnNull && a[i+1].IsNull() {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = jsonQuote(b, a[i].Str())
			b = append(b, ':')
			b = appendJSONArg(b, raw[i+1], a[i+1], ts[i+1])
		}
		return types.NewString(string(append(b, '}'))), nil
	})}, nil
}

// JSONArray builds JSON_ARRAY(v, ... [absentOnNull]).
func JSONArray(vals []Expr, absentOnNull bool) (Expr, error) {
	c := &call{name: "JSON_ARRAY", args: vals}
	raw := make([]bool, len(vals))
	ts := make([]types.Type, len(vals))
	for i, a := range vals {
		raw[i], ts[i] = isJSONCtor(a), a.Type()
	}
	return jsonCtor{c.varFn(types.String.NonNull(), true, func(a []types.Value) (types.Value, error) {
		b := []byte{'['}
		first := true
		for i, v := range a {
			if absentOnNull && v.IsNull() {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONArg(b, raw[i], v, ts[i])
		}
		return types.NewString(string(append(b, ']'))), nil
	})}, nil
}

func newJSONObject(c *call) (Expr, error) { return JSONObject(c.args, false) }
func newJSONArray(c *call) (Expr, error)  { return JSONArray(c.args, true) }

// IsJSON builds s IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT].
func IsJSON(s Expr, kind string, not bool) (Expr, error) {
	if !aStr.accepts(s.Type()) {
		return nil, typeErrorf("cannot apply 'IS JSON' to argument of type %s", typeString(s.Type()))
	}
	switch kind {
	case "VALUE", "SCALAR", "ARRAY", "OBJECT":
	default:
		return nil, typeErrorf("unknown JSON kind %s: use VALUE, SCALAR, ARRAY or OBJECT", kind)
	}
	c := &call{name: "IS JSON", args: []Expr{s}}
	e := c.lenientFn(types.Boolean.NonNull(), func(a [maxFixedArgs]types.Value) (types.Value, error) {
		if a[0].IsNull() {
			return types.NewBool(not), nil
		}
		v, ok := decodeJSON(a[0].Str())
		if ok {
			switch v.(type) {
			case *jsonObject:
				ok = kind == "VALUE" || kind == "OBJECT"
			case []any:
				ok = kind == "VALUE" || kind == "ARRAY"
			default:
				ok = kind == "VALUE" || kind == "SCALAR"
			}
		}
		return types.NewBool(ok != not), nil
	})
	e.render = func() string {
		op := " IS JSON "
		if not {
			op = " IS NOT JSON "
		}
		return paren(s, precCompare+1) + op + kind
	}
	return e, nil
}

// AppendJSONQuoted appends s as a JSON string literal.
func AppendJSONQuoted(b []byte, s string) []byte { return jsonQuote(b, s) }

// JSONText returns an expression of the JSON text of x, what
// JSON_OBJECTAGG and JSON_ARRAYAGG aggregate (Flink wraps their arguments
// in JSON_STRING): the text itself when x is a JSON_OBJECT or JSON_ARRAY
// call (embedded as JSON, not as a string), else JSON_STRING(x). It is
// NULL when x is NULL.
func JSONText(x Expr) (Expr, error) {
	if x == nil {
		return nil, errNilArg("JSON_STRING")
	}
	if isJSONCtor(x) {
		return x, nil
	}
	return Call("JSON_STRING", x)
}
