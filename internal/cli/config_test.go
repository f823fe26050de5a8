package cli

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResolveSettings(t *testing.T) {
	files := map[string]string{
		"full.properties":   "server=http://file\napi.key=file-key\napi.secret=file-secret\napplication.name=file-app\n",
		"server.properties": "server=http://file\n",
		"env.properties":    "server=http://env-file\n",
		"empty.properties":  "server=\n",
	}
	readFile := func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
	env := map[string]string{
		ServerEnv: "http://env", APIKeyEnv: "env-key", APISecretEnv: "env-secret", ApplicationNameEnv: "env-app",
	}
	for _, tc := range []struct {
		name  string
		flags map[string]string
		env   map[string]string
		want  Settings
		err   string
	}{{
		name: "environment only",
		env:  env,
		want: Settings{Server: "http://env", APIKey: "env-key", APISecret: "env-secret", ApplicationName: "env-app", Origins: map[string]string{
			"server": "$EDDY_SERVER", "api.key": "$EDDY_API_KEY", "api.secret": "$EDDY_API_SECRET", "application.name": "$EDDY_APPLICATION_NAME",
		}},
	}, {
		name:  "file beats environment",
		flags: map[string]string{"config": "full.properties"},
		env:   env,
		want: Settings{Server: "http://file", APIKey: "file-key", APISecret: "file-secret", ApplicationName: "file-app", Origins: map[string]string{
			"server": "server in full.properties", "api.key": "api.key in full.properties",
			"api.secret": "api.secret in full.properties", "application.name": "application.name in full.properties",
		}},
	}, {
		name:  "per setting: the file has only the server",
		flags: map[string]string{"config": "server.properties"},
		env:   env,
		want: Settings{Server: "http://file", APIKey: "env-key", APISecret: "env-secret", ApplicationName: "env-app", Origins: map[string]string{
			"server": "server in server.properties", "api.key": "$EDDY_API_KEY", "api.secret": "$EDDY_API_SECRET", "application.name": "$EDDY_APPLICATION_NAME",
		}},
	}, {
		name:  "flags beat the file",
		flags: map[string]string{"config": "full.properties", "server": "http://flag", "api-key": "flag-key", "api-secret": "flag-secret", "application-name": "flag-app"},
		env:   env,
		want: Settings{Server: "http://flag", APIKey: "flag-key", APISecret: "flag-secret", ApplicationName: "flag-app", Origins: map[string]string{
			"server": "--server", "api.key": "--api-key", "api.secret": "--api-secret", "application.name": "--application-name",
		}},
	}, {
		name:  "--config beats $EDDY_CONFIG",
		flags: map[string]string{"config": "server.properties"},
		env:   map[string]string{ConfigEnv: "env.properties"},
		want:  Settings{Server: "http://file", Origins: map[string]string{"server": "server in server.properties"}},
	}, {
		name: "$EDDY_CONFIG",
		env:  map[string]string{ConfigEnv: "env.properties", ServerEnv: "http://env"},
		want: Settings{Server: "http://env-file", Origins: map[string]string{"server": "server in env.properties"}},
	}, {
		name:  "an empty value does not count",
		flags: map[string]string{"config": "empty.properties"},
		env:   map[string]string{ServerEnv: "http://env"},
		want:  Settings{Server: "http://env", Origins: map[string]string{"server": "$EDDY_SERVER"}},
	}, {
		name: "nothing",
		want: Settings{Origins: map[string]string{}},
	}, {
		name:  "missing file",
		flags: map[string]string{"config": "nope.properties"},
		err:   "reading the properties file of --config: file does not exist",
	}, {
		name: "missing file from the environment",
		env:  map[string]string{ConfigEnv: "nope.properties"},
		err:  "reading the properties file of $EDDY_CONFIG: file does not exist",
	}, {
		name:  "key without secret",
		flags: map[string]string{"api-key": "k"},
		err:   "an API key is set (--api-key) but no secret: set --api-secret, api.secret or $EDDY_API_SECRET",
	}, {
		name: "secret without key",
		env:  map[string]string{APISecretEnv: "s"},
		err:  "an API secret is set ($EDDY_API_SECRET) but no key: set --api-key, api.key or $EDDY_API_KEY",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveSettings(SettingSources{
				Flags:     tc.flags,
				LookupEnv: func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok },
				ReadFile:  readFile,
			})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseProperties(t *testing.T) {
	got, err := parseProperties("p", `# comment
! also a comment
   server   =   http://a:8080/x
api.key:key=with=equals
api.secret secret\
     continued
application.name = caf\u00e9\tx
`)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"server":           "http://a:8080/x",
		"api.key":          "key=with=equals",
		"api.secret":       "secretcontinued",
		"application.name": "café\tx",
	}, got)

	_, err = parseProperties("p", "server=x\nsrever=y\n")
	require.EqualError(t, err, `p:2: unknown key "srever" (the keys are server, api.key, api.secret, application.name)`)
	_, err = parseProperties("p", `server=\u12`)
	require.ErrorContains(t, err, `p:1: malformed \uXXXX escape`)
	require.False(t, errors.Is(err, fs.ErrNotExist))
}
