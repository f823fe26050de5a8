package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// Results returns one page of a statement's results, a changelog, from
// token ("" for the first page). The page's Metadata.Next is the token of
// the next page, "" when the results are complete; while the statement runs
// a page may be empty, and asking again with the same token later brings
// the rows produced meanwhile.
func (c *Client) Results(ctx context.Context, name, token string) (*v1.ResultPage, error) {
	if err := needName(name); err != nil {
		return nil, err
	}
	q := url.Values{}
	if token != "" {
		q.Set("page_token", token)
	}
	var out v1.ResultPage
	if err := c.do(ctx, http.MethodGet, statementPath(name, "/results"), q, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ResultRows returns an iterator over a statement's result changes from the
// first, following the pages. When a page is empty and the results are not
// complete (the statement is still running), it ends if follow is false:
// it has caught up with what the statement produced so far. With follow it
// polls again (PollInterval, with backoff while nothing comes) until the
// results are complete or ctx is done, retrying transient errors.
//
// An error is yielded once, as the last item. A ctx that is done ends a
// following iterator with ctx's error.
func (c *Client) ResultRows(ctx context.Context, name string, follow bool) iter.Seq2[v1.ResultRow, error] {
	return func(yield func(v1.ResultRow, error) bool) {
		token := ""
		interval := c.poll
		for {
			page, err := c.Results(ctx, name, token)
			if err != nil {
				if !follow || !IsTransient(err) || ctx.Err() != nil {
					yield(v1.ResultRow{}, err)
					return
				}
				if serr := sleep(ctx, interval); serr != nil {
					yield(v1.ResultRow{}, serr)
					return
				}
				interval = c.backoff(interval)
				continue
			}
			for _, r := range page.Results.Data {
				if !yield(r, nil) {
					return
				}
			}
			next := pageToken(page.Metadata.Next)
			if next == "" {
				return // complete
			}
			if len(page.Results.Data) > 0 {
				token, interval = next, c.poll
				continue
			}
			token = next
			if !follow {
				return // caught up
			}
			if err := sleep(ctx, interval); err != nil {
				yield(v1.ResultRow{}, err)
				return
			}
			interval = c.backoff(interval)
		}
	}
}
