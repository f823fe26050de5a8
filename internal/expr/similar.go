package expr

import (
	"regexp"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// SIMILAR TO matches a whole string against a SQL regular expression,
// translated to a regular expression as Calcite's Like.sqlToRegexSimilar
// does (Flink runs Calcite's): '%' is any run of characters, '_' any one
// character, '|', '*', '+', '?', '{m,n}', '(...)' and '[...]' (with the
// classes [:ALPHA:], [:DIGIT:], ...) are as in regular expressions, '$' and
// '\' are literal, and the escape character (none by default) makes one of
// []()|^-+*_%?{} literal.

// Characters special in SIMILAR TO and in the translated expression.
const (
	similarSpecials = "[]()|^-+*_%?{}"
	regexSpecials   = "[]()|^-+*?{}$\\."
)

// similarClasses maps the character classes of SIMILAR TO to RE2's.
var similarClasses = []struct{ sql, re string }{
	{"[:ALPHA:]", "[:alpha:]"}, {"[:DIGIT:]", "[:digit:]"}, {"[:SPACE:]", "[:space:]"},
	{"[:WHITESPACE:]", `\s`}, {"[:LOWER:]", "[:lower:]"}, {"[:UPPER:]", "[:upper:]"},
	{"[:ALNUM:]", "[:alnum:]"},
}

// similarToRegex translates a SIMILAR TO pattern with escape character
// esc (0: none) to an RE2 expression matching whole strings.
func similarToRegex(p string, esc rune) (string, error) {
	rs := []rune(p)
	var b strings.Builder
	b.WriteString("^(?:")
	escaped := func(i int) (int, error) {
		if i+1 >= len(rs) {
			return i, typeErrorf("Invalid escape sequence '%s', %d", p, i)
		}
		next := rs[i+1]
		switch {
		case strings.ContainsRune(similarSpecials, next):
			if strings.ContainsRune(regexSpecials, next) {
				b.WriteByte('\\')
			}
			b.WriteRune(next)
		case next == esc:
			b.WriteString(regexp.QuoteMeta(string(next)))
		default:
			return i, typeErrorf("Invalid escape sequence '%s', %d", p, i)
		}
		return i + 1, nil
	}
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if esc != 0 && c == esc {
			var err error
			if i, err = escaped(i); err != nil {
				return "", err
			}
			continue
		}
		switch c {
		case '_':
			b.WriteByte('.')
		case '%':
			b.WriteString("(?s:.*)")
		case '[':
			b.WriteByte('[')
			i++
			for ; i < len(rs) && rs[i] != ']'; i++ {
				c := rs[i]
				switch {
				case esc != 0 && c == esc:
					var err error
					if i, err = escaped(i); err != nil {
						return "", err
					}
				case c == '-' || c == '^':
					b.WriteRune(c)
				case c == '[' && strings.HasPrefix(string(rs[i:]), "[:"):
					found := false
					for _, cl := range similarClasses {
						if strings.HasPrefix(string(rs[i:]), cl.sql) {
							b.WriteString(cl.re)
							i += len([]rune(cl.sql)) - 1
							found = true
							break
						}
					}
					if !found {
						return "", typeErrorf("Invalid regular expression '%s', index %d", p, i)
					}
				case strings.ContainsRune(similarSpecials, c):
					return "", typeErrorf("Invalid regular expression '%s', index %d", p, i)
				default:
					b.WriteString(regexp.QuoteMeta(string(c)))
				}
			}
			if i >= len(rs) {
				return "", typeErrorf("Invalid regular expression '%s': missing ']'", p)
			}
			b.WriteByte(']')
		case ']':
			return "", typeErrorf("Invalid regular expression '%s', index %d", p, i)
		case '\\':
			b.WriteString(`\\`)
		case '$':
			b.WriteString(`\$`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteString(")$")
	return b.String(), nil
}

func compileSimilar(p string, esc rune) (*regexp.Regexp, error) {
	src, err := similarToRegex(p, esc)
	if err != nil {
		return nil, err
	}
	re, err := compileRegex(src)
	if err != nil {
		return nil, typeErrorf("Invalid regular expression '%s': %v", p, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

type similarExpr struct {
	s, pat Expr
	not    bool
	escape rune
	t      types.Type
	re     *regexp.Regexp // a literal pattern, compiled once
	cache  *regexCache    // a pattern read from a column: the last one
}

// Similar returns s [NOT] SIMILAR TO pattern [ESCAPE escape] (escape 0:
// none). A literal pattern is translated and compiled here, an invalid one
// is an error; a pattern from a column per row (the last one cached), an
// invalid one failing the row.
func Similar(s, pattern Expr, not bool, escape rune) (Expr, error) {
	if s == nil || pattern == nil {
		return nil, errNilArg("SIMILAR TO")
	}
	st, pt := s.Type(), pattern.Type()
	if !isStringish(st) || !isStringish(pt) {
		op := "SIMILAR TO"
		if not {
			op = "NOT SIMILAR TO"
		}
		return nil, typeErrorf("cannot apply '%s' to arguments of type %s and %s", op, typeString(st), typeString(pt))
	}
	e := &similarExpr{s: s, pat: pattern, not: not, escape: escape, t: withNull(types.Boolean, st.NotNull && pt.NotNull), cache: &regexCache{}}
	if l, ok := pattern.(*litExpr); ok && !l.v.IsNull() {
		re, err := compileSimilar(l.v.Str(), escape)
		if err != nil {
			return nil, err
		}
		e.re = re
	}
	return e, nil
}

func (e *similarExpr) Type() types.Type { return e.t }
func (e *similarExpr) precedence() int  { return precCompare }

func (e *similarExpr) String() string {
	return patternString(e.s, "SIMILAR TO", e.not, e.pat, e.escape)
}

func (e *similarExpr) Eval(row []types.Value) (types.Value, error) {
	s, err := e.s.Eval(row)
	if err != nil || s.IsNull() {
		return types.Null, err
	}
	re := e.re
	if re == nil {
		p, err := e.pat.Eval(row)
		if err != nil || p.IsNull() {
			return types.Null, err
		}
		src, err := similarToRegex(p.Str(), e.escape)
		if err != nil {
			return types.Null, runtimeErrorf("%v", err)
		}
		var ok bool
		if re, ok = e.cache.get(src); !ok {
			return types.Null, runtimeErrorf("Invalid regular expression '%s'", p.Str())
		}
	}
	return types.NewBool(re.MatchString(s.Str()) != e.not), nil
}
