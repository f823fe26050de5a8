package expr

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// cmpFunc compares two non-NULL values: -1, 0, 1, or unordered (a NaN
// operand), for which only <> holds.
type cmpFunc func(a, b types.Value) int

const unordered = 2

func cmpInt(a, b types.Value) int { return cmpInt64(a.Int(), b.Int()) }

func cmpInt64(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func cmpFloat(a, b types.Value) int {
	x, y := a.Float(), b.Float()
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	return unordered
}

func cmpString(a, b types.Value) int { return strings.Compare(a.Str(), b.Str()) }

func cmpNever(a, b types.Value) int { return 0 }

// comparator returns how to compare values of types lt and rt, or false if
// SQL does not allow comparing them. Comparable are: numbers with numbers,
// character strings with character strings, binary with binary, BOOLEAN
// with BOOLEAN, DATE with DATE or a timestamp, TIME with TIME, timestamps
// (TIMESTAMP, TIMESTAMP_LTZ, any precision) with each other, intervals of
// the same kind, and ARRAY/ROW/MAP whose elements are comparable.
func comparator(lt, rt types.Type) (cmpFunc, bool) {
	if lt.ID == types.TypeMultiset && rt.ID == types.TypeMultiset {
		lt, rt = multisetMap(lt), multisetMap(rt)
	}
	switch {
	case lt.ID == types.TypeNull && rt.ID == types.TypeNull:
		return cmpNever, true
	case lt.ID == types.TypeNull:
		lt = rt
	case rt.ID == types.TypeNull:
		rt = lt
	}
	switch {
	case lt.IsNumeric() && rt.IsNumeric():
		switch {
		case lt.IsInteger() && rt.IsInteger():
			return cmpInt, true
		case isApprox(lt) || isApprox(rt):
			return cmpFloat, true
		}
		return func(a, b types.Value) int {
			var bx, by apd.Decimal
			x, _ := toDecimal(a, lt, &bx)
			y, _ := toDecimal(b, rt, &by)
			return x.Cmp(y)
		}, true
	case lt.IsString() && rt.IsString(), isBinary(lt) && isBinary(rt):
		return cmpString, true
	case lt.IsTimestamp() && rt.IsTimestamp():
		return cmpInt, true
	case lt.ID == types.TypeDate && rt.IsTimestamp():
		return func(a, b types.Value) int { return cmpInt(types.NewInt(dateNanos(a.Int())), b) }, true
	case lt.IsTimestamp() && rt.ID == types.TypeDate:
		return func(a, b types.Value) int { return cmpInt(a, types.NewInt(dateNanos(b.Int()))) }, true
	case lt.ID != rt.ID:
		return nil, false
	}
	switch lt.ID {
	case types.TypeBoolean, types.TypeDate, types.TypeTime,
		types.TypeIntervalYearMonth, types.TypeIntervalDayTime:
		return cmpInt, true
	case types.TypeArray:
		ec, ok := comparator(*lt.Elem, *rt.Elem)
		if !ok {
			return nil, false
		}
		return func(a, b types.Value) int { return cmpSeq(a.Array(), b.Array(), func(int) cmpFunc { return ec }) }, true
	case types.TypeRow:
		if len(lt.Fields) != len(rt.Fields) {
			return nil, false
		}
		fcs := make([]cmpFunc, len(lt.Fields))
		for i := range fcs {
			var ok bool
			if fcs[i], ok = comparator(lt.Fields[i].Type, rt.Fields[i].Type); !ok {
				return nil, false
			}
		}
		return func(a, b types.Value) int {
			return cmpSeq(a.Fields(), b.Fields(), func(i int) cmpFunc { return fcs[i] })
		}, true
	case types.TypeMap:
		kc, ok1 := comparator(*lt.Elem, *rt.Elem)
		vc, ok2 := comparator(*lt.Val, *rt.Val)
		if !ok1 || !ok2 {
			return nil, false
		}
		return func(a, b types.Value) int { return cmpMap(a.Map(), b.Map(), kc, vc) }, true
	}
	return nil, false
}

// dateNanos returns the epoch nanoseconds of a date's midnight, clamped to
// the int64 range.
func dateNanos(days int64) int64 {
	switch {
	case days < minTsDays:
		return math.MinInt64
	case days > maxTsDays:
		return math.MaxInt64
	}
	return days * nanosPerDay
}

// cmpSeq compares element-wise; NULL elements sort first (only equality is
// exposed to SQL for constructed types' NULL elements, where NULL = NULL
// here, matching Flink's ARRAY equality).
func cmpSeq(a, b []types.Value, at func(int) cmpFunc) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmpNullable(a[i], b[i], at(i)); c != 0 {
			return c
		}
	}
	return cmpInt(types.NewInt(int64(len(a))), types.NewInt(int64(len(b))))
}

// cmpMap reports whether two maps hold the same entries, in any order: 0
// if equal, 1 otherwise. MAP has no ordering (see orderable).
func cmpMap(a, b []types.MapEntry, kc, vc cmpFunc) int {
	if len(a) != len(b) {
		return 1
	}
next:
	for _, x := range a {
		for _, y := range b {
			if cmpNullable(x.Key, y.Key, kc) == 0 {
				if cmpNullable(x.Val, y.Val, vc) != 0 {
					return 1
				}
				continue next
			}
		}
		return 1
	}
	return 0
}

func cmpNullable(a, b types.Value, c cmpFunc) int {
	switch {
	case a.IsNull() && b.IsNull():
		return 0
	case a.IsNull():
		return -1
	case b.IsNull():
		return 1
	}
	return c(a, b)
}

// ---------------------------------------------------------------------------
// Comparison operators.

type cmpOp uint8

const (
	opEQ cmpOp = iota
	opNE
	opLT
	opLE
	opGT
	opGE
)

var cmpOpNames = [...]string{"=", "<>", "<", "<=", ">", ">="}

func (op cmpOp) test(c int) bool {
	switch op {
	case opEQ:
		return c == 0
	case opNE:
		return c != 0
	case opLT:
		return c == -1
	case opLE:
		return c == -1 || c == 0
	case opGT:
		return c == 1
	default:
		return c == 1 || c == 0
	}
}

type compExpr struct {
	op   cmpOp
	l, r Expr
	cmp  cmpFunc
	t    types.Type
	// Fast paths: ints compares Int() directly instead of calling cmp;
	// rlit is the right operand when it is a literal (a > 10).
	ints bool
	rlit *litExpr
}

func newCompare(op cmpOp, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	cmp, ok := comparator(lt, rt)
	if !ok || (op > opNE && !orderable(lt, rt)) {
		return nil, typeErrorf("cannot compare %s with %s", typeString(lt), typeString(rt))
	}
	c := &compExpr{op: op, l: l, r: r, cmp: cmp, t: withNull(types.Boolean, lt.NotNull && rt.NotNull)}
	c.ints = intDomain(lt) != 0 && intDomain(lt) == intDomain(rt)
	c.rlit, _ = r.(*litExpr)
	return c, nil
}

// intDomain groups types whose values compare as plain int64s in the same
// unit; 0 means none.
func intDomain(t types.Type) int {
	switch {
	case t.IsInteger():
		return 1
	case t.IsTimestamp():
		return 2
	}
	switch t.ID {
	case types.TypeBoolean, types.TypeDate, types.TypeTime, types.TypeIntervalDayTime, types.TypeIntervalYearMonth:
		return 10 + int(t.ID)
	}
	return 0
}

// orderable reports whether < and > are allowed: everything comparable
// except MAP (Flink only defines equality there).
func orderable(lt, rt types.Type) bool { return lt.ID != types.TypeMap && rt.ID != types.TypeMap }

func (c *compExpr) Type() types.Type { return c.t }
func (c *compExpr) precedence() int  { return precCompare }
func (c *compExpr) String() string {
	return paren(c.l, precCompare+1) + " " + cmpOpNames[c.op] + " " + paren(c.r, precCompare+1)
}

func (c *compExpr) Eval(row []types.Value) (types.Value, error) {
	x, err := c.l.Eval(row)
	if err != nil || x.IsNull() {
		return types.Null, err
	}
	var y types.Value
	if c.rlit != nil {
		y = c.rlit.v
	} else if y, err = c.r.Eval(row); err != nil {
		return types.Null, err
	}
	if y.IsNull() {
		return types.Null, nil
	}
	var r int
	if c.ints {
		r = cmpInt64(x.Int(), y.Int())
	} else {
		r = c.cmp(x, y)
	}
	return types.NewBool(c.op.test(r)), nil
}

// distinctExpr is IS [NOT] DISTINCT FROM: a comparison where NULL equals
// NULL and the result is never NULL.
type distinctExpr struct {
	not  bool // IS NOT DISTINCT FROM
	l, r Expr
	cmp  cmpFunc
}

func newDistinct(not bool, l, r Expr) (Expr, error) {
	cmp, ok := comparator(l.Type(), r.Type())
	if !ok {
		return nil, typeErrorf("cannot compare %s with %s", typeString(l.Type()), typeString(r.Type()))
	}
	return &distinctExpr{not: not, l: l, r: r, cmp: cmp}, nil
}

func (d *distinctExpr) Type() types.Type { return types.Boolean.NonNull() }
func (d *distinctExpr) precedence() int  { return precCompare }
func (d *distinctExpr) String() string {
	op := " IS DISTINCT FROM "
	if d.not {
		op = " IS NOT DISTINCT FROM "
	}
	return paren(d.l, precCompare+1) + op + paren(d.r, precCompare+1)
}

func (d *distinctExpr) Eval(row []types.Value) (types.Value, error) {
	x, err := d.l.Eval(row)
	if err != nil {
		return types.Null, err
	}
	y, err := d.r.Eval(row)
	if err != nil {
		return types.Null, err
	}
	var distinct bool
	switch {
	case x.IsNull() || y.IsNull():
		distinct = x.IsNull() != y.IsNull()
	default:
		distinct = d.cmp(x, y) != 0
	}
	return types.NewBool(distinct != d.not), nil
}

// ---------------------------------------------------------------------------
// BETWEEN and IN.

type betweenExpr struct {
	not          bool
	e, lo, hi    Expr
	cmpLo, cmpHi cmpFunc
	t            types.Type
}

// Between returns e [NOT] BETWEEN lo AND hi, which is lo <= e AND e <= hi
// (ASYMMETRIC) with e evaluated once and SQL three-valued logic.
func Between(e, lo, hi Expr, not bool) (Expr, error) {
	if e == nil || lo == nil || hi == nil {
		return nil, errNilArg("BETWEEN")
	}
	et := e.Type()
	cl, ok1 := comparator(et, lo.Type())
	ch, ok2 := comparator(et, hi.Type())
	if !ok1 || !orderable(et, lo.Type()) {
		return nil, typeErrorf("cannot compare %s with %s", typeString(et), typeString(lo.Type()))
	}
	if !ok2 || !orderable(et, hi.Type()) {
		return nil, typeErrorf("cannot compare %s with %s", typeString(et), typeString(hi.Type()))
	}
	nn := et.NotNull && lo.Type().NotNull && hi.Type().NotNull
	return &betweenExpr{not: not, e: e, lo: lo, hi: hi, cmpLo: cl, cmpHi: ch, t: withNull(types.Boolean, nn)}, nil
}

func (b *betweenExpr) Type() types.Type { return b.t }
func (b *betweenExpr) precedence() int  { return precCompare }
func (b *betweenExpr) String() string {
	op := " BETWEEN "
	if b.not {
		op = " NOT BETWEEN "
	}
	return paren(b.e, precCompare+1) + op + paren(b.lo, precCompare+1) + " AND " + paren(b.hi, precCompare+1)
}

func (b *betweenExpr) Eval(row []types.Value) (types.Value, error) {
	v, err := b.e.Eval(row)
	if err != nil {
		return types.Null, err
	}
	lo, err := b.lo.Eval(row)
	if err != nil {
		return types.Null, err
	}
	hi, err := b.hi.Eval(row)
	if err != nil {
		return types.Null, err
	}
	// ge and le are three-valued: 0 false, 1 true, 2 unknown.
	ge, le := 2, 2
	if !v.IsNull() && !lo.IsNull() {
		ge = b2i(opGE.test(b.cmpLo(v, lo)))
	}
	if !v.IsNull() && !hi.IsNull() {
		le = b2i(opLE.test(b.cmpHi(v, hi)))
	}
	return not3(and3(ge, le), b.not), nil
}

type inExpr struct {
	not  bool
	e    Expr
	list []Expr
	cmps []cmpFunc
	t    types.Type
}

// In returns e [NOT] IN (list...). The result is TRUE if e equals an
// element, otherwise NULL if e or any element is NULL, otherwise FALSE
// (negated for NOT IN). Elements are evaluated lazily, left to right.
func In(e Expr, list []Expr, not bool) (Expr, error) {
	if e == nil || len(list) == 0 {
		return nil, errNilArg("IN")
	}
	et := e.Type()
	nn := et.NotNull
	cmps := make([]cmpFunc, len(list))
	for i, x := range list {
		if x == nil {
			return nil, errNilArg("IN")
		}
		c, ok := comparator(et, x.Type())
		if !ok {
			return nil, typeErrorf("cannot compare %s with %s", typeString(et), typeString(x.Type()))
		}
		cmps[i] = c
		nn = nn && x.Type().NotNull
	}
	return &inExpr{not: not, e: e, list: list, cmps: cmps, t: withNull(types.Boolean, nn)}, nil
}

func (n *inExpr) Type() types.Type { return n.t }
func (n *inExpr) precedence() int  { return precCompare }
func (n *inExpr) String() string {
	op := " IN ("
	if n.not {
		op = " NOT IN ("
	}
	return paren(n.e, precCompare+1) + op + joinExprs(n.list) + ")"
}

func (n *inExpr) Eval(row []types.Value) (types.Value, error) {
	v, err := n.e.Eval(row)
	if err != nil || v.IsNull() {
		return types.Null, err
	}
	sawNull := false
	for i, x := range n.list {
		y, err := x.Eval(row)
		if err != nil {
			return types.Null, err
		}
		if y.IsNull() {
			sawNull = true
			continue
		}
		if n.cmps[i](v, y) == 0 {
			return types.NewBool(!n.not), nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(n.not), nil
}
