package client

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// CreateStatement creates a statement from st's Name, Spec (statement,
// properties, stopped) and Metadata.Labels; the other fields are the
// server's. It returns the statement as created, usually PENDING (or
// STOPPED when Spec.Stopped is set). A name that exists gives an error for
// which IsExists is true.
func (c *Client) CreateStatement(ctx context.Context, st v1.Statement) (*v1.Statement, error) {
	body := v1.Statement{
		APIVersion: v1.APIVersion,
		Kind:       "Statement",
		Name:       st.Name,
		Metadata:   v1.Metadata{Labels: st.Metadata.Labels},
		Spec:       st.Spec,
	}
	var out v1.Statement
	if err := c.do(ctx, http.MethodPost, "/v1/statements", nil, body, &out); err != nil {
		return nil, err
	}
	if out.Name == "" { // a 201 without a body
		return c.GetStatement(ctx, st.Name)
	}
	return &out, nil
}

// GetStatement returns a statement.
func (c *Client) GetStatement(ctx context.Context, name string) (*v1.Statement, error) {
	if err := needName(name); err != nil {
		return nil, err
	}
	var out v1.Statement
	if err := c.do(ctx, http.MethodGet, statementPath(name, ""), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Filter selects statements in ListStatements and ListAll. The zero Filter
// selects all.
type Filter struct {
	// NamePrefix keeps the statements whose names start with it (an
	// application's statements: "app-").
	NamePrefix string
	// Labels keeps the statements that have all these labels.
	Labels map[string]string
	// Phase keeps the statements in this phase.
	Phase v1.Phase
}

func (f Filter) query() url.Values {
	q := url.Values{}
	if f.NamePrefix != "" {
		q.Set("name_prefix", f.NamePrefix)
	}
	if len(f.Labels) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(f.Labels)) {
			parts = append(parts, k+"="+f.Labels[k])
		}
		q.Set("label_selector", strings.Join(parts, ","))
	}
	if f.Phase != "" {
		q.Set("phase", string(f.Phase))
	}
	return q
}

// ListStatements returns one page of the statements that f selects, sorted
// by name, and the token of the next page ("" on the last page). pageSize
// 0 lets the server choose; pageToken "" asks for the first page.
func (c *Client) ListStatements(ctx context.Context, f Filter, pageSize int, pageToken string) ([]v1.Statement, string, error) {
	q := f.query()
	if pageSize > 0 {
		q.Set("page_size", strconv.Itoa(pageSize))
	}
	if pageToken != "" {
		q.Set("page_token", pageToken)
	}
	var out v1.StatementList
	if err := c.do(ctx, http.MethodGet, "/v1/statements", q, nil, &out); err != nil {
		return nil, "", err
	}
	return out.Data, nextToken(out.Metadata.Next, pageToken), nil
}

// nextToken returns the token of the next page, guarding against a server
// that returns the same token again (which would loop forever).
func nextToken(next, current string) string {
	t := pageToken(next)
	if t != "" && t == current {
		return ""
	}
	return t
}

// ListAll returns every statement that f selects, following the pages.
func (c *Client) ListAll(ctx context.Context, f Filter) ([]v1.Statement, error) {
	var all []v1.Statement
	token := ""
	for {
		page, next, err := c.ListStatements(ctx, f, 100, token)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if next == "" {
			return all, nil
		}
		token = next
	}
}

// maxUpdateAttempts is how often StopStatement and ResumeStatement read and
// write the statement when other writers keep changing it.
const maxUpdateAttempts = 5

// StopStatement asks the server to stop a statement (spec.stopped = true)
// and returns it as updated, typically STOPPING; a stopped statement keeps
// its state and resumes from its last checkpoint.
func (c *Client) StopStatement(ctx context.Context, name string) (*v1.Statement, error) {
	return c.setStopped(ctx, name, true)
}

// ResumeStatement asks the server to run a stopped statement again
// (spec.stopped = false) and returns it as updated. A statement that is
// still STOPPING cannot be resumed yet: ResumeStatement waits until it is
// not (polling as Await does, for at most MaxStoppingWait).
func (c *Client) ResumeStatement(ctx context.Context, name string) (*v1.Statement, error) {
	return c.setStopped(ctx, name, false)
}

// MaxStoppingWait bounds how long ResumeStatement waits for a statement
// that is still STOPPING (taking its final checkpoint) before it can be
// resumed.
const MaxStoppingWait = 5 * time.Minute

// setStopped reads the statement and writes spec.stopped with the
// resource_version it read, again when the server answers that the
// statement changed in between. A resume waits first while the statement
// is STOPPING, which the server does not resume.
func (c *Client) setStopped(ctx context.Context, name string, stopped bool) (*v1.Statement, error) {
	var err error
	for attempt := range maxUpdateAttempts {
		if attempt > 0 {
			if serr := sleep(ctx, time.Duration(attempt)*50*time.Millisecond); serr != nil {
				return nil, serr
			}
		}
		var st *v1.Statement
		if st, err = c.GetStatement(ctx, name); err != nil {
			return nil, err
		}
		if !stopped && st.Status.Phase == v1.Stopping {
			if st, err = c.awaitStopped(ctx, name); err != nil {
				return nil, err
			}
		}
		req := v1.UpdateRequest{
			Name:     st.Name,
			Metadata: v1.Metadata{ResourceVersion: st.Metadata.ResourceVersion},
			Spec:     st.Spec,
		}
		req.Spec.Stopped = stopped
		var out v1.Statement
		err = c.do(ctx, http.MethodPut, statementPath(name, ""), nil, req, &out)
		if err == nil {
			if out.Name == "" { // a 202 without a body
				return c.GetStatement(ctx, name)
			}
			return &out, nil
		}
		if !IsConflict(err) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("client: statement %s kept changing; gave up after %d attempts: %w", name, maxUpdateAttempts, err)
}

// awaitStopped waits until a STOPPING statement is in another phase.
func (c *Client) awaitStopped(ctx context.Context, name string) (*v1.Statement, error) {
	st, err := c.Await(ctx, name, func(p v1.Phase) bool { return p != v1.Stopping }, MaxStoppingWait)
	if errors.Is(err, ErrTimeout) {
		return nil, fmt.Errorf("client: statement %s is still STOPPING after %s; resume it once it is STOPPED: %w", name, MaxStoppingWait, err)
	}
	return st, err
}

// DeleteStatement asks the server to delete a statement: it is stopped, its
// state is dropped and it goes away (AwaitDeleted waits for that).
func (c *Client) DeleteStatement(ctx context.Context, name string) error {
	if err := needName(name); err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, statementPath(name, ""), nil, nil, nil)
}

// Exceptions returns the latest exceptions of a statement, newest first.
func (c *Client) Exceptions(ctx context.Context, name string) ([]v1.Exception, error) {
	if err := needName(name); err != nil {
		return nil, err
	}
	var out v1.ExceptionList
	if err := c.do(ctx, http.MethodGet, statementPath(name, "/exceptions"), nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// Health asks GET /healthz, which needs no API key.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil, nil)
}

// needName rejects an empty statement name, which would address the
// collection instead of a statement.
func needName(name string) error {
	if name == "" {
		return errors.New("client: empty statement name")
	}
	return nil
}

// ReplaceStatement replaces the spec of an existing statement in one step
// on the server. The server carries the old statement's state and source
// positions over when every stateful PTF call keeps its uid and state
// types (resp.StateCarried), and explains otherwise (resp.Reason); an
// identical spec changes nothing (resp.Unchanged).
func (c *Client) ReplaceStatement(ctx context.Context, st v1.Statement) (*v1.ReplaceResponse, error) {
	if err := needName(st.Name); err != nil {
		return nil, err
	}
	var out v1.ReplaceResponse
	if err := c.do(ctx, http.MethodPost, statementPath(st.Name, "/replace"), nil, st, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
