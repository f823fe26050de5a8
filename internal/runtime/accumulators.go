package runtime

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// accState is the accumulator of one aggregate call in one group. The
// functions use the fields they need: counts and sums inline, the rest
// (decimal sums, value lists, distinct sets) in ext, allocated on demand.
type accState struct {
	n int64 // rows accumulated (non-NULL arguments)
	// i is the integer sum, the bits of the floating sum (see float), or
	// BOOL_AND/BOOL_OR's count of TRUE.
	i   int64
	ext *accExt
}

func (s *accState) float() float64 { return math.Float64frombits(uint64(s.i)) }

func (s *accState) setFloat(f float64) { s.i = int64(math.Float64bits(f)) }

type accExt struct {
	f2 float64      // the sum of squares of the variance functions
	d  *apd.Decimal // DECIMAL sum (nil: zero)
	// vals are MIN/MAX's distinct values in ascending order (with cnts,
	// their counts), or FIRST_VALUE/LAST_VALUE/LISTAGG's values in arrival
	// order.
	vals []types.Value
	cnts []int64
	sep  types.Value // LISTAGG: the last separator accumulated
	// distinct counts each distinct argument tuple (encoded) of a
	// DISTINCT call.
	distinct map[string]int64
	// vals2 are JSON_OBJECTAGG's value texts, one per key in vals.
	vals2 []types.Value
	// hll is APPROX_COUNT_DISTINCT's sketch.
	hll *hll
	// user is the accumulator of a user-defined aggregate function.
	user *userAcc
}

func (s *accState) x() *accExt {
	if s.ext == nil {
		s.ext = &accExt{}
	}
	return s.ext
}

// aggFunc is the logic of one aggregate function over an accState. The
// arguments are never NULL, except COUNT(*)'s (it has none) and those of
// calls with KeepNulls.
type aggFunc interface {
	add(s *accState, args []types.Value) error
	retract(s *accState, args []types.Value) error
	value(s *accState) types.Value
	// merge adds src's accumulated values to dst, as if dst had
	// accumulated them after its own (session windows merging).
	merge(dst, src *accState) error
}

// newAggFunc returns the logic of call over input rows of schema in.
func newAggFunc(call *jobgraph.AggCall, in *types.Schema) (aggFunc, error) {
	if call.User != nil {
		for _, a := range call.Args {
			if a < 0 || a >= in.Len() {
				return nil, fmt.Errorf("aggregate %s: argument column %d out of range", call.Func, a)
			}
		}
		return &userAggFunc{name: string(call.Func), fn: call.User}, nil
	}
	want := map[jobgraph.AggFunc][2]int{
		jobgraph.AggCountStar: {0, 0}, jobgraph.AggListAgg: {1, 2},
		jobgraph.AggCount:         {1, math.MaxInt}, // COUNT(DISTINCT a, b): non-NULL tuples
		jobgraph.AggJSONObjectAgg: {2, 2}, jobgraph.AggJSONObjectAggAbsent: {2, 2},
	}[call.Func]
	if want == [2]int{} && call.Func != jobgraph.AggCountStar {
		want = [2]int{1, 1}
	}
	if len(call.Args) < want[0] || len(call.Args) > want[1] {
		return nil, fmt.Errorf("aggregate %s: %d arguments", call.Func, len(call.Args))
	}
	for _, a := range call.Args {
		if a < 0 || a >= in.Len() {
			return nil, fmt.Errorf("aggregate %s: argument column %d out of range", call.Func, a)
		}
	}
	t := call.Type
	switch call.Func {
	case jobgraph.AggCountStar, jobgraph.AggCount:
		return countFunc{}, nil
	case jobgraph.AggSum, jobgraph.AggSum0, jobgraph.AggAvg:
		if !t.IsNumeric() {
			return nil, fmt.Errorf("aggregate %s: result type %s is not numeric", call.Func, t)
		}
		return sumFunc{t: t, sum0: call.Func == jobgraph.AggSum0, avg: call.Func == jobgraph.AggAvg}, nil
	case jobgraph.AggMin, jobgraph.AggMax:
		if call.InsertOnly {
			return extremeFunc{max: call.Func == jobgraph.AggMax}, nil
		}
		return minMaxFunc{max: call.Func == jobgraph.AggMax}, nil
	case jobgraph.AggFirstValue, jobgraph.AggLastValue:
		return firstLastFunc{last: call.Func == jobgraph.AggLastValue}, nil
	case jobgraph.AggListAgg:
		return listAggFunc{}, nil
	case jobgraph.AggStddevPop, jobgraph.AggStddevSamp, jobgraph.AggVarPop, jobgraph.AggVarSamp:
		return varianceFunc{t: t, samp: call.Func == jobgraph.AggStddevSamp || call.Func == jobgraph.AggVarSamp,
			sqrt: call.Func == jobgraph.AggStddevPop || call.Func == jobgraph.AggStddevSamp}, nil
	case jobgraph.AggBoolAnd, jobgraph.AggBoolOr:
		return boolFunc{and: call.Func == jobgraph.AggBoolAnd}, nil
	case jobgraph.AggCollect:
		if t.ID != types.TypeMultiset {
			return nil, fmt.Errorf("aggregate %s: result type %s is not a MULTISET", call.Func, t)
		}
		return collectFunc{}, nil
	case jobgraph.AggArrayAgg:
		if t.ID != types.TypeArray {
			return nil, fmt.Errorf("aggregate %s: result type %s is not an ARRAY", call.Func, t)
		}
		return arrayAggFunc{}, nil
	case jobgraph.AggJSONArrayAgg:
		return jsonArrayAggFunc{}, nil
	case jobgraph.AggJSONObjectAgg, jobgraph.AggJSONObjectAggAbsent:
		return jsonObjectAggFunc{absent: call.Func == jobgraph.AggJSONObjectAggAbsent}, nil
	case jobgraph.AggApproxCountDistinct:
		return approxCountDistinctFunc{}, nil
	}
	return nil, fmt.Errorf("unsupported aggregate function %s", call.Func)
}

// countFunc is COUNT(*) and COUNT(x): NULL arguments never reach it.
type countFunc struct{}

func (countFunc) add(s *accState, _ []types.Value) error     { s.n++; return nil }
func (countFunc) retract(s *accState, _ []types.Value) error { s.n--; return nil }
func (countFunc) value(s *accState) types.Value              { return types.NewInt(s.n) }
func (countFunc) merge(dst, src *accState) error             { dst.n += src.n; return nil }

// sumFunc is SUM, $SUM0 and AVG with result type t: integer sums wrap
// like Java's long arithmetic and are narrowed to t; FLOAT sums add in
// float32; DECIMAL sums are exact and rounded to t (NULL on overflow).
type sumFunc struct {
	t         types.Type
	sum0, avg bool
}

// aggDecCtx computes exact decimal sums (DECIMAL(38) values, up to 100
// digits) and rounds HALF_UP.
var aggDecCtx = &apd.Context{
	Precision:   100,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfUp,
}

// aggQuoCtx truncates quotients at 100 digits; rounding HALF_UP to the result
// scale afterwards gives the rounded exact quotient.
var aggQuoCtx = &apd.Context{
	Precision:   100,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundDown,
}

func (f sumFunc) add(s *accState, args []types.Value) error { return f.step(s, args[0], 1) }

func (f sumFunc) retract(s *accState, args []types.Value) error { return f.step(s, args[0], -1) }

func (f sumFunc) step(s *accState, v types.Value, sign int64) error {
	s.n += sign
	switch {
	case f.t.IsInteger():
		s.i += sign * v.Int()
	case f.t.ID == types.TypeFloat && !f.avg:
		s.setFloat(float64(float32(s.float()) + float32(sign)*float32(v.Float())))
	case f.t.ID == types.TypeFloat || f.t.ID == types.TypeDouble:
		s.setFloat(s.float() + float64(sign)*v.Float())
	default:
		var buf apd.Decimal
		d := v.Decimal()
		if d == nil {
			d = buf.SetInt64(v.Int())
		}
		x := s.x()
		r := new(apd.Decimal)
		var err error
		switch {
		case x.d == nil && sign > 0:
			r.Set(d)
		case x.d == nil:
			r.Neg(d)
		case sign > 0:
			_, err = aggDecCtx.Add(r, x.d, d)
		default:
			_, err = aggDecCtx.Sub(r, x.d, d)
		}
		if err != nil {
			return fmt.Errorf("decimal sum: %w", err)
		}
		x.d = r
	}
	return nil
}

func (f sumFunc) merge(dst, src *accState) error {
	dst.n += src.n
	switch {
	case f.t.IsInteger():
		dst.i += src.i
	case f.t.ID == types.TypeFloat && !f.avg:
		dst.setFloat(float64(float32(dst.float()) + float32(src.float())))
	case f.t.ID == types.TypeFloat || f.t.ID == types.TypeDouble:
		dst.setFloat(dst.float() + src.float())
	default:
		if src.ext == nil || src.ext.d == nil {
			return nil
		}
		x := dst.x()
		r := new(apd.Decimal)
		if x.d == nil {
			r.Set(src.ext.d)
		} else if _, err := aggDecCtx.Add(r, x.d, src.ext.d); err != nil {
			return fmt.Errorf("decimal sum: %w", err)
		}
		x.d = r
	}
	return nil
}

func (f sumFunc) value(s *accState) types.Value {
	if s.n == 0 && !f.sum0 || s.n <= 0 && f.avg {
		return types.Null
	}
	switch {
	case f.t.IsInteger():
		if f.avg {
			return aggNarrowInt(s.i/s.n, f.t)
		}
		return aggNarrowInt(s.i, f.t)
	case f.t.ID == types.TypeFloat || f.t.ID == types.TypeDouble:
		r := s.float()
		if f.avg {
			r /= float64(s.n)
		}
		if f.t.ID == types.TypeFloat {
			r = float64(float32(r))
		}
		return types.NewFloat(r)
	}
	d := new(apd.Decimal)
	if s.ext != nil && s.ext.d != nil {
		d.Set(s.ext.d)
	}
	if f.avg {
		if _, err := aggQuoCtx.Quo(d, d, apd.New(s.n, 0)); err != nil {
			return types.Null
		}
	}
	r, err := types.RoundDecimal(d, min(f.t.Precision, types.MaxDecimalPrecision), f.t.Scale)
	if err != nil {
		return types.Null // Flink's DECIMAL overflow gives NULL
	}
	return types.NewDecimal(r)
}

// aggNarrowInt wraps i to the width of integer type t, like a Java cast.
func aggNarrowInt(i int64, t types.Type) types.Value {
	switch t.ID {
	case types.TypeTinyInt:
		i = int64(int8(i))
	case types.TypeSmallInt:
		i = int64(int16(i))
	case types.TypeInt:
		i = int64(int32(i))
	}
	return types.NewInt(i)
}

// minMaxFunc is MIN and MAX with retraction: a sorted multiset of the
// values (ext.vals ascending, ext.cnts their counts).
type minMaxFunc struct{ max bool }

func (minMaxFunc) find(x *accExt, v types.Value) (int, bool) {
	return slices.BinarySearchFunc(x.vals, v, types.Compare)
}

func (f minMaxFunc) add(s *accState, args []types.Value) error {
	x := s.x()
	i, ok := f.find(x, args[0])
	if ok {
		x.cnts[i]++
		return nil
	}
	x.vals = slices.Insert(x.vals, i, args[0])
	x.cnts = slices.Insert(x.cnts, i, 1)
	return nil
}

func (f minMaxFunc) retract(s *accState, args []types.Value) error {
	if s.ext == nil {
		return nil
	}
	x := s.ext
	i, ok := f.find(x, args[0])
	if !ok {
		return nil // a value never accumulated: ignored
	}
	if x.cnts[i]--; x.cnts[i] == 0 {
		x.vals = slices.Delete(x.vals, i, i+1)
		x.cnts = slices.Delete(x.cnts, i, i+1)
	}
	return nil
}

func (f minMaxFunc) merge(dst, src *accState) error {
	if src.ext == nil {
		return nil
	}
	x := dst.x()
	for j, v := range src.ext.vals {
		i, ok := f.find(x, v)
		if ok {
			x.cnts[i] += src.ext.cnts[j]
			continue
		}
		x.vals = slices.Insert(x.vals, i, v)
		x.cnts = slices.Insert(x.cnts, i, src.ext.cnts[j])
	}
	return nil
}

func (f minMaxFunc) value(s *accState) types.Value {
	if s.ext == nil || len(s.ext.vals) == 0 {
		return types.Null
	}
	if f.max {
		return s.ext.vals[len(s.ext.vals)-1]
	}
	return s.ext.vals[0]
}

// extremeFunc is MIN and MAX over an input that never retracts: only the
// extreme value, in ext.vals[0] with a count of 1 (the encoding of
// minMaxFunc's multiset of one value). A retraction is ignored.
type extremeFunc struct{ max bool }

func (f extremeFunc) better(v, than types.Value) bool {
	c := types.Compare(v, than)
	return f.max && c > 0 || !f.max && c < 0
}

func (f extremeFunc) add(s *accState, args []types.Value) error {
	x := s.x()
	if len(x.vals) == 0 {
		x.vals, x.cnts = append(x.vals, args[0]), append(x.cnts, 1)
	} else if f.better(args[0], x.vals[0]) {
		x.vals[0] = args[0]
	}
	return nil
}

func (extremeFunc) retract(*accState, []types.Value) error { return nil }

func (f extremeFunc) merge(dst, src *accState) error {
	if src.ext == nil || len(src.ext.vals) == 0 {
		return nil
	}
	return f.add(dst, src.ext.vals[:1])
}

func (extremeFunc) value(s *accState) types.Value {
	if s.ext == nil || len(s.ext.vals) == 0 {
		return types.Null
	}
	return s.ext.vals[0]
}

// firstLastFunc is FIRST_VALUE and LAST_VALUE with retraction: the values
// in arrival order; a retraction removes the earliest equal value, as
// Flink's *WithRetract functions remove the first order of the value.
type firstLastFunc struct{ last bool }

func (firstLastFunc) add(s *accState, args []types.Value) error {
	x := s.x()
	x.vals = append(x.vals, args[0])
	return nil
}

func (firstLastFunc) retract(s *accState, args []types.Value) error {
	aggRemoveFirst(s, args[0])
	return nil
}

// aggRemoveFirst removes the first value of s.ext.vals equal to v, if any.
func aggRemoveFirst(s *accState, v types.Value) {
	if s.ext == nil {
		return
	}
	x := s.ext
	if i := slices.IndexFunc(x.vals, func(w types.Value) bool { return types.Equal(v, w) }); i >= 0 {
		x.vals = slices.Delete(x.vals, i, i+1)
	}
}

// merge appends src's values after dst's: the merged order is dst's
// arrival order, then src's.
func (firstLastFunc) merge(dst, src *accState) error {
	if src.ext != nil && len(src.ext.vals) > 0 {
		x := dst.x()
		x.vals = append(x.vals, src.ext.vals...)
	}
	return nil
}

func (f firstLastFunc) value(s *accState) types.Value {
	if s.ext == nil || len(s.ext.vals) == 0 {
		return types.Null
	}
	if f.last {
		return s.ext.vals[len(s.ext.vals)-1]
	}
	return s.ext.vals[0]
}

// listAggFunc is LISTAGG(x [, sep]) with retraction: the values in arrival
// order joined by the last separator accumulated (',' by default); a
// retraction removes the first equal value.
type listAggFunc struct{}

func (listAggFunc) add(s *accState, args []types.Value) error {
	x := s.x()
	x.vals = append(x.vals, args[0])
	if len(args) > 1 {
		x.sep = args[1]
	}
	return nil
}

func (listAggFunc) retract(s *accState, args []types.Value) error {
	aggRemoveFirst(s, args[0])
	return nil
}

func (listAggFunc) merge(dst, src *accState) error {
	if src.ext == nil {
		return nil
	}
	x := dst.x()
	x.vals = append(x.vals, src.ext.vals...)
	if !src.ext.sep.IsNull() {
		x.sep = src.ext.sep
	}
	return nil
}

func (listAggFunc) value(s *accState) types.Value {
	if s.ext == nil || len(s.ext.vals) == 0 {
		return types.Null
	}
	sep := ","
	if !s.ext.sep.IsNull() {
		sep = s.ext.sep.Str()
	}
	var b strings.Builder
	for i, v := range s.ext.vals {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(v.Str())
	}
	return types.NewString(b.String())
}

// varianceFunc is VAR_POP, VAR_SAMP, STDDEV_POP and STDDEV_SAMP over the
// count, sum and sum of squares in DOUBLE, as Flink's rewrite
// (SUM(x*x) - SUM(x)*SUM(x)/COUNT(x)) / COUNT(x) [- 1]; cast to t.
type varianceFunc struct {
	t          types.Type
	samp, sqrt bool
}

func (varianceFunc) add(s *accState, args []types.Value) error {
	v := args[0].Float()
	s.n++
	s.setFloat(s.float() + v)
	s.x().f2 += v * v
	return nil
}

func (varianceFunc) retract(s *accState, args []types.Value) error {
	v := args[0].Float()
	s.n--
	s.setFloat(s.float() - v)
	s.x().f2 -= v * v
	return nil
}

func (varianceFunc) merge(dst, src *accState) error {
	dst.n += src.n
	dst.setFloat(dst.float() + src.float())
	if src.ext != nil {
		dst.x().f2 += src.ext.f2
	}
	return nil
}

func (f varianceFunc) value(s *accState) types.Value {
	if s.n <= 0 || f.samp && s.n == 1 {
		return types.Null
	}
	n, sum, sq := float64(s.n), s.float(), s.x().f2
	r := (sq - sum*sum/n) / n
	if f.samp {
		r = (sq - sum*sum/n) / (n - 1)
	}
	if f.sqrt {
		r = math.Sqrt(r)
	}
	return aggCastFloat(r, f.t)
}

// aggCastFloat converts f to the numeric type t (integers truncate toward
// zero, decimals round HALF_UP, NULL when it does not fit).
func aggCastFloat(f float64, t types.Type) types.Value {
	switch {
	case t.IsInteger():
		return aggNarrowInt(int64(f), t)
	case t.ID == types.TypeFloat:
		return types.NewFloat(float64(float32(f)))
	case t.ID == types.TypeDecimal:
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return types.Null
		}
		d, err := types.ParseDecimal(fmt.Sprint(f))
		if err != nil {
			return types.Null
		}
		r, err := types.RoundDecimal(d, t.Precision, t.Scale)
		if err != nil {
			return types.Null
		}
		return types.NewDecimal(r)
	}
	return types.NewFloat(f)
}

// boolFunc is BOOL_AND and BOOL_OR: n counts the values, i the TRUE ones.
type boolFunc struct{ and bool }

func (boolFunc) add(s *accState, args []types.Value) error {
	s.n++
	if args[0].Bool() {
		s.i++
	}
	return nil
}

func (boolFunc) retract(s *accState, args []types.Value) error {
	s.n--
	if args[0].Bool() {
		s.i--
	}
	return nil
}

func (boolFunc) merge(dst, src *accState) error {
	dst.n += src.n
	dst.i += src.i
	return nil
}

func (f boolFunc) value(s *accState) types.Value {
	if s.n <= 0 {
		return types.Null
	}
	if f.and {
		return types.NewBool(s.i == s.n)
	}
	return types.NewBool(s.i > 0)
}

// Encoding of an accState: a flags byte saying which fields follow, then
// the fields in flag order, the extension (accHasExt) last.
const (
	accHasN = 1 << iota
	accHasI
	// accHasExt says an extension follows the other fields: a uvarint of
	// accExt* flags, then those fields. (The bit was once a separate
	// floating sum that decoding rejected, so no stored state has it.)
	accHasExt
	accHasF2
	accHasD
	accHasVals
	accHasSep
	accHasDistinct
)

func appendAccState(dst []byte, s *accState) []byte {
	var flags byte
	x := s.ext
	if x == nil {
		x = &emptyExt
	}
	for _, f := range [...]struct {
		on  bool
		bit byte
	}{
		{s.n != 0, accHasN}, {s.i != 0, accHasI},
		{x.f2 != 0 || math.Signbit(x.f2), accHasF2}, {x.d != nil, accHasD}, {len(x.vals) > 0, accHasVals},
		{!x.sep.IsNull(), accHasSep}, {len(x.distinct) > 0, accHasDistinct},
	} {
		if f.on {
			flags |= f.bit
		}
	}
	at := len(dst)
	dst = append(dst, flags)
	if flags&accHasN != 0 {
		dst = binary.AppendVarint(dst, s.n)
	}
	if flags&accHasI != 0 {
		dst = binary.AppendVarint(dst, s.i)
	}
	if flags&accHasF2 != 0 {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x.f2))
	}
	if flags&accHasD != 0 {
		dst = types.AppendValue(dst, types.NewDecimal(x.d))
	}
	if flags&accHasVals != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(x.vals)))
		for _, v := range x.vals {
			dst = types.AppendValue(dst, v)
		}
		dst = binary.AppendUvarint(dst, uint64(len(x.cnts)))
		for _, c := range x.cnts {
			dst = binary.AppendVarint(dst, c)
		}
	}
	if flags&accHasSep != 0 {
		dst = types.AppendValue(dst, x.sep)
	}
	if flags&accHasDistinct != 0 {
		keys := make([]string, 0, len(x.distinct))
		for k := range x.distinct {
			keys = append(keys, k)
		}
		slices.Sort(keys) // a deterministic encoding
		dst = binary.AppendUvarint(dst, uint64(len(keys)))
		for _, k := range keys {
			dst = binary.AppendUvarint(dst, uint64(len(k)))
			dst = append(dst, k...)
			dst = binary.AppendVarint(dst, x.distinct[k])
		}
	}
	// The extension comes last.
	dst, ext := appendAccExt(dst, x)
	if ext {
		dst[at] |= accHasExt
	}
	return dst
}

// The fields of the extension (accHasExt), in this order.
const (
	accExtVals2 = 1 << iota
	accExtHLL
	accExtUser
)

// appendAccExt appends the extension of x, if it has one, and reports
// whether it did.
func appendAccExt(dst []byte, x *accExt) ([]byte, bool) {
	var flags uint64
	if len(x.vals2) > 0 {
		flags |= accExtVals2
	}
	if x.hll != nil {
		flags |= accExtHLL
	}
	if x.user != nil {
		flags |= accExtUser
	}
	if flags == 0 {
		return dst, false
	}
	dst = binary.AppendUvarint(dst, flags)
	if flags&accExtVals2 != 0 {
		dst = binary.AppendUvarint(dst, uint64(len(x.vals2)))
		for _, v := range x.vals2 {
			dst = types.AppendValue(dst, v)
		}
	}
	if flags&accExtHLL != 0 {
		dst = x.hll.append(dst)
	}
	if flags&accExtUser != 0 {
		b := x.user.bytes()
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		dst = append(dst, b...)
	}
	return dst, true
}

var emptyExt accExt

// accReader decodes what appendAccState wrote (and the other operators'
// state records: see row and done).
type accReader struct {
	b   []byte
	err error
}

func (r *accReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("decoding state: malformed %s", what)
	}
}

func (r *accReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *accReader) length() int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(len(r.b)) {
		r.fail("length")
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *accReader) float() float64 {
	if len(r.b) < 8 {
		r.fail("float")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return f
}

func (r *accReader) value() types.Value {
	if r.err != nil {
		return types.Null
	}
	v, n, err := types.DecodeValue(r.b)
	if err != nil {
		r.err = fmt.Errorf("decoding state: %w", err)
		return types.Null
	}
	r.b = r.b[n:]
	return v
}

func (r *accReader) accState(s *accState) {
	if len(r.b) == 0 {
		r.fail("accumulator")
		return
	}
	flags := r.b[0]
	r.b = r.b[1:]
	*s = accState{}
	if flags&accHasN != 0 {
		s.n = r.varint()
	}
	if flags&accHasI != 0 {
		s.i = r.varint()
	}
	if flags&(accHasF2|accHasD|accHasVals|accHasSep|accHasDistinct|accHasExt) == 0 {
		return
	}
	x := s.x()
	if flags&accHasF2 != 0 {
		x.f2 = r.float()
	}
	if flags&accHasD != 0 {
		x.d = r.value().Decimal()
	}
	if flags&accHasVals != 0 {
		x.vals = r.values()
		if n := r.length(); n > 0 {
			x.cnts = make([]int64, 0, n)
			for range n {
				x.cnts = append(x.cnts, r.varint())
			}
		}
	}
	if flags&accHasSep != 0 {
		x.sep = r.value()
	}
	if flags&accHasDistinct != 0 {
		n := r.length()
		x.distinct = make(map[string]int64, n)
		for range n {
			l := r.length()
			if r.err != nil {
				return
			}
			k := string(r.b[:l])
			r.b = r.b[l:]
			x.distinct[k] = r.varint()
		}
	}
	if flags&accHasExt != 0 {
		r.accExt(x)
	}
}

// values reads a length and that many values.
func (r *accReader) values() []types.Value {
	n := r.length()
	vals := make([]types.Value, 0, n)
	for range n {
		vals = append(vals, r.value())
	}
	return vals
}

// accExt reads what appendAccExt wrote.
func (r *accReader) accExt(x *accExt) {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v&^(accExtVals2|accExtHLL|accExtUser) != 0 {
		r.fail("accumulator extension")
		return
	}
	r.b = r.b[n:]
	if v&accExtVals2 != 0 {
		x.vals2 = r.values()
	}
	if v&accExtHLL != 0 && r.err == nil {
		h, rest, err := decodeHLL(r.b)
		if err != nil {
			r.err = fmt.Errorf("decoding aggregate state: %w", err)
			return
		}
		x.hll, r.b = h, rest
	}
	if v&accExtUser != 0 && r.err == nil {
		l := r.length()
		if r.err != nil {
			return
		}
		// Decoded by the function when it first uses it.
		x.user = &userAcc{raw: slices.Clone(r.b[:l])}
		r.b = r.b[l:]
	}
}
