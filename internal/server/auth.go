package server

import (
	"net/http"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// authenticate checks the API key and secret of r (HTTP Basic auth) and
// records the key id in req. On failure it answers 401 and returns false.
// A missing key, an unknown key and a wrong secret get the same answer, so
// that the response tells nothing about which keys exist. Neither the
// secret nor the key id of a failed attempt is logged: a client that mixes
// up the two fields would otherwise write its secret into the log.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, req *request) bool {
	if s.opts.InsecureNoAuth {
		req.keyID = "-"
		return true
	}
	if isLocal(r) { // through the data directory's socket, from its user (socket.go)
		req.keyID = "local"
		return true
	}
	id, secret, ok := r.BasicAuth()
	if ok {
		valid, err := s.keys.Verify(id, secret)
		if err != nil {
			s.logger.Error("checking an API key", "request_id", req.id, "err", err)
		}
		if valid {
			req.keyID = id
			return true
		}
	}
	s.logger.Debug("request not authenticated", "request_id", req.id, "method", r.Method,
		"path", r.URL.Path, "credentials_sent", ok)
	w.Header().Set("WWW-Authenticate", `Basic realm="eddy", charset="UTF-8"`)
	s.writeError(w, apiError{status: http.StatusUnauthorized, code: v1.CodeUnauthorized,
		message:    "A valid API key and secret are required.",
		suggestion: "Send them with HTTP Basic auth (curl -u KEY:SECRET). Create a key with: eddy api-key create --data-dir DIR"})
	return false
}
