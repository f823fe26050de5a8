package expr

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// TestDataDriven runs the files in testdata. Commands:
//
//	eval      each input line is a column declaration "name TYPE = sexpr"
//	          (the value is CAST to TYPE) or an expression; expressions
//	          print "sexpr -> value : TYPE" or "sexpr -> error (CODE): msg"
//	explain   each expression line prints "sexpr -> String()"
//	common    each line "T1 | T2 | ..." prints the CommonType or "none"
//	casts     each line "FROM | TO" prints implicit, explicit or no
//
// Expressions (see parseSexpr): numbers (NumericLiteral), 'strings'
// (StringLiteral), true, false, null, column names, and lists:
//
//	(null "INT")  (date '...')  (time '...')  (ts '...')
//	(interval '...' DAY TO SECOND)  (bytes 'ab')
//	(cast e "TYPE")  (try-cast e "TYPE")
//	(case (when c v)... (else e))  (case-of x (when v r)... (else e))
//	(between e lo hi)  (not-between ...)  (in e a b...)  (not-in ...)
//	(- e) (+ e) (not e) (is-null e) (is-not-true e) ...   unary
//	(+ a b) (= a b) (and a b) (|| a b) (like a b) (distinct a b) ...
//	(NAME args...)  built-in function call
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "eval", "explain":
				return runEval(t, d)
			case "common":
				return runLines(d, func(line string) string {
					ts := parseTypes(t, line)
					ct, ok := CommonType(ts...)
					if !ok {
						return "none"
					}
					return typeStringFull(ct)
				})
			case "casts":
				return runLines(d, func(line string) string {
					ts := parseTypes(t, line)
					switch {
					case CanCastImplicitly(ts[0], ts[1]):
						return "implicit"
					case CanCast(ts[0], ts[1]):
						return "explicit"
					}
					return "no"
				})
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

func runLines(d *datadriven.TestData, f func(string) string) string {
	var b strings.Builder
	for _, line := range strings.Split(d.Input, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fmt.Fprintf(&b, "%s -> %s\n", line, f(line))
	}
	return b.String()
}

func parseTypes(t *testing.T, line string) []types.Type {
	var ts []types.Type
	for _, s := range strings.Split(line, "|") {
		ts = append(ts, mustType(t, s))
	}
	return ts
}

func runEval(t *testing.T, d *datadriven.TestData) string {
	env := &testEnv{}
	return runLines(d, func(line string) string {
		if !strings.HasPrefix(line, "(") && strings.Contains(line, " = ") {
			return env.declare(t, line)
		}
		e, err := env.parse(line)
		if err != nil {
			return errString(err)
		}
		if d.Cmd == "explain" {
			return e.String()
		}
		_ = e.String() // must not panic
		v, err := e.Eval(env.row)
		if err != nil {
			return errString(err)
		}
		if msg := checkResult(v, e.Type()); msg != "" {
			t.Errorf("%s: %s", line, msg)
		}
		return display(v, e.Type()) + " : " + typeStringFull(e.Type())
	})
}

// checkResult verifies that a value is valid for its type.
func checkResult(v types.Value, t types.Type) string {
	if v.IsNull() {
		if t.NotNull {
			return "NULL result for NOT NULL type " + typeStringFull(t)
		}
		return ""
	}
	if _, err := checkValue(v, t.Nullable()); err != nil {
		return "invalid result: " + err.Error()
	}
	if t.ID == types.TypeDecimal && int(-v.Decimal().Exponent) != t.Scale {
		return fmt.Sprintf("DECIMAL result %s does not have scale %d", v.Decimal(), t.Scale)
	}
	return ""
}

func errString(err error) string {
	if e, ok := sqlerr.As(err); ok {
		if e.Hint != "" {
			return fmt.Sprintf("error (%s): %s (hint: %s)", e.Code, e.Message, e.Hint)
		}
		return fmt.Sprintf("error (%s): %s", e.Code, e.Message)
	}
	return "error: " + err.Error()
}

// display renders a result: strings and bytes as SQL literals, everything
// else as CAST(x AS STRING) would.
func display(v types.Value, t types.Type) string {
	if !v.IsNull() && (t.IsString() || isBinary(t)) {
		return sqlLiteral(v, t)
	}
	return flinkString(v, t)
}

// testEnv holds the declared columns of one eval block.
type testEnv struct {
	names []string
	cols  []types.Type
	row   []types.Value
}

func (env *testEnv) declare(t *testing.T, line string) string {
	decl, src, _ := strings.Cut(line, " = ")
	name, typ, _ := strings.Cut(decl, " ")
	ct := mustType(t, typ)
	e, err := env.parse(src)
	if err == nil {
		cast := ct
		if ct.ID == types.TypeMultiset {
			// A multiset is declared by its map of multiplicities.
			cast = multisetMap(ct)
		}
		e, err = Cast(e, cast, false)
	}
	var v types.Value
	if err == nil {
		v, err = e.Eval(env.row)
	}
	if err != nil {
		t.Fatalf("declaring %s: %v", line, err)
	}
	env.names = append(env.names, name)
	env.cols = append(env.cols, ct)
	env.row = append(env.row, v)
	return display(v, ct)
}

func (env *testEnv) parse(src string) (Expr, error) {
	p := &sexprParser{toks: tokenize(src)}
	n, err := p.node()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("trailing tokens in %q", src)
	}
	return env.build(n)
}

// ---------------------------------------------------------------------------
// S-expressions.

type sexpr struct {
	atom   string // token text; '...' string, "..." type, else a word
	list   []sexpr
	isList bool
}

type sexprParser struct {
	toks []string
	pos  int
}

func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			toks = append(toks, s[i:min(j+1, len(s))])
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t()", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

func (p *sexprParser) node() (sexpr, error) {
	if p.pos >= len(p.toks) {
		return sexpr{}, fmt.Errorf("unexpected end")
	}
	tok := p.toks[p.pos]
	p.pos++
	if tok == ")" {
		return sexpr{}, fmt.Errorf("unexpected )")
	}
	if tok != "(" {
		return sexpr{atom: tok}, nil
	}
	n := sexpr{isList: true}
	for p.pos < len(p.toks) && p.toks[p.pos] != ")" {
		c, err := p.node()
		if err != nil {
			return n, err
		}
		n.list = append(n.list, c)
	}
	if p.pos >= len(p.toks) {
		return n, fmt.Errorf("missing )")
	}
	p.pos++
	return n, nil
}

func unquote(s string) string {
	q := s[:1]
	return strings.ReplaceAll(s[1:len(s)-1], q+q, q)
}

func (env *testEnv) build(n sexpr) (Expr, error) {
	if !n.isList {
		return env.atom(n.atom)
	}
	if len(n.list) == 0 || n.list[0].isList {
		return nil, fmt.Errorf("bad list")
	}
	head := n.list[0].atom
	rest := n.list[1:]
	str := func(i int) string {
		if i < len(rest) && !rest[i].isList && len(rest[i].atom) >= 2 {
			return unquote(rest[i].atom)
		}
		return ""
	}
	lit := func(v types.Value, t types.Type, err error) (Expr, error) {
		if err != nil {
			return nil, err
		}
		return Lit(v, t)
	}
	switch head {
	case "null":
		t, err := parseTestType(str(0))
		if err != nil {
			return nil, err
		}
		return Lit(types.Null, t)
	case "date":
		return lit(DateLiteral(str(0)))
	case "time":
		return lit(TimeLiteral(str(0)))
	case "ts":
		return lit(TimestampLiteral(str(0)))
	case "interval":
		var unit []string
		for _, u := range rest[1:] {
			unit = append(unit, u.atom)
		}
		return lit(IntervalLiteral(str(0), strings.Join(unit, " ")))
	case "bytes":
		s := str(0)
		return Lit(types.NewBytes([]byte(s)), types.Type{ID: types.TypeBinary, Length: len(s), NotNull: true})
	case "cast", "try-cast":
		t, err := parseTestType(str(1))
		if err != nil {
			return nil, err
		}
		e, err := env.build(rest[0])
		if err != nil {
			return nil, err
		}
		return Cast(e, t, head == "try-cast")
	case "case", "case-of":
		return env.buildCase(head == "case-of", rest)
	}
	args, err := env.buildAll(rest)
	if err != nil {
		return nil, err
	}
	switch head {
	case "array", "row":
		return constructed(head, args)
	case "map":
		return mapLiteral(args)
	case "between", "not-between":
		if len(args) != 3 {
			return nil, fmt.Errorf("between needs 3 args")
		}
		return Between(args[0], args[1], args[2], head == "not-between")
	case "in", "not-in":
		return In(args[0], args[1:], head == "not-in")
	case "distinct":
		return Binary("IS DISTINCT FROM", args[0], args[1])
	case "item":
		return Subscript(args[0], args[1])
	case "isjson":
		kind := "VALUE"
		if len(args) == 2 {
			v, _ := args[1].Eval(nil)
			kind = v.Str()
		}
		return IsJSON(args[0], kind, false)
	case "not-distinct":
		return Binary("is not distinct from", args[0], args[1])
	case "like-escape": // (like-escape s pattern 'c')
		l, ok := args[2].(*litExpr)
		if !ok {
			return nil, fmt.Errorf("like-escape needs a literal escape")
		}
		esc, _ := utf8.DecodeRuneInString(l.v.Str())
		return Like(args[0], args[1], false, esc)
	}
	op := head
	if len(head) > 1 {
		op = strings.ToUpper(strings.ReplaceAll(head, "-", " "))
	}
	switch {
	case len(args) == 1 && (head == "-" || head == "+" || head == "not" || strings.HasPrefix(head, "is-")):
		return Unary(op, args[0])
	case len(args) == 2 && (strings.Trim(head, "+-*/%=<>!|") == "" || head == "and" || head == "or" ||
		head == "like" || head == "not-like"):
		return Binary(op, args[0], args[1])
	}
	return CallEnv(testClock, head, args...)
}

// testClock is the statement clock of the tests: 2024-05-06 07:08:09.123456789 UTC.
var testClock = Env{Now: func() int64 { return 1714979289123456789 }}

// constructed builds an ARRAY or ROW literal from constant arguments.
func constructed(kind string, args []Expr) (Expr, error) {
	vals := make([]types.Value, len(args))
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	if kind == "row" {
		fs := make([]types.Field, len(args))
		for i, a := range args {
			vals[i], _ = a.Eval(nil)
			fs[i] = types.Field{Name: "f" + strconv.Itoa(i), Type: ts[i]}
		}
		return Lit(types.NewRow(vals), types.RowOf(fs...).NonNull())
	}
	et, ok := CommonType(ts...)
	if !ok {
		return nil, fmt.Errorf("no common element type")
	}
	for i, a := range args {
		c, err := Cast(a, et, false)
		if err != nil {
			return nil, err
		}
		if vals[i], err = c.Eval(nil); err != nil {
			return nil, err
		}
	}
	return Lit(types.NewArray(vals), types.ArrayOf(et).NonNull())
}

// mapLiteral builds a MAP literal from constant key, value pairs.
func mapLiteral(args []Expr) (Expr, error) {
	var keys, vals []Expr
	for i := 0; i+1 < len(args); i += 2 {
		keys, vals = append(keys, args[i]), append(vals, args[i+1])
	}
	ka, err := constructed("array", keys)
	if err != nil {
		return nil, err
	}
	va, err := constructed("array", vals)
	if err != nil {
		return nil, err
	}
	k, _ := ka.Eval(nil)
	v, _ := va.Eval(nil)
	entries := make([]types.MapEntry, len(keys))
	for i := range entries {
		entries[i] = types.MapEntry{Key: k.Array()[i], Val: v.Array()[i]}
	}
	return Lit(types.NewMap(entries), types.MapOf(*ka.Type().Elem, *va.Type().Elem).NonNull())
}

func (env *testEnv) buildAll(ns []sexpr) ([]Expr, error) {
	out := make([]Expr, len(ns))
	for i, n := range ns {
		var err error
		if out[i], err = env.build(n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (env *testEnv) buildCase(simple bool, rest []sexpr) (Expr, error) {
	var operand, els Expr
	var whens, thens []Expr
	if simple {
		var err error
		if operand, err = env.build(rest[0]); err != nil {
			return nil, err
		}
		rest = rest[1:]
	}
	for _, c := range rest {
		args, err := env.buildAll(c.list[1:])
		if err != nil {
			return nil, err
		}
		if c.list[0].atom == "else" {
			els = args[0]
			continue
		}
		whens, thens = append(whens, args[0]), append(thens, args[1])
	}
	return Case(operand, whens, thens, els)
}

func (env *testEnv) atom(a string) (Expr, error) {
	switch {
	case a == "true" || a == "false":
		return Lit(types.NewBool(a == "true"), types.Boolean.NonNull())
	case a == "null":
		return Lit(types.Null, types.NullType)
	case a[0] == '\'':
		return Lit(StringLiteral(unquote(a)))
	case a[0] >= '0' && a[0] <= '9' || a[0] == '.' || (len(a) > 1 && (a[0] == '-' || a[0] == '+')):
		v, t, err := NumericLiteral(a)
		if err != nil {
			return nil, err
		}
		return Lit(v, t)
	}
	for i, n := range env.names {
		if n == a {
			return Col(i, n, env.cols[i])
		}
	}
	return nil, fmt.Errorf("unknown column %s", a)
}

// ---------------------------------------------------------------------------
// A test-only type parser (types.ParseType is being written elsewhere).

func mustType(t *testing.T, s string) types.Type {
	typ, err := parseTestType(s)
	if err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
	return typ
}

func parseTestType(s string) (types.Type, error) {
	p := &typeParser{s: strings.TrimSpace(s)}
	t, err := p.typ()
	if err == nil && strings.TrimSpace(p.s) != "" {
		err = fmt.Errorf("trailing %q", p.s)
	}
	return t, err
}

type typeParser struct{ s string }

func (p *typeParser) word() string {
	p.s = strings.TrimLeft(p.s, " ")
	i := 0
	for i < len(p.s) && (p.s[i] == '_' || p.s[i] >= 'A' && p.s[i] <= 'Z' || p.s[i] >= 'a' && p.s[i] <= 'z' || p.s[i] >= '0' && p.s[i] <= '9') {
		i++
	}
	w := p.s[:i]
	p.s = p.s[i:]
	return w
}

func (p *typeParser) peek(c byte) bool {
	p.s = strings.TrimLeft(p.s, " ")
	if len(p.s) > 0 && p.s[0] == c {
		p.s = p.s[1:]
		return true
	}
	return false
}

// args parses an optional "(n[, m])".
func (p *typeParser) args(def ...int) []int {
	if !p.peek('(') {
		return def
	}
	var out []int
	for {
		n, _ := strconv.Atoi(p.word())
		out = append(out, n)
		if !p.peek(',') {
			break
		}
	}
	p.peek(')')
	return out
}

func (p *typeParser) typ() (types.Type, error) {
	var t types.Type
	switch w := strings.ToUpper(p.word()); w {
	case "NULL":
		t = types.NullType
	case "BOOLEAN":
		t = types.Boolean
	case "TINYINT":
		t = types.TinyInt
	case "SMALLINT":
		t = types.SmallInt
	case "INT", "INTEGER":
		t = types.Int
	case "BIGINT":
		t = types.BigInt
	case "FLOAT":
		t = types.Float
	case "DOUBLE":
		t = types.Double
	case "DECIMAL":
		a := p.args(10, 0)
		if len(a) == 1 {
			a = append(a, 0)
		}
		t = types.Decimal(a[0], a[1])
	case "STRING":
		t = types.String
	case "BYTES":
		t = types.Bytes
	case "CHAR":
		t = types.Char(p.args(1)[0])
	case "VARCHAR":
		t = types.VarChar(p.args(types.MaxLength)[0])
	case "BINARY":
		t = types.Type{ID: types.TypeBinary, Length: p.args(1)[0]}
	case "VARBINARY":
		t = types.Type{ID: types.TypeVarBinary, Length: p.args(types.MaxLength)[0]}
	case "DATE":
		t = types.Date
	case "TIME":
		t = types.Time(p.args(0)[0])
	case "TIMESTAMP":
		t = types.Timestamp(p.args(6)[0])
	case "TIMESTAMP_LTZ":
		t = types.TimestampLTZ(p.args(6)[0])
	case "INTERVAL":
		switch q := strings.ToUpper(p.word() + " " + p.word() + " " + p.word()); q {
		case "DAY TO SECOND":
			t = types.Type{ID: types.TypeIntervalDayTime, Precision: p.args(3)[0]}
		case "YEAR TO MONTH":
			t = types.IntervalM
		default:
			return t, fmt.Errorf("interval %q", q)
		}
	case "ARRAY", "MAP", "MULTISET":
		if !p.peek('<') {
			return t, fmt.Errorf("expected <")
		}
		e, err := p.typ()
		if err != nil {
			return t, err
		}
		switch w {
		case "ARRAY":
			t = types.ArrayOf(e)
		case "MULTISET":
			t = types.MultisetOf(e)
		default:
			p.peek(',')
			v, err := p.typ()
			if err != nil {
				return t, err
			}
			t = types.MapOf(e, v)
		}
		p.peek('>')
	case "ROW":
		p.peek('<')
		var fs []types.Field
		for !p.peek('>') {
			name := p.word()
			ft, err := p.typ()
			if err != nil {
				return t, err
			}
			fs = append(fs, types.Field{Name: name, Type: ft})
			p.peek(',')
		}
		t = types.RowOf(fs...)
	default:
		return t, fmt.Errorf("unknown type %q", w)
	}
	rest := strings.TrimLeft(p.s, " ")
	if strings.HasPrefix(strings.ToUpper(rest), "NOT NULL") {
		p.s = rest[len("NOT NULL"):]
		t.NotNull = true
	}
	return t, nil
}
