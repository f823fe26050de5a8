package statement

import (
	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/types"
)

// resultBuffer keeps the latest result rows of a statement for the
// results endpoint. Offsets are absolute: when the buffer is full the
// oldest rows are dropped and base moves on.
type resultBuffer struct {
	capacity int
	schema   *types.Schema
	base     int64
	rows     []v1.ResultRow
	done     bool
}

func newResultBuffer(capacity int, schema *types.Schema) *resultBuffer {
	return &resultBuffer{capacity: capacity, schema: schema}
}

func (b *resultBuffer) add(op int, vals []types.Value) {
	row := make([]any, len(vals))
	for i, v := range vals {
		t := types.NullType
		if b.schema != nil && i < b.schema.Len() {
			t = b.schema.Fields[i].Type
		}
		row[i] = jsonValue(v, t)
	}
	b.rows = append(b.rows, v1.ResultRow{Op: op, Row: row})
	if len(b.rows) > b.capacity {
		drop := len(b.rows) - b.capacity
		b.rows = append(b.rows[:0], b.rows[drop:]...)
		b.base += int64(drop)
	}
}

func (b *resultBuffer) finish() { b.done = true }

// page returns rows from offset from; done reports that the results are
// complete and all were returned.
func (b *resultBuffer) page(from int64, max int) (rows []v1.ResultRow, next int64, done bool) {
	if max <= 0 || max > 10000 {
		max = 1000
	}
	if from < b.base {
		from = b.base
	}
	i := int(from - b.base)
	if i > len(b.rows) {
		i = len(b.rows)
	}
	j := min(i+max, len(b.rows))
	rows = append([]v1.ResultRow(nil), b.rows[i:j]...)
	next = b.base + int64(j)
	return rows, next, b.done && j == len(b.rows)
}

// jsonValue renders a value as the results API does: strings, null,
// arrays for ROW and ARRAY, [key, value] pairs for MAP.
func jsonValue(v types.Value, t types.Type) any {
	switch v.Kind() {
	case types.KindNull:
		return nil
	case types.KindRow:
		fs := v.Fields()
		out := make([]any, len(fs))
		for i, f := range fs {
			ft := types.NullType
			if i < len(t.Fields) {
				ft = t.Fields[i].Type
			}
			out[i] = jsonValue(f, ft)
		}
		return out
	case types.KindArray:
		es := v.Array()
		out := make([]any, len(es))
		for i, e := range es {
			et := types.NullType
			if t.Elem != nil {
				et = *t.Elem
			}
			out[i] = jsonValue(e, et)
		}
		return out
	case types.KindMap:
		var out []any
		for _, e := range v.Map() {
			kt, vt := types.NullType, types.NullType
			if t.Elem != nil {
				kt = *t.Elem
			}
			if t.Val != nil {
				vt = *t.Val
			}
			out = append(out, []any{jsonValue(e.Key, kt), jsonValue(e.Val, vt)})
		}
		return out
	}
	if t.ID == types.TypeNull {
		t = v.InferType()
	}
	return types.Format(v, t)
}
