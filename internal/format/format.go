package format

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Codec encodes and decodes the values of a fixed list of columns.
// Codecs are safe for concurrent use.
type Codec interface {
	// Encode appends the payload of vals (one value per column) to dst. A
	// codec may return a nil payload (raw: a NULL value).
	Encode(dst []byte, vals []types.Value) ([]byte, error)
	// Decode appends the values of the columns decoded from b to dst. A nil
	// result with a nil error means: skip this record.
	Decode(b []byte, dst []types.Value) ([]types.Value, error)
}

// Error is a decoding or encoding error.
type Error struct {
	Format string // format name
	Column string // column, or path of a nested field; empty for the record
	Offset int    // byte offset in the payload, -1 when unknown
	Reason string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Format)
	if e.Column != "" {
		fmt.Fprintf(&b, ": column %q", e.Column)
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " at byte %d", e.Offset)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// Names lists the supported format names, aliases included.
func Names() []string {
	return []string{"avro", "avro-confluent", "avro-registry", "csv", "debezium-json", "json", "json-registry", "raw"}
}

// Canonical returns the canonical name of a format name or alias, or "".
func Canonical(name string) string {
	switch strings.ToLower(name) {
	case "raw":
		return "raw"
	case "json":
		return "json"
	case "avro":
		return "avro"
	case "avro-confluent", "avro-registry":
		return "avro-confluent"
	case "json-registry":
		return "json-registry"
	case "csv":
		return "csv"
	case "debezium-json":
		return "debezium-json"
	}
	return ""
}

// options of each canonical format, with their prefix stripped.
var knownOptions = map[string][]string{
	"raw":            {"charset", "endianness"},
	"json":           {"fail-on-missing-field", "ignore-parse-errors", "timestamp-format.standard", "map-null-key.mode", "map-null-key.literal", "encode.decimal-as-plain-number", "encode.ignore-null-fields"},
	"avro":           {"encoding", "codec", "timestamp_mapping.legacy"},
	"csv":            {"field-delimiter", "disable-quote-character", "quote-character", "allow-comments", "ignore-parse-errors", "array-element-delimiter", "escape-character", "null-literal"},
	"debezium-json":  {"schema-include", "ignore-parse-errors", "timestamp-format.standard", "map-null-key.mode", "map-null-key.literal", "encode.decimal-as-plain-number", "encode.ignore-null-fields"},
	"avro-confluent": {"schema-id", "url", "subject", "basic-auth.credentials-source", "basic-auth.user-info", "bearer-auth.credentials-source", "bearer-auth.token", "schema", "properties", "auto.register.schemas"},
}

func init() {
	knownOptions["json-registry"] = append(append([]string{}, knownOptions["avro-confluent"]...), knownOptions["json"]...)
}

func optErr(format string, args ...any) error {
	return sqlerr.Newf(sqlerr.InvalidOption, format, args...)
}

// normalize strips the "<format>." prefixes from the option keys and
// rejects unknown ones.
func normalize(name, canon string, opts map[string]string) (map[string]string, error) {
	known := knownOptions[canon]
	out := make(map[string]string, len(opts))
	prefixes := []string{strings.ToLower(name) + ".", canon + ".", "json.", "avro-confluent.", "avro-registry.", "json-registry.", "avro.", "csv.", "debezium-json."}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		base := k
		for _, p := range prefixes {
			if strings.HasPrefix(base, p) && has(known, base[len(p):]) {
				base = base[len(p):]
				break
			}
		}
		if !has(known, base) {
			e := sqlerr.Newf(sqlerr.InvalidOption, "unknown option %q for format %q", k, name)
			short := base
			for _, p := range prefixes {
				if rest, ok := strings.CutPrefix(short, p); ok {
					short = rest
					break
				}
			}
			if s := suggest(short, known); s != "" {
				e = e.WithHint("did you mean %q?", strings.TrimSuffix(k, short)+s)
			}
			return nil, e
		}
		if _, dup := out[base]; dup {
			return nil, optErr("option %q for format %q is given twice", base, name)
		}
		out[base] = opts[k]
	}
	return out, nil
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func suggest(s string, known []string) string { return sqlerr.Closest(s, known, 4) }

func boolOpt(opts map[string]string, key string, def bool) (bool, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, optErr("option %q must be true or false, not %q", key, v)
}

// New returns the codec of the named format for the columns of schema.
func New(name string, schema *types.Schema, opts map[string]string) (Codec, error) {
	canon := Canonical(name)
	if canon == "" {
		return nil, optErr("unknown format %q (supported: %s)", name, strings.Join(Names(), ", "))
	}
	if schema == nil || schema.Len() == 0 {
		return nil, optErr("format %q needs at least one column", name)
	}
	o, err := normalize(name, canon, opts)
	if err != nil {
		return nil, err
	}
	switch canon {
	case "raw":
		return newRaw(schema, o)
	case "csv":
		return newCSV(schema, o)
	case "debezium-json":
		return nil, optErr("format 'debezium-json' is a changelog format: use NewChangelog")
	case "json":
		return newJSON(schema, o)
	case "avro":
		return newAvro(schema, o)
	case "avro-confluent":
		inner, err := newAvro(schema, nil)
		if err != nil {
			return nil, err
		}
		return newConfluent("avro-confluent", inner, o)
	default: // json-registry
		inner, err := newJSON(schema, jsonOptions(o))
		if err != nil {
			return nil, err
		}
		return newConfluent("json-registry", inner, o)
	}
}

// jsonOptions returns the json options among the options of json-registry.
func jsonOptions(o map[string]string) map[string]string {
	jo := map[string]string{}
	for _, k := range knownOptions["json"] {
		if v, ok := o[k]; ok {
			jo[k] = v
		}
	}
	return jo
}

// ConfluentMagic is the first byte of the Confluent wire format.
const ConfluentMagic = 0

// AppendConfluentHeader appends the Confluent wire header (magic byte 0,
// big-endian schema id) to dst.
func AppendConfluentHeader(dst []byte, id uint32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, ConfluentMagic), id)
}

// ConfluentHeader splits a payload in the Confluent wire format into its
// schema id and body.
func ConfluentHeader(b []byte) (id uint32, body []byte, err error) {
	if len(b) < 5 {
		return 0, nil, fmt.Errorf("payload of %d bytes is shorter than the 5-byte Confluent header", len(b))
	}
	if b[0] != ConfluentMagic {
		return 0, nil, fmt.Errorf("magic byte is %d, not 0: not in the Confluent wire format", b[0])
	}
	return binary.BigEndian.Uint32(b[1:5]), b[5:], nil
}

// Confluent is the codec of avro-confluent and json-registry.
type Confluent struct {
	name  string
	inner Codec
	id    uint32
	hasID bool
}

func newConfluent(name string, inner Codec, o map[string]string) (*Confluent, error) {
	c := &Confluent{name: name, inner: inner}
	if v, ok := o["schema-id"]; ok {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return nil, optErr("option %q of format %q must be a schema id (0..4294967295), not %q", "schema-id", name, v)
		}
		c.id, c.hasID = uint32(n), true
	}
	return c, nil
}

// Encode writes the header with the schema id of the schema-id option.
func (c *Confluent) Encode(dst []byte, vals []types.Value) ([]byte, error) {
	if !c.hasID {
		return dst, &Error{Format: c.name, Offset: -1, Reason: "no schema id to write: set the option 'schema-id' (registry lookup is not supported yet)"}
	}
	return c.inner.Encode(AppendConfluentHeader(dst, c.id), vals)
}

// Decode checks the header and decodes the body.
func (c *Confluent) Decode(b []byte, dst []types.Value) ([]types.Value, error) {
	vals, _, err := c.DecodeID(b, dst)
	return vals, err
}

// DecodeID is Decode that also returns the schema id of the header.
func (c *Confluent) DecodeID(b []byte, dst []types.Value) ([]types.Value, uint32, error) {
	id, body, err := ConfluentHeader(b)
	if err != nil {
		return nil, 0, &Error{Format: c.name, Offset: 0, Reason: err.Error()}
	}
	if c.hasID && id != c.id {
		return nil, id, &Error{Format: c.name, Offset: 1, Reason: fmt.Sprintf("schema id %d, expected %d (schema registry lookup is not supported yet)", id, c.id)}
	}
	vals, err := c.inner.Decode(body, dst)
	if e, ok := err.(*Error); ok && e.Offset >= 0 {
		e2 := *e
		e2.Format = c.name
		e2.Offset += 5
		err = &e2
	}
	return vals, id, err
}

// colName returns the name of column i.
func colName(s *types.Schema, i int) string { return s.Fields[i].Name }

// checkArity reports an error when vals does not have one value per column.
func checkArity(format string, s *types.Schema, vals []types.Value) error {
	if len(vals) != s.Len() {
		return &Error{Format: format, Offset: -1, Reason: fmt.Sprintf("%d values for %d columns", len(vals), s.Len())}
	}
	return nil
}
