package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/spf13/pflag"
)

// APIKeyRemote is the server side of `eddy api-key`: with --server URL (or
// --config FILE) the commands manage the keys of a running server through
// its REST API (/v1/api-keys), authenticated by an existing key taken from
// the usual connection settings. The `eddy api-key` command itself lives
// with the server (it also opens data directories); this is injected into
// it, see server.CommandOptions.Remote.
type APIKeyRemote struct {
	opts Options
	conn connFlags
}

// NewAPIKeyRemote returns the remote half of `eddy api-key` writing its
// messages to opts.Stderr.
func NewAPIKeyRemote(opts Options) *APIKeyRemote {
	return &APIKeyRemote{opts: opts.withDefaults()}
}

// AddFlags registers --server, --api-key, --api-secret and --config.
func (r *APIKeyRemote) AddFlags(fs *pflag.FlagSet) { r.conn.add(fs) }

// Selected reports whether the command should ask a server: --server or
// --config was given. $EDDY_SERVER alone does not switch, as for eddy sql,
// so that a variable set for deployments does not redirect key management
// meant for a data directory.
func (r *APIKeyRemote) Selected(fs *pflag.FlagSet) bool {
	return fs.Changed("server") || fs.Changed("config")
}

// Connect resolves the connection settings and returns the server's keys
// and its URL.
func (r *APIKeyRemote) Connect(fs *pflag.FlagSet) (*RemoteKeys, string, error) {
	sc := &statementCmd{opts: r.opts, output: "table"}
	var err error
	sc.settings, err = ResolveSettings(SettingSources{Flags: r.conn.given(fs), LookupEnv: r.opts.LookupEnv})
	if err != nil {
		return nil, "", sc.failf("%v", err)
	}
	if sc.cl, err = newClient(sc.settings, r.opts.Version); err != nil {
		return nil, "", sc.failf("%v", err)
	}
	return &RemoteKeys{sc: sc}, sc.settings.Server, nil
}

// RemoteKeys manages a server's API keys. Its errors have been reported on
// stderr already (they are *ExitError).
type RemoteKeys struct{ sc *statementCmd }

// CreateKey creates a key; the result carries its secret.
func (k *RemoteKeys) CreateKey(ctx context.Context, description string) (v1.APIKey, error) {
	key, err := k.sc.cl.CreateAPIKey(ctx, description)
	if err != nil {
		return v1.APIKey{}, k.fail(err)
	}
	return *key, nil
}

// ListKeys lists the keys without secrets.
func (k *RemoteKeys) ListKeys(ctx context.Context) ([]v1.APIKey, error) {
	keys, err := k.sc.cl.ListAPIKeys(ctx)
	if err != nil {
		return nil, k.fail(err)
	}
	if keys == nil {
		keys = []v1.APIKey{}
	}
	return keys, nil
}

// DeleteKey revokes a key.
func (k *RemoteKeys) DeleteKey(ctx context.Context, id string) error {
	if err := k.sc.cl.DeleteAPIKey(ctx, id); err != nil {
		return k.fail(err)
	}
	return nil
}

func (k *RemoteKeys) fail(err error) error {
	if ce, ok := errors.AsType[*client.Error](err); ok && (ce.Code == v1.CodeLastAPIKey || ce.Status == http.StatusNotFound) {
		fmt.Fprintf(k.sc.opts.Stderr, "Error: %s\n", ce.Message)
		if ce.Suggestion != "" {
			fmt.Fprintf(k.sc.opts.Stderr, "Hint: %s\n", ce.Suggestion)
		}
		return &ExitError{Code: 1}
	}
	return k.sc.fail(err, "")
}
