package types

// RowKind is the change kind of a row in a changelog.
type RowKind uint8

// The four row kinds. Their numeric values are the op codes of the REST
// results API (0..3) and of Flink's RowKind.
const (
	Insert       RowKind = iota // +I
	UpdateBefore                // -U
	UpdateAfter                 // +U
	Delete                      // -D
)

// String returns the short form (+I, -U, +U, -D).
func (k RowKind) String() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return "?"
}

// Name returns the Flink enum name (INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE).
func (k RowKind) Name() string {
	switch k {
	case Insert:
		return "INSERT"
	case UpdateBefore:
		return "UPDATE_BEFORE"
	case UpdateAfter:
		return "UPDATE_AFTER"
	case Delete:
		return "DELETE"
	}
	return "UNKNOWN"
}

// IsRetraction reports whether k removes a row (-U or -D).
func (k RowKind) IsRetraction() bool { return k == UpdateBefore || k == Delete }

// Row is a row with its change kind. Values are positional; the schema that
// names them travels separately (Schema).
type Row struct {
	Kind   RowKind
	Values []Value
}

// Schema is an ordered list of named, typed columns.
type Schema struct {
	Fields []Field
}

// NewSchema returns a schema with the given fields.
func NewSchema(fields ...Field) *Schema { return &Schema{Fields: fields} }

// Len returns the number of columns.
func (s *Schema) Len() int { return len(s.Fields) }

// Index returns the position of the named column, or -1. Names compare
// exactly, then case-insensitively when no exact match exists.
func (s *Schema) Index(name string) int {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return i
		}
	}
	for i := range s.Fields {
		if equalFold(s.Fields[i].Name, name) {
			return i
		}
	}
	return -1
}

// Names returns the column names.
func (s *Schema) Names() []string {
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// RowType returns the schema as a ROW type.
func (s *Schema) RowType() Type { return RowOf(s.Fields...) }

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
