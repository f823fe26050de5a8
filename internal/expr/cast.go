package expr

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// convFunc converts one non-NULL value. A nil convFunc is the identity.
type convFunc func(v types.Value) (types.Value, error)

type castExpr struct {
	e        Expr
	t        types.Type
	conv     convFunc
	try      bool
	implicit bool // inserted by coerce; rendered like an explicit CAST
}

// Cast returns CAST(e AS to), or TRY_CAST(e AS to) when try is set. The
// conversion must be allowed by CanCast. The result has e's nullability
// (TRY_CAST results are always nullable).
//
// Conversions follow Flink: numbers to integers truncate toward zero and
// fail when out of range; to DECIMAL(p, s) round HALF_UP to s digits and
// fail when more than p-s integer digits remain; strings are trimmed and
// parsed (errors on bad input); BOOLEAN renders as 'TRUE'/'FALSE' and
// parses from true/t/yes/y/1 and false/f/no/n/0 in any case; DOUBLE 120.0
// renders as '120.0'; timestamps parse from and render as
// 'yyyy-MM-dd HH:mm:ss[.fffffffff]'; casting to a shorter TIMESTAMP(p) or
// TIME(p) truncates fractional digits; casting to VARCHAR(n) truncates and
// to CHAR(n) truncates or pads with spaces. A failing CAST is a runtime
// error; a failing TRY_CAST returns NULL.
func Cast(e Expr, to types.Type, try bool) (Expr, error) {
	if e == nil {
		return nil, errNilArg("CAST")
	}
	from := e.Type()
	if !CanCast(from, to) {
		return nil, typeErrorf("cannot cast %s to %s", typeString(from), typeString(to))
	}
	to.NotNull = from.NotNull && !try && from.ID != types.TypeNull
	return &castExpr{e: e, t: to, conv: castFunc(from, to), try: try}, nil
}

// CastIn is Cast in the session time zone zone (nil or UTC: Cast): a
// TIMESTAMP_LTZ cast to TIMESTAMP, DATE, TIME or a string is first turned
// into its wall-clock time in zone, and a TIMESTAMP, DATE or string cast to
// TIMESTAMP_LTZ is read as a wall-clock time in zone, as Flink does with
// 'table.local-time-zone'.
func CastIn(e Expr, to types.Type, try bool, zone *time.Location) (Expr, error) {
	x, err := Cast(e, to, try)
	if err != nil || zone == nil || zone == time.UTC {
		return x, err
	}
	c, ok := x.(*castExpr)
	if !ok {
		return x, nil
	}
	from := e.Type()
	ltz := types.TypeTimestampLTZ
	local := func(t types.Type) bool {
		return t.ID == types.TypeTimestamp || t.ID == types.TypeDate || t.ID == types.TypeTime || t.IsString()
	}
	switch {
	case from.ID == ltz && local(to):
		wall := types.Timestamp(from.Precision)
		inner := castFunc(wall, to)
		c.conv = func(v types.Value) (types.Value, error) {
			v = types.NewTimestamp(instantToWall(v.Int(), zone))
			if inner == nil {
				return v, nil
			}
			return inner(v)
		}
	case to.ID == ltz && local(from) && from.ID != types.TypeTime:
		inner := castFunc(from, types.Timestamp(to.Precision))
		c.conv = func(v types.Value) (types.Value, error) {
			if inner != nil {
				var err error
				if v, err = inner(v); err != nil {
					return v, err
				}
			}
			return types.NewTimestamp(wallToInstant(v.Int(), zone)), nil
		}
	}
	return c, nil
}

func (c *castExpr) Type() types.Type { return c.t }

func (c *castExpr) String() string {
	name := "CAST("
	if c.try {
		name = "TRY_CAST("
	}
	return name + c.e.String() + " AS " + typeString(c.t) + ")"
}

func (c *castExpr) Eval(row []types.Value) (types.Value, error) {
	v, err := c.e.Eval(row)
	if err != nil || v.IsNull() || c.conv == nil {
		return v, err
	}
	out, err := c.conv(v)
	if err != nil {
		if c.try {
			return types.Null, nil
		}
		return types.Null, err
	}
	return out, nil
}

// castError reports a failed conversion of v (of type from) to type to.
func castError(v types.Value, from, to types.Type, reason string) error {
	msg := "cannot cast " + sqlLiteral(v, from) + " to " + typeString(to)
	if reason != "" {
		msg += ": " + reason
	}
	return runtimeErrorf("%s", msg)
}

// castFunc returns the conversion from type from to type to (which must be
// allowed by CanCast), or nil if the representation is unchanged.
func castFunc(from, to types.Type) convFunc {
	if from.ID == types.TypeNull || !needsConversion(from, to) {
		return nil
	}
	if from.ID == types.TypeMultiset && to.ID == types.TypeMultiset {
		// Element-wise: equal elements after the cast keep separate
		// entries, as Flink's cast of the underlying map does.
		from, to = multisetMap(from), multisetMap(to)
	}
	fail := func(v types.Value, reason string) (types.Value, error) {
		return types.Null, castError(v, from, to, reason)
	}
	switch {
	case to.IsString():
		return castToString(from, to)
	case to.IsInteger():
		return func(v types.Value) (types.Value, error) {
			n, reason := toInteger(v, from)
			if reason != "" {
				return fail(v, reason)
			}
			if wrapInt(n, to.ID) != n {
				return fail(v, "out of range")
			}
			return types.NewInt(n), nil
		}
	case isApprox(to):
		return func(v types.Value) (types.Value, error) {
			f, reason := toFloat(v, from)
			if reason != "" {
				return fail(v, reason)
			}
			if to.ID == types.TypeFloat {
				f = float64(float32(f))
			}
			return types.NewFloat(f), nil
		}
	case to.ID == types.TypeDecimal:
		return func(v types.Value) (types.Value, error) {
			var buf apd.Decimal
			d, reason := toDecimalValue(v, from, &buf)
			if reason != "" {
				return fail(v, reason)
			}
			r, err := roundDecimal(d, to)
			if err != nil {
				return fail(v, "out of range")
			}
			return types.NewDecimal(r), nil
		}
	case to.ID == types.TypeBoolean:
		return func(v types.Value) (types.Value, error) {
			if from.IsInteger() {
				return types.NewBool(v.Int() != 0), nil
			}
			if b, ok := parseBool(v.Str()); ok {
				return types.NewBool(b), nil
			}
			return fail(v, "not a BOOLEAN")
		}
	case isBinary(to):
		return func(v types.Value) (types.Value, error) {
			return types.NewBytes([]byte(fitBytes(v.Str(), to))), nil
		}
	case to.ID == types.TypeDate, to.ID == types.TypeTime, to.IsTimestamp():
		return castToDatetime(from, to, fail)
	}
	return castConstructed(from, to)
}

// castToString renders values like Flink and fits them to the target length.
func castToString(from, to types.Type) convFunc {
	return func(v types.Value) (types.Value, error) {
		return types.NewString(fitString(flinkString(v, from), to)), nil
	}
}

// fitString truncates s to a VARCHAR(n)/CHAR(n) length, padding CHAR(n)
// with spaces.
func fitString(s string, t types.Type) string {
	if t.Length >= types.MaxLength || len(s) <= t.Length && t.ID == types.TypeVarChar {
		return s
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n > t.Length:
		i, k := 0, 0
		for ; k < t.Length; k++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		return s[:i]
	case n < t.Length && t.ID == types.TypeChar:
		return s + strings.Repeat(" ", t.Length-n)
	}
	return s
}

// fitBytes truncates to a VARBINARY(n)/BINARY(n) length, padding BINARY(n)
// with zero bytes.
func fitBytes(s string, t types.Type) string {
	switch {
	case len(s) > t.Length:
		return s[:t.Length]
	case len(s) < t.Length && t.ID == types.TypeBinary:
		return s + strings.Repeat("\x00", t.Length-len(s))
	}
	return s
}

// toInteger converts to int64 (truncating toward zero); a non-empty reason
// reports failure.
func toInteger(v types.Value, from types.Type) (int64, string) {
	switch {
	case from.IsInteger():
		return v.Int(), ""
	case from.ID == types.TypeBoolean:
		return int64(b2i(v.Bool())), ""
	case isApprox(from):
		return floatToInt(v.Float())
	case from.ID == types.TypeDecimal:
		return decimalToInt(v.Decimal())
	case from.IsTimestamp():
		return v.Int() / 1e9, "" // epoch seconds, truncated like Java
	case from.IsString():
		s := strings.TrimSpace(v.Str())
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, ""
		}
		d, _, err := apd.NewFromString(s)
		if err != nil || d.Form != apd.Finite {
			return 0, "not a number"
		}
		return decimalToInt(d)
	}
	return 0, "unsupported"
}

func floatToInt(f float64) (int64, string) {
	t := math.Trunc(f)
	if math.IsNaN(t) || t < -(1<<63) || t >= 1<<63 {
		return 0, "out of range"
	}
	return int64(t), ""
}

func decimalToInt(d *apd.Decimal) (int64, string) {
	var i, frac apd.Decimal
	d.Modf(&i, &frac)
	n, err := i.Int64()
	if err != nil {
		return 0, "out of range"
	}
	return n, ""
}

func toFloat(v types.Value, from types.Type) (float64, string) {
	switch {
	case from.IsNumeric():
		return v.Float(), ""
	case from.ID == types.TypeBoolean:
		return float64(b2i(v.Bool())), ""
	case from.IsTimestamp():
		return float64(v.Int()) / 1e9, ""
	case from.IsString():
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Str()), 64)
		if err != nil && !isRangeErr(err) {
			return 0, "not a number"
		}
		return f, ""
	}
	return 0, "unsupported"
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func toDecimalValue(v types.Value, from types.Type, buf *apd.Decimal) (*apd.Decimal, string) {
	switch {
	case from.IsNumeric():
		d, err := toDecimal(v, from, buf)
		if err != nil {
			return nil, "out of range"
		}
		return d, ""
	case from.ID == types.TypeBoolean:
		return buf.SetInt64(int64(b2i(v.Bool()))), ""
	case from.IsTimestamp():
		return buf.SetFinite(v.Int(), -9), ""
	case from.IsString():
		if _, _, err := buf.SetString(strings.TrimSpace(v.Str())); err != nil || buf.Form != apd.Finite {
			return nil, "not a number"
		}
		return buf, ""
	}
	return nil, "unsupported"
}

// parseBool accepts Flink's boolean spellings, case-insensitively.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "t", "yes", "y", "1":
		return true, true
	case "false", "f", "no", "n", "0":
		return false, true
	}
	return false, false
}

// castToDatetime converts to DATE, TIME or a timestamp.
func castToDatetime(from, to types.Type, fail func(types.Value, string) (types.Value, error)) convFunc {
	// toNanos gives epoch nanoseconds (for DATE: midnight) of the input.
	toNanos := func(v types.Value) (int64, string) {
		switch {
		case from.IsString():
			ns, _, err := parseTimestamp(v.Str())
			if err == errParseRange {
				return 0, "out of range"
			}
			if err != nil {
				if tod, _, err := parseTime(v.Str()); err == nil && to.ID == types.TypeTime {
					return tod, ""
				}
				return 0, "invalid format"
			}
			return ns, ""
		case from.ID == types.TypeDate:
			ns, ok := tsFromParts(v.Int(), 0)
			if !ok {
				return 0, "out of range"
			}
			return ns, ""
		case from.IsInteger():
			n := v.Int()
			if n > math.MaxInt64/int64(1e9) || n < math.MinInt64/int64(1e9) {
				return 0, "out of range"
			}
			return n * 1e9, ""
		case from.IsNumeric():
			f := v.Float() * 1e9
			if math.IsNaN(f) || f < math.MinInt64 || f >= math.MaxInt64 {
				return 0, "out of range"
			}
			return int64(f), ""
		}
		return v.Int(), "" // TIME, TIMESTAMP, TIMESTAMP_LTZ
	}
	return func(v types.Value) (types.Value, error) {
		ns, reason := toNanos(v)
		if reason != "" {
			return fail(v, reason)
		}
		switch to.ID {
		case types.TypeDate:
			return types.NewDate(floorDiv(ns, nanosPerDay)), nil
		case types.TypeTime:
			return types.NewTime(truncateNanos(floorMod(ns, nanosPerDay), to.Precision)), nil
		}
		return types.NewTimestamp(truncateNanos(ns, to.Precision)), nil
	}
}

// castConstructed converts ARRAY, MAP and ROW values element-wise.
func castConstructed(from, to types.Type) convFunc {
	apply := func(c convFunc, v types.Value) (types.Value, error) {
		if c == nil || v.IsNull() {
			return v, nil
		}
		return c(v)
	}
	switch to.ID {
	case types.TypeArray:
		ec := castFunc(*from.Elem, *to.Elem)
		return func(v types.Value) (types.Value, error) {
			in := v.Array()
			out := make([]types.Value, len(in))
			for i, e := range in {
				var err error
				if out[i], err = apply(ec, e); err != nil {
					return types.Null, err
				}
			}
			return types.NewArray(out), nil
		}
	case types.TypeMap:
		kc, vc := castFunc(*from.Elem, *to.Elem), castFunc(*from.Val, *to.Val)
		return func(v types.Value) (types.Value, error) {
			in := v.Map()
			out := make([]types.MapEntry, len(in))
			for i, e := range in {
				k, err := apply(kc, e.Key)
				if err != nil {
					return types.Null, err
				}
				val, err := apply(vc, e.Val)
				if err != nil {
					return types.Null, err
				}
				out[i] = types.MapEntry{Key: k, Val: val}
			}
			return types.NewMap(out), nil
		}
	case types.TypeRow:
		fcs := make([]convFunc, len(to.Fields))
		for i := range fcs {
			fcs[i] = castFunc(from.Fields[i].Type, to.Fields[i].Type)
		}
		return func(v types.Value) (types.Value, error) {
			in := v.Fields()
			out := make([]types.Value, len(in))
			for i, e := range in {
				var err error
				if i < len(fcs) {
					e, err = apply(fcs[i], e)
				}
				if err != nil {
					return types.Null, err
				}
				out[i] = e
			}
			return types.NewRow(out), nil
		}
	}
	return nil
}
