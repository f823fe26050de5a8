package server

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/artifact"
	"github.com/eddy-sql/eddy/internal/engine"
)

// The artifact endpoints: function modules uploaded to a running server
// (docs/artifacts.md). Uploads are the module's bytes as the body
// (Content-Type: application/wasm), with name and description as query
// parameters; the server checks that the module loads before it stores
// it.

// DefaultMaxArtifactBytes is the default size limit of an uploaded module.
const DefaultMaxArtifactBytes = 64 << 20

// ArtifactV1 renders a stored artifact as the REST API does.
func ArtifactV1(a *artifact.Artifact) v1.Artifact {
	out := v1.Artifact{
		APIVersion: v1.APIVersion, Kind: "Artifact", ID: a.ID, Name: a.Name, Description: a.Description,
		ContentFormat: "WASM", RuntimeLanguage: "GO", URI: artifact.URI(a.ID, ""),
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, Versions: []v1.ArtifactVersion{},
	}
	for _, v := range a.Versions {
		fns := v.Functions
		if fns == nil {
			fns = []string{}
		}
		out.Versions = append(out.Versions, v1.ArtifactVersion{
			Version: v.Version, URI: artifact.URI(a.ID, v.Version), SHA256: v.SHA256, Size: v.Size,
			CreatedAt: v.CreatedAt, Functions: fns,
		})
	}
	return out
}

func (s *Server) engine(w http.ResponseWriter) (*engine.Engine, bool) {
	if s.opts.Engine == nil {
		s.writeError(w, apiError{status: http.StatusNotImplemented, code: v1.CodeInternal,
			message: "This server has no engine to load artifacts with."})
		return nil, false
	}
	return s.opts.Engine, true
}

// readModule reads an upload's body.
func readModule(r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != v1.ContentTypeWasm && mt != "application/octet-stream") {
			return nil, &apiError{status: http.StatusUnsupportedMediaType, code: v1.CodeInvalid,
				message:    "Content-Type " + ct + " is not supported; the body must be the module's bytes.",
				suggestion: "Send the .wasm file as the body with Content-Type: application/wasm (curl --data-binary @f.wasm -H 'Content-Type: application/wasm')."}
		}
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, badRequest("The request body is empty; it must be the module's bytes.", "Send the .wasm file built by eddy function build.")
	}
	return b, nil
}

// artifactError answers the errors of the artifact store and engine.
func (s *Server) artifactError(w http.ResponseWriter, r *http.Request, err error) {
	capital := func(m string) string { return strings.ToUpper(m[:1]) + m[1:] }
	msg := func(sentinel error) string {
		if sentinel == engine.ErrArtifactInUse || sentinel == artifact.ErrInvalid {
			return capital(strings.ReplaceAll(err.Error(), sentinel.Error()+": ", ""))
		}
		return capital(err.Error())
	}
	switch {
	case errors.Is(err, artifact.ErrNotFound):
		s.writeError(w, apiError{status: http.StatusNotFound, code: v1.CodeNotFound,
			message: msg(artifact.ErrNotFound) + ".", suggestion: "List the artifacts with GET /v1/artifacts."})
	case errors.Is(err, artifact.ErrExists):
		s.writeError(w, apiError{status: http.StatusConflict, code: v1.CodeAlreadyExists,
			message:    msg(artifact.ErrExists) + ".",
			suggestion: "Upload a new version of it (POST /v1/artifacts/{id}/versions, or eddy artifact update), or choose another name."})
	case errors.Is(err, artifact.ErrInvalid):
		s.writeError(w, apiError{status: http.StatusUnprocessableEntity, code: v1.CodeInvalidArtifact,
			message:    msg(artifact.ErrInvalid),
			suggestion: "Build function modules with: eddy function build ./your/package -o f.wasm (see docs/artifacts.md)."})
	case errors.Is(err, engine.ErrArtifactInUse):
		s.writeError(w, apiError{status: http.StatusConflict, code: v1.CodeArtifactInUse,
			message:    msg(engine.ErrArtifactInUse),
			suggestion: "Delete the statements that run its functions first (eddy statement delete NAME)."})
	default:
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			s.writeError(w, apiError{status: http.StatusRequestEntityTooLarge, code: v1.CodeTooLarge,
				message:    "The module is larger than the limit of " + formatBytes(s.opts.MaxArtifactBytes) + ".",
				suggestion: "Build it with -ldflags=-s -w to drop debug information, or raise the server's limit."})
			return
		}
		s.fail(w, r, err)
	}
}

// createArtifact serves POST /v1/artifacts?name=NAME[&description=TEXT].
func (s *Server) createArtifact(w http.ResponseWriter, r *http.Request) {
	eng, ok := s.engine(w)
	if !ok {
		return
	}
	q := r.URL.Query()
	name := q.Get("name")
	if name == "" {
		s.writeError(w, *invalid("The query parameter name is required.", "POST /v1/artifacts?name=order_status_ptf with the module as the body."))
		return
	}
	code, err := readModule(r)
	if err != nil {
		s.artifactError(w, r, err)
		return
	}
	a, err := eng.CreateArtifact(r.Context(), name, q.Get("description"), code)
	if err != nil {
		s.artifactError(w, r, err)
		return
	}
	s.logger.Info("artifact created", "artifact", a.ID, "name", a.Name, "sha256", a.Latest().SHA256, "by", requestKeyID(r))
	writeJSON(w, http.StatusCreated, ArtifactV1(a))
}

// addArtifactVersion serves POST /v1/artifacts/{id}/versions[?description=TEXT].
func (s *Server) addArtifactVersion(w http.ResponseWriter, r *http.Request) {
	eng, ok := s.engine(w)
	if !ok {
		return
	}
	var desc *string
	if q := r.URL.Query(); q.Has("description") {
		d := q.Get("description")
		desc = &d
	}
	code, err := readModule(r)
	if err != nil {
		s.artifactError(w, r, err)
		return
	}
	a, err := eng.AddArtifactVersion(r.Context(), r.PathValue("id"), code, desc)
	if err != nil {
		s.artifactError(w, r, err)
		return
	}
	s.logger.Info("artifact version added", "artifact", a.ID, "version", a.Latest().Version, "by", requestKeyID(r))
	writeJSON(w, http.StatusCreated, ArtifactV1(a))
}

// listArtifacts serves GET /v1/artifacts.
func (s *Server) listArtifacts(w http.ResponseWriter, r *http.Request) {
	eng, ok := s.engine(w)
	if !ok {
		return
	}
	all, err := eng.Artifacts()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := v1.ArtifactList{APIVersion: v1.APIVersion, Kind: "ArtifactList", Data: []v1.Artifact{}}
	for _, a := range all {
		out.Data = append(out.Data, ArtifactV1(a))
	}
	writeJSON(w, http.StatusOK, out)
}

// getArtifact serves GET /v1/artifacts/{id}.
func (s *Server) getArtifact(w http.ResponseWriter, r *http.Request) {
	eng, ok := s.engine(w)
	if !ok {
		return
	}
	a, err := eng.Artifact(r.PathValue("id"))
	if err != nil {
		s.artifactError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ArtifactV1(a))
}

// deleteArtifact serves DELETE /v1/artifacts/{id}; it refuses while a
// statement uses the artifact.
func (s *Server) deleteArtifact(w http.ResponseWriter, r *http.Request) {
	eng, ok := s.engine(w)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if err := eng.DeleteArtifact(id, s.mgr.ArtifactUsers); err != nil {
		s.artifactError(w, r, err)
		return
	}
	s.logger.Info("artifact deleted", "artifact", id, "by", requestKeyID(r))
	w.WriteHeader(http.StatusNoContent)
}
