package deploy

import (
	"strings"
)

// The properties file is read twice: here, for the keys this package adds
// (statement.name, on-conflict), and by internal/cli.ResolveSettings for the
// connection keys, which refuses keys it does not know. So the file is parsed
// here with every key, and ResolveSettings is given a copy that holds only
// its own keys. Both use internal/cli's parser (cli.ParseProperties).

// formatProperties writes the given keys of props as a properties file that
// cli.ParseProperties reads back unchanged.
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
