package cli

import (
	"context"
	"errors"
	"fmt"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/spf13/pflag"
)

// ArtifactRemote is the server side of `eddy artifact`, as APIKeyRemote is
// for `eddy api-key`: with --server URL (or --config FILE) the commands
// manage a running server's artifacts through its REST API (/v1/artifacts).
// It is injected into the command, see server.CommandOptions.Artifacts.
type ArtifactRemote struct {
	opts Options
	conn connFlags
}

// NewArtifactRemote returns the remote half of `eddy artifact`.
func NewArtifactRemote(opts Options) *ArtifactRemote {
	return &ArtifactRemote{opts: opts.withDefaults()}
}

// AddFlags registers --server, --api-key, --api-secret and --config.
func (r *ArtifactRemote) AddFlags(fs *pflag.FlagSet) { r.conn.add(fs) }

// Selected reports whether --server or --config was given.
func (r *ArtifactRemote) Selected(fs *pflag.FlagSet) bool {
	return fs.Changed("server") || fs.Changed("config")
}

// Connect resolves the connection settings and returns the server's
// artifacts and its URL.
func (r *ArtifactRemote) Connect(fs *pflag.FlagSet) (*RemoteArtifacts, string, error) {
	sc := &statementCmd{opts: r.opts, output: "table"}
	var err error
	sc.settings, err = ResolveSettings(SettingSources{Flags: r.conn.given(fs), LookupEnv: r.opts.LookupEnv})
	if err != nil {
		return nil, "", sc.failf("%v", err)
	}
	if sc.cl, err = newClient(sc.settings, r.opts.Version); err != nil {
		return nil, "", sc.failf("%v", err)
	}
	return &RemoteArtifacts{sc: sc}, sc.settings.Server, nil
}

// RemoteArtifacts manages a server's artifacts. Its errors have been
// reported on stderr already (they are *ExitError).
type RemoteArtifacts struct{ sc *statementCmd }

// CreateArtifact uploads a module as a new artifact.
func (a *RemoteArtifacts) CreateArtifact(ctx context.Context, name, description string, module []byte) (v1.Artifact, error) {
	x, err := a.sc.cl.CreateArtifact(ctx, name, description, module)
	if err != nil {
		return v1.Artifact{}, a.fail(err)
	}
	return *x, nil
}

// AddArtifactVersion uploads a module as an artifact's next version.
func (a *RemoteArtifacts) AddArtifactVersion(ctx context.Context, id string, module []byte, description *string) (v1.Artifact, error) {
	x, err := a.sc.cl.AddArtifactVersion(ctx, id, module, description)
	if err != nil {
		return v1.Artifact{}, a.fail(err)
	}
	return *x, nil
}

// ListArtifacts lists the artifacts.
func (a *RemoteArtifacts) ListArtifacts(ctx context.Context) ([]v1.Artifact, error) {
	all, err := a.sc.cl.ListArtifacts(ctx)
	if err != nil {
		return nil, a.fail(err)
	}
	if all == nil {
		all = []v1.Artifact{}
	}
	return all, nil
}

// GetArtifact returns an artifact.
func (a *RemoteArtifacts) GetArtifact(ctx context.Context, id string) (v1.Artifact, error) {
	x, err := a.sc.cl.GetArtifact(ctx, id)
	if err != nil {
		return v1.Artifact{}, a.fail(err)
	}
	return *x, nil
}

// DeleteArtifact deletes an artifact.
func (a *RemoteArtifacts) DeleteArtifact(ctx context.Context, id string) error {
	if err := a.sc.cl.DeleteArtifact(ctx, id); err != nil {
		return a.fail(err)
	}
	return nil
}

// fail reports the server's refusals (in use, not found, invalid module,
// name taken) with its message and hint.
func (a *RemoteArtifacts) fail(err error) error {
	if ce, ok := errors.AsType[*client.Error](err); ok && ce.Status >= 400 && ce.Status < 500 && ce.Status != 401 {
		fmt.Fprintf(a.sc.opts.Stderr, "Error: %s\n", ce.Message)
		if ce.Suggestion != "" {
			fmt.Fprintf(a.sc.opts.Stderr, "Hint: %s\n", ce.Suggestion)
		}
		return &ExitError{Code: 1}
	}
	return a.sc.fail(err, "")
}
