package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/stretchr/testify/require"
)

// newClient returns a client of the fake with a short poll interval.
func newClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(append([]client.Option{
		client.Server(url), client.APIKey(fakeKey, fakeSecret), client.PollInterval(time.Millisecond),
	}, opts...)...)
	require.NoError(t, err)
	return c
}

func TestNew(t *testing.T) {
	_, err := client.New()
	require.EqualError(t, err, "client: no server URL (use client.Server)")
	for _, u := range []string{"localhost:8080", "ftp://x", "http://", "://x"} {
		_, err := client.New(client.Server(u))
		require.ErrorContains(t, err, "must start with http:// or https:// and name a host", u)
	}
	c, err := client.New(client.Server(" https://eddy.example.com/prefix/?x=1 "))
	require.NoError(t, err)
	require.Equal(t, "https://eddy.example.com/prefix", c.ServerURL())
}

func TestRequests(t *testing.T) {
	f, srv := newFake(t)
	c := newClient(t, srv.URL+"/", client.UserAgent("test-agent/1"))
	ctx := t.Context()

	st, err := c.CreateStatement(ctx, v1.Statement{
		Name:     "a",
		Metadata: v1.Metadata{Labels: map[string]string{"team": "data"}, UID: "ignored"},
		Spec:     v1.Spec{Statement: "SELECT 1", Properties: map[string]string{"k": "v"}},
		Status:   v1.Status{Phase: v1.Running},
	})
	require.NoError(t, err)
	require.Equal(t, v1.Pending, st.Status.Phase)
	require.Equal(t, "uid-a", st.Metadata.UID)
	require.JSONEq(t, `{"api_version":"sql/v1","kind":"Statement","name":"a",
		"metadata":{"created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z","labels":{"team":"data"}},
		"spec":{"statement":"SELECT 1","properties":{"k":"v"},"stopped":false},
		"status":{"phase":""}}`, f.bodies[0])

	_, err = c.CreateStatement(ctx, v1.Statement{Name: "a", Spec: v1.Spec{Statement: "SELECT 1"}})
	require.True(t, client.IsExists(err))
	require.False(t, client.IsConflict(err))
	ce, ok := errors.AsType[*client.Error](err)
	require.True(t, ok)
	require.Contains(t, string(ce.Details), `"name":"a"`, "the existing statement")

	got, err := c.GetStatement(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, "a", got.Name)
	_, err = c.GetStatement(ctx, "b/../a")
	require.True(t, client.IsNotFound(err))
	_, err = c.GetStatement(ctx, "")
	require.EqualError(t, err, "client: empty statement name")

	require.NoError(t, c.Health(ctx))
	require.Equal(t, []string{
		"POST /v1/statements", "POST /v1/statements", "GET /v1/statements/a", "GET /v1/statements/b%2F..%2Fa", "GET /healthz",
	}, f.requestLog())
	require.Equal(t, "test-agent/1", f.agents[0])
	require.Equal(t, fakeKey, f.auth[0])
}

func TestErrors(t *testing.T) {
	f, srv := newFake(t)
	ctx := t.Context()

	c, err := client.New(client.Server(srv.URL), client.APIKey("key", "wrong"))
	require.NoError(t, err)
	_, err = c.GetStatement(ctx, "a")
	require.True(t, client.IsUnauthorized(err))
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	require.Equal(t, client.Error{Status: 401, Code: v1.CodeUnauthorized, Message: "invalid API key", RequestID: "req-7"}, *ce)
	require.Equal(t, "invalid API key (UNAUTHORIZED)", err.Error())
	require.False(t, client.IsTransient(err))

	c = newClient(t, srv.URL)
	f.do(func() { f.failNext = []int{http.StatusBadGateway, http.StatusServiceUnavailable} })
	_, err = c.GetStatement(ctx, "a")
	require.EqualError(t, err, "HTTP 502: Bad Gateway: <html><body>502 Bad Gateway</body></html>")
	require.True(t, client.IsTransient(err))
	_, err = c.GetStatement(ctx, "a")
	require.True(t, client.IsTransient(err))
	require.False(t, client.IsNotFound(err))

	// No answer at all is transient too; a done context is not.
	c = newClient(t, "http://127.0.0.1:1")
	_, err = c.GetStatement(ctx, "a")
	require.True(t, client.IsTransient(err), "%v", err)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = newClient(t, srv.URL).GetStatement(cctx, "a")
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, client.IsTransient(err))

	require.Equal(t, "at 1:5: bad (INVALID_SQL)", (&client.Error{Status: 400, Code: v1.CodeInvalidSQL, Message: "bad", Position: "1:5"}).Error())
	require.False(t, client.IsNotFound(errors.New("x")))
}

func TestList(t *testing.T) {
	f, srv := newFake(t)
	c := newClient(t, srv.URL)
	ctx := t.Context()
	for _, n := range []string{"shop-a", "shop-b", "shop-c", "web-a", "shop-d"} {
		labels := map[string]string{"app": strings.Split(n, "-")[0]}
		if n == "shop-b" {
			labels["tier"] = "gold"
		}
		_, err := c.CreateStatement(ctx, v1.Statement{Name: n, Metadata: v1.Metadata{Labels: labels}, Spec: v1.Spec{Statement: "SELECT 1"}})
		require.NoError(t, err)
	}
	f.do(func() { f.pageSize = 2; f.stmts["shop-c"].Status.Phase = v1.Running })

	page, next, err := c.ListStatements(ctx, client.Filter{NamePrefix: "shop-"}, 0, "")
	require.NoError(t, err)
	require.Equal(t, []string{"shop-a", "shop-b"}, names(page))
	require.Equal(t, "shop-b", next, "the page token of the next link")
	page, next, err = c.ListStatements(ctx, client.Filter{NamePrefix: "shop-"}, 0, next)
	require.NoError(t, err)
	require.Equal(t, []string{"shop-c", "shop-d"}, names(page))
	require.Equal(t, "", next)

	all, err := c.ListAll(ctx, client.Filter{})
	require.NoError(t, err)
	require.Equal(t, []string{"shop-a", "shop-b", "shop-c", "shop-d", "web-a"}, names(all))
	all, err = c.ListAll(ctx, client.Filter{Labels: map[string]string{"app": "shop", "tier": "gold"}})
	require.NoError(t, err)
	require.Equal(t, []string{"shop-b"}, names(all))
	all, err = c.ListAll(ctx, client.Filter{Phase: v1.Running})
	require.NoError(t, err)
	require.Equal(t, []string{"shop-c"}, names(all))
	require.Contains(t, f.requestLog(), "GET /v1/statements?label_selector=app%3Dshop%2Ctier%3Dgold&page_size=100")
	require.Contains(t, f.requestLog(), "GET /v1/statements?page_size=100&phase=RUNNING")
}

func names(list []v1.Statement) []string {
	out := []string{}
	for _, st := range list {
		out = append(out, st.Name)
	}
	return out
}

func TestStopResume(t *testing.T) {
	f, srv := newFake(t)
	c := newClient(t, srv.URL)
	ctx := t.Context()
	_, err := c.CreateStatement(ctx, v1.Statement{Name: "a", Spec: v1.Spec{Statement: "INSERT INTO t SELECT 1", Properties: map[string]string{"k": "v"}}})
	require.NoError(t, err)

	st, err := c.StopStatement(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, v1.Stopping, st.Status.Phase)
	require.True(t, st.Spec.Stopped)
	// The PUT carries the resource version read and the whole spec.
	require.JSONEq(t, `{"name":"a","metadata":{"created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z","resource_version":"1"},
		"spec":{"statement":"INSERT INTO t SELECT 1","properties":{"k":"v"},"stopped":true}}`, f.bodies[len(f.bodies)-1])

	// Someone else writes in between twice: read again and retry.
	f.do(func() { f.conflict = 2; f.phases["a"] = []v1.Phase{v1.Stopped} })
	st, err = c.ResumeStatement(ctx, "a")
	require.NoError(t, err)
	require.False(t, st.Spec.Stopped)
	require.Equal(t, []string{"GET", "PUT", "GET", "PUT", "GET", "PUT"}, methods(f.requestLog()[len(f.requestLog())-6:]))

	// Always changing: give up after five attempts.
	f.do(func() { f.conflict = 100 })
	_, err = c.StopStatement(ctx, "a")
	require.True(t, client.IsConflict(err))
	require.ErrorContains(t, err, "kept changing; gave up after 5 attempts")

	_, err = c.StopStatement(ctx, "nope")
	require.True(t, client.IsNotFound(err))

	// A resume while the statement is still STOPPING waits until it is
	// STOPPED (the server refuses to resume a STOPPING statement).
	f.do(func() { f.conflict = 0 })
	_, err = c.StopStatement(ctx, "a")
	require.NoError(t, err)
	f.do(func() { f.phases["a"] = []v1.Phase{v1.Stopping, v1.Stopping, v1.Stopped} })
	st, err = c.ResumeStatement(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, v1.Pending, st.Status.Phase)
	require.Equal(t, []string{"GET", "GET", "GET", "PUT"}, methods(f.requestLog()[len(f.requestLog())-4:]))
}

func methods(reqs []string) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i], _, _ = strings.Cut(r, " ")
	}
	return out
}

func TestDeleteAndExceptions(t *testing.T) {
	f, srv := newFake(t)
	c := newClient(t, srv.URL)
	ctx := t.Context()
	_, err := c.CreateStatement(ctx, v1.Statement{Name: "a", Spec: v1.Spec{Statement: "SELECT 1"}})
	require.NoError(t, err)
	ex := v1.Exception{Kind: "StatementException", Name: "RUNTIME_ERROR", Message: "boom", Timestamp: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)}
	f.do(func() { f.excs["a"] = []v1.Exception{ex}; f.gone["a"] = 2 })
	exs, err := c.Exceptions(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, []v1.Exception{ex}, exs)

	require.NoError(t, c.DeleteStatement(ctx, "a"))
	require.NoError(t, c.AwaitDeleted(ctx, "a", time.Second))
	require.Equal(t, []string{"GET", "GET", "GET"}, methods(f.requestLog()[len(f.requestLog())-3:]))
	require.True(t, client.IsNotFound(c.DeleteStatement(ctx, "a")))
	_, err = c.Exceptions(ctx, "a")
	require.True(t, client.IsNotFound(err))
}

func TestAwait(t *testing.T) {
	f, srv := newFake(t)
	c := newClient(t, srv.URL)
	ctx := t.Context()
	create := func(name string, phases ...v1.Phase) {
		t.Helper()
		_, err := c.CreateStatement(ctx, v1.Statement{Name: name, Spec: v1.Spec{Statement: "SELECT 1"}})
		require.NoError(t, err)
		f.do(func() { f.phases[name] = phases })
	}

	// Through intermediate and unknown phases, and transient errors.
	create("ok", v1.Pending, "RESUMING", v1.Pending, v1.Running)
	f.do(func() { f.failNext = []int{503, 502, 500, 429} })
	st, err := c.Await(ctx, "ok", client.PhaseIn(v1.Running, v1.Completed), 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, v1.Running, st.Status.Phase)

	// FAILED ends the wait, with the statement.
	create("bad", v1.Pending, v1.Failing, v1.Failed)
	st, err = c.Await(ctx, "bad", client.PhaseIn(v1.Running), time.Minute)
	require.ErrorIs(t, err, client.ErrFailed)
	require.Equal(t, v1.Failed, st.Status.Phase)
	require.EqualError(t, err, "client: statement failed: bad is FAILED: now FAILED")
	// Unless FAILED is what is awaited.
	_, err = c.Await(ctx, "bad", client.PhaseIn(v1.Failed), time.Minute)
	require.NoError(t, err)

	// The time runs out.
	create("slow", v1.Pending)
	st, err = c.Await(ctx, "slow", client.PhaseIn(v1.Running), 30*time.Millisecond)
	require.ErrorIs(t, err, client.ErrTimeout)
	require.Equal(t, v1.Pending, st.Status.Phase)
	require.EqualError(t, err, "client: timed out after 30ms (it is PENDING)")

	// The time runs out while the server fails: the last error is kept.
	f.do(func() {
		f.failNext = make([]int, 1_000_000)
		for i := range f.failNext {
			f.failNext[i] = 503
		}
	})
	st, err = c.Await(ctx, "slow", client.PhaseIn(v1.Running), 30*time.Millisecond)
	require.Nil(t, st)
	te, ok := errors.AsType[*client.TimeoutError](err)
	require.True(t, ok)
	require.True(t, client.IsTransient(te.LastErr))
	require.Equal(t, "client: timed out after 30ms; last error: Service Unavailable (INTERNAL_ERROR)", err.Error())
	require.False(t, client.IsTransient(err))
	f.do(func() { f.failNext = nil })

	// 404 and 401 end it at once.
	_, err = c.Await(ctx, "nope", client.PhaseIn(v1.Running), time.Minute)
	require.True(t, client.IsNotFound(err))
	anon, err := client.New(client.Server(srv.URL))
	require.NoError(t, err)
	_, err = anon.Await(ctx, "ok", client.PhaseIn(v1.Running), time.Minute)
	require.True(t, client.IsUnauthorized(err))

	// The caller's context ends it with its error.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = c.Await(cctx, "slow", client.PhaseIn(v1.Running), 0)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotErrorIs(t, err, client.ErrTimeout)

	_, err = c.Await(ctx, "ok", nil, 0)
	require.Error(t, err)

	// AwaitDeleted times out too.
	err = c.AwaitDeleted(ctx, "slow", 20*time.Millisecond)
	require.ErrorIs(t, err, client.ErrTimeout)
}

func TestResults(t *testing.T) {
	f, srv := newFake(t)
	c := newClient(t, srv.URL)
	ctx := t.Context()
	_, err := c.CreateStatement(ctx, v1.Statement{Name: "q", Spec: v1.Spec{Statement: "SELECT * FROM t"}})
	require.NoError(t, err)
	row := func(op int, v string) v1.ResultRow { return v1.ResultRow{Op: op, Row: []any{v}} }
	f.do(func() { f.rows["q"] = []v1.ResultRow{row(0, "a"), row(0, "b"), row(0, "c")} })

	page, err := c.Results(ctx, "q", "")
	require.NoError(t, err)
	require.Equal(t, []v1.ResultRow{row(0, "a"), row(0, "b")}, page.Results.Data)
	require.Equal(t, "2", page.Metadata.Next)

	collect := func(ctx context.Context, follow bool) ([]string, error) {
		var out []string
		for r, err := range c.ResultRows(ctx, "q", follow) {
			if err != nil {
				return out, err
			}
			out = append(out, r.Row[0].(string))
		}
		return out, nil
	}
	// Without follow: what is there, then stop (caught up).
	got, err := collect(ctx, false)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c"}, got)

	// With follow: wait for more until complete.
	go func() {
		time.Sleep(20 * time.Millisecond)
		f.do(func() { f.rows["q"] = append(f.rows["q"], row(3, "a")) })
		time.Sleep(20 * time.Millisecond)
		f.do(func() { f.complete["q"] = true; f.failNext = []int{503} })
	}()
	got, err = collect(ctx, true)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "a"}, got)

	// A following iterator ends with the context's error.
	f.do(func() { f.complete["q"] = false })
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	got, err = collect(cctx, true)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Len(t, got, 4)

	// Breaking out of the loop is fine.
	for range c.ResultRows(ctx, "q", true) {
		break
	}
	_, err = collect(ctx, false)
	require.NoError(t, err)
	_, err = c.Results(ctx, "nope", "")
	require.True(t, client.IsNotFound(err))
}
