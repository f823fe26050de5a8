package format

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// ChangelogCodec is a changelog format: a payload holds changes with
// their own kinds (Debezium's before, after and op).
type ChangelogCodec interface {
	// DecodeChanges appends the rows of payload b, each row's values to
	// dst and its kind to kinds: none (a tombstone, or a bad record under
	// ignore-parse-errors), one, or two (an update: -U then +U).
	DecodeChanges(b []byte, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error)
	// EncodeChange appends the payload of one change.
	EncodeChange(dst []byte, kind types.RowKind, vals []types.Value) ([]byte, error)
}

// IsChangelog reports whether a format name is a changelog format
// (NewChangelog, not New).
func IsChangelog(name string) bool { return Canonical(name) == "debezium-json" }

// NewChangelog returns the codec of a changelog format for the columns of
// schema.
func NewChangelog(name string, schema *types.Schema, opts map[string]string) (ChangelogCodec, error) {
	canon := Canonical(name)
	if !IsChangelog(canon) {
		return nil, optErr("format %q is not a changelog format (debezium-json is)", name)
	}
	if schema == nil || schema.Len() == 0 {
		return nil, optErr("format %q needs at least one column", name)
	}
	o, err := normalize(name, canon, opts)
	if err != nil {
		return nil, err
	}
	return newDebezium(schema, o)
}

// debezium is Flink's debezium-json format: a JSON object with "before",
// "after" and "op" (inside "payload" with 'schema-include'). Its
// DecodeChanges is not safe for concurrent use (scratch buffer);
// EncodeChange is.
type debezium struct {
	schema        *types.Schema
	schemaInclude bool
	ignoreErrors  bool
	// envelope decodes {before, after, op} or {payload: {...}}; rows
	// decodes the object of before or after on the fast path.
	envelope *jsonCodec
	rows     *jsonCodec
	row      types.Type
	buf      []types.Value
}

func newDebezium(s *types.Schema, o map[string]string) (*debezium, error) {
	d := &debezium{schema: s}
	var err error
	if d.schemaInclude, err = boolOpt(o, "schema-include", false); err != nil {
		return nil, err
	}
	if d.ignoreErrors, err = boolOpt(o, "ignore-parse-errors", false); err != nil {
		return nil, err
	}
	jo := map[string]string{}
	for _, k := range []string{"ignore-parse-errors", "timestamp-format.standard", "map-null-key.mode", "map-null-key.literal", "encode.decimal-as-plain-number", "encode.ignore-null-fields"} {
		if v, ok := o[k]; ok {
			jo[k] = v
		}
	}
	d.row = types.Type{ID: types.TypeRow, Fields: s.Fields}
	env := types.NewSchema(
		types.Field{Name: "before", Type: d.row},
		types.Field{Name: "after", Type: d.row},
		types.Field{Name: "op", Type: types.String},
	)
	if d.schemaInclude {
		env = types.NewSchema(types.Field{Name: "payload", Type: types.Type{ID: types.TypeRow, Fields: env.Fields}})
	}
	c, err := newJSON(env, jo)
	if err != nil {
		return nil, err
	}
	d.envelope = c.(*jsonCodec)
	rc, err := newJSON(s, jo)
	if err != nil {
		return nil, err
	}
	d.rows = rc.(*jsonCodec)
	return d, nil
}

// split finds the before, after and op members of an event without
// decoding them (inside payload with schema-include); ok is false when the
// event is not a plain JSON object with those members, and the generic
// decoder then says what is wrong.
func (d *debezium) split(b []byte, payload bool) (before, after []byte, op byte, ok bool) {
	s := jsonScanner{b: b}
	s.skipSpace()
	if s.peek() != '{' {
		return nil, nil, 0, false
	}
	s.i++
	s.skipSpace()
	var seenOp bool
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			if s.peek() != '"' {
				return nil, nil, 0, false
			}
			key, ok := s.str()
			if !ok {
				return nil, nil, 0, false
			}
			name := string(key) // short keys: no allocation for these compares
			s.skipSpace()
			if s.peek() != ':' {
				return nil, nil, 0, false
			}
			s.i++
			s.skipSpace()
			start := s.i
			if !s.skip(1) {
				return nil, nil, 0, false
			}
			val := b[start:s.i]
			switch {
			case payload && name == "payload":
				if before, after, op, ok = d.split(val, false); !ok {
					return nil, nil, 0, false
				}
				seenOp = true
			case !payload && name == "before":
				before = val
			case !payload && name == "after":
				after = val
			case !payload && name == "op":
				if len(val) != 3 || val[0] != '"' || val[2] != '"' {
					return nil, nil, 0, false
				}
				op, seenOp = val[1], true
			}
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.i++
				s.skipSpace()
				continue
			case '}':
				s.i++
			default:
				return nil, nil, 0, false
			}
			break
		}
	}
	s.skipSpace()
	return before, after, op, seenOp && s.i == len(b)
}

// fast decodes a well-formed event whose rows convert without errors;
// ok is false for anything else (the generic path then decodes it and
// reports what is wrong).
func (d *debezium) fast(b []byte, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, bool) {
	before, after, op, ok := d.split(b, d.schemaInclude)
	if !ok {
		return dst, kinds, false
	}
	base := len(dst)
	row := func(v []byte) bool {
		if len(v) == 0 || string(v) == "null" {
			return false
		}
		out, ok, err := d.rows.decodeFast(v, dst)
		if !ok || err != nil || out == nil {
			return false
		}
		dst = out
		return true
	}
	switch op {
	case 'c', 'r':
		if row(after) {
			return dst, append(kinds, types.Insert), true
		}
	case 'u':
		if row(before) && row(after) {
			return dst, append(kinds, types.UpdateBefore, types.UpdateAfter), true
		}
	case 'd':
		if row(before) {
			return dst, append(kinds, types.Delete), true
		}
	}
	return dst[:base], kinds, false
}

// replicaIdentity is Flink's message for an update or delete without
// "before".
const replicaIdentity = `The "before" field of %s message is null, if you are using Debezium Postgres Connector, please check the Postgres table has been set REPLICA IDENTITY to FULL level.`

func (d *debezium) fail(b []byte, format string, args ...any) error {
	return &Error{Format: "debezium-json", Offset: -1, Reason: fmt.Sprintf(format, args...) + fmt.Sprintf(" The Debezium JSON message is '%s'.", truncate(b))}
}

// truncate shortens a message for an error.
func truncate(b []byte) string {
	const max = 200
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// DecodeChanges implements ChangelogCodec: op c and r are +I of after, u
// is -U of before and +U of after, d is -D of before. An empty message (a
// Kafka tombstone) holds no change.
func (d *debezium) DecodeChanges(b []byte, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error) {
	if len(b) == 0 {
		return dst, kinds, nil
	}
	if out, ks, ok := d.fast(b, dst, kinds); ok {
		return out, ks, nil
	}
	return d.slow(b, dst, kinds)
}

// slow decodes an event with the envelope codec: the reference for fast,
// and the decoder of everything fast does not take.
func (d *debezium) slow(b []byte, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error) {
	env, err := d.envelope.Decode(b, d.buf[:0])
	if err != nil || env == nil {
		if d.ignoreErrors {
			return dst, kinds, nil
		}
		if err == nil {
			err = d.fail(b, "Corrupt Debezium JSON message.")
		} else if e, ok := err.(*Error); ok {
			e2 := *e
			e2.Format = "debezium-json"
			err = &e2
		}
		return dst, kinds, err
	}
	d.buf = env
	if d.schemaInclude {
		if env[0].IsNull() {
			return d.bad(b, dst, kinds, "The message has no \"payload\" ('debezium-json.schema-include' is true).")
		}
		env = env[0].Fields()
	}
	before, after, op := env[0], env[1], env[2]
	switch op.Str() {
	case "c", "r":
		if after.IsNull() {
			return d.bad(b, dst, kinds, "The \"after\" field of %s message is null.", opName(op.Str()))
		}
		return append(dst, after.Fields()...), append(kinds, types.Insert), nil
	case "u":
		if before.IsNull() {
			return d.bad(b, dst, kinds, replicaIdentity, "UPDATE")
		}
		if after.IsNull() {
			return d.bad(b, dst, kinds, "The \"after\" field of UPDATE message is null.")
		}
		dst = append(append(dst, before.Fields()...), after.Fields()...)
		return dst, append(kinds, types.UpdateBefore, types.UpdateAfter), nil
	case "d":
		if before.IsNull() {
			return d.bad(b, dst, kinds, replicaIdentity, "DELETE")
		}
		return append(dst, before.Fields()...), append(kinds, types.Delete), nil
	}
	if op.IsNull() {
		return d.bad(b, dst, kinds, "The message has no \"op\".")
	}
	return d.bad(b, dst, kinds, "Unknown \"op\" value \"%s\".", op.Str())
}

func opName(op string) string {
	if op == "r" {
		return "READ"
	}
	return "INSERT"
}

// bad reports a message that is not a valid change (skipped under
// ignore-parse-errors).
func (d *debezium) bad(b []byte, dst []types.Value, kinds []types.RowKind, format string, args ...any) ([]types.Value, []types.RowKind, error) {
	if d.ignoreErrors {
		return dst, kinds, nil
	}
	return dst, kinds, d.fail(b, format, args...)
}

// EncodeChange implements ChangelogCodec as Flink's encoder does: +I and
// +U are {"before":null,"after":{...},"op":"c"}, -U and -D
// {"before":{...},"after":null,"op":"d"}.
func (d *debezium) EncodeChange(dst []byte, kind types.RowKind, vals []types.Value) ([]byte, error) {
	if d.schemaInclude {
		return dst, &Error{Format: "debezium-json", Offset: -1, Reason: "writing with 'debezium-json.schema-include' = 'true' is not supported (Flink neither)"}
	}
	if err := checkArity("debezium-json", d.schema, vals); err != nil {
		return dst, err
	}
	row := types.NewRow(vals)
	var env [3]types.Value
	switch kind {
	case types.Insert, types.UpdateAfter:
		env = [3]types.Value{types.Null, row, types.NewString("c")}
	case types.UpdateBefore, types.Delete:
		env = [3]types.Value{row, types.Null, types.NewString("d")}
	default:
		return dst, &Error{Format: "debezium-json", Offset: -1, Reason: fmt.Sprintf("unsupported row kind %v", kind)}
	}
	out, err := d.envelope.Encode(dst, env[:])
	if e, ok := err.(*Error); ok {
		e2 := *e
		e2.Format = "debezium-json"
		e2.Column = strings.TrimPrefix(strings.TrimPrefix(e2.Column, "before."), "after.")
		err = &e2
	}
	return out, err
}
