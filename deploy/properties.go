package deploy

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The properties file is read twice: here, for the keys this package adds
// (statement.name, on-conflict), and by internal/cli.ResolveSettings for the
// connection keys, which refuses keys it does not know. So the file is parsed
// here with every key, and ResolveSettings is given a copy that holds only
// its own keys. The parser is a copy of internal/cli's (which is not
// exported); keep them in step.

// parseProperties reads a Java-style properties file: "key=value",
// "key: value" or "key value" per line, blanks around the key and the
// separator ignored, '#' and '!' comment lines, a trailing '\' continuing
// the value on the next line, and the escapes \t \n \r \f \\ \uXXXX.
// Unknown keys are an error.
func parseProperties(path, text string, known []string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		for continues(line) && sc.Scan() {
			lineNo++
			line = line[:len(line)-1] + strings.TrimLeft(sc.Text(), " \t\f")
		}
		key, value := splitProperty(line)
		key, err := unescapeProperty(key)
		if err == nil {
			value, err = unescapeProperty(value)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, start, err)
		}
		if !slices.Contains(known, key) {
			return nil, fmt.Errorf("%s:%d: unknown key %q (the keys are %s)", path, start, key, strings.Join(known, ", "))
		}
		out[key] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return out, nil
}

// continues reports whether a line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty cuts a logical line at the first unescaped '=', ':' or
// blank; blanks around the separator are dropped.
func splitProperty(line string) (key, value string) {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '=', ':':
			return line[:i], strings.TrimLeft(line[i+1:], " \t\f")
		case ' ', '\t', '\f':
			rest := strings.TrimLeft(line[i:], " \t\f")
			if rest != "" && (rest[0] == '=' || rest[0] == ':') {
				rest = strings.TrimLeft(rest[1:], " \t\f")
			}
			return line[:i], rest
		}
	}
	return line, ""
}

// unescapeProperty resolves the escapes of a properties key or value.
func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break
		}
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`malformed \uXXXX escape in %q`, s)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uXXXX escape in %q`, s)
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(c) // \\ \= \: \# \! and any other character stand for themselves
		}
	}
	if !utf8.ValidString(b.String()) {
		return "", fmt.Errorf("invalid UTF-8 in %q", s)
	}
	return b.String(), nil
}

// formatProperties writes the given keys of props as a properties file that
// parseProperties (and internal/cli's parser) reads back unchanged.
func formatProperties(props map[string]string, keys []string) []byte {
	var b strings.Builder
	for _, k := range keys {
		v, ok := props[k]
		if !ok {
			continue
		}
		b.WriteString(k)
		b.WriteByte('=')
		for i := 0; i < len(v); i++ {
			switch c := v[i]; c {
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\f':
				b.WriteString(`\f`)
			case ' ':
				if i == 0 {
					b.WriteString(`\ `)
				} else {
					b.WriteByte(' ')
				}
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
