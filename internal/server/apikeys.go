package server

import (
	"errors"
	"net/http"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// The API key endpoints let a holder of a key manage keys while the server
// runs (the data directory is locked then, so `eddy api-key --data-dir`
// cannot). Every key may manage keys: keys have no roles, and a key can
// already delete every statement, so this grants nothing a key lacks. See
// docs/decisions/0012-api-keys-live.md.

// listAPIKeys serves GET /v1/api-keys: every key, without secrets.
func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := s.keys.List()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v1.APIKeyList{APIVersion: v1.APIVersion, Kind: "APIKeyList", Data: keys})
}

// createAPIKey serves POST /v1/api-keys: a new key, with its secret (the
// only time it is shown).
func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) {
	var in v1.APIKeyCreate
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if len(in.Description) > 1000 {
		s.fail(w, r, invalid("Field \"description\" is longer than 1000 characters.", ""))
		return
	}
	key, err := s.keys.Create(in.Description)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.logger.Info("API key created", "key_id", key.ID, "by", requestKeyID(r))
	w.Header().Set("Cache-Control", "no-store") // the body holds a secret
	writeJSON(w, http.StatusCreated, key)
}

// deleteAPIKey serves DELETE /v1/api-keys/{id}. It refuses to delete the
// last key, which would lock every client out until the server is stopped
// and a key created offline.
func (s *Server) deleteAPIKey(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	keys, err := s.keys.List()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(keys) == 1 && keys[0].ID == id && !s.opts.InsecureNoAuth {
		s.writeError(w, apiError{status: http.StatusConflict, code: v1.CodeLastAPIKey,
			message:    "API key " + id + " is the last one; deleting it would lock every client out.",
			suggestion: "Create another key first (POST /v1/api-keys, or: eddy api-key create --server URL), then delete this one."})
		return
	}
	if err := s.keys.Delete(id); err != nil {
		if errors.Is(err, ErrKeyNotFound) {
			s.writeError(w, apiError{status: http.StatusNotFound, code: v1.CodeNotFound,
				message:    "API key " + id + " does not exist.",
				suggestion: "List the keys with GET /v1/api-keys."})
			return
		}
		s.fail(w, r, err)
		return
	}
	s.logger.Info("API key deleted", "key_id", id, "by", requestKeyID(r))
	w.WriteHeader(http.StatusNoContent)
}
