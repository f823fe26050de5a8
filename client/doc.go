// Package client is the Go client of Eddy's REST API: it creates, lists,
// inspects, stops, resumes and deletes statements on an `eddy server`, waits
// for them to reach a phase, and reads their results. The eddy command line
// (`eddy statement …`, `eddy sql --server`) is built on it, and programs use
// it to deploy and manage statements from Go.
//
// A Client is made with New and options:
//
//	c, err := client.New(
//		client.Server("https://eddy.example.com"),
//		client.APIKey(key, secret),
//	)
//
// Every method takes a context and is safe for concurrent use. The wire
// types are those of package api/v1.
//
// # Errors
//
// A request the server refuses returns an *Error with the HTTP status and
// the server's stable code (api/v1 Code* constants), message, suggestion
// and, for SQL errors, position. IsNotFound, IsExists, IsConflict and
// IsUnauthorized classify them. Network failures and 5xx/429 answers are
// transient: Await and a following result iterator retry them until their
// time is up; the other methods return them.
//
// # Lifecycle
//
// Stop and resume are a read-modify-write of spec.stopped with the
// statement's resource_version (optimistic concurrency); StopStatement and
// ResumeStatement do the GET and PUT and retry when the statement changed
// in between (409 RESOURCE_VERSION_CONFLICT). Creating, stopping, resuming
// and deleting return as soon as the server accepted the request; Await and
// AwaitDeleted wait until the statement reaches a phase or is gone.
package client
