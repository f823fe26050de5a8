package v1

import "time"

// APIKey is an API key of an Eddy server. Clients send its ID and secret
// with HTTP Basic auth. The server keeps only a hash of the secret, so
// Secret is set once, in the output that creates the key, and never again.
type APIKey struct {
	APIVersion  string    `json:"api_version"`
	Kind        string    `json:"kind"` // "APIKey"
	ID          string    `json:"id"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	Secret      string    `json:"secret,omitempty"`
}

// APIKeyList lists API keys (without secrets), sorted by ID.
type APIKeyList struct {
	APIVersion string   `json:"api_version"`
	Kind       string   `json:"kind"` // "APIKeyList"
	Data       []APIKey `json:"data"`
}

// APIKeyCreate is the body of POST /v1/api-keys.
type APIKeyCreate struct {
	Description string `json:"description,omitempty"`
}
