package expr

import (
	"hash/maphash"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/eddy-sql/eddy/types"
)

// Regular expressions use Go's RE2 syntax, which agrees with Java's for
// the common constructs; back-references and look-around are rejected. A
// literal pattern is compiled once when the call is built, and an invalid
// one is a planning error (Flink's ValidationException); a pattern from a
// column is compiled per row with a one-entry cache, and an invalid one
// gives NULL (FALSE for REGEXP), as in Flink.

func init() {
	register("string", []funcDef{
		fdef("REGEXP", 2, 2, "REGEXP(string, regex) -> BOOLEAN", "Whether any substring of string matches regex.",
			regexFn(types.Boolean, func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error) {
				return types.NewBool(re.MatchString(a[0].Str())), nil
			})),
		fdef("REGEXP_EXTRACT", 2, 3, "REGEXP_EXTRACT(string, regex [, integer]) -> STRING",
			"The group integer (default 0, the whole match) of the first match; NULL when nothing matches or the group does not exist.",
			regexFn(types.String, func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error) {
				idx := int64(0)
				if a[2].Kind() == types.KindInt {
					idx = a[2].Int()
				}
				if idx < 0 || idx > int64(re.NumSubexp()) {
					return types.Null, nil
				}
				m := re.FindStringSubmatchIndex(a[0].Str())
				if m == nil || m[2*idx] < 0 {
					return types.Null, nil
				}
				return types.NewString(a[0].Str()[m[2*idx]:m[2*idx+1]]), nil
			})),
		fdef("REGEXP_EXTRACT_ALL", 2, 3, "REGEXP_EXTRACT_ALL(string, regex [, integer]) -> ARRAY<STRING>",
			"The group integer (default 1) of every match.",
			regexFn(types.ArrayOf(types.String), func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error) {
				idx := int64(1)
				if a[2].Kind() == types.KindInt {
					idx = a[2].Int()
				}
				if idx < 0 || idx > int64(re.NumSubexp()) {
					return types.Null, runtimeErrorf("REGEXP_EXTRACT_ALL: group %d does not exist in '%s'", idx, re)
				}
				var out []types.Value
				for _, m := range re.FindAllStringSubmatchIndex(a[0].Str(), -1) {
					if m[2*idx] < 0 {
						out = append(out, types.Null)
						continue
					}
					out = append(out, types.NewString(a[0].Str()[m[2*idx]:m[2*idx+1]]))
				}
				return types.NewArray(out), nil
			})),
		fdef("REGEXP_REPLACE", 3, 3, "REGEXP_REPLACE(string1, string2, string3) -> STRING",
			"string1 with every match of the regex string2 replaced by string3 ($1 refers to a group).",
			regexFn(types.String, func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error) {
				return types.NewString(re.ReplaceAllString(a[0].Str(), javaReplacement(a[2].Str()))), nil
			})),
		fdef("REGEXP_COUNT", 2, 2, "REGEXP_COUNT(string, regex) -> INT", "The number of matches of regex in string.",
			regexFn(types.Int, func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error) {
				return types.NewInt(int64(len(re.FindAllStringIndex(a[0].Str(), -1)))), nil
			})),
		fdef("REGEXP_INSTR", 2, 2, "REGEXP_INSTR(string, regex) -> INT",
			"The 1-based position of the first match of regex in string; 0 when none.",
			regexFn(types.Int, func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error) {
				m := re.FindStringIndex(a[0].Str())
				if m == nil {
					return types.NewInt(0), nil
				}
				return types.NewInt(charIndex(a[0].Str(), m[0])), nil
			})),
		fdef("REGEXP_SUBSTR", 2, 2, "REGEXP_SUBSTR(string, regex) -> STRING", "The first match of regex in string; NULL when none.",
			regexFn(types.String, func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error) {
				m := re.FindStringIndex(a[0].Str())
				if m == nil {
					return types.Null, nil
				}
				return types.NewString(a[0].Str()[m[0]:m[1]]), nil
			})),
		fdef("STR_TO_MAP", 1, 3, "STR_TO_MAP(string1 [, string2, string3]) -> MAP<STRING, STRING>",
			"string1 split into pairs at the regex string2 (default ',') and into key and value at the regex string3 (default '='); a later key wins.",
			newStrToMap),
	})
}

// regexCompiles counts the regular expressions compiled, for the test
// that a literal pattern is compiled once per call site.
var regexCompiles atomic.Int64

// compileRegex compiles a pattern of a regular-expression function.
func compileRegex(p string) (*regexp.Regexp, error) {
	regexCompiles.Add(1)
	return regexp.Compile(p)
}

// regexCache compiles patterns that are not literals, remembering the last.
type regexCache struct {
	last atomic.Pointer[regexp.Regexp]
}

func (rc *regexCache) get(p string) (*regexp.Regexp, bool) {
	if re := rc.last.Load(); re != nil && re.String() == p {
		return re, true
	}
	re, err := compileRegex(p)
	if err != nil {
		return nil, false
	}
	rc.last.Store(re)
	return re, true
}

// regexArg returns the regex of args[i]: compiled here when it is a
// literal, else per row through a cache. ok false at run time is an
// invalid pattern.
func regexArg(c *call, i int) (func(a [maxFixedArgs]types.Value) (*regexp.Regexp, bool), error) {
	if v, ok := c.literal(i); ok && !v.IsNull() {
		re, err := compileRegex(v.Str())
		if err != nil {
			return nil, typeErrorf("invalid regular expression '%s' in %s: %v", v.Str(), c.name, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		return func([maxFixedArgs]types.Value) (*regexp.Regexp, bool) { return re, true }, nil
	}
	rc := &regexCache{}
	return func(a [maxFixedArgs]types.Value) (*regexp.Regexp, bool) { return rc.get(a[i].Str()) }, nil
}

// regexFn builds f(string, regex, ...) with the regex in args[1].
func regexFn(t types.Type, f func(re *regexp.Regexp, a [maxFixedArgs]types.Value) (types.Value, error)) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStr, aStr, aAny); err != nil {
			return nil, err
		}
		if len(c.args) == 3 && !aStr.accepts(c.args[2].Type()) && !aInt.accepts(c.args[2].Type()) {
			return nil, argTypeError(c.name, c.args)
		}
		re, err := regexArg(c, 1)
		if err != nil {
			return nil, err
		}
		_, lit := c.literal(1)
		var memo *regexMemo
		if t.ID != types.TypeArray && literalsAfterFirst(c) {
			memo = &regexMemo{seed: maphash.MakeSeed()}
		}
		return c.strictFn(t, t.ID == types.TypeBoolean || t.ID == types.TypeInt && lit, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			in := a[0].Str()
			var slot *atomic.Pointer[memoEntry]
			if memo != nil && len(in) <= memoMaxLen {
				var hit bool
				var v types.Value
				if v, hit, slot = memo.lookup(in); hit {
					return v, nil
				}
			}
			r, ok := re(a)
			if !ok {
				if t.ID == types.TypeBoolean {
					return types.NewBool(false), nil
				}
				return types.Null, nil
			}
			v, err := f(r, a)
			if err == nil && slot != nil {
				slot.Store(&memoEntry{in: in, out: v})
			}
			return v, err
		}), nil
	}
}

// The memo of a regular-expression call site whose other arguments are
// literals: its result depends on the string alone, and columns matched
// against a pattern (URLs, user agents, log lines) often repeat. A table
// of recent results by string where each string has two candidate slots
// (few collisions while the distinct strings are well below memoSlots),
// safe for the subtasks that share the expression; a string longer than
// memoMaxLen is not remembered.
const (
	memoSlots  = 4096
	memoMaxLen = 512
)

type regexMemo struct {
	seed  maphash.Seed
	slots [memoSlots]atomic.Pointer[memoEntry]
}

// lookup returns the remembered result of in, or the slot to remember it
// in: an empty candidate if there is one, else the first.
func (m *regexMemo) lookup(in string) (types.Value, bool, *atomic.Pointer[memoEntry]) {
	h := maphash.String(m.seed, in)
	a, b := &m.slots[h&(memoSlots-1)], &m.slots[(h>>32)&(memoSlots-1)]
	ea, eb := a.Load(), b.Load()
	switch {
	case ea != nil && ea.in == in:
		return ea.out, true, nil
	case eb != nil && eb.in == in:
		return eb.out, true, nil
	case ea != nil && eb == nil:
		return types.Value{}, false, b
	}
	return types.Value{}, false, a
}

type memoEntry struct {
	in  string
	out types.Value
}

// literalsAfterFirst reports whether every argument of c but the first is
// a literal.
func literalsAfterFirst(c *call) bool {
	for i := 1; i < len(c.args); i++ {
		if _, ok := c.literal(i); !ok {
			return false
		}
	}
	return true
}

// javaReplacement converts a Java replacement string ($1, \$) to Go's
// (${1}, $$).
func javaReplacement(s string) string {
	if !strings.ContainsAny(s, `$\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(s[i])
			}
		case c == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			b.WriteString("${" + s[i+1:j] + "}")
			i = j - 1
		case c == '$':
			b.WriteString("$$")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// The default separators of STR_TO_MAP, compiled once.
var strToMapPairs, strToMapKV = regexp.MustCompile(","), regexp.MustCompile("=")

func newStrToMap(c *call) (Expr, error) {
	if len(c.args) == 2 {
		return nil, argTypeError(c.name, c.args)
	}
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	pairRe, kvRe := strToMapPairs, strToMapKV
	var pair, kv func(a [maxFixedArgs]types.Value) (*regexp.Regexp, bool)
	if len(c.args) == 3 {
		var err error
		if pair, err = regexArg(c, 1); err != nil {
			return nil, err
		}
		if kv, err = regexArg(c, 2); err != nil {
			return nil, err
		}
	}
	return c.strictFn(types.MapOf(types.String, types.String), true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		pr, kr := pairRe, kvRe
		if pair != nil {
			var ok1, ok2 bool
			pr, ok1 = pair(a)
			kr, ok2 = kv(a)
			if !ok1 || !ok2 {
				return types.Null, nil
			}
		}
		var entries []types.MapEntry
		index := map[string]int{}
		for _, p := range pr.Split(a[0].Str(), -1) {
			kvs := kr.Split(p, 2)
			k := types.NewString(kvs[0])
			v := types.Null
			if len(kvs) == 2 {
				v = types.NewString(kvs[1])
			}
			if i, dup := index[kvs[0]]; dup {
				entries[i].Val = v
				continue
			}
			index[kvs[0]] = len(entries)
			entries = append(entries, types.MapEntry{Key: k, Val: v})
		}
		return types.NewMap(entries), nil
	}), nil
}
