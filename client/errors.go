package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// Error is an answer of the server outside 2xx.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the server's stable error code (v1.CodeNotFound, …); empty
	// when the answer was not an Eddy error body (a proxy's error page).
	Code string
	// Message says what went wrong.
	Message string
	// Suggestion says what to do about it, if the server knows.
	Suggestion string
	// Position is "line:column" in the statement's SQL for SQL errors.
	Position string
	// RequestID identifies the request in the server's logs.
	RequestID string
	// Details is the resource the error is about, when the server sends
	// it (the existing statement of ALREADY_EXISTS, the current one of
	// RESOURCE_VERSION_CONFLICT), as JSON.
	Details json.RawMessage
}

// Error returns "message (CODE)", or "HTTP 502: message" without a code.
func (e *Error) Error() string {
	msg := e.Message
	if e.Position != "" {
		msg = "at " + e.Position + ": " + msg
	}
	if e.Code == "" {
		return "HTTP " + strconv.Itoa(e.Status) + ": " + msg
	}
	return msg + " (" + e.Code + ")"
}

// decodeError turns an answer outside 2xx into an *Error.
func decodeError(resp *http.Response, body []byte) *Error {
	e := &Error{Status: resp.StatusCode}
	var er v1.ErrorResponse
	if json.Unmarshal(body, &er) == nil && er.Error.Code != "" {
		e.Code, e.Message = er.Error.Code, er.Error.Message
		e.Suggestion, e.Position = er.Error.Suggestion, er.Error.Position
		e.RequestID, e.Details = er.RequestID, er.Error.Details
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return e
	}
	e.Message = http.StatusText(resp.StatusCode)
	if text := strings.TrimSpace(string(body)); text != "" && utf8.ValidString(text) {
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		e.Message += ": " + strings.Join(strings.Fields(text), " ")
	}
	return e
}

// asError returns the *Error in err's chain.
func asError(err error) (*Error, bool) {
	e, ok := errors.AsType[*Error](err)
	return e, ok
}

// IsNotFound reports whether err says the statement does not exist (404).
func IsNotFound(err error) bool {
	e, ok := asError(err)
	return ok && (e.Status == http.StatusNotFound || e.Code == v1.CodeNotFound)
}

// IsExists reports whether err says a statement of that name already
// exists (409 ALREADY_EXISTS).
func IsExists(err error) bool {
	e, ok := asError(err)
	return ok && e.Code == v1.CodeAlreadyExists
}

// IsConflict reports whether err says the statement changed since it was
// read (409 RESOURCE_VERSION_CONFLICT): read it again and retry.
func IsConflict(err error) bool {
	e, ok := asError(err)
	return ok && e.Code == v1.CodeConflict
}

// IsUnauthorized reports whether the server refused the API key (401).
func IsUnauthorized(err error) bool {
	e, ok := asError(err)
	return ok && (e.Status == http.StatusUnauthorized || e.Code == v1.CodeUnauthorized)
}

// IsTransient reports whether err may go away if the request is made again:
// no answer at all (connection refused or reset), 5xx, 429 or 408. An
// error of a context that is done is not transient.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if _, ok := errors.AsType[*transportError](err); ok {
		return true
	}
	e, ok := asError(err)
	return ok && (e.Status >= 500 || e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout)
}
