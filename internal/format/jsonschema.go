package format

import (
	"strconv"

	"github.com/eddy-sql/eddy/types"
)

// JSONSchemaDraft is the JSON Schema version of the schemas JSONSchema
// derives.
const JSONSchemaDraft = "http://json-schema.org/draft-07/schema#"

// JSONSchema returns the JSON Schema (draft-07) of the json encoding of the
// columns of schema: the schema json-registry registers. The top level is an
// object titled "record" (the name of Flink's Avro record); nullable types
// are {"oneOf":[{"type":"null"},T]} as Confluent's Flink writes them; NOT NULL
// columns are required. Integer types carry Kafka Connect's "connect.type"
// (int8, int16, int32, int64), FLOAT and DOUBLE float32 and float64, so
// Connect-based consumers keep their widths. DECIMAL is a number (written
// plain), BYTES a base64 string, DATE a string of format "date"; TIME,
// TIMESTAMP and TIMESTAMP_LTZ are strings (json.timestamp-format.standard
// decides their layout); intervals are integers (months, milliseconds); MAP
// is an object with additionalProperties. Non-finite FLOAT and DOUBLE values
// are written as the strings "NaN", "Infinity" and "-Infinity", which the
// schema does not describe.
func JSONSchema(schema *types.Schema) (string, error) {
	if schema == nil || schema.Len() == 0 {
		return "", optErr("format 'json-registry' needs at least one column")
	}
	for _, f := range schema.Fields {
		if err := jsonSupported(f.Name, f.Type, 0); err != nil {
			return "", err
		}
	}
	dst := []byte(`{"$schema":`)
	dst = appendJSONString(dst, JSONSchemaDraft)
	dst = append(dst, `,"title":"record",`...)
	dst = appendJSONSchemaObject(dst, schema.Fields)
	return string(append(dst, '}')), nil
}

// appendJSONSchemaObject appends the "type", "properties" and "required"
// members of an object with fields.
func appendJSONSchemaObject(dst []byte, fields []types.Field) []byte {
	dst = append(dst, `"type":"object","properties":{`...)
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, f.Name)
		dst = append(dst, ':')
		dst = appendJSONSchemaType(dst, f.Type)
	}
	dst = append(dst, '}')
	first := true
	for _, f := range fields {
		if !f.Type.NotNull {
			continue
		}
		if first {
			dst = append(dst, `,"required":[`...)
			first = false
		} else {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, f.Name)
	}
	if !first {
		dst = append(dst, ']')
	}
	return dst
}

func appendJSONSchemaType(dst []byte, t types.Type) []byte {
	if !t.NotNull {
		dst = append(dst, `{"oneOf":[{"type":"null"},`...)
		t.NotNull = true
		dst = appendJSONSchemaType(dst, t)
		return append(dst, "]}"...)
	}
	switch t.ID {
	case types.TypeBoolean:
		return append(dst, `{"type":"boolean"}`...)
	case types.TypeTinyInt:
		return append(dst, `{"type":"integer","connect.type":"int8"}`...)
	case types.TypeSmallInt:
		return append(dst, `{"type":"integer","connect.type":"int16"}`...)
	case types.TypeInt:
		return append(dst, `{"type":"integer","connect.type":"int32"}`...)
	case types.TypeBigInt:
		return append(dst, `{"type":"integer","connect.type":"int64"}`...)
	case types.TypeFloat:
		return append(dst, `{"type":"number","connect.type":"float32"}`...)
	case types.TypeDouble:
		return append(dst, `{"type":"number","connect.type":"float64"}`...)
	case types.TypeDecimal:
		return append(dst, `{"type":"number"}`...)
	case types.TypeChar, types.TypeVarChar:
		if t.Length > 0 && t.Length < types.MaxLength {
			dst = append(dst, `{"type":"string","maxLength":`...)
			dst = strconv.AppendInt(dst, int64(t.Length), 10)
			return append(dst, '}')
		}
		return append(dst, `{"type":"string"}`...)
	case types.TypeBinary, types.TypeVarBinary:
		return append(dst, `{"type":"string","contentEncoding":"base64"}`...)
	case types.TypeDate:
		return append(dst, `{"type":"string","format":"date"}`...)
	case types.TypeIntervalYearMonth, types.TypeIntervalDayTime:
		return append(dst, `{"type":"integer"}`...)
	case types.TypeArray:
		dst = append(dst, `{"type":"array","items":`...)
		dst = appendJSONSchemaType(dst, *t.Elem)
		return append(dst, '}')
	case types.TypeMap:
		dst = append(dst, `{"type":"object","additionalProperties":`...)
		dst = appendJSONSchemaType(dst, *t.Val)
		return append(dst, '}')
	case types.TypeRow:
		dst = append(dst, '{')
		dst = appendJSONSchemaObject(dst, t.Fields)
		return append(dst, '}')
	}
	// TIME, TIMESTAMP, TIMESTAMP_LTZ
	return append(dst, `{"type":"string"}`...)
}
