package cli

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// formatValue renders one value for the result tables.
//
// TODO(cli): switch to types.Format(v, t) once package types has it; this is
// a private fallback with the same Flink SQL client conventions.
func formatValue(v types.Value, t types.Type) string {
	if v.IsNull() {
		return "<NULL>"
	}
	switch v.Kind() {
	case types.KindBool:
		if v.Bool() {
			return "TRUE"
		}
		return "FALSE"
	case types.KindInt:
		return strconv.FormatInt(v.Int(), 10)
	case types.KindFloat:
		return formatFloat(v.Float())
	case types.KindDecimal:
		return v.Decimal().Text('f')
	case types.KindString:
		return v.Str()
	case types.KindBytes:
		return "x'" + hex.EncodeToString(v.Bytes()) + "'"
	case types.KindDate:
		return time.Unix(v.Int()*86400, 0).UTC().Format(time.DateOnly)
	case types.KindTime:
		return formatClock(time.Unix(0, v.Int()).UTC(), t.Precision, "15:04:05")
	case types.KindTimestamp:
		return formatClock(v.Time(), t.Precision, time.DateTime)
	case types.KindIntervalMonths:
		m := v.Int()
		return fmt.Sprintf("%+d-%02d", m/12, abs(m%12))
	case types.KindIntervalNanos:
		return v.Duration().String()
	case types.KindArray:
		return "[" + formatList(v.Array(), elemType(t)) + "]"
	case types.KindMap:
		return formatMap(v.Map(), t)
	case types.KindRow:
		return "(" + formatFields(v.Fields(), t) + ")"
	}
	return "?"
}

func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEnN") { // Java's Double.toString always shows a fraction
		s += ".0"
	}
	return s
}

func formatClock(t time.Time, precision int, layout string) string {
	if precision > 0 {
		layout += "." + strings.Repeat("0", min(precision, 9))
	}
	return t.Format(layout)
}

func elemType(t types.Type) types.Type {
	if t.Elem != nil {
		return *t.Elem
	}
	return types.Type{}
}

func formatList(vs []types.Value, t types.Type) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = formatValue(v, t)
	}
	return strings.Join(parts, ", ")
}

func formatMap(entries []types.MapEntry, t types.Type) string {
	vt := types.Type{}
	if t.Val != nil {
		vt = *t.Val
	}
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = formatValue(e.Key, elemType(t)) + "=" + formatValue(e.Val, vt)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func formatFields(vs []types.Value, t types.Type) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		var ft types.Type
		if i < len(t.Fields) {
			ft = t.Fields[i].Type
		}
		parts[i] = formatValue(v, ft)
	}
	return strings.Join(parts, ", ")
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
