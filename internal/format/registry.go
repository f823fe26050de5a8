package format

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// ErrSchemaNotFound is wrapped by the errors of Registry.SchemaByID when the
// registry answers that it has no schema with that id (error code 40403).
// Any other failure (unreachable, timeout, authentication, a URL that is not
// a schema registry) is an infrastructure error and does not wrap it.
var ErrSchemaNotFound = errors.New("schema not found")

// notFoundTTL is how long a "schema id not found" answer is remembered, so
// that a stream of records with a bogus id does not send a request each.
const notFoundTTL = 5 * time.Second

// maxNotFound bounds the remembered not-found ids.
const maxNotFound = 4096

// decodeLookupTimeout bounds the registry requests made by Decode and
// Encode, which have no context of their own.
const decodeLookupTimeout = 30 * time.Second

// Registry is a Confluent schema registry client with caches.
//
// NewRegistry returns one shared *Registry per URL and credentials for the
// whole process, so all codecs of all tables that use the same registry
// share one HTTP client, one cache of schemas by id and one cache of
// registrations. A Registry is safe for concurrent use; it holds no
// resources beyond the idle connections of its HTTP client and is never
// closed.
type Registry struct {
	url string
	cl  *sr.Client

	mu       sync.Mutex
	byID     map[int]*idEntry  // fetched schemas, and fetches in flight
	notFound map[int]time.Time // ids the registry recently did not have
	reg      map[regKey]int    // registrations
}

type idEntry struct {
	done       chan struct{} // closed when the fields below are set
	schema     string
	schemaType string
	err        error // only seen by callers that waited for the fetch
}

type regKey struct{ subject, schemaType, schema string }

type registryKey struct{ url, userInfo, token string }

var (
	registriesMu sync.Mutex
	registries   = map[registryKey]*Registry{}
)

// NewRegistry connects (lazily) to url. opts are the format options without
// prefix: "basic-auth.user-info" ("user:password"), "bearer-auth.token";
// unknown keys are ignored here. url may list several registry URLs
// separated by commas; a missing scheme means http://.
//
// The result is shared: the same url and credentials give the same
// *Registry (see Registry).
func NewRegistry(url string, opts map[string]string) (*Registry, error) {
	url = strings.TrimSpace(url)
	if url == "" {
		return nil, optErr("the schema registry URL is not set: set the format option 'url'")
	}
	key := registryKey{url: url, userInfo: opts["basic-auth.user-info"], token: opts["bearer-auth.token"]}
	registriesMu.Lock()
	defer registriesMu.Unlock()
	if r, ok := registries[key]; ok {
		return r, nil
	}
	r, err := newRegistry(key)
	if err != nil {
		return nil, err
	}
	registries[key] = r
	return r, nil
}

// forgetRegistries drops the shared registries of url (tests: a fake
// registry may get the port of a closed one).
func forgetRegistries(url string) {
	registriesMu.Lock()
	defer registriesMu.Unlock()
	for k := range registries {
		if k.url == url {
			delete(registries, k)
		}
	}
}

func newRegistry(key registryKey) (*Registry, error) {
	var urls []string
	for _, u := range strings.Split(key.url, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		return nil, optErr("the schema registry URL %q has no URL in it", key.url)
	}
	copts := []sr.ClientOpt{sr.URLs(urls...), sr.UserAgent("eddy")}
	if key.userInfo != "" && key.token != "" {
		return nil, optErr("set only one of the options 'basic-auth.user-info' and 'bearer-auth.token'")
	}
	if key.userInfo != "" {
		user, pass, ok := strings.Cut(key.userInfo, ":")
		if !ok {
			return nil, optErr("option 'basic-auth.user-info' must be \"user:password\"")
		}
		copts = append(copts, sr.BasicAuth(user, pass))
	}
	if key.token != "" {
		copts = append(copts, sr.BearerToken(key.token))
	}
	cl, err := sr.NewClient(copts...)
	if err != nil {
		return nil, optErr("schema registry %s: %v", key.url, err)
	}
	return &Registry{url: key.url, cl: cl, byID: map[int]*idEntry{}, notFound: map[int]time.Time{}, reg: map[regKey]int{}}, nil
}

// URL returns the registry URL (as given to NewRegistry).
func (r *Registry) URL() string { return r.url }

func parseSchemaType(t string) (sr.SchemaType, error) {
	switch strings.ToUpper(t) {
	case "", "AVRO":
		return sr.TypeAvro, nil
	case "JSON":
		return sr.TypeJSON, nil
	case "PROTOBUF":
		return sr.TypeProtobuf, nil
	}
	return 0, fmt.Errorf("unknown schema type %q (AVRO, JSON or PROTOBUF)", t)
}

func schemaTypeName(t sr.SchemaType) string {
	switch t {
	case sr.TypeJSON:
		return "JSON"
	case sr.TypeProtobuf:
		return "PROTOBUF"
	}
	return "AVRO"
}

// responseCode returns the registry error code of err, or 0.
func responseCode(err error) int {
	var re *sr.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return 0
}

// Register registers schema (schemaType "AVRO" or "JSON") under subject and
// returns its id (idempotent: registering the same schema again returns the
// same id). Successful registrations are cached.
func (r *Registry) Register(ctx context.Context, subject, schema, schemaType string) (int, error) {
	st, err := parseSchemaType(schemaType)
	if err != nil {
		return 0, err
	}
	key := regKey{subject: subject, schemaType: schemaTypeName(st), schema: schema}
	r.mu.Lock()
	id, ok := r.reg[key]
	r.mu.Unlock()
	if ok {
		return id, nil
	}
	id, err = r.cl.RegisterSchema(ctx, subject, sr.Schema{Schema: schema, Type: st}, -1, -1)
	if err != nil {
		return 0, fmt.Errorf("schema registry %s: registering a schema under subject %q: %w", r.url, subject, err)
	}
	r.mu.Lock()
	r.reg[key] = id
	r.remember(id, schema, key.schemaType)
	r.mu.Unlock()
	return id, nil
}

// remember caches the schema of id unless it is known. r.mu is held.
func (r *Registry) remember(id int, schema, schemaType string) {
	if _, ok := r.byID[id]; ok {
		return // known, or a fetch is in flight that will fill the entry
	}
	delete(r.notFound, id)
	e := &idEntry{done: make(chan struct{}), schema: schema, schemaType: schemaType}
	close(e.done)
	r.byID[id] = e
}

// SchemaByID returns the schema text and type of an id (cached).
// Concurrent calls for the same id share one request. When the registry has
// no such id the error wraps ErrSchemaNotFound (that answer is cached for a
// few seconds); other errors are infrastructure failures and are not
// cached.
func (r *Registry) SchemaByID(ctx context.Context, id int) (schema, schemaType string, err error) {
	r.mu.Lock()
	if e, ok := r.byID[id]; ok {
		r.mu.Unlock()
		select {
		case <-e.done:
			return e.schema, e.schemaType, e.err
		default:
		}
		select { // another caller is fetching it: share its answer
		case <-e.done:
			return e.schema, e.schemaType, e.err
		case <-ctx.Done():
			return "", "", fmt.Errorf("schema registry %s: fetching schema id %d: %w", r.url, id, ctx.Err())
		}
	}
	if at, ok := r.notFound[id]; ok && time.Since(at) < notFoundTTL {
		r.mu.Unlock()
		return "", "", r.notFoundErr(id)
	}
	e := &idEntry{done: make(chan struct{})}
	r.byID[id] = e
	r.mu.Unlock()

	s, ferr := r.cl.SchemaByID(ctx, id)
	r.mu.Lock()
	switch {
	case ferr == nil:
		e.schema, e.schemaType = s.Schema, schemaTypeName(s.Type)
	case responseCode(ferr) == sr.ErrSchemaNotFound.Code:
		e.err = r.notFoundErr(id)
		delete(r.byID, id)
		if len(r.notFound) >= maxNotFound {
			clear(r.notFound)
		}
		r.notFound[id] = time.Now()
	default:
		e.err = fmt.Errorf("schema registry %s: fetching schema id %d: %w", r.url, id, ferr)
		delete(r.byID, id) // not cached: the next call asks again
	}
	close(e.done)
	r.mu.Unlock()
	return e.schema, e.schemaType, e.err
}

func (r *Registry) notFoundErr(id int) error {
	return fmt.Errorf("schema registry %s: schema id %d: %w", r.url, id, ErrSchemaNotFound)
}

// Latest returns the latest schema id and text registered under subject,
// ok=false when none.
func (r *Registry) Latest(ctx context.Context, subject string) (id int, schema string, ok bool, err error) {
	ss, err := r.cl.SchemaByVersion(ctx, subject, -1)
	if err != nil {
		switch responseCode(err) {
		case sr.ErrSubjectNotFound.Code, sr.ErrVersionNotFound.Code, sr.ErrSubjectSoftDeleted.Code, sr.ErrSchemaVersionSoftDeleted.Code:
			return 0, "", false, nil
		}
		return 0, "", false, fmt.Errorf("schema registry %s: latest schema of subject %q: %w", r.url, subject, err)
	}
	r.mu.Lock()
	r.remember(ss.ID, ss.Schema.Schema, schemaTypeName(ss.Type))
	r.mu.Unlock()
	return ss.ID, ss.Schema.Schema, true, nil
}

// latestTyped is Latest that also returns the schema type.
func (r *Registry) latestTyped(ctx context.Context, subject string) (id int, schema, schemaType string, ok bool, err error) {
	id, schema, ok, err = r.Latest(ctx, subject)
	if !ok || err != nil {
		return id, schema, "", ok, err
	}
	_, schemaType, err = r.SchemaByID(ctx, id)
	return id, schema, schemaType, ok, err
}
