package expr

import (
	"errors"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// decCtx computes exact sums and products of DECIMAL(38) operands (at most
// 77 digits) and rounds HALF_UP when quantizing to a result scale.
var decCtx = &apd.Context{
	Precision:   100,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfUp,
}

// quoCtx truncates quotients at 100 digits. Truncating first and rounding
// HALF_UP to the (at most 38-digit) result scale afterwards gives the same
// result as rounding the exact quotient.
var quoCtx = &apd.Context{
	Precision:   100,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundDown,
}

var errDecimalOverflow = errors.New("overflow")

// roundDecimal returns x rounded HALF_UP to t's scale, with exponent
// -t.Scale, or errDecimalOverflow if it has more than p-s integer digits.
// A nil or non-finite x is an overflow.
func roundDecimal(x *apd.Decimal, t types.Type) (*apd.Decimal, error) {
	if x == nil || x.Form != apd.Finite {
		return nil, errDecimalOverflow
	}
	d := new(apd.Decimal)
	if _, err := decCtx.Quantize(d, x, int32(-t.Scale)); err != nil {
		return nil, errDecimalOverflow
	}
	if d.IsZero() {
		d.Negative = false
	}
	if int(d.NumDigits()) > t.Precision && !d.IsZero() {
		return nil, errDecimalOverflow
	}
	return d, nil
}

// toDecimal converts a numeric value of type t to an apd decimal stored in
// buf when possible (so small integers do not allocate).
func toDecimal(v types.Value, t types.Type, buf *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case t.IsInteger():
		return buf.SetInt64(v.Int()), nil
	case t.ID == types.TypeDecimal:
		return v.Decimal(), nil
	case isApprox(t):
		return floatToDecimal(v.Float(), t, buf)
	}
	return nil, errDecimalOverflow
}

// floatToDecimal converts f through its shortest decimal representation,
// like Java's BigDecimal.valueOf(double), so 0.1 becomes exactly 0.1.
func floatToDecimal(f float64, t types.Type, buf *apd.Decimal) (*apd.Decimal, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errDecimalOverflow
	}
	bits := 64
	if t.ID == types.TypeFloat {
		bits = 32
	}
	if _, _, err := buf.SetString(strconv.FormatFloat(f, 'g', -1, bits)); err != nil {
		return nil, err
	}
	return buf, nil
}

// decimalValue wraps d, which must already have the right scale.
func decimalValue(d *apd.Decimal) types.Value { return types.NewDecimal(d) }

// decimalArith computes a op b for DECIMAL result type t.
func decimalArith(op byte, a, b *apd.Decimal, t types.Type) (types.Value, error) {
	var r apd.Decimal
	var err error
	switch op {
	case '+':
		_, err = decCtx.Add(&r, a, b)
	case '-':
		_, err = decCtx.Sub(&r, a, b)
	case '*':
		_, err = decCtx.Mul(&r, a, b)
	case '/':
		if b.IsZero() {
			return types.Null, errDivisionByZero()
		}
		_, err = quoCtx.Quo(&r, a, b)
	case '%':
		if b.IsZero() {
			return types.Null, errDivisionByZero()
		}
		_, err = decCtx.Rem(&r, a, b)
	}
	if err != nil {
		return types.Null, runtimeErrorf("DECIMAL arithmetic: %v", err)
	}
	d, err := roundDecimal(&r, t)
	if err != nil {
		return types.Null, runtimeErrorf("DECIMAL overflow: result %s does not fit %s", r.Text('f'), typeString(t))
	}
	return decimalValue(d), nil
}

// decimalArithType derives the DECIMAL result type of a op b where both are
// exact numerics (integers count as DECIMAL(3|5|10|19, 0)), using Flink's
// rules:
//
//   - -  max(s1, s2) + max(p1-s1, p2-s2) + 1, scale max(s1, s2)
//   - p1 + p2 + 1, scale s1 + s2
//     /    p1 - s1 + s2 + max(6, s1 + p2 + 1), scale max(6, s1 + p2 + 1)
//     %    min(p1-s1, p2-s2) + max(s1, s2), scale max(s1, s2)
//
// capped at precision 38 by adjustDecimal.
func decimalArithType(op byte, a, b types.Type) types.Type {
	p1, s1 := exactPS(a)
	p2, s2 := exactPS(b)
	switch op {
	case '+', '-':
		s := max(s1, s2)
		return adjustDecimal(max(p1-s1, p2-s2)+s+1, s)
	case '*':
		return adjustDecimal(p1+p2+1, s1+s2)
	case '/':
		s := max(6, s1+p2+1)
		return adjustDecimal(p1-s1+s2+s, s)
	default: // '%'
		s := max(s1, s2)
		return adjustDecimal(min(p1-s1, p2-s2)+s, s)
	}
}
