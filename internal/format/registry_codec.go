package format

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/eddy-sql/eddy/types"
)

// RegistryOptions configure a registry-backed codec.
type RegistryOptions struct {
	// Registry is the schema registry. When nil, NewRegistryCodec builds
	// (or shares) one from the options url, basic-auth.user-info and
	// bearer-auth.token.
	Registry *Registry
	// Subject is the subject of the writer schema, e.g. "<topic>-value" or
	// "<topic>-key"; the caller applies the option "subject" and passes the
	// final one. When empty, the option "subject" is used.
	Subject string
	// Register: derive the schema from the columns and register it under
	// Subject now (sinks, and CREATE TABLE).
	//
	// When false (sources), NewRegistryCodec only reads the registry: it
	// uses the id of the subject's latest schema for encoding if that
	// schema matches the derived one (for Avro: same layout and field names,
	// record names may differ; for JSON: the same JSON document). Otherwise
	// nothing is registered until the first Encode, which registers the
	// derived schema then; a codec that only decodes never registers.
	Register bool
}

// RegistryCodec is the codec of avro-confluent and json-registry backed by
// a Confluent schema registry; NewRegistryCodec returns one. It is safe for
// concurrent use.
//
// Errors: Decode returns a *Error for a bad record (bad header, unknown
// schema id, writer schema that cannot be read as the columns, malformed
// body) and an error that is not a *Error when the registry could not be
// asked (unreachable, timeout, authentication failure, HTTP error other
// than "schema not found"): the record may be fine and the caller should
// retry or fail rather than treat the record as bad. Encode returns a
// *Error for values that do not fit the columns and a non-*Error error when
// a lazy registration fails.
type RegistryCodec struct {
	name    string // canonical format name
	schema  *types.Schema
	inner   Codec // avro or json body codec
	reg     *Registry
	subject string
	text    string // the writer schema this codec registers and encodes with
	stype   string // "AVRO" or "JSON"
	derived string // the schema derived from the columns
	shape   string // avro: layout of the derived schema (avroShape)
	auto    bool   // option auto.register.schemas

	mu    sync.Mutex   // serializes the lazy registration
	id    atomic.Int64 // the writer schema id; -1 until known
	plans sync.Map     // uint32 -> *writerPlan (avro-confluent)
}

// writerPlan says how records with a writer schema id decode.
type writerPlan struct {
	prog *recordProg // nil: the fast decoder (same layout as the table's)
	err  *Error      // every record with this id is bad
}

// NewRegistryCodec builds an avro-confluent or json-registry codec for the
// columns with options opts (same option map New takes). It contacts the
// registry (ctx) to register or look up the writer schema id.
//
// The writer schema is the one derived from the columns (AvroSchema,
// JSONSchema) or the option 'schema'; for avro-confluent that option must
// have the derived schema's layout. With the option 'schema-id' the codec
// writes that id, after checking that the registry has it and (Avro) that
// it matches the columns, and registers nothing. With
// 'auto.register.schemas' = false it never registers: the subject's latest
// schema must match (an error when ro.Register is set).
//
// Decoding (avro-confluent): records written with the codec's own id, or
// with a writer schema of the same layout as the derived one, take the fast
// decoder; other writer schemas are fetched once per id and read through
// Avro schema resolution (avro_resolve.go). json-registry decoding skips
// the header and reads the JSON body by field names, without registry
// lookups.
func NewRegistryCodec(ctx context.Context, format string, cols []types.Field, opts map[string]string, ro RegistryOptions) (Codec, error) {
	canon := Canonical(format)
	if canon != "avro-confluent" && canon != "json-registry" {
		return nil, optErr("format %q does not use a schema registry (avro-confluent, avro-registry and json-registry do)", format)
	}
	if len(cols) == 0 {
		return nil, optErr("format %q needs at least one column", format)
	}
	o, err := normalize(format, canon, opts)
	if err != nil {
		return nil, err
	}
	schema := types.NewSchema(cols...)
	c := &RegistryCodec{name: canon, schema: schema, reg: ro.Registry, subject: ro.Subject}
	c.id.Store(-1)
	if c.subject == "" {
		c.subject = strings.TrimSpace(o["subject"])
	}
	if c.subject == "" {
		return nil, optErr("format %q needs a schema registry subject: set the option 'subject'", format)
	}
	if c.auto, err = boolOpt(o, "auto.register.schemas", true); err != nil {
		return nil, err
	}
	if c.reg == nil {
		if c.reg, err = NewRegistry(o["url"], o); err != nil {
			return nil, err
		}
	}
	explicit, hasExplicit := o["schema"]
	hasExplicit = hasExplicit && strings.TrimSpace(explicit) != ""
	if canon == "avro-confluent" {
		if c.inner, err = newAvro(schema, nil); err != nil {
			return nil, err
		}
		c.derived, _ = AvroSchema(schema)
		c.text, c.stype, c.shape = c.derived, "AVRO", columnsShape(schema)
		if hasExplicit {
			w, err := parseAvroSchema(explicit)
			if err != nil {
				return nil, optErr("option 'schema' of format %q is not a valid Avro schema: %v", format, err)
			}
			if writerShape(w) != c.shape {
				return nil, optErr("option 'schema' of format %q does not match the columns: it must be the schema derived from them, up to record names, namespaces and documentation: %s", format, c.derived)
			}
			c.text = explicit
		}
	} else {
		if c.inner, err = newJSON(schema, jsonOptions(o)); err != nil {
			return nil, err
		}
		if c.derived, err = JSONSchema(schema); err != nil {
			return nil, err
		}
		c.text, c.stype = c.derived, "JSON"
		if hasExplicit {
			if !json.Valid([]byte(explicit)) {
				return nil, optErr("option 'schema' of format %q is not valid JSON", format)
			}
			c.text = explicit
		}
	}

	if v, ok := o["schema-id"]; ok {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 31)
		if err != nil {
			return nil, optErr("option %q of format %q must be a schema id (0..2147483647), not %q", "schema-id", format, v)
		}
		text, typ, err := c.reg.SchemaByID(ctx, int(n))
		if errors.Is(err, ErrSchemaNotFound) {
			return nil, optErr("option 'schema-id' of format %q: the schema registry has no schema %d", format, n)
		} else if err != nil {
			return nil, fmt.Errorf("format %q: %w", format, err)
		}
		if ok := strings.EqualFold(typ, c.stype) && (c.stype == "JSON" || c.matches(text, typ)); !ok {
			return nil, optErr("option 'schema-id' of format %q: schema %d (%s) does not match the columns", format, n, typ)
		}
		c.id.Store(int64(n))
		return c, nil
	}
	if ro.Register && c.auto {
		id, err := c.reg.Register(ctx, c.subject, c.text, c.stype)
		if err != nil {
			return nil, fmt.Errorf("format %q: %w", format, err)
		}
		c.id.Store(int64(id))
		return c, nil
	}
	id, text, typ, ok, err := c.reg.latestTyped(ctx, c.subject)
	if err != nil {
		return nil, fmt.Errorf("format %q: %w", format, err)
	}
	if ok && c.matches(text, typ) {
		c.id.Store(int64(id))
		return c, nil
	}
	if ro.Register {
		return nil, optErr("format %q: option 'auto.register.schemas' is false and the latest schema of subject %q does not match the columns", format, c.subject)
	}
	return c, nil
}

// matches reports whether a registered schema can stand for the codec's
// writer schema: same type and, for Avro, the same layout; for JSON the
// same document.
func (c *RegistryCodec) matches(text, schemaType string) bool {
	if !strings.EqualFold(schemaType, c.stype) {
		return false
	}
	if text == c.text || text == c.derived {
		return true
	}
	if c.stype == "AVRO" {
		w, err := parseAvroSchema(text)
		return err == nil && writerShape(w) == c.shape
	}
	var a, b any
	if json.Unmarshal([]byte(text), &a) != nil || json.Unmarshal([]byte(c.text), &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// Subject returns the subject of the writer schema.
func (c *RegistryCodec) Subject() string { return c.subject }

// WriterSchema returns the writer schema text and its type ("AVRO" or
// "JSON").
func (c *RegistryCodec) WriterSchema() (schema, schemaType string) { return c.text, c.stype }

// SchemaID returns the id Encode writes; ok is false while it is not known
// yet (see RegistryOptions.Register).
func (c *RegistryCodec) SchemaID() (id uint32, ok bool) {
	n := c.id.Load()
	return uint32(n), n >= 0
}

// Encode writes the Confluent header with the writer schema id and the
// body. When the id is not known yet it registers the writer schema first.
func (c *RegistryCodec) Encode(dst []byte, vals []types.Value) ([]byte, error) {
	id := c.id.Load()
	if id < 0 {
		var err error
		if id, err = c.registerNow(); err != nil {
			return dst, err
		}
	}
	out, err := c.inner.Encode(AppendConfluentHeader(dst, uint32(id)), vals)
	return out, c.rebase(err, 0)
}

func (c *RegistryCodec) registerNow() (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id := c.id.Load(); id >= 0 {
		return id, nil
	}
	if !c.auto {
		return -1, fmt.Errorf("%s: no schema id to write: the latest schema of subject %q does not match the columns and option 'auto.register.schemas' is false", c.name, c.subject)
	}
	ctx, cancel := context.WithTimeout(context.Background(), decodeLookupTimeout)
	defer cancel()
	id, err := c.reg.Register(ctx, c.subject, c.text, c.stype)
	if err != nil {
		return -1, fmt.Errorf("%s: %w", c.name, err)
	}
	c.id.Store(int64(id))
	return int64(id), nil
}

// Decode checks the header and decodes the body (see RegistryCodec for the
// errors).
func (c *RegistryCodec) Decode(b []byte, dst []types.Value) ([]types.Value, error) {
	vals, _, err := c.DecodeID(b, dst)
	return vals, err
}

// DecodeID is Decode that also returns the schema id of the header.
func (c *RegistryCodec) DecodeID(b []byte, dst []types.Value) ([]types.Value, uint32, error) {
	id, body, err := ConfluentHeader(b)
	if err != nil {
		return nil, 0, &Error{Format: c.name, Offset: 0, Reason: err.Error()}
	}
	if c.stype == "JSON" || int64(id) == c.id.Load() {
		vals, err := c.inner.Decode(body, dst)
		return vals, id, c.rebase(err, 5)
	}
	p, err := c.plan(id)
	if err != nil {
		return nil, id, err
	}
	if p.err != nil {
		e := *p.err // callers may modify their error
		return nil, id, &e
	}
	if p.prog == nil {
		vals, err := c.inner.Decode(body, dst)
		return vals, id, c.rebase(err, 5)
	}
	vals, err := decodeResolved(p.prog, body, dst)
	return vals, id, c.rebase(err, 5)
}

// decodeResolved reads a body written with another writer schema.
func decodeResolved(p *recordProg, body []byte, dst []types.Value) ([]types.Value, error) {
	r := newAvroReader(body)
	base := len(dst)
	dst = slices.Grow(dst, p.n)[:base+p.n]
	if err := p.decodeInto(&r, dst[base:]); err != nil {
		return nil, err
	}
	if r.off != len(body) {
		return nil, avroErr("", r.off, "%d bytes left after the record", len(body)-r.off)
	}
	return dst, nil
}

// rebase names the codec in a *Error and shifts its offset by the header.
func (c *RegistryCodec) rebase(err error, delta int) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	e2 := *e
	e2.Format = c.name
	if e2.Offset >= 0 {
		e2.Offset += delta
	}
	return &e2
}

// plan returns how records with writer schema id decode, asking the
// registry the first time. The error is a *Error for an id the registry
// does not have and a plain error when the registry could not be asked.
func (c *RegistryCodec) plan(id uint32) (*writerPlan, error) {
	if p, ok := c.plans.Load(id); ok {
		return p.(*writerPlan), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), decodeLookupTimeout)
	defer cancel()
	text, typ, err := c.reg.SchemaByID(ctx, int(id))
	if errors.Is(err, ErrSchemaNotFound) {
		return nil, &Error{Format: c.name, Offset: 1, Reason: fmt.Sprintf("unknown schema id %d: the schema registry has no such schema", id)}
	} else if err != nil {
		return nil, fmt.Errorf("%s: looking up the writer schema %d: %w", c.name, id, err)
	}
	p, _ := c.plans.LoadOrStore(id, c.buildPlan(id, text, typ))
	return p.(*writerPlan), nil
}

func (c *RegistryCodec) buildPlan(id uint32, text, typ string) *writerPlan {
	bad := func(format string, args ...any) *writerPlan {
		return &writerPlan{err: &Error{Format: c.name, Offset: 1, Reason: fmt.Sprintf("writer schema %d: ", id) + fmt.Sprintf(format, args...)}}
	}
	if !strings.EqualFold(typ, "AVRO") {
		return bad("it is a %s schema, not Avro", typ)
	}
	if text == c.text || text == c.derived {
		return &writerPlan{}
	}
	w, err := parseAvroSchema(text)
	if err != nil {
		return bad("cannot parse it: %v", err)
	}
	if writerShape(w) == c.shape {
		return &writerPlan{}
	}
	prog, err := compileAvroRecord(w, c.schema.Fields, "", 0)
	if err != nil {
		return bad("cannot be read as the columns: %v", err)
	}
	return &writerPlan{prog: prog}
}
