package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultUserAgent is the User-Agent header sent unless UserAgent is given.
const DefaultUserAgent = "eddy-go-client"

// DefaultPollInterval is how long Await and a following result iterator
// wait before they ask the server again, at first. The wait grows by half
// after every poll that brings nothing new, up to five times the interval.
const DefaultPollInterval = time.Second

// maxBody bounds how much of a response body is read.
const maxBody = 64 << 20

// Client talks to one Eddy server. It is safe for concurrent use.
type Client struct {
	server    string // as given to Server
	base      *url.URL
	key       string
	secret    string
	hc        *http.Client
	userAgent string
	poll      time.Duration
}

// Option configures New.
type Option interface {
	apply(*Client)
}

type optionFunc func(*Client)

func (f optionFunc) apply(c *Client) { f(c) }

// Server sets the server's base URL, for example "https://eddy.example.com"
// or "http://localhost:8080". A path is kept as a prefix of every request
// path (a server behind a reverse proxy at /eddy). Required.
func Server(u string) Option {
	return optionFunc(func(c *Client) { c.server = strings.TrimSpace(u) })
}

// APIKey sets the API key and secret sent with every request (HTTP Basic
// authentication). Default: none; the server then answers 401 to everything
// but /healthz.
func APIKey(key, secret string) Option {
	return optionFunc(func(c *Client) { c.key, c.secret = key, secret })
}

// HTTPClient sets the HTTP client requests are made with (transport,
// proxies, TLS, an overall timeout). Default: a client without a timeout
// over http.DefaultTransport; deadlines come from the contexts.
func HTTPClient(hc *http.Client) Option {
	return optionFunc(func(c *Client) { c.hc = hc })
}

// UserAgent sets the User-Agent header. Default: DefaultUserAgent.
func UserAgent(ua string) Option {
	return optionFunc(func(c *Client) { c.userAgent = ua })
}

// PollInterval sets the first wait between two polls of Await, AwaitDeleted
// and a following result iterator. Default: DefaultPollInterval.
func PollInterval(d time.Duration) Option {
	return optionFunc(func(c *Client) { c.poll = d })
}

// New returns a client for the server given with Server.
func New(opts ...Option) (*Client, error) {
	c := &Client{userAgent: DefaultUserAgent, poll: DefaultPollInterval}
	for _, o := range opts {
		o.apply(c)
	}
	if c.server == "" {
		return nil, errors.New("client: no server URL (use client.Server)")
	}
	u, err := url.Parse(c.server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: server URL %q must start with http:// or https:// and name a host", c.server)
	}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if c.poll <= 0 {
		c.poll = DefaultPollInterval
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	c.base = u
	return c, nil
}

// ServerURL returns the server's base URL.
func (c *Client) ServerURL() string { return c.base.String() }

// endpoint returns the URL of path (escaped, starting with "/") with
// query q.
func (c *Client) endpoint(path string, q url.Values) string {
	u := c.base.String() + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// statementPath returns /v1/statements/{name}[suffix], with name escaped.
func statementPath(name, suffix string) string {
	return "/v1/statements/" + url.PathEscape(name) + suffix
}

// do sends a request with a JSON body (if in is not nil) and decodes a JSON
// response into out (if not nil and the body is not empty). An answer
// outside 2xx is returned as *Error.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	var body []byte
	contentType := ""
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("client: encoding request: %w", err)
		}
		body, contentType = b, "application/json"
	}
	return c.send(ctx, method, path, q, contentType, body, out)
}

// send sends a request with a body of contentType (none when "") and
// decodes a JSON response into out, as do.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, contentType string, in []byte, out any) error {
	var body io.Reader
	if contentType != "" {
		body = bytes.NewReader(in)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint(path, q), body)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if c.key != "" || c.secret != "" {
		req.SetBasicAuth(c.key, c.secret)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return &transportError{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return &transportError{err: fmt.Errorf("reading the response to %s %s: %w", method, path, err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(resp, b)
	}
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("client: decoding the response to %s %s: %w", method, path, err)
	}
	return nil
}

// transportError is a request that got no HTTP answer (connection refused,
// reset, DNS failure, context done).
type transportError struct{ err error }

func (e *transportError) Error() string { return "client: " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// pageToken returns the page token in a next link: the page_token query
// parameter when next is a URL with one, next itself otherwise.
func pageToken(next string) string {
	if next == "" {
		return ""
	}
	if strings.ContainsAny(next, "?/") {
		if u, err := url.Parse(next); err == nil {
			if t := u.Query().Get("page_token"); t != "" {
				return t
			}
		}
	}
	return next
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff returns the next poll interval: half as long again, at most five
// times the first.
func (c *Client) backoff(d time.Duration) time.Duration {
	return min(d+d/2, 5*c.poll)
}
