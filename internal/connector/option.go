package connector

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// The types of option values, named as Flink's connector docs name them.
const (
	TypeString     = "String"
	TypeBoolean    = "Boolean"
	TypeInteger    = "Integer"
	TypeLong       = "Long"
	TypeDouble     = "Double"
	TypeDuration   = "Duration"
	TypeMemorySize = "MemorySize"
	TypeEnum       = "Enum"
)

// Option declares one option of a connector. The declarations drive the
// validation of a table's WITH options (Registry.Validate) and the
// options reference (docs/connectors.md).
//
// A key may be a pattern: '#' stands for a column name
// ("fields.#.kind"), "<format>" for the name of one of the connector's
// formats and "*" at the end for any rest of the key
// ("value.<format>.*": the options of the value format, which the format
// validates).
type Option struct {
	Key      string
	Type     string
	Required bool
	Default  string
	// Values lists the accepted values of an Enum option (compared without
	// case).
	Values []string
	Doc    string
	// Secret options are shown as **** by SHOW CREATE TABLE and the REST
	// API.
	Secret bool
}

// isPattern reports whether the key of o is a pattern.
func (o *Option) isPattern() bool {
	return strings.ContainsAny(o.Key, "#*") || strings.Contains(o.Key, "<format>")
}

// matches reports whether key is an instance of o's key. Column names in
// '#' may contain dots: a '#' matches the longest run that lets the rest
// match.
func (o *Option) matches(key string, formats []string) bool {
	return matchKey(o.Key, key, formats)
}

func matchKey(pat, key string, formats []string) bool {
	for pat != "" {
		switch {
		case pat == "*":
			return key != ""
		case pat[0] == '#':
			rest := pat[1:]
			for i := len(key); i >= 1; i-- {
				if matchKey(rest, key[i:], formats) {
					return true
				}
			}
			return false
		case strings.HasPrefix(pat, "<format>"):
			rest := pat[len("<format>"):]
			for _, f := range formats {
				if strings.HasPrefix(key, f) && matchKey(rest, key[len(f):], formats) {
					return true
				}
			}
			return false
		}
		if key == "" || pat[0] != key[0] {
			return false
		}
		pat, key = pat[1:], key[1:]
	}
	return key == ""
}

// instances returns the keys a pattern stands for, with '#' replaced by
// each of columns and "<format>" by each format (for suggestions).
func (o *Option) instances(columns, formats []string) []string {
	keys := []string{o.Key}
	expand := func(token string, by []string) {
		var out []string
		for _, k := range keys {
			if !strings.Contains(k, token) {
				out = append(out, k)
				continue
			}
			for _, b := range by {
				out = append(out, strings.Replace(k, token, b, 1))
			}
		}
		keys = out
	}
	expand("#", columns)
	expand("<format>", formats)
	out := keys[:0]
	for _, k := range keys {
		if !strings.Contains(k, "*") {
			out = append(out, k)
		}
	}
	return out
}

// checkValue validates the value of a declared option by its type.
func (o *Option) checkValue(key, v string) error {
	bad := func(what, hint string) error {
		return NewOptionError(key, "Invalid value '%s' for option '%s': %s", v, key, what).WithHint("%s", hint)
	}
	s := strings.TrimSpace(v)
	switch o.Type {
	case TypeBoolean:
		if _, err := ParseBool(s); err != nil {
			return bad("expected 'true' or 'false'", "write 'true' or 'false'")
		}
	case TypeInteger:
		if n, err := strconv.ParseInt(s, 10, 64); err != nil || n > math.MaxInt32 || n < math.MinInt32 {
			return bad("expected a whole number", "write a whole number such as '4'")
		}
	case TypeLong:
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return bad("expected a whole number", "write a whole number such as '1000'")
		}
	case TypeDouble:
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return bad("expected a number", "write a number such as '0.5'")
		}
	case TypeDuration:
		if _, err := types.ParseDuration(s); err != nil {
			return bad("expected a duration", "write a number with a unit, such as '5 s', '10 min' or '1 d'")
		}
	case TypeMemorySize:
		if _, err := ParseMemorySize(s); err != nil {
			return bad("expected a memory size", "write a number with a unit, such as '128 mb' or '1 gb'")
		}
	case TypeEnum:
		if !slices.ContainsFunc(o.Values, func(x string) bool { return strings.EqualFold(x, s) }) {
			return NewOptionError(key, "'%s' = '%s' is not valid", key, v).WithHint("use one of: %s", strings.Join(o.Values, ", "))
		}
	}
	return nil
}

// ParseBool parses 'true' or 'false' (any case).
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false", s)
}

// ParseMemorySize parses Flink's memory sizes: a whole number with an
// optional unit (b, k/kb/kib, m/mb/mib, g/gb/gib, t/tb/tib, any case;
// powers of 1024, as in Flink). No unit means bytes.
func ParseMemorySize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("invalid memory size %q: expected a number with an optional unit such as '128 mb'", s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid memory size %q: %w", s, err)
	}
	unit := strings.ToLower(strings.TrimSpace(s[i:]))
	var mult int64
	switch unit {
	case "", "b", "bytes":
		mult = 1
	case "k", "kb", "kib", "kibibytes":
		mult = 1 << 10
	case "m", "mb", "mib", "mebibytes":
		mult = 1 << 20
	case "g", "gb", "gib", "gibibytes":
		mult = 1 << 30
	case "t", "tb", "tib", "tebibytes":
		mult = 1 << 40
	default:
		return 0, fmt.Errorf("invalid memory size %q: unknown unit %q (use b, kb, mb, gb or tb)", s, unit)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("invalid memory size %q: too large", s)
	}
	return n * mult, nil
}

// ParseDuration parses an option value in Flink's duration syntax ("5 s",
// "10 min"; no unit means milliseconds), as an *OptionError about key.
func ParseDuration(key, v string) (time.Duration, error) {
	d, err := types.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, NewOptionError(key, "Invalid value '%s' for option '%s': expected a duration", v, key).
			WithHint("write a number with a unit, such as '5 s', '10 min' or '1 d'")
	}
	return d, nil
}

// suggestOption returns a "did you mean" hint for an unknown key.
func suggestOption(key string, candidates []string) string {
	if s := sqlerr.Closest(key, candidates, 4); s != "" {
		return "did you mean '" + s + "'?"
	}
	return ""
}
