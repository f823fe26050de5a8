package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// CreateAPIKey creates an API key on the server. The returned key carries
// its secret, which the server does not keep and cannot show again.
func (c *Client) CreateAPIKey(ctx context.Context, description string) (*v1.APIKey, error) {
	var out v1.APIKey
	if err := c.do(ctx, http.MethodPost, "/v1/api-keys", nil, v1.APIKeyCreate{Description: description}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAPIKeys returns the server's API keys, without secrets, sorted by id.
func (c *Client) ListAPIKeys(ctx context.Context) ([]v1.APIKey, error) {
	var out v1.APIKeyList
	if err := c.do(ctx, http.MethodGet, "/v1/api-keys", nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}

// DeleteAPIKey revokes an API key: requests using it are refused from then
// on. The server refuses to delete its last key (409 LAST_API_KEY).
func (c *Client) DeleteAPIKey(ctx context.Context, id string) error {
	if id == "" {
		return errors.New("client: an API key id is required")
	}
	return c.do(ctx, http.MethodDelete, "/v1/api-keys/"+url.PathEscape(id), nil, nil, nil)
}
