package runtime

import (
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
)

// The collection aggregates: COLLECT, ARRAY_AGG, JSON_ARRAYAGG and
// JSON_OBJECTAGG, each retractable as Flink's (a retraction removes one
// equal value; one never accumulated is ignored).

// collectFunc is COLLECT(x): the multiset of the values, kept as MIN and
// MAX keep theirs (ext.vals ascending, ext.cnts their multiplicities). The
// result lists the elements in that order, a deterministic choice where
// Flink's order is its hash map's.
type collectFunc struct{ minMaxFunc }

func (collectFunc) value(s *accState) types.Value {
	if s.ext == nil || len(s.ext.vals) == 0 {
		return types.NewMap([]types.MapEntry{}) // COLLECT is never NULL
	}
	out := make([]types.MapEntry, len(s.ext.vals))
	for i, v := range s.ext.vals {
		out[i] = types.MapEntry{Key: v, Val: types.NewInt(s.ext.cnts[i])}
	}
	return types.NewMap(out)
}

// arrayAggFunc is ARRAY_AGG(x): the values in arrival order (NULLs too
// with RESPECT NULLS); a retraction removes the first equal value, as
// Flink's LinkedList.remove. An empty array is NULL.
type arrayAggFunc struct{}

func (arrayAggFunc) add(s *accState, args []types.Value) error {
	x := s.x()
	x.vals = append(x.vals, args[0])
	return nil
}

func (arrayAggFunc) retract(s *accState, args []types.Value) error {
	aggRemoveFirst(s, args[0])
	return nil
}

// merge appends src's elements after dst's.
func (arrayAggFunc) merge(dst, src *accState) error { return appendVals(dst, src) }

// appendVals appends src's ext.vals to dst's.
func appendVals(dst, src *accState) error {
	if src.ext != nil && len(src.ext.vals) > 0 {
		x := dst.x()
		x.vals = append(x.vals, src.ext.vals...)
	}
	return nil
}

func (arrayAggFunc) value(s *accState) types.Value {
	if s.ext == nil || len(s.ext.vals) == 0 {
		return types.Null
	}
	return types.NewArray(slices.Clone(s.ext.vals))
}

// jsonArrayAggFunc is JSON_ARRAYAGG(x) over the JSON texts of the values,
// in arrival order; a NULL (passed with NULL ON NULL only) is JSON null.
type jsonArrayAggFunc struct{}

// jsonNull is the text of a NULL item.
var jsonNull = types.NewString("null")

func (jsonArrayAggFunc) add(s *accState, args []types.Value) error {
	v := args[0]
	if v.IsNull() {
		v = jsonNull
	}
	x := s.x()
	x.vals = append(x.vals, v)
	return nil
}

func (jsonArrayAggFunc) retract(s *accState, args []types.Value) error {
	v := args[0]
	if v.IsNull() {
		v = jsonNull
	}
	aggRemoveFirst(s, v)
	return nil
}

// merge appends src's items after dst's.
func (jsonArrayAggFunc) merge(dst, src *accState) error { return appendVals(dst, src) }

func (jsonArrayAggFunc) value(s *accState) types.Value {
	b := []byte{'['}
	if s.ext != nil {
		for i, v := range s.ext.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, v.Str()...)
		}
	}
	return types.NewString(string(append(b, ']')))
}

// jsonObjectAggFunc is JSON_OBJECTAGG(KEY k VALUE v) over the keys and
// the JSON texts of the values: ext.vals holds the keys in ascending
// order, ext.vals2 the value texts (NULL for a NULL value, written as JSON
// null). With absent (ABSENT ON NULL) a NULL value adds no member. A key
// accumulated twice fails the statement, as in Flink; a NULL key too.
type jsonObjectAggFunc struct{ absent bool }

func (f jsonObjectAggFunc) add(s *accState, args []types.Value) error {
	k, v := args[0], args[1]
	if k.IsNull() {
		return fmt.Errorf("the key of JSON_OBJECTAGG must not be NULL")
	}
	if v.IsNull() && f.absent {
		return nil
	}
	x := s.x()
	i, found := slices.BinarySearchFunc(x.vals, k, types.Compare)
	if found {
		return fmt.Errorf("Key '%s' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. Please ensure that keys are unique.", k.Str())
	}
	x.vals = slices.Insert(x.vals, i, k)
	x.vals2 = slices.Insert(x.vals2, i, v)
	return nil
}

func (f jsonObjectAggFunc) retract(s *accState, args []types.Value) error {
	k, v := args[0], args[1]
	if s.ext == nil || k.IsNull() {
		return nil
	}
	x := s.ext
	i, found := slices.BinarySearchFunc(x.vals, k, types.Compare)
	if found && types.Equal(x.vals2[i], v) {
		x.vals = slices.Delete(x.vals, i, i+1)
		x.vals2 = slices.Delete(x.vals2, i, i+1)
	}
	return nil
}

// merge adds src's members to dst's; a key of both fails, as Flink's
// merge does.
func (f jsonObjectAggFunc) merge(dst, src *accState) error {
	if src.ext == nil {
		return nil
	}
	for i, k := range src.ext.vals {
		v := src.ext.vals2[i]
		if v.IsNull() && f.absent {
			continue
		}
		// add without the ABSENT check: src kept only what it accepted.
		if err := (jsonObjectAggFunc{}).add(dst, []types.Value{k, v}); err != nil {
			return err
		}
	}
	return nil
}

func (jsonObjectAggFunc) value(s *accState) types.Value {
	b := []byte{'{'}
	if s.ext != nil {
		for i, k := range s.ext.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = expr.AppendJSONQuoted(b, k.Str())
			b = append(b, ':')
			if v := s.ext.vals2[i]; v.IsNull() {
				b = append(b, "null"...)
			} else {
				b = append(b, v.Str()...)
			}
		}
	}
	return types.NewString(string(append(b, '}')))
}
