package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/types"
)

// String functions count characters (Unicode code points), as Flink does.

func isStringish(t types.Type) bool { return t.IsString() || t.ID == types.TypeNull }

// stringLen is the length of a string type for result-type derivation;
// the NULL type counts as 0.
func stringLen(t types.Type) int {
	if t.ID == types.TypeNull {
		return 0
	}
	return t.Length
}

// concatExpr is a || b and CONCAT(a, b, ...): NULL if any argument is NULL.
type concatExpr struct {
	op   bool // render as a || b
	args []Expr
	t    types.Type
}

func newConcatOp(l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if !isStringish(lt) || !isStringish(rt) || lt.ID == types.TypeNull && rt.ID == types.TypeNull {
		return nil, typeErrorf("cannot apply '||' to arguments of type %s and %s", typeString(lt), typeString(rt))
	}
	return newConcat(true, []Expr{l, r}), nil
}

// newConcat derives CHAR(n1+n2+...) when all arguments are CHAR, else
// VARCHAR(sum) (STRING once the sum reaches the maximum length).
func newConcat(op bool, args []Expr) *concatExpr {
	n, allChar, notNull := 0, true, true
	for _, a := range args {
		t := a.Type()
		n = min(n+stringLen(t), types.MaxLength)
		allChar = allChar && t.ID == types.TypeChar
		notNull = notNull && t.NotNull
	}
	t := types.VarChar(n)
	if allChar && n < types.MaxLength {
		t = types.Char(n)
	}
	return &concatExpr{op: op, args: args, t: withNull(t, notNull)}
}

func (c *concatExpr) Type() types.Type { return c.t }

func (c *concatExpr) precedence() int {
	if c.op {
		return precAdd
	}
	return precAtom
}

func (c *concatExpr) String() string {
	if c.op {
		return paren(c.args[0], precAdd) + " || " + paren(c.args[1], precAdd+1)
	}
	return "CONCAT(" + joinExprs(c.args) + ")"
}

func (c *concatExpr) Eval(row []types.Value) (types.Value, error) {
	if len(c.args) == 2 {
		x, err := c.args[0].Eval(row)
		if err != nil || x.IsNull() {
			return types.Null, err
		}
		y, err := c.args[1].Eval(row)
		if err != nil || y.IsNull() {
			return types.Null, err
		}
		return types.NewString(x.Str() + y.Str()), nil
	}
	var b strings.Builder
	for _, a := range c.args {
		v, err := a.Eval(row)
		if err != nil || v.IsNull() {
			return types.Null, err
		}
		b.WriteString(v.Str())
	}
	return types.NewString(b.String()), nil
}

// likeExpr is s [NOT] LIKE pattern [ESCAPE escape].
type likeExpr struct {
	not    bool
	s, pat Expr
	t      types.Type
	escape rune // 0: none
}

// Like returns s [NOT] LIKE pattern ESCAPE escape: escape (0 for none,
// Flink's default: there is no default escape character) makes the next
// '%', '_' or escape character of the pattern literal; another character
// after it is an error, as in Flink ("Invalid escape sequence").
func Like(s, pattern Expr, not bool, escape rune) (Expr, error) {
	if s == nil || pattern == nil {
		return nil, errNilArg("LIKE")
	}
	e, err := newLike(not, s, pattern)
	if err != nil {
		return nil, err
	}
	e.(*likeExpr).escape = escape
	return e, nil
}

func newLike(not bool, s, pat Expr) (Expr, error) {
	st, pt := s.Type(), pat.Type()
	if !isStringish(st) || !isStringish(pt) {
		op := "LIKE"
		if not {
			op = "NOT LIKE"
		}
		return nil, typeErrorf("cannot apply '%s' to arguments of type %s and %s", op, typeString(st), typeString(pt))
	}
	return &likeExpr{not: not, s: s, pat: pat, t: withNull(types.Boolean, st.NotNull && pt.NotNull)}, nil
}

func (l *likeExpr) Type() types.Type { return l.t }
func (l *likeExpr) precedence() int  { return precCompare }
func (l *likeExpr) String() string   { return patternString(l.s, "LIKE", l.not, l.pat, l.escape) }

// patternString prints s [NOT] op pat [ESCAPE 'c'] (LIKE, SIMILAR TO).
func patternString(s Expr, op string, not bool, pat Expr, escape rune) string {
	if not {
		op = "NOT " + op
	}
	out := paren(s, precCompare+1) + " " + op + " " + paren(pat, precCompare+1)
	if escape != 0 {
		out += " ESCAPE " + sqlLiteral(types.NewString(string(escape)), types.String)
	}
	return out
}

func (l *likeExpr) Eval(row []types.Value) (types.Value, error) {
	s, err := l.s.Eval(row)
	if err != nil || s.IsNull() {
		return types.Null, err
	}
	p, err := l.pat.Eval(row)
	if err != nil || p.IsNull() {
		return types.Null, err
	}
	if l.escape != 0 {
		if err := checkLikeEscapes(p.Str(), l.escape); err != nil {
			return types.Null, err
		}
	}
	return types.NewBool(likeMatch(s.Str(), p.Str(), l.escape) != l.not), nil
}

// checkLikeEscapes reports an escape character of pattern p that is not
// followed by '%', '_' or itself.
func checkLikeEscapes(p string, esc rune) error {
	for i := 0; i < len(p); {
		c, sz := utf8.DecodeRuneInString(p[i:])
		i += sz
		if c != esc {
			continue
		}
		n, nsz := utf8.DecodeRuneInString(p[i:])
		if i >= len(p) || n != '%' && n != '_' && n != esc {
			return runtimeErrorf("Invalid escape sequence '%s', %d", p, i-sz)
		}
		i += nsz
	}
	return nil
}

// likeMatch matches s against a SQL LIKE pattern: '%' is any sequence, '_'
// any one character, and the escape character esc (0: none) makes the next
// pattern character literal. It backtracks only to the last '%', so it
// runs in O(len(s)*len(p)) worst case without allocating.
func likeMatch(s, p string, esc rune) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			c, csz := utf8.DecodeRuneInString(p[pi:])
			sc, ssz := utf8.DecodeRuneInString(s[si:])
			switch {
			case c == '%':
				pi += csz
				starP, starS = pi, si
				continue
			case c == '_':
				pi, si = pi+csz, si+ssz
				continue
			case esc != 0 && c == esc && pi+csz < len(p):
				lc, lsz := utf8.DecodeRuneInString(p[pi+csz:])
				if lc == sc {
					pi, si = pi+csz+lsz, si+ssz
					continue
				}
			case c == sc:
				pi, si = pi+csz, si+ssz
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, ssz := utf8.DecodeRuneInString(s[starS:])
		starS += ssz
		pi, si = starP, starS
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// ---------------------------------------------------------------------------
// Scalar string functions (strict: NULL in, NULL out).

// runeOffset returns the byte offset of the n-th character of s.
func runeOffset(s string, n int64) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// substringSQL implements Flink's SUBSTRING(s FROM pos FOR length): pos is
// 1-based, 0 is treated as 1 and a negative pos counts from the end; the
// result is NULL (ok false) for a negative length.
func substringSQL(s string, pos, length int64) (string, bool) {
	if length < 0 {
		return "", false
	}
	n := int64(utf8.RuneCountInString(s))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
		if start >= n {
			return "", true
		}
	case pos < 0:
		start = n + pos
		if start < 0 {
			return "", true
		}
	}
	end := n
	if n-start >= length {
		end = start + length
	}
	i := runeOffset(s, start)
	return s[i : i+runeOffset(s[i:], end-start)], true
}

// trimChars trims any of the characters in cut from the chosen ends of s.
func trimChars(s, cut string, left, right bool) string {
	if left {
		s = strings.TrimLeft(s, cut)
	}
	if right {
		s = strings.TrimRight(s, cut)
	}
	return s
}
