package format

// Avro schema resolution: decoding records written with another writer
// schema (another producer's, or an older version of the table) into the
// columns of the table, following the Avro specification's resolution rules
// (https://avro.apache.org/docs/1.11.1/specification/#schema-resolution) as
// Java's ResolvingDecoder, which Flink uses, applies them:
//
//   - writer record fields are matched to columns by name; fields the table
//     does not have are skipped; nullable columns the writer does not have
//     are NULL (their default in the derived schema); a NOT NULL column the
//     writer does not have makes the schemas incompatible;
//   - record names and namespaces are not compared (Java does not either);
//   - promotions int -> long, float, double; long -> float, double;
//     float -> double; string <-> bytes;
//   - a writer union is resolved per branch: a branch that cannot be read
//     as the column (NULL for a NOT NULL column, say) is an error only for
//     the records that use it; a union none of whose branches can be read is
//     incompatible;
//   - logical types are interpreted by the column type, except that a
//     writer's timestamp unit (millis, micros) and decimal scale are honored
//     and converted to the column's, where Java would misread them.
//
// The resolution is compiled once per writer schema into a tree of closures
// that read the Avro binary body directly into types.Value (no generic
// intermediate values), bounds-checked like the fast decoder in avro.go.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
	"github.com/hamba/avro/v2"
)

const (
	maxResolveDepth = 64   // nesting of the table's types followed by compile
	maxSkipDepth    = 1000 // nesting of skipped writer values (recursive types)
)

// parseAvroSchema parses an Avro schema with a private cache of named types
// (hamba's default cache is process-wide: a writer's "record" must not
// shadow another's).
func parseAvroSchema(text string) (avro.Schema, error) {
	return avro.ParseWithCache(text, "", &avro.SchemaCache{})
}

func derefAvro(s avro.Schema) avro.Schema {
	if r, ok := s.(*avro.RefSchema); ok {
		return r.Schema()
	}
	return s
}

func avroLogical(s avro.Schema) avro.LogicalSchema {
	if l, ok := s.(avro.LogicalTypeSchema); ok {
		return l.Logical()
	}
	return nil
}

func avroLogicalType(s avro.Schema) avro.LogicalType {
	if l := avroLogical(s); l != nil {
		return l.Type()
	}
	return ""
}

// ---- layout comparison ----

// avroShape appends the layout of s: what determines how its binary
// encoding reads, field names included, names of named types and
// documentation excluded. Two schemas with the same shape read the same
// bytes the same way, so a writer schema with the shape of the table's
// derived schema takes the fast decoder. Enums and fixed, which the derived
// schemas never contain, never match.
func avroShape(b *strings.Builder, s avro.Schema, depth int) {
	if depth > maxResolveDepth {
		b.WriteString("!")
		return
	}
	s = derefAvro(s)
	switch s.Type() {
	case avro.Null:
		b.WriteString("N")
	case avro.Boolean:
		b.WriteString("B")
	case avro.Int:
		b.WriteString("I")
		switch avroLogicalType(s) {
		case avro.Date:
			b.WriteString("d")
		case avro.TimeMillis:
			b.WriteString("t")
		}
	case avro.Long:
		b.WriteString("L")
		switch avroLogicalType(s) {
		case avro.TimestampMillis:
			b.WriteString("m")
		case avro.TimestampMicros:
			b.WriteString("u")
		case avro.LocalTimestampMillis:
			b.WriteString("lm")
		case avro.LocalTimestampMicros:
			b.WriteString("lu")
		case avro.TimeMicros:
			b.WriteString("T")
		}
	case avro.Float:
		b.WriteString("F")
	case avro.Double:
		b.WriteString("D")
	case avro.String:
		b.WriteString("S")
	case avro.Bytes:
		b.WriteString("Y")
		if d, ok := avroLogical(s).(*avro.DecimalLogicalSchema); ok {
			fmt.Fprintf(b, "(%d,%d)", d.Precision(), d.Scale())
		}
	case avro.Union:
		b.WriteString("U[")
		for i, t := range s.(*avro.UnionSchema).Types() {
			if i > 0 {
				b.WriteString(",")
			}
			avroShape(b, t, depth+1)
		}
		b.WriteString("]")
	case avro.Array:
		b.WriteString("A<")
		avroShape(b, s.(*avro.ArraySchema).Items(), depth+1)
		b.WriteString(">")
	case avro.Map:
		b.WriteString("M<")
		avroShape(b, s.(*avro.MapSchema).Values(), depth+1)
		b.WriteString(">")
	case avro.Record:
		b.WriteString("R{")
		for _, f := range s.(*avro.RecordSchema).Fields() {
			b.WriteString(strconv.Quote(f.Name()))
			b.WriteString(":")
			avroShape(b, f.Type(), depth+1)
			b.WriteString(";")
		}
		b.WriteString("}")
	default:
		b.WriteString("!")
	}
}

// typeShape appends the shape of the Avro type derived from t (as
// appendAvroType writes it).
func typeShape(b *strings.Builder, t types.Type, depth int) {
	if depth > maxResolveDepth {
		b.WriteString("?") // never equal to a writer's shape
		return
	}
	if !t.NotNull {
		b.WriteString("U[N,")
		t.NotNull = true
		typeShape(b, t, depth)
		b.WriteString("]")
		return
	}
	switch t.ID {
	case types.TypeBoolean:
		b.WriteString("B")
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt:
		b.WriteString("I")
	case types.TypeBigInt:
		b.WriteString("L")
	case types.TypeFloat:
		b.WriteString("F")
	case types.TypeDouble:
		b.WriteString("D")
	case types.TypeChar, types.TypeVarChar:
		b.WriteString("S")
	case types.TypeBinary, types.TypeVarBinary:
		b.WriteString("Y")
	case types.TypeDecimal:
		fmt.Fprintf(b, "Y(%d,%d)", t.Precision, t.Scale)
	case types.TypeDate:
		b.WriteString("Id")
	case types.TypeTime:
		b.WriteString("It")
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		if t.Precision <= 3 {
			b.WriteString("Lm")
		} else {
			b.WriteString("Lu")
		}
	case types.TypeArray:
		b.WriteString("A<")
		typeShape(b, *t.Elem, depth+1)
		b.WriteString(">")
	case types.TypeMap:
		b.WriteString("M<")
		typeShape(b, *t.Val, depth+1)
		b.WriteString(">")
	case types.TypeRow:
		fieldsShape(b, t.Fields, depth+1)
	default:
		b.WriteString("?")
	}
}

func fieldsShape(b *strings.Builder, fields []types.Field, depth int) {
	b.WriteString("R{")
	for _, f := range fields {
		b.WriteString(strconv.Quote(f.Name))
		b.WriteString(":")
		typeShape(b, f.Type, depth+1)
		b.WriteString(";")
	}
	b.WriteString("}")
}

// columnsShape is the shape of the schema derived from the columns.
func columnsShape(s *types.Schema) string {
	var b strings.Builder
	fieldsShape(&b, s.Fields, 0)
	return b.String()
}

// writerShape is the shape of a parsed writer schema.
func writerShape(s avro.Schema) string {
	var b strings.Builder
	avroShape(&b, s, 0)
	return b.String()
}

// ---- compiled resolution ----

// resolveDec reads one value written with a writer type as a column type.
type resolveDec func(r *avroReader) (types.Value, error)

// recordProg reads a writer record into the fields of a reader record.
type recordProg struct {
	n     int // reader fields
	steps []recordStep
}

type recordStep struct {
	slot int         // reader field, -1: skip the writer field
	dec  resolveDec  // slot >= 0
	skip avro.Schema // slot < 0
	path string
}

// decodeInto reads the record into out (len p.n).
func (p *recordProg) decodeInto(r *avroReader, out []types.Value) error {
	for i := range out {
		out[i] = types.Null
	}
	for i := range p.steps {
		st := &p.steps[i]
		if st.slot < 0 {
			if err := skipAvro(r, st.skip, st.path, 0); err != nil {
				return err
			}
			continue
		}
		v, err := st.dec(r)
		if err != nil {
			return err
		}
		out[st.slot] = v
	}
	return nil
}

// describeAvro names a writer type in messages.
func describeAvro(s avro.Schema) string {
	s = derefAvro(s)
	name := string(s.Type())
	if n, ok := s.(avro.NamedSchema); ok {
		name += " " + n.FullName()
	}
	if lt := avroLogicalType(s); lt != "" {
		name += " (" + string(lt) + ")"
	}
	return name
}

// compileAvroRecord compiles the resolution of writer record w into the
// reader fields; prefix is the path of the record ("" at the top, "col."
// for a nested ROW).
func compileAvroRecord(w avro.Schema, fields []types.Field, prefix string, depth int) (*recordProg, error) {
	rec, ok := derefAvro(w).(*avro.RecordSchema)
	if !ok {
		where := "the record"
		if prefix != "" {
			where = fmt.Sprintf("column %q", strings.TrimSuffix(prefix, "."))
		}
		return nil, fmt.Errorf("%s: the writer's %s cannot be read as a record", where, describeAvro(w))
	}
	p := &recordProg{n: len(fields)}
	seen := make([]bool, len(fields))
	for _, wf := range rec.Fields() {
		slot := -1
		for i := range fields {
			if fields[i].Name == wf.Name() {
				slot = i
				break
			}
		}
		path := prefix + wf.Name()
		if slot < 0 {
			p.steps = append(p.steps, recordStep{slot: -1, skip: wf.Type(), path: path})
			continue
		}
		seen[slot] = true
		dec, err := compileAvroValue(wf.Type(), fields[slot].Type, path, depth+1)
		if err != nil {
			return nil, err
		}
		p.steps = append(p.steps, recordStep{slot: slot, dec: dec, path: path})
	}
	for i, f := range fields {
		if !seen[i] && f.Type.NotNull {
			return nil, fmt.Errorf("column %q is NOT NULL (no default) and the writer schema does not have it", prefix+f.Name)
		}
	}
	return p, nil
}

func incompatible(w avro.Schema, t types.Type, path string) error {
	return fmt.Errorf("column %q: the writer's %s cannot be read as %s", path, describeAvro(w), t)
}

// compileAvroValue compiles the resolution of writer type w into column
// type t.
func compileAvroValue(w avro.Schema, t types.Type, path string, depth int) (resolveDec, error) {
	if depth > maxResolveDepth {
		return nil, fmt.Errorf("column %q is nested too deeply", path)
	}
	w = derefAvro(w)
	if u, ok := w.(*avro.UnionSchema); ok {
		return compileAvroUnion(u, t, path, depth)
	}
	if w.Type() == avro.Null {
		if t.NotNull {
			return nil, fmt.Errorf("column %q is NOT NULL and the writer's type is null", path)
		}
		return func(*avroReader) (types.Value, error) { return types.Null, nil }, nil
	}
	t.NotNull = true // a non-union writer value is never NULL
	wt := w.Type()
	switch t.ID {
	case types.TypeBoolean:
		if wt != avro.Boolean {
			break
		}
		return func(r *avroReader) (types.Value, error) {
			off := r.off
			b, err := r.fixed(path, 1)
			if err != nil {
				return types.Null, err
			}
			if b[0] > 1 {
				return types.Null, avroErr(path, off, "boolean byte %d, not 0 or 1", b[0])
			}
			return types.NewBool(b[0] == 1), nil
		}, nil
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt:
		if wt != avro.Int {
			break
		}
		id := t.ID
		return func(r *avroReader) (types.Value, error) {
			off := r.off
			n, err := r.int(path)
			if err != nil {
				return types.Null, err
			}
			if (id == types.TypeTinyInt && n != int32(int8(n))) || (id == types.TypeSmallInt && n != int32(int16(n))) {
				return types.Null, avroErr(path, off, "%d is out of range for %s", n, t)
			}
			return types.NewInt(int64(n)), nil
		}, nil
	case types.TypeBigInt:
		if rd := readLongish(w, path); rd != nil {
			return func(r *avroReader) (types.Value, error) {
				n, err := rd(r)
				if err != nil {
					return types.Null, err
				}
				return types.NewInt(n), nil
			}, nil
		}
	case types.TypeFloat, types.TypeDouble:
		single := t.ID == types.TypeFloat
		switch wt {
		case avro.Int, avro.Long:
			rd := readLongish(w, path)
			return func(r *avroReader) (types.Value, error) {
				n, err := rd(r)
				if err != nil {
					return types.Null, err
				}
				if single {
					return types.NewFloat(float64(float32(n))), nil
				}
				return types.NewFloat(float64(n)), nil
			}, nil
		case avro.Float:
			return func(r *avroReader) (types.Value, error) {
				b, err := r.fixed(path, 4)
				if err != nil {
					return types.Null, err
				}
				return types.NewFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))), nil
			}, nil
		case avro.Double:
			if single {
				break
			}
			return func(r *avroReader) (types.Value, error) {
				b, err := r.fixed(path, 8)
				if err != nil {
					return types.Null, err
				}
				return types.NewFloat(math.Float64frombits(binary.LittleEndian.Uint64(b))), nil
			}, nil
		}
	case types.TypeDecimal:
		if wt != avro.Bytes && wt != avro.String {
			break
		}
		scale := t.Scale
		if d, ok := avroLogical(w).(*avro.DecimalLogicalSchema); ok && wt == avro.Bytes {
			scale = d.Scale()
		}
		maxLen := 17 // as the fast decoder: 38 digits need at most 16 bytes
		if scale != t.Scale {
			maxLen = 64 // rescaled: RoundDecimal checks the fit
		}
		return func(r *avroReader) (types.Value, error) {
			off := r.off
			b, err := r.bytes(path)
			if err != nil {
				return types.Null, err
			}
			if len(b) > maxLen {
				return types.Null, avroErr(path, off, "decimal of %d bytes is too long for %s", len(b), t)
			}
			x := new(big.Int).SetBytes(b)
			if len(b) > 0 && b[0]&0x80 != 0 {
				x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
			d := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(x), int32(-scale))
			if scale != t.Scale {
				rd, err := types.RoundDecimal(d, t.Precision, t.Scale)
				if err != nil {
					return types.Null, avroErr(path, off, "%v", err)
				}
				return types.NewDecimal(rd), nil
			}
			if d.Coeff.Sign() != 0 && apd.NumDigits(&d.Coeff) > int64(t.Precision) {
				return types.Null, avroErr(path, off, "%s does not fit %s", d.Text('f'), t)
			}
			return types.NewDecimal(d), nil
		}, nil
	case types.TypeChar, types.TypeVarChar:
		if wt != avro.String && wt != avro.Bytes {
			break
		}
		return func(r *avroReader) (types.Value, error) {
			off := r.off
			b, err := r.bytes(path)
			if err != nil {
				return types.Null, err
			}
			if !utf8.Valid(b) {
				return types.Null, avroErr(path, off, "string is not valid UTF-8")
			}
			return types.NewString(string(b)), nil
		}, nil
	case types.TypeBinary, types.TypeVarBinary:
		if wt != avro.String && wt != avro.Bytes {
			break
		}
		return func(r *avroReader) (types.Value, error) {
			b, err := r.bytes(path)
			if err != nil {
				return types.Null, err
			}
			return types.NewBytes(b), nil
		}, nil
	case types.TypeDate:
		if wt != avro.Int {
			break
		}
		return func(r *avroReader) (types.Value, error) {
			n, err := r.int(path)
			if err != nil {
				return types.Null, err
			}
			return types.NewDate(int64(n)), nil
		}, nil
	case types.TypeTime:
		if wt != avro.Int || t.Precision > 3 {
			break
		}
		return func(r *avroReader) (types.Value, error) {
			off := r.off
			n, err := r.int(path)
			if err != nil {
				return types.Null, err
			}
			if n < 0 || int64(n) >= nanosPerDay/nanosPerMilli {
				return types.Null, avroErr(path, off, "time-millis %d is not a time of day", n)
			}
			return types.NewTime(int64(n) * nanosPerMilli), nil
		}, nil
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		rd := readLongish(w, path)
		if rd == nil || t.Precision > 6 {
			break
		}
		readerUnit := int64(1000) // nanoseconds per unit of the column
		if t.Precision <= 3 {
			readerUnit = nanosPerMilli
		}
		unit := readerUnit
		switch avroLogicalType(w) {
		case avro.TimestampMillis, avro.LocalTimestampMillis:
			unit = nanosPerMilli
		case avro.TimestampMicros, avro.LocalTimestampMicros:
			unit = 1000
		}
		return func(r *avroReader) (types.Value, error) {
			off := r.off
			n, err := rd(r)
			if err != nil {
				return types.Null, err
			}
			if n > math.MaxInt64/unit || n < math.MinInt64/unit {
				return types.Null, avroErr(path, off, "timestamp %d is out of range", n)
			}
			ns := n * unit
			if unit < readerUnit {
				ns = floorDiv(ns, readerUnit) * readerUnit
			}
			return types.NewTimestamp(ns), nil
		}, nil
	case types.TypeArray:
		a, ok := w.(*avro.ArraySchema)
		if !ok {
			break
		}
		item, err := compileAvroValue(a.Items(), *t.Elem, path+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		return func(r *avroReader) (types.Value, error) {
			out := []types.Value{}
			for {
				n, err := r.block(path)
				if err != nil || n == 0 {
					return types.NewArray(out), err
				}
				for range n {
					v, err := item(r)
					if err != nil {
						return types.Null, err
					}
					out = append(out, v)
				}
			}
		}, nil
	case types.TypeMap:
		m, ok := w.(*avro.MapSchema)
		if !ok || !t.Elem.IsString() {
			break
		}
		val, err := compileAvroValue(m.Values(), *t.Val, path+"{}", depth+1)
		if err != nil {
			return nil, err
		}
		return func(r *avroReader) (types.Value, error) {
			out := []types.MapEntry{}
			for {
				n, err := r.block(path)
				if err != nil || n == 0 {
					return types.NewMap(out), err
				}
				for range n {
					k, err := r.mapKey(path)
					if err != nil {
						return types.Null, err
					}
					v, err := val(r)
					if err != nil {
						return types.Null, err
					}
					out = append(out, types.MapEntry{Key: k, Val: v})
				}
			}
		}, nil
	case types.TypeRow:
		if wt != avro.Record {
			break
		}
		prog, err := compileAvroRecord(w, t.Fields, path+".", depth+1)
		if err != nil {
			return nil, err
		}
		return func(r *avroReader) (types.Value, error) {
			out := make([]types.Value, prog.n)
			if err := prog.decodeInto(r, out); err != nil {
				return types.Null, err
			}
			return types.NewRow(out), nil
		}, nil
	}
	return nil, incompatible(w, t, path)
}

// readLongish reads a writer int or long as an int64, nil for other types.
func readLongish(w avro.Schema, path string) func(r *avroReader) (int64, error) {
	switch w.Type() {
	case avro.Int:
		return func(r *avroReader) (int64, error) {
			n, err := r.int(path)
			return int64(n), err
		}
	case avro.Long:
		return func(r *avroReader) (int64, error) { return r.long(path) }
	}
	return nil
}

// compileAvroUnion resolves a writer union branch by branch.
func compileAvroUnion(u *avro.UnionSchema, t types.Type, path string, depth int) (resolveDec, error) {
	branches := u.Types()
	decs := make([]resolveDec, len(branches))
	var firstErr error
	ok := false
	for i, b := range branches {
		d, err := compileAvroValue(b, t, path, depth+1)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			msg := err.Error()
			desc := describeAvro(b)
			decs[i] = func(r *avroReader) (types.Value, error) {
				return types.Null, avroErr(path, r.off, "union branch %d (%s) of the writer schema cannot be read: %s", i, desc, msg)
			}
			continue
		}
		ok = true
		decs[i] = d
	}
	if !ok {
		if firstErr == nil {
			firstErr = fmt.Errorf("column %q: the writer's union has no branches", path)
		}
		return nil, firstErr
	}
	return func(r *avroReader) (types.Value, error) {
		off := r.off
		br, err := r.long(path)
		if err != nil {
			return types.Null, err
		}
		if br < 0 || br >= int64(len(decs)) {
			return types.Null, avroErr(path, off, "union branch %d, the writer's union has %d", br, len(decs))
		}
		return decs[br](r)
	}, nil
}

// spend charges n items to the reader's item budget, which bounds the work
// (and memory) spent on arrays of values that take no bytes (null, empty
// records) in hostile payloads.
func (r *avroReader) spend(path string, n int) error {
	r.budget -= n
	if r.budget < 0 {
		return avroErr(path, r.off, "too many array items for a %d-byte payload", len(r.b))
	}
	return nil
}

// skipAvro skips a value of writer type s.
func skipAvro(r *avroReader, s avro.Schema, path string, depth int) error {
	if depth > maxSkipDepth {
		return avroErr(path, r.off, "value nested too deeply")
	}
	s = derefAvro(s)
	switch s.Type() {
	case avro.Null:
		return nil
	case avro.Boolean:
		_, err := r.fixed(path, 1)
		return err
	case avro.Int:
		_, err := r.int(path)
		return err
	case avro.Long:
		_, err := r.long(path)
		return err
	case avro.Float:
		_, err := r.fixed(path, 4)
		return err
	case avro.Double:
		_, err := r.fixed(path, 8)
		return err
	case avro.String, avro.Bytes:
		_, err := r.bytes(path)
		return err
	case avro.Fixed:
		_, err := r.fixed(path, s.(*avro.FixedSchema).Size())
		return err
	case avro.Enum:
		off := r.off
		n, err := r.int(path)
		if err != nil {
			return err
		}
		if n < 0 || int(n) >= len(s.(*avro.EnumSchema).Symbols()) {
			return avroErr(path, off, "enum index %d out of range", n)
		}
		return nil
	case avro.Union:
		off := r.off
		br, err := r.long(path)
		if err != nil {
			return err
		}
		ts := s.(*avro.UnionSchema).Types()
		if br < 0 || br >= int64(len(ts)) {
			return avroErr(path, off, "union branch %d, the writer's union has %d", br, len(ts))
		}
		return skipAvro(r, ts[br], path, depth+1)
	case avro.Array, avro.Map:
		var elem avro.Schema
		isMap := s.Type() == avro.Map
		if isMap {
			elem = s.(*avro.MapSchema).Values()
		} else {
			elem = s.(*avro.ArraySchema).Items()
		}
		for {
			n, err := r.blockCount(path)
			if err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
			if err := r.spend(path, n); err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				if isMap {
					if _, err := r.bytes(path); err != nil {
						return err
					}
				}
				if err := skipAvro(r, elem, path, depth+1); err != nil {
					return err
				}
			}
		}
	case avro.Record:
		for _, f := range s.(*avro.RecordSchema).Fields() {
			if err := skipAvro(r, f.Type(), path+"."+f.Name(), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return avroErr(path, r.off, "cannot skip a writer value of type %s", s.Type())
}
