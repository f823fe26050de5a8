package v1

import "time"

// Artifact is a function artifact of an Eddy server: a WebAssembly module
// of process table functions (built by eddy function build), with versions.
// CREATE FUNCTION Name AS 'id' USING JAR 'eddy-artifact://<ID>[/<version>]'
// binds one of its functions.
type Artifact struct {
	APIVersion  string `json:"api_version"`
	Kind        string `json:"kind"` // "Artifact"
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// ContentFormat is "WASM"; RuntimeLanguage is "GO".
	ContentFormat   string `json:"content_format"`
	RuntimeLanguage string `json:"runtime_language"`
	// URI is the reference USING JAR takes (the latest version).
	URI       string            `json:"uri"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
	Versions  []ArtifactVersion `json:"versions"`
}

// ArtifactVersion is one uploaded module of an artifact.
type ArtifactVersion struct {
	Version   string    `json:"version"` // "ver-1", "ver-2", ...
	URI       string    `json:"uri"`     // the reference that pins this version
	SHA256    string    `json:"sha256"`
	Size      int64     `json:"size"`
	CreatedAt time.Time `json:"created_at"`
	// Functions are the ids the module exports.
	Functions []string `json:"functions"`
}

// ArtifactList lists artifacts, sorted by name.
type ArtifactList struct {
	APIVersion string     `json:"api_version"`
	Kind       string     `json:"kind"` // "ArtifactList"
	Data       []Artifact `json:"data"`
}

// ContentTypeWasm is the Content-Type of a module uploaded to POST
// /v1/artifacts and POST /v1/artifacts/{id}/versions.
const ContentTypeWasm = "application/wasm"

// The error codes of the artifact endpoints (besides the common ones).
const (
	// CodeArtifactInUse: DELETE of an artifact a statement uses.
	CodeArtifactInUse = "ARTIFACT_IN_USE"
	// CodeInvalidArtifact: the uploaded bytes are not a function module.
	CodeInvalidArtifact = "INVALID_ARTIFACT"
	// CodeIncompatibleState: resuming a statement whose functions now
	// declare state its checkpoint cannot be read as (409).
	CodeIncompatibleState = "INCOMPATIBLE_STATE"
)
