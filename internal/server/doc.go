// Package server serves Eddy's REST API (api/v1) over net/http: the
// statements resource of package statement, /metrics in the Prometheus
// text format and /healthz. It also holds the API keys of a data directory
// (KeyStore, under store.PrefixAPIKey) and the `eddy server` and
// `eddy api-key` commands (Commands).
//
// # Endpoints
//
//	POST   /v1/statements                      create (201; 409 ALREADY_EXISTS with the existing one in error.details)
//	GET    /v1/statements                      list: name_prefix, label_selector=k=v,..., phase, page_size, page_token
//	GET    /v1/statements/{name}               get
//	PUT    /v1/statements/{name}               stop/resume via spec.stopped with metadata.resource_version (202)
//	DELETE /v1/statements/{name}               delete (202)
//	GET    /v1/statements/{name}/exceptions    latest exceptions, newest first
//	GET    /v1/statements/{name}/results       a page of the result changelog: page_token, page_size
//	GET    /v1/api-keys                        the API keys, without secrets
//	POST   /v1/api-keys                        create a key (201, with its secret once)
//	DELETE /v1/api-keys/{id}                   revoke a key (204; 409 LAST_API_KEY for the last one)
//	GET    /metrics                            Prometheus (client_golang): eddy_statement*, eddy_http_*, go_*, process_*
//	GET    /healthz                            liveness, without authentication
//
// Every error is a v1.ErrorResponse with a stable code (v1.Code*), a
// message and a suggestion; SQL errors carry their line:column.
//
// # Request pipeline
//
// Handler wraps the routes in one function (Server.serve): it assigns a
// request id (X-Request-Id, echoed in error bodies), recovers panics into
// 500s, instruments the request by route (promhttp: eddy_http_*),
// authenticates (HTTP Basic with an API key id and secret; every
// path but /healthz), limits the body (http.MaxBytesReader), and routes
// with http.ServeMux, answering unmatched paths and methods with JSON 404
// and 405. Each request is logged at debug level with its method, path,
// status, duration and key id; secrets are never logged.
//
// See docs/operating.md for running the server and
// docs/decisions/0007-api-keys.md and 0012-api-keys-live.md for the
// design of API keys.
package server
