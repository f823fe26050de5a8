package cli

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// The environment variables of the connection settings.
const (
	ConfigEnv          = "EDDY_CONFIG"
	ServerEnv          = "EDDY_SERVER"
	APIKeyEnv          = "EDDY_API_KEY"
	APISecretEnv       = "EDDY_API_SECRET"
	ApplicationNameEnv = "EDDY_APPLICATION_NAME"
)

// setting is one connection setting: its key in a properties file, its
// flag and its environment variable.
type setting struct {
	key, flag, env string
}

// settings lists the connection settings in the order of Settings' fields.
var settings = []setting{
	{"server", "server", ServerEnv},
	{"api.key", "api-key", APIKeyEnv},
	{"api.secret", "api-secret", APISecretEnv},
	{"application.name", "application-name", ApplicationNameEnv},
}

// settingsHelp documents the precedence; it ends the --help of the commands
// that use a server.
const settingsHelp = `Connection settings (server, API key and secret, application name) are
taken, for each setting separately, from the first of:

  1. the flags --server, --api-key, --api-secret, --application-name;
  2. the properties file given by --config FILE, or else by $EDDY_CONFIG,
     with the keys server, api.key, api.secret and application.name
     (Java properties: "key=value" lines, '#' comments);
  3. the environment: $EDDY_SERVER, $EDDY_API_KEY, $EDDY_API_SECRET,
     $EDDY_APPLICATION_NAME.`

// Settings are the resolved connection settings of the statement commands
// and of eddy sql --server.
type Settings struct {
	Server          string
	APIKey          string
	APISecret       string
	ApplicationName string
	// Origins tells, by properties key ("server", "api.key", …), where
	// each set value came from: "--server", "server in FILE" or
	// "$EDDY_SERVER". Messages use it; it never holds a value.
	Origins map[string]string
}

// field returns the field of a setting by its properties key.
func (s *Settings) field(key string) *string {
	switch key {
	case "server":
		return &s.Server
	case "api.key":
		return &s.APIKey
	case "api.secret":
		return &s.APISecret
	case "application.name":
		return &s.ApplicationName
	}
	panic("unknown setting " + key)
}

// SettingSources are the inputs of ResolveSettings.
type SettingSources struct {
	// Flags holds the values of the flags that were given on the command
	// line, by flag name ("server", "api-key", "api-secret",
	// "application-name", "config"). Flags not given must be absent, so
	// that a flag's default never hides the file or the environment.
	Flags map[string]string
	// LookupEnv reads the environment.
	LookupEnv func(string) (string, bool)
	// ReadFile reads the properties file. Default: os.ReadFile.
	ReadFile func(string) ([]byte, error)
}

// ResolveSettings resolves the connection settings with one precedence for
// every setting: a flag beats the properties file, which beats the
// environment. The properties file is the --config flag's, or else
// $EDDY_CONFIG's; naming a file that cannot be read is an error. Empty
// values count as not set. Giving an API key without a secret, or a secret
// without a key, is an error.
func ResolveSettings(src SettingSources) (Settings, error) {
	s := Settings{Origins: map[string]string{}}
	lookup := src.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	readFile := src.ReadFile
	if readFile == nil {
		readFile = os.ReadFile
	}
	var file map[string]string
	path, pathOrigin := src.Flags["config"], "--config"
	if path == "" {
		path, _ = lookup(ConfigEnv)
		pathOrigin = "$" + ConfigEnv
	}
	if path != "" {
		b, err := readFile(path)
		if err != nil {
			return s, fmt.Errorf("reading the properties file of %s: %w", pathOrigin, err)
		}
		if file, err = parseProperties(path, string(b)); err != nil {
			return s, err
		}
	}
	for _, st := range settings {
		v, origin := src.Flags[st.flag], "--"+st.flag
		if v == "" {
			v, origin = file[st.key], st.key+" in "+path
		}
		if v == "" {
			v, _ = lookup(st.env)
			origin = "$" + st.env
		}
		if v = strings.TrimSpace(v); v != "" {
			*s.field(st.key) = v
			s.Origins[st.key] = origin
		}
	}
	switch {
	case s.APIKey != "" && s.APISecret == "":
		return s, fmt.Errorf("an API key is set (%s) but no secret: set --api-secret, api.secret or $%s", s.Origins["api.key"], APISecretEnv)
	case s.APIKey == "" && s.APISecret != "":
		return s, fmt.Errorf("an API secret is set (%s) but no key: set --api-key, api.key or $%s", s.Origins["api.secret"], APIKeyEnv)
	}
	return s, nil
}

// parseProperties reads a Java-style properties file: "key=value",
// "key: value" or "key value" per line, blanks around the key and the
// separator ignored, '#' and '!' comment lines, a trailing '\' continuing
// the value on the next line, and the escapes \t \n \r \f \\ \uXXXX.
// Unknown keys are an error: a misspelt key would otherwise be ignored in
// silence and the environment used instead.
func parseProperties(path, text string) (map[string]string, error) {
	known := make([]string, len(settings))
	for i, st := range settings {
		known[i] = st.key
	}
	return ParseProperties(path, text, known)
}

// ParseProperties reads a Java-style properties file as parseProperties
// does, accepting only the keys in known. Errors name path and the line.
func ParseProperties(path, text string, known []string) (map[string]string, error) {
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

// connFlags are the connection flags of a command.
type connFlags struct {
	server, apiKey, apiSecret, config string
}

// add registers the flags on fs.
func (c *connFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&c.server, "server", "", "server `URL` (or server= in the properties file, or $EDDY_SERVER)")
	fs.StringVar(&c.apiKey, "api-key", "", "API `KEY` (or api.key=, or $EDDY_API_KEY)")
	fs.StringVar(&c.apiSecret, "api-secret", "", "API `SECRET` (or api.secret=, or $EDDY_API_SECRET)")
	fs.StringVar(&c.config, "config", "", "properties `FILE` with the settings (default $EDDY_CONFIG)")
}

// given returns the values of the connection flags given on the command
// line, for ResolveSettings.
func (c *connFlags) given(fs *pflag.FlagSet) map[string]string {
	out := map[string]string{}
	for _, name := range []string{"server", "api-key", "api-secret", "config", "application-name"} {
		if f := fs.Lookup(name); f != nil && f.Changed {
			out[name] = f.Value.String()
		}
	}
	return out
}
