package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
)

// ErrDataDirInUse is wrapped by the error of Options.OpenEngine and
// Options.OpenStatements when another process holds the data directory.
// The command line then attaches to that process through the data
// directory's socket (v1.SocketPath).
var ErrDataDirInUse = errors.New("the data directory is in use by another process")

// StatementFailure returns the error of a statement that FAILED, from its
// detail: the message, and the line:column and hint of a SQL error.
func StatementFailure(st *v1.Statement) error { return failedStatementError(st) }

// statementClienter is implemented by engines whose statements can be
// managed through the REST API (the embedded session in-process, a server,
// the process a shell is attached to): SHOW JOBS and STOP JOB use it.
type statementClienter interface {
	StatementClient() *client.Client
}

// noticer is implemented by engines that tell the shell what runs in the
// background: when the session opens (statements that resumed) and when
// it ends (statements that keep running or resume later).
type noticer interface {
	OpenNotice() string
	ExitNotice() string
}

// localHost is the host name of requests over a data directory's socket.
const localHost = "eddy.sock"

// dialLocal connects to the process holding data directory dir through its
// socket and asks who it is.
func dialLocal(ctx context.Context, dir, version string) (*client.Client, v1.Owner, error) {
	path := v1.SocketPath(dir)
	if err := checkSocketOwner(path); err != nil {
		return nil, v1.Owner{}, fmt.Errorf("no eddy process of this user serves the data directory's socket %s (%v)", path, err)
	}
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}}
	var owner v1.Owner
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+localHost+v1.OwnerPath, nil)
	if err != nil {
		return nil, owner, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, owner, fmt.Errorf("no eddy process answers on the data directory's socket %s (%v)", path, unwrapURLError(err))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return nil, owner, fmt.Errorf("the data directory's socket %s refused this process: %s %s", path, resp.Status, strings.TrimSpace(string(b)))
	}
	if err := json.Unmarshal(b, &owner); err != nil {
		return nil, owner, fmt.Errorf("reading the owner of the data directory's socket %s: %w", path, err)
	}
	cl, err := client.New(client.Server("http://"+localHost), client.HTTPClient(hc),
		client.UserAgent("eddy-cli/"+version), client.PollInterval(statementPollInterval))
	return cl, owner, err
}

func unwrapURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	if oe, ok := errors.AsType[*net.OpError](err); ok {
		err = oe.Err
	}
	return err
}

// ownerText names the process holding a data directory: "eddy sql (pid
// 123, user ann)" or "eddy server (pid 123, user ann, serving
// 127.0.0.1:8080)".
func ownerText(o v1.Owner) string {
	parts := []string{fmt.Sprintf("pid %d", o.PID)}
	if o.User != "" {
		parts = append(parts, "user "+o.User)
	}
	if o.Listen != "" {
		parts = append(parts, "serving "+o.Listen)
	}
	return fmt.Sprintf("%s (%s)", o.Command, strings.Join(parts, ", "))
}

// attachedMessage is what a client attached to another process says first.
func attachedMessage(o v1.Owner, dir string) string {
	return fmt.Sprintf("[INFO] The data directory %s is held by %s: attached to it through %s.\n"+
		"[INFO] Statements run in that process and keep running when this one ends; SHOW JOBS lists them.\n",
		dir, ownerText(o), v1.SocketPath(dir))
}
