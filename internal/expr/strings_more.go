package expr

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/types"
)

// More string functions. Positions count characters and are 1-based;
// SPLIT_INDEX is 0-based, as in Flink.

func init() {
	register("string", []funcDef{
		fdef("POSITION", 2, 2, "POSITION(string1 IN string2) -> INT",
			"The 1-based position of the first occurrence of string1 in string2; 0 when absent.",
			func(c *call) (Expr, error) { return newLocate(c, 0, 1, -1, true) }),
		fdef("LOCATE", 2, 3, "LOCATE(string1, string2 [, integer]) -> INT",
			"The position of the first occurrence of string1 in string2 at or after position integer (default 1); 0 when absent.",
			func(c *call) (Expr, error) { return newLocate(c, 0, 1, 2, false) }),
		fdef("INSTR", 2, 2, "INSTR(string1, string2) -> INT",
			"The position of the first occurrence of string2 in string1; 0 when absent.",
			func(c *call) (Expr, error) { return newLocate(c, 1, 0, -1, false) }),
		fdef("OVERLAY", 3, 4, "OVERLAY(string1 PLACING string2 FROM integer1 [FOR integer2])",
			"string1 with integer2 characters (default: the length of string2) from position integer1 replaced by string2.", newOverlay),
		fdef("REPLACE", 3, 3, "REPLACE(string1, string2, string3) -> STRING",
			"string1 with every (non-overlapping) occurrence of string2 replaced by string3.",
			str3(func(a [maxFixedArgs]types.Value) (types.Value, error) {
				return types.NewString(strings.ReplaceAll(a[0].Str(), a[1].Str(), a[2].Str())), nil
			})),
		fdef("REPEAT", 2, 2, "REPEAT(string, integer) -> STRING", "string repeated integer times; '' when integer <= 0.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr, aInt); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					n, s := a[1].Int(), a[0].Str()
					if n <= 0 || s == "" {
						return types.NewString(""), nil
					}
					if n*int64(len(s)) > 1<<28 {
						return types.Null, runtimeErrorf("REPEAT: result longer than 256 MiB")
					}
					return types.NewString(strings.Repeat(s, int(n))), nil
				}), nil
			}),
		fdef("REVERSE", 1, 1, "REVERSE(string) -> STRING", "The characters of string in reverse order.",
			str1(func(s string) string {
				r := []rune(s)
				for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
					r[i], r[j] = r[j], r[i]
				}
				return string(r)
			})),
		fdef("INITCAP", 1, 1, "INITCAP(string) -> STRING",
			"The first character of each word in upper case and the rest in lower case; words are runs of letters and digits.",
			str1(initcap)),
		fdef("LPAD", 3, 3, "LPAD(string1, integer, string2) -> STRING",
			"string1 left-padded with string2 to integer characters, or truncated to integer; NULL when integer < 0 or string2 is empty.",
			newPad(true)),
		fdef("RPAD", 3, 3, "RPAD(string1, integer, string2) -> STRING",
			"string1 right-padded with string2 to integer characters, or truncated to integer; NULL when integer < 0 or string2 is empty.",
			newPad(false)),
		fdef("CONCAT_WS", 1, -1, "CONCAT_WS(string1, string2, string3, ...) -> STRING",
			"string2, string3, ... joined with the separator string1, skipping NULLs; NULL only when string1 is NULL.", newConcatWS),
		fdef("LEFT", 2, 2, "LEFT(string, integer) -> STRING", "The leftmost integer characters; '' when integer < 0.", newLeftRight(true)),
		fdef("RIGHT", 2, 2, "RIGHT(string, integer) -> STRING", "The rightmost integer characters; '' when integer < 0.", newLeftRight(false)),
		fdef("ASCII", 1, 1, "ASCII(string) -> INT", "The code of the first character; 0 for ''.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr); err != nil {
					return nil, err
				}
				return c.strictFn(types.Int, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					r, _ := utf8.DecodeRuneInString(a[0].Str())
					if a[0].Str() == "" {
						r = 0
					}
					return types.NewInt(int64(r)), nil
				}), nil
			}),
		fdef("CHR", 1, 1, "CHR(integer) -> STRING",
			"The character with code integer modulo 255 when integer > 255; '' for a negative integer.",
			func(c *call) (Expr, error) {
				if err := c.want(aInt); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					n := a[0].Int()
					if n < 0 {
						return types.NewString(""), nil
					}
					if n > 255 {
						n %= 255
					}
					return types.NewString(string(rune(n))), nil
				}), nil
			}),
		fdef("TO_BASE64", 1, 1, "TO_BASE64(string) -> STRING", "The base64 encoding of the UTF-8 bytes of string (or of a BYTES value).",
			func(c *call) (Expr, error) {
				if err := c.want(aStrBin); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					return types.NewString(base64.StdEncoding.EncodeToString([]byte(a[0].Str()))), nil
				}), nil
			}),
		fdef("FROM_BASE64", 1, 1, "FROM_BASE64(string) -> STRING", "The decoded base64 string; NULL when it is not base64.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					b, err := base64.StdEncoding.DecodeString(a[0].Str())
					return okNull(types.NewString(string(b)), err == nil)
				}), nil
			}),
		fdef("SPLIT_INDEX", 3, 3, "SPLIT_INDEX(string1, string2, integer1) -> STRING",
			"The integer1-th (0-based) part of string1 split at the literal separator string2; NULL when out of range.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr, aStr, aInt); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					s, sep, i := a[0].Str(), a[1].Str(), a[2].Int()
					if i < 0 {
						return types.Null, nil
					}
					for ; i > 0; i-- {
						k := strings.Index(s, sep)
						if k < 0 || sep == "" {
							return types.Null, nil
						}
						s = s[k+len(sep):]
					}
					if k := strings.Index(s, sep); k >= 0 && sep != "" {
						s = s[:k]
					}
					return types.NewString(s), nil
				}), nil
			}),
		fdef("SPLIT", 2, 2, "SPLIT(string, delimiter) -> ARRAY<STRING>",
			"string split at the literal delimiter; an empty delimiter splits every character.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr); err != nil {
					return nil, err
				}
				return c.strictFn(types.ArrayOf(types.String), true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					parts := strings.Split(a[0].Str(), a[1].Str())
					if a[0].Str() == "" {
						parts = nil
					}
					out := make([]types.Value, len(parts))
					for i, p := range parts {
						out[i] = types.NewString(p)
					}
					return types.NewArray(out), nil
				}), nil
			}),
		fdef("ELT", 2, -1, "ELT(index, expr [, exprs]*)",
			"The index-th (1-based) of the expressions; NULL when index is out of range.", newElt),
		fdef("STARTSWITH", 2, 2, "STARTSWITH(expr, startExpr) -> BOOLEAN", "Whether expr starts with startExpr (strings or bytes).",
			strPred(strings.HasPrefix)),
		fdef("ENDSWITH", 2, 2, "ENDSWITH(expr, endExpr) -> BOOLEAN", "Whether expr ends with endExpr (strings or bytes).",
			strPred(strings.HasSuffix)),
		fdef("TRANSLATE", 3, 3, "TRANSLATE(expr, fromStr, toStr) -> STRING",
			"expr with each character of fromStr replaced by the character at the same position of toStr, or removed when toStr is shorter.",
			str3(func(a [maxFixedArgs]types.Value) (types.Value, error) {
				from, to := []rune(a[1].Str()), []rune(a[2].Str())
				var b strings.Builder
				for _, r := range a[0].Str() {
					i := strings.IndexRune(string(from), r)
					switch {
					case i < 0:
						b.WriteRune(r)
					case utf8.RuneCountInString(string(from)[:i]) < len(to):
						b.WriteRune(to[utf8.RuneCountInString(string(from)[:i])])
					}
				}
				return types.NewString(b.String()), nil
			})),
		fdef("URL_ENCODE", 1, 1, "URL_ENCODE(string) -> STRING", "string encoded as application/x-www-form-urlencoded (UTF-8).",
			str1(func(s string) string {
				e := url.QueryEscape(s)
				return strings.ReplaceAll(strings.ReplaceAll(e, "%2A", "*"), "~", "%7E")
			})),
		fdef("URL_DECODE", 1, 1, "URL_DECODE(string) -> STRING", "The decoded application/x-www-form-urlencoded string; NULL when malformed.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					s, err := url.QueryUnescape(a[0].Str())
					return okNull(types.NewString(s), err == nil)
				}), nil
			}),
		fdef("PARSE_URL", 2, 3, "PARSE_URL(string1, string2 [, string3]) -> STRING",
			"The part string2 (HOST, PATH, QUERY, REF, PROTOCOL, AUTHORITY, FILE, USERINFO) of the URL string1; with QUERY and string3, that query parameter.",
			newParseURL),
		fdef("IS_ALPHA", 1, 1, "IS_ALPHA(string) -> BOOLEAN", "Whether all characters are letters (FALSE for '' and NULL).",
			strTest(func(s string) bool {
				return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
			})),
		fdef("IS_DIGIT", 1, 1, "IS_DIGIT(string) -> BOOLEAN", "Whether all characters are digits (FALSE for '' and NULL).",
			strTest(func(s string) bool {
				return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
			})),
		fdef("IS_DECIMAL", 1, 1, "IS_DECIMAL(string) -> BOOLEAN", "Whether string is a decimal number (FALSE for NULL).",
			strTest(func(s string) bool {
				_, err := strconv.ParseFloat(s, 64)
				return err == nil && strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) && r != 'e' && r != 'E' }) < 0
			})),
		fdef("INET_ATON", 1, 1, "INET_ATON(string) -> BIGINT", "The number of an IPv4 address 'a.b.c.d'; NULL when invalid.",
			func(c *call) (Expr, error) {
				if err := c.want(aStr); err != nil {
					return nil, err
				}
				return c.strictFn(types.BigInt, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					parts := strings.Split(a[0].Str(), ".")
					if len(parts) != 4 {
						return types.Null, nil
					}
					var n int64
					for _, p := range parts {
						v, err := strconv.Atoi(p)
						if err != nil || v < 0 || v > 255 {
							return types.Null, nil
						}
						n = n<<8 | int64(v)
					}
					return types.NewInt(n), nil
				}), nil
			}),
		fdef("INET_NTOA", 1, 1, "INET_NTOA(integer) -> STRING", "The IPv4 address 'a.b.c.d' of a number in [0, 4294967295]; NULL otherwise.",
			func(c *call) (Expr, error) {
				if err := c.want(aInt); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					n := a[0].Int()
					if n < 0 || n > 0xFFFFFFFF {
						return types.Null, nil
					}
					return types.NewString(strconv.Itoa(int(n>>24)) + "." + strconv.Itoa(int(n>>16&255)) + "." +
						strconv.Itoa(int(n>>8&255)) + "." + strconv.Itoa(int(n&255))), nil
				}), nil
			}),
		fdef("ENCODE", 2, 2, "ENCODE(string1, string2) -> BYTES", "string1 encoded in the charset string2 ('UTF-8', 'US-ASCII', 'ISO-8859-1').",
			func(c *call) (Expr, error) { return newCharset(c, true) }),
		fdef("DECODE", 2, 2, "DECODE(binary, string) -> STRING", "binary decoded from the charset string ('UTF-8', 'US-ASCII', 'ISO-8859-1').",
			func(c *call) (Expr, error) { return newCharset(c, false) }),
		fdef("IS_VALID_UTF8", 1, 1, "IS_VALID_UTF8(bytes) -> BOOLEAN", "Whether the bytes are valid UTF-8.",
			func(c *call) (Expr, error) {
				if err := c.want(aStrBin); err != nil {
					return nil, err
				}
				return c.strictFn(types.Boolean, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					return types.NewBool(utf8.ValidString(a[0].Str())), nil
				}), nil
			}),
		fdef("MAKE_VALID_UTF8", 1, 1, "MAKE_VALID_UTF8(bytes) -> STRING", "The bytes as a string with invalid UTF-8 sequences replaced by U+FFFD.",
			func(c *call) (Expr, error) {
				if err := c.want(aStrBin); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					return types.NewString(strings.ToValidUTF8(a[0].Str(), "\uFFFD")), nil
				}), nil
			}),
	})
}

// str1 builds a function of one string returning a string.
func str1(f func(string) string) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStr); err != nil {
			return nil, err
		}
		return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			return types.NewString(f(a[0].Str())), nil
		}), nil
	}
}

func str3(f func(a [maxFixedArgs]types.Value) (types.Value, error)) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStr); err != nil {
			return nil, err
		}
		return c.strictFn(types.String, true, f), nil
	}
}

func strPred(f func(s, p string) bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStrBin); err != nil {
			return nil, err
		}
		return c.strictFn(types.Boolean, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			return types.NewBool(f(a[0].Str(), a[1].Str())), nil
		}), nil
	}
}

// strTest builds a predicate that is FALSE for NULL.
func strTest(f func(string) bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStr); err != nil {
			return nil, err
		}
		return c.lenientFn(types.Boolean.NonNull(), func(a [maxFixedArgs]types.Value) (types.Value, error) {
			return types.NewBool(!a[0].IsNull() && f(a[0].Str())), nil
		}), nil
	}
}

// charIndex returns the 1-based character position of byte offset i in s.
func charIndex(s string, i int) int64 { return int64(utf8.RuneCountInString(s[:i])) + 1 }

// newLocate finds args[needle] in args[hay] from the position args[from]
// (-1: none).
func newLocate(c *call, needle, hay, from int, position bool) (Expr, error) {
	kinds := []argKind{aStr, aStr, aInt}
	if err := c.want(kinds...); err != nil {
		return nil, err
	}
	e := c.strictFn(types.Int, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		n, h := a[needle].Str(), a[hay].Str()
		off := 0
		if from >= 0 && from < len(c.args) {
			p := a[from].Int()
			if p < 1 {
				return types.NewInt(0), nil
			}
			off = runeOffset(h, p-1)
			if off >= len(h) && p-1 > int64(utf8.RuneCountInString(h)) {
				return types.NewInt(0), nil
			}
		}
		i := strings.Index(h[off:], n)
		if i < 0 {
			return types.NewInt(0), nil
		}
		return types.NewInt(charIndex(h, off+i)), nil
	})
	if position {
		e.render = func() string { return "POSITION(" + c.args[0].String() + " IN " + c.args[1].String() + ")" }
	}
	return e, nil
}

func newOverlay(c *call) (Expr, error) {
	if err := c.want(aStr, aStr, aInt); err != nil {
		return nil, err
	}
	args := c.args
	e := c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		s, r, p := a[0].Str(), a[1].Str(), a[2].Int()
		l := int64(utf8.RuneCountInString(r))
		if len(args) == 4 {
			l = a[3].Int()
		}
		head, _ := substringSQL(s, 1, max(p-1, 0))
		tail, _ := substringSQL(s, max(p+l, 1), 1<<62)
		if p+l <= 0 {
			tail = s
		}
		return types.NewString(head + r + tail), nil
	})
	e.render = func() string {
		s := "OVERLAY(" + args[0].String() + " PLACING " + args[1].String() + " FROM " + args[2].String()
		if len(args) == 4 {
			s += " FOR " + args[3].String()
		}
		return s + ")"
	}
	return e, nil
}

func initcap(s string) string {
	var b strings.Builder
	start := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start {
				b.WriteRune(unicode.ToUpper(r))
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			start = false
			continue
		}
		b.WriteRune(r)
		start = true
	}
	return b.String()
}

func newPad(left bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStr, aInt, aStr); err != nil {
			return nil, err
		}
		return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			s, n, pad := a[0].Str(), a[1].Int(), a[2].Str()
			if n < 0 {
				return types.Null, nil
			}
			have := int64(utf8.RuneCountInString(s))
			if have >= n {
				return types.NewString(s[:runeOffset(s, n)]), nil
			}
			if pad == "" {
				return types.Null, nil
			}
			if n > 1<<26 {
				return types.Null, runtimeErrorf("%s: length %d is too large", "PAD", n)
			}
			pr := []rune(pad)
			fill := make([]rune, n-have)
			for i := range fill {
				fill[i] = pr[i%len(pr)]
			}
			if left {
				return types.NewString(string(fill) + s), nil
			}
			return types.NewString(s + string(fill)), nil
		}), nil
	}
}

func newConcatWS(c *call) (Expr, error) {
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	nn := c.args[0].Type().NotNull
	return c.varFn(withNull(types.String, nn), true, func(a []types.Value) (types.Value, error) {
		if a[0].IsNull() {
			return types.Null, nil
		}
		var b strings.Builder
		first := true
		for _, v := range a[1:] {
			if v.IsNull() {
				continue
			}
			if !first {
				b.WriteString(a[0].Str())
			}
			first = false
			b.WriteString(v.Str())
		}
		return types.NewString(b.String()), nil
	}), nil
}

func newLeftRight(left bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStr, aInt); err != nil {
			return nil, err
		}
		return c.strictFn(resultString(c.args[0].Type()), true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			s, n := a[0].Str(), a[1].Int()
			if n <= 0 {
				return types.NewString(""), nil
			}
			if left {
				return types.NewString(s[:runeOffset(s, n)]), nil
			}
			have := int64(utf8.RuneCountInString(s))
			if n >= have {
				return a[0], nil
			}
			return types.NewString(s[runeOffset(s, have-n):]), nil
		}), nil
	}
}

func newElt(c *call) (Expr, error) {
	if !aInt.accepts(c.args[0].Type()) {
		return nil, argTypeError(c.name, c.args)
	}
	ts := make([]types.Type, len(c.args)-1)
	for i, a := range c.args[1:] {
		ts[i] = a.Type()
	}
	t, ok := CommonType(ts...)
	if !ok {
		return nil, incompatible(c.name, ts)
	}
	for i := 1; i < len(c.args); i++ {
		c.args[i] = coerce(c.args[i], t.Nullable())
	}
	args := c.args
	return &eltExpr{args: args, t: t.Nullable()}, nil
}

// eltExpr evaluates only the chosen argument.
type eltExpr struct {
	args []Expr
	t    types.Type
}

func (e *eltExpr) Type() types.Type { return e.t }
func (e *eltExpr) String() string   { return "ELT(" + joinExprs(e.args) + ")" }
func (e *eltExpr) Eval(row []types.Value) (types.Value, error) {
	i, err := e.args[0].Eval(row)
	if err != nil || i.IsNull() || i.Int() < 1 || i.Int() >= int64(len(e.args)) {
		return types.Null, err
	}
	return e.args[i.Int()].Eval(row)
}

func newParseURL(c *call) (Expr, error) {
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		u, err := url.Parse(a[0].Str())
		if err != nil {
			return types.Null, nil
		}
		var s string
		switch strings.ToUpper(a[1].Str()) {
		case "HOST":
			s = u.Hostname()
		case "PATH":
			s = u.EscapedPath()
		case "QUERY":
			if len(c.args) == 3 {
				q, err := url.ParseQuery(u.RawQuery)
				if err != nil || !q.Has(a[2].Str()) {
					return types.Null, nil
				}
				return types.NewString(q.Get(a[2].Str())), nil
			}
			s = u.RawQuery
		case "REF":
			s = u.EscapedFragment()
		case "PROTOCOL":
			s = u.Scheme
		case "AUTHORITY":
			s = u.Host
			if u.User != nil {
				s = u.User.String() + "@" + s
			}
		case "FILE":
			s = u.EscapedPath()
			if u.RawQuery != "" {
				s += "?" + u.RawQuery
			}
		case "USERINFO":
			if u.User == nil {
				return types.Null, nil
			}
			s = u.User.String()
		default:
			return types.Null, nil
		}
		if s == "" {
			return types.Null, nil
		}
		return types.NewString(s), nil
	}), nil
}

func newCharset(c *call, encode bool) (Expr, error) {
	first := aStr
	if !encode {
		first = aStrBin
	}
	if err := c.want(first, aStr); err != nil {
		return nil, err
	}
	t := types.String
	if encode {
		t = types.Bytes
	}
	return c.strictFn(t, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		s := a[0].Str()
		switch strings.ToUpper(a[1].Str()) {
		case "UTF-8", "UTF8":
		case "US-ASCII", "ISO-8859-1", "LATIN1":
			ascii := strings.ToUpper(a[1].Str()) == "US-ASCII"
			var b []byte
			if encode {
				for _, r := range s {
					if r > 255 || ascii && r > 127 {
						r = '?'
					}
					b = append(b, byte(r))
				}
				return types.NewBytes(b), nil
			}
			var sb strings.Builder
			for i := 0; i < len(s); i++ {
				if ascii && s[i] > 127 {
					sb.WriteRune('\uFFFD')
				} else {
					sb.WriteRune(rune(s[i]))
				}
			}
			return types.NewString(sb.String()), nil
		default:
			return types.Null, runtimeErrorf("unsupported charset '%s'", a[1].Str())
		}
		if encode {
			return types.NewBytes([]byte(s)), nil
		}
		return types.NewString(strings.ToValidUTF8(s, "\uFFFD")), nil
	}), nil
}
