package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// Errors of Await and AwaitDeleted; test for them with errors.Is.
var (
	// ErrTimeout is returned when the statement did not get where it was
	// awaited before the timeout.
	ErrTimeout = errors.New("client: timed out")
	// ErrFailed is returned when the awaited statement is FAILED.
	ErrFailed = errors.New("client: statement failed")
)

// TimeoutError is the error of Await and AwaitDeleted when their time is
// up; errors.Is(err, ErrTimeout) holds for it.
type TimeoutError struct {
	// Timeout is how long the wait was allowed to take.
	Timeout time.Duration
	// LastErr is the transient error of the last poll, if it failed (the
	// server was unreachable or answered 5xx when the time ran out).
	LastErr error
}

// Error returns "client: timed out after 15m0s[; last error: …]".
func (e *TimeoutError) Error() string {
	s := fmt.Sprintf("%v after %s", ErrTimeout, e.Timeout)
	if e.LastErr != nil {
		s += "; last error: " + e.LastErr.Error()
	}
	return s
}

// Is reports whether target is ErrTimeout.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// PhaseIn returns an Await condition that holds in any of the phases.
func PhaseIn(phases ...v1.Phase) func(v1.Phase) bool {
	return func(p v1.Phase) bool { return slices.Contains(phases, p) }
}

// Await polls a statement until until(phase) holds, and returns it. It ends
// early with ErrFailed when the statement is FAILED (unless until accepts
// FAILED), and with ErrTimeout when timeout (0: no limit besides ctx)
// passes first. In both cases it also returns the statement as last seen,
// so its status.detail can be shown.
//
// It polls every PollInterval at first, then less often (up to five times
// the interval) while nothing changes. Transient errors (no answer, 5xx,
// 429) do not end the wait: a server restarting or a flaky network is
// retried until the time is up, and the last such error is part of the
// timeout error. Other errors (404, 401) end it at once.
func (c *Client) Await(ctx context.Context, name string, until func(v1.Phase) bool, timeout time.Duration) (*v1.Statement, error) {
	if until == nil {
		return nil, errors.New("client: Await needs a condition")
	}
	var last *v1.Statement
	err := c.pollUntil(ctx, timeout, func(ctx context.Context) (bool, error) {
		st, err := c.GetStatement(ctx, name)
		if err != nil {
			return false, err
		}
		changed := last == nil || last.Status.Phase != st.Status.Phase || last.Status.Detail != st.Status.Detail
		last = st
		switch {
		case until(st.Status.Phase):
			return true, nil
		case st.Status.Phase == v1.Failed:
			return true, fmt.Errorf("%w: %s is FAILED: %s", ErrFailed, name, st.Status.Detail)
		}
		return changed, errNotYet
	})
	if errors.Is(err, ErrTimeout) && last != nil {
		err = fmt.Errorf("%w (it is %s)", err, last.Status.Phase)
	}
	return last, err
}

// AwaitDeleted polls a statement until the server answers 404 for it, or
// until timeout (0: no limit besides ctx). It retries transient errors as
// Await does.
func (c *Client) AwaitDeleted(ctx context.Context, name string, timeout time.Duration) error {
	return c.pollUntil(ctx, timeout, func(ctx context.Context) (bool, error) {
		_, err := c.GetStatement(ctx, name)
		switch {
		case IsNotFound(err):
			return true, nil
		case err != nil:
			return false, err
		}
		return false, errNotYet
	})
}

// errNotYet is returned by a poll step whose condition does not hold yet.
var errNotYet = errors.New("not yet")

// pollUntil calls step until it returns nil or an error other than errNotYet or
// a transient one, sleeping in between with backoff. progress (the first
// result of step) resets the backoff. timeout > 0 bounds the whole wait.
func (c *Client) pollUntil(ctx context.Context, timeout time.Duration, step func(context.Context) (progress bool, err error)) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, ErrTimeout)
		defer cancel()
	}
	interval := c.poll
	var lastTransient error
	for {
		progress, err := step(ctx)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, errNotYet):
			lastTransient = nil
		case ctx.Err() != nil:
			// The request failed because the time is up; fall through
			// to the check below.
		case IsTransient(err):
			lastTransient = err
		default:
			return err
		}
		if progress {
			interval = c.poll
		}
		if ctx.Err() == nil {
			_ = sleep(ctx, interval)
			interval = c.backoff(interval)
		}
		if ctx.Err() != nil {
			if !errors.Is(context.Cause(ctx), ErrTimeout) {
				return ctx.Err()
			}
			return &TimeoutError{Timeout: timeout, LastErr: lastTransient}
		}
	}
}
