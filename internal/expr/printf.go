package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// PRINTF follows java.util.Formatter with Locale.US for the common
// conversions: %s %S %d %x %X %o %f %e %E %b %B %c %n %%, the flags - + 0
// space #, widths, precisions and explicit argument indexes (1$). A NULL
// argument prints as "null". Other conversions (%g, %a, %h, %t...) and the
// flags ',' and '(' are runtime errors.

func init() {
	register("string", []funcDef{
		fdef("PRINTF", 1, -1, "PRINTF(format [, obj]*) -> STRING",
			"The arguments formatted by the java.util.Formatter pattern format (%s, %d, %x, %f, %e, %b, %c, widths, precisions, flags); a NULL argument prints as null, a NULL format gives NULL.",
			newPrintf),
	})
}

// fmtSpec is one conversion of a format.
type fmtSpec struct {
	text      string // literal text before the conversion
	arg       int    // argument index (0-based), -1 for %n and %%
	flags     string
	width     int // -1 when absent
	precision int // -1 when absent
	conv      byte
}

// parseFormat splits a Java format string; trailing literal text is a
// final spec with conv 0.
func parseFormat(f string) ([]fmtSpec, error) {
	var out []fmtSpec
	next := 0
	var lit strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		j := i + 1
		sp := fmtSpec{width: -1, precision: -1, arg: -2}
		// [argument_index$]
		k := j
		for k < len(f) && f[k] >= '0' && f[k] <= '9' {
			k++
		}
		if k > j && k < len(f) && f[k] == '$' {
			n, _ := strconv.Atoi(f[j:k])
			if n < 1 {
				return nil, fmt.Errorf("illegal argument index in format '%s'", f)
			}
			sp.arg = n - 1
			j = k + 1
		}
		for j < len(f) && strings.IndexByte("-#+ 0,(", f[j]) >= 0 {
			sp.flags += string(f[j])
			j++
		}
		k = j
		for k < len(f) && f[k] >= '0' && f[k] <= '9' {
			k++
		}
		if k > j {
			sp.width, _ = strconv.Atoi(f[j:k])
			j = k
		}
		if j < len(f) && f[j] == '.' {
			k = j + 1
			for k < len(f) && f[k] >= '0' && f[k] <= '9' {
				k++
			}
			if k == j+1 {
				return nil, fmt.Errorf("missing precision in format '%s'", f)
			}
			sp.precision, _ = strconv.Atoi(f[j+1 : k])
			j = k
		}
		if j >= len(f) {
			return nil, fmt.Errorf("format '%s' ends in the middle of a conversion", f)
		}
		sp.conv = f[j]
		switch sp.conv {
		case 'n', '%':
			sp.arg = -1
		case 's', 'S', 'd', 'x', 'X', 'o', 'f', 'e', 'E', 'b', 'B', 'c', 'C':
			if sp.arg == -2 {
				sp.arg = next
				next++
			}
		default:
			return nil, fmt.Errorf("unsupported conversion '%%%c' in format '%s'", sp.conv, f)
		}
		if strings.ContainsAny(sp.flags, ",(") {
			return nil, fmt.Errorf("unsupported flag in format '%s'", f)
		}
		sp.text = lit.String()
		lit.Reset()
		out = append(out, sp)
		i = j
	}
	if lit.Len() > 0 {
		out = append(out, fmtSpec{text: lit.String(), arg: -1})
	}
	return out, nil
}

func newPrintf(c *call) (Expr, error) {
	if !aStr.accepts(c.args[0].Type()) {
		return nil, argTypeError(c.name, c.args)
	}
	ts := make([]types.Type, len(c.args))
	for i, a := range c.args {
		ts[i] = a.Type()
	}
	var fixed []fmtSpec
	if v, ok := c.literal(0); ok && !v.IsNull() {
		var err error
		if fixed, err = parseFormat(v.Str()); err != nil {
			return nil, typeErrorf("PRINTF: %v", err)
		}
	}
	return c.varFn(withNull(types.String, c.args[0].Type().NotNull), true, func(a []types.Value) (types.Value, error) {
		if a[0].IsNull() {
			return types.Null, nil
		}
		specs := fixed
		if specs == nil {
			var err error
			if specs, err = parseFormat(a[0].Str()); err != nil {
				return types.Null, runtimeErrorf("PRINTF: %v", err)
			}
		}
		var b strings.Builder
		for _, sp := range specs {
			b.WriteString(sp.text)
			if sp.conv == 0 {
				continue
			}
			s, err := formatSpec(sp, a[1:], ts[1:])
			if err != nil {
				return types.Null, runtimeErrorf("PRINTF: %v", err)
			}
			b.WriteString(s)
		}
		return types.NewString(b.String()), nil
	}), nil
}

// formatSpec formats one conversion like java.util.Formatter.
func formatSpec(sp fmtSpec, args []types.Value, ts []types.Type) (string, error) {
	switch sp.conv {
	case 'n':
		return "\n", nil
	case '%':
		return pad("%", sp), nil
	}
	if sp.arg >= len(args) {
		return "", fmt.Errorf("format specifier '%%%c' has no argument", sp.conv)
	}
	v, t := args[sp.arg], ts[sp.arg]
	upper := sp.conv >= 'A' && sp.conv <= 'Z'
	var s string
	switch lower := sp.conv | 0x20; {
	case lower == 'b':
		s = strconv.FormatBool(!v.IsNull() && (t.ID != types.TypeBoolean || v.Bool()))
		s = truncPrec(s, sp.precision)
	case v.IsNull():
		s = truncPrec("null", sp.precision)
	case lower == 's':
		s = truncPrec(flinkString(v, t), sp.precision)
	case lower == 'c':
		switch {
		case t.IsInteger():
			s = string(rune(v.Int()))
		case t.IsString() && len([]rune(v.Str())) == 1:
			s = v.Str()
		default:
			return "", fmt.Errorf("%%c needs a character, not %s", typeString(t))
		}
	case lower == 'd' || lower == 'x' || lower == 'o':
		if !t.IsInteger() {
			return "", fmt.Errorf("%%%c needs an integer, not %s", sp.conv, typeString(t))
		}
		n := v.Int()
		if lower == 'd' {
			s = strconv.FormatInt(n, 10)
			if n >= 0 && strings.Contains(sp.flags, "+") {
				s = "+" + s
			} else if n >= 0 && strings.Contains(sp.flags, " ") {
				s = " " + s
			}
			return padNum(s, sp), nil
		}
		u := uint64(n)
		if n < 0 && t.ID != types.TypeBigInt {
			u = uint64(uint32(int32(n))) // Java formats an int in 32 bits
		}
		base := 16
		if lower == 'o' {
			base = 8
		}
		s = strconv.FormatUint(u, base)
		if strings.Contains(sp.flags, "#") {
			s = map[int]string{16: "0x", 8: "0"}[base] + s
		}
		return caseOf(padNum(s, sp), upper), nil
	case lower == 'f' || lower == 'e':
		if !t.IsNumeric() {
			return "", fmt.Errorf("%%%c needs a number, not %s", sp.conv, typeString(t))
		}
		prec := sp.precision
		if prec < 0 {
			prec = 6
		}
		f := v.Float()
		s = strconv.FormatFloat(f, sp.conv|0x20, prec, 64) // two exponent digits, like Java
		if f >= 0 && strings.Contains(sp.flags, "+") {
			s = "+" + s
		} else if f >= 0 && strings.Contains(sp.flags, " ") {
			s = " " + s
		}
		return caseOf(padNum(s, sp), upper), nil
	}
	return caseOf(pad(s, sp), upper), nil
}

func truncPrec(s string, p int) string {
	if p >= 0 && len([]rune(s)) > p {
		return string([]rune(s)[:p])
	}
	return s
}

func caseOf(s string, upper bool) string {
	if upper {
		return strings.ToUpper(s)
	}
	return s
}

// pad pads s to the width with spaces, on the left unless the flag '-'.
func pad(s string, sp fmtSpec) string {
	n := sp.width - len([]rune(s))
	if n <= 0 {
		return s
	}
	if strings.Contains(sp.flags, "-") {
		return s + strings.Repeat(" ", n)
	}
	return strings.Repeat(" ", n) + s
}

// padNum pads a number, with zeros after the sign for the flag '0'.
func padNum(s string, sp fmtSpec) string {
	n := sp.width - len(s)
	if n <= 0 || !strings.Contains(sp.flags, "0") || strings.Contains(sp.flags, "-") {
		return pad(s, sp)
	}
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
		sign, s = s[:1], s[1:]
	}
	if strings.HasPrefix(s, "0x") {
		sign, s = sign+"0x", s[2:]
	}
	return sign + strings.Repeat("0", n) + s
}
