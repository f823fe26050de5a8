package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// CreateArtifact uploads a function module (a .wasm file built by eddy
// function build) as a new artifact named name. The server checks that the
// module loads; the result carries the artifact's id (art-…) and the
// function ids of its first version.
func (c *Client) CreateArtifact(ctx context.Context, name, description string, module []byte) (*v1.Artifact, error) {
	if name == "" {
		return nil, errors.New("client: an artifact name is required")
	}
	q := url.Values{"name": {name}}
	if description != "" {
		q.Set("description", description)
	}
	var out v1.Artifact
	if err := c.send(ctx, http.MethodPost, "/v1/artifacts", q, v1.ContentTypeWasm, module, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AddArtifactVersion uploads module as the artifact's next version;
// description, if not nil, replaces the artifact's description. Functions
// bound without a version use it from the next time a statement is
// planned (started or resumed).
func (c *Client) AddArtifactVersion(ctx context.Context, id string, module []byte, description *string) (*v1.Artifact, error) {
	if id == "" {
		return nil, errors.New("client: an artifact id is required")
	}
	var q url.Values
	if description != nil {
		q = url.Values{"description": {*description}}
	}
	var out v1.Artifact
	if err := c.send(ctx, http.MethodPost, "/v1/artifacts/"+url.PathEscape(id)+"/versions", q, v1.ContentTypeWasm, module, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetArtifact returns an artifact by id.
func (c *Client) GetArtifact(ctx context.Context, id string) (*v1.Artifact, error) {
	if id == "" {
		return nil, errors.New("client: an artifact id is required")
	}
	var out v1.Artifact
	if err := c.do(ctx, http.MethodGet, "/v1/artifacts/"+url.PathEscape(id), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListArtifacts returns the server's artifacts, sorted by name.
func (c *Client) ListArtifacts(ctx context.Context) ([]v1.Artifact, error) {
	var out v1.ArtifactList
	if err := c.do(ctx, http.MethodGet, "/v1/artifacts", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// DeleteArtifact deletes an artifact. The server refuses while a statement
// uses it (409 ARTIFACT_IN_USE, naming the statements).
func (c *Client) DeleteArtifact(ctx context.Context, id string) error {
	if id == "" {
		return errors.New("client: an artifact id is required")
	}
	return c.do(ctx, http.MethodDelete, "/v1/artifacts/"+url.PathEscape(id), nil, nil, nil)
}
