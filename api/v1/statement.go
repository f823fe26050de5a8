package v1

import (
	"encoding/json"
	"time"
)

// APIVersion is the api_version of every resource.
const APIVersion = "sql/v1"

// Phase is the lifecycle phase of a statement. Clients must treat unknown
// phases as transient.
type Phase string

// The phases.
const (
	Pending   Phase = "PENDING"
	Running   Phase = "RUNNING"
	Completed Phase = "COMPLETED"
	Stopping  Phase = "STOPPING"
	Stopped   Phase = "STOPPED"
	Failing   Phase = "FAILING"
	Failed    Phase = "FAILED"
	Degraded  Phase = "DEGRADED"
	Deleting  Phase = "DELETING"
)

// IsTerminal reports whether a statement stays in p until told otherwise.
func (p Phase) IsTerminal() bool {
	return p == Completed || p == Stopped || p == Failed
}

// Statement is a named, durable SQL statement.
type Statement struct {
	APIVersion string   `json:"api_version"`
	Kind       string   `json:"kind"`
	Name       string   `json:"name"`
	Metadata   Metadata `json:"metadata"`
	Spec       Spec     `json:"spec"`
	Status     Status   `json:"status"`
}

// Metadata is the read-only bookkeeping of a resource (labels are set by
// the client at creation).
type Metadata struct {
	Self            string            `json:"self,omitempty"`
	UID             string            `json:"uid,omitempty"`
	CreatedAt       time.Time         `json:"created_at"`
	UpdatedAt       time.Time         `json:"updated_at"`
	ResourceVersion string            `json:"resource_version,omitempty"`
	Labels          map[string]string `json:"labels,omitempty"`
}

// Spec is what the client asks for. Statement and Properties are
// immutable; Stopped is the desired state.
type Spec struct {
	Statement  string            `json:"statement"`
	Properties map[string]string `json:"properties,omitempty"`
	Stopped    bool              `json:"stopped"`
}

// Status is what the server reports.
type Status struct {
	Phase    Phase     `json:"phase"`
	Detail   string    `json:"detail,omitempty"`
	Warnings []Warning `json:"warnings,omitempty"`
	Traits   *Traits   `json:"traits,omitempty"`
	// StartTime is when the statement last started running; EndTime when
	// it reached COMPLETED, STOPPED or FAILED.
	StartTime *time.Time `json:"start_time,omitempty"`
	EndTime   *time.Time `json:"end_time,omitempty"`
	// LatestOffsets maps each source table to
	// "partition:0,offset:100;partition:1,offset:200" as of the last
	// checkpoint.
	LatestOffsets map[string]string `json:"latest_offsets,omitempty"`
	// StateCarriedFrom names the statement whose state and source
	// positions this one took over on replace, if any.
	StateCarriedFrom string `json:"state_carried_from,omitempty"`
}

// Warning is a non-fatal problem.
type Warning struct {
	Severity  string    `json:"severity"` // LOW, MODERATE, CRITICAL
	CreatedAt time.Time `json:"created_at"`
	Reason    string    `json:"reason"`
	Message   string    `json:"message"`
}

// Traits describe the statement's SQL.
type Traits struct {
	SQLKind       string `json:"sql_kind"`
	IsBounded     bool   `json:"is_bounded"`
	IsAppendOnly  bool   `json:"is_append_only"`
	UpsertColumns []int  `json:"upsert_columns,omitempty"`
	// ChangelogMode names the exact changelog of the results (an Eddy
	// addition): insert-only, retract, retract-no-delete, upsert,
	// upsert-partial-delete or upsert-no-delete.
	ChangelogMode string  `json:"changelog_mode,omitempty"`
	Schema        *Schema `json:"schema,omitempty"`
}

// Schema lists result columns.
type Schema struct {
	Columns []Column `json:"columns"`
}

// Column is one result column; Type is its SQL type string.
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// StatementList is a page of statements.
type StatementList struct {
	APIVersion string       `json:"api_version"`
	Kind       string       `json:"kind"`
	Metadata   ListMetadata `json:"metadata"`
	Data       []Statement  `json:"data"`
}

// ListMetadata links pages; Next is empty on the last page.
type ListMetadata struct {
	Self string `json:"self,omitempty"`
	Next string `json:"next,omitempty"`
}

// UpdateRequest is the body of PUT /statements/{name}: the desired
// stopped state with the resource version the client last saw.
type UpdateRequest struct {
	Name     string   `json:"name"`
	Metadata Metadata `json:"metadata"`
	Spec     Spec     `json:"spec"`
}

// Exception is a failure of a statement.
type Exception struct {
	Kind      string    `json:"kind"`
	Name      string    `json:"name"`
	Message   string    `json:"message"`
	Timestamp time.Time `json:"timestamp"`
}

// ExceptionList holds the latest exceptions, newest first (at most 10).
type ExceptionList struct {
	Kind string      `json:"kind"`
	Data []Exception `json:"data"`
}

// ResultPage is a page of a statement's results as a changelog.
type ResultPage struct {
	APIVersion string         `json:"api_version"`
	Kind       string         `json:"kind"`
	Metadata   ResultMetadata `json:"metadata"`
	Results    Results        `json:"results"`
}

// ResultMetadata links result pages. Next is empty when the results are
// complete; while the statement runs a page may be empty and the client
// polls Next again.
type ResultMetadata struct {
	Self      string    `json:"self,omitempty"`
	Next      string    `json:"next"`
	CreatedAt time.Time `json:"created_at"`
}

// Results holds the rows of a page.
type Results struct {
	Data []ResultRow `json:"data"`
}

// ResultRow is one change: Op 0 +I, 1 -U, 2 +U, 3 -D; Row holds the values
// rendered as strings (null for NULL), nested ROWs as arrays and MAPs as
// arrays of [key, value] pairs.
type ResultRow struct {
	Op  int   `json:"op"`
	Row []any `json:"row"`
}

// ErrorResponse is the body of every error.
type ErrorResponse struct {
	Status    int       `json:"status"`
	Error     ErrorBody `json:"error"`
	RequestID string    `json:"request_id,omitempty"`
}

// ErrorBody carries a stable code, a message and what to do about it.
type ErrorBody struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Suggestion string `json:"suggestion,omitempty"`
	// Position is "line:column" for SQL errors.
	Position string `json:"position,omitempty"`
	// Details is the resource the error is about, when there is one: the
	// existing Statement for ALREADY_EXISTS and RESOURCE_VERSION_CONFLICT.
	Details json.RawMessage `json:"details,omitempty"`
}

// Stable error codes.
const (
	CodeUnauthorized     = "UNAUTHORIZED"
	CodeNotFound         = "NOT_FOUND"
	CodeAlreadyExists    = "ALREADY_EXISTS"
	CodeConflict         = "RESOURCE_VERSION_CONFLICT"
	CodeInvalid          = "INVALID_REQUEST"
	CodeInvalidSQL       = "INVALID_SQL"
	CodeTooLarge         = "REQUEST_TOO_LARGE"
	CodeInternal         = "INTERNAL_ERROR"
	CodeMethodNotAllowed = "METHOD_NOT_ALLOWED"
	CodeLastAPIKey       = "LAST_API_KEY"
)

// ReplaceResponse is the answer of POST /v1/statements/{name}/replace.
type ReplaceResponse struct {
	Statement Statement `json:"statement"`
	// Unchanged is true when the spec was identical and nothing was done.
	Unchanged bool `json:"unchanged"`
	// StateCarried is true when the new statement took over the previous
	// one's state and source positions; Reason says why not otherwise.
	StateCarried bool   `json:"state_carried"`
	Reason       string `json:"reason,omitempty"`
}
