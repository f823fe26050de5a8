package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/internal/statement"
)

// apiError is an error answered to the client as a v1.ErrorResponse.
type apiError struct {
	status     int
	code       string
	message    string
	suggestion string
	position   string
	details    any
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func invalid(message, suggestion string) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, code: v1.CodeInvalid, message: message, suggestion: suggestion}
}

func badRequest(message, suggestion string) *apiError {
	return &apiError{status: http.StatusBadRequest, code: v1.CodeInvalid, message: message, suggestion: suggestion}
}

// writeJSON writes v with status. HTML escaping is off so that URLs in
// metadata.next read as they are ("&", not "\u0026").
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only wire types are written; they always marshal.
		http.Error(w, `{"status":500,"error":{"code":"INTERNAL_ERROR","message":"encoding the response failed"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// writeError answers e as a v1.ErrorResponse carrying the request id.
func (s *Server) writeError(w http.ResponseWriter, e apiError) {
	body := v1.ErrorResponse{
		Status:    e.status,
		RequestID: w.Header().Get("X-Request-Id"),
		Error: v1.ErrorBody{
			Code: e.code, Message: e.message, Suggestion: e.suggestion, Position: e.position,
		},
	}
	if e.details != nil {
		if b, err := json.Marshal(e.details); err == nil {
			body.Error.Details = b
		}
	}
	writeJSON(w, e.status, body)
}

// fail answers err: an *apiError as it is, a SQL error as 400 INVALID_SQL
// with its position, the manager's errors with their statuses, and
// anything else as 500 (logged, not shown).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if ae, ok := errors.AsType[*apiError](err); ok {
		s.writeError(w, *ae)
		return
	}
	if errors.Is(err, statement.ErrIncompatibleState) {
		e := apiError{status: http.StatusConflict, code: v1.CodeIncompatibleState, message: trimSentinel(err, statement.ErrIncompatibleState)}
		if se, ok := sqlerr.As(err); ok {
			e.message, e.suggestion = se.Message, se.Hint
		}
		s.writeError(w, e)
		return
	}
	if se, ok := sqlerr.As(err); ok {
		e := apiError{status: http.StatusBadRequest, code: v1.CodeInvalidSQL, message: se.Message, suggestion: se.Hint}
		if se.Pos.IsValid() {
			e.position = se.Pos.String()
		}
		if e.suggestion == "" {
			e.suggestion = "Fix the SQL at the given position and send the request again."
		}
		s.writeError(w, e)
		return
	}
	switch {
	case errors.Is(err, statement.ErrNotFound):
		s.writeError(w, apiError{status: http.StatusNotFound, code: v1.CodeNotFound,
			message:    "Statement '" + r.PathValue("name") + "' does not exist.",
			suggestion: "List the statements with GET /v1/statements."})
	case errors.Is(err, statement.ErrConflict):
		s.writeError(w, apiError{status: http.StatusConflict, code: v1.CodeConflict,
			message:    trimSentinel(err, statement.ErrConflict),
			suggestion: "GET the statement, apply your change to its current metadata.resource_version and retry."})
	case errors.Is(err, statement.ErrExists):
		s.writeError(w, apiError{status: http.StatusConflict, code: v1.CodeAlreadyExists, message: "The statement already exists."})
	case errors.Is(err, statement.ErrInvalid):
		s.writeError(w, *invalid(trimSentinel(err, statement.ErrInvalid), ""))
	default:
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			s.writeError(w, apiError{status: http.StatusRequestEntityTooLarge, code: v1.CodeTooLarge,
				message:    "The request body is larger than the limit of " + formatBytes(s.opts.MaxBodyBytes) + ".",
				suggestion: "Send a smaller request; statements are limited in size."})
			return
		}
		id := w.Header().Get("X-Request-Id")
		s.logger.Error("request failed", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		s.writeError(w, apiError{status: http.StatusInternalServerError, code: v1.CodeInternal,
			message: "Internal error.", suggestion: "See the server log for request " + id + "."})
	}
}

// trimSentinel drops the "statement: ...: " prefix of a sentinel from a
// wrapped error's text.
func trimSentinel(err, sentinel error) string {
	msg := strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}
