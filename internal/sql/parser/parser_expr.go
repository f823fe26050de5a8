package parser

import (
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/sql/ast"
)

// expr parses an expression.
func (p *parser) expr() ast.Expr {
	p.enter()
	defer p.leave()
	x := p.and()
	for p.isKw("OR") {
		t := p.next()
		x = &ast.Binary{Op: ast.OpOr, X: x, Y: p.and(), OpPos: t.pos}
	}
	return x
}

// exprList parses expr {, expr}.
func (p *parser) exprList() []ast.Expr {
	list := []ast.Expr{p.expr()}
	for p.accept(tComma) {
		list = append(list, p.expr())
	}
	return list
}

func (p *parser) and() ast.Expr {
	x := p.not()
	for p.isKw("AND") {
		t := p.next()
		x = &ast.Binary{Op: ast.OpAnd, X: x, Y: p.not(), OpPos: t.pos}
	}
	return x
}

func (p *parser) not() ast.Expr {
	t := p.tok()
	if !t.is("NOT") {
		return p.comparison()
	}
	p.enter()
	defer p.leave()
	p.next()
	return &ast.Unary{Loc: at(t.pos), Op: ast.OpNot, X: p.not()}
}

var comparisonOps = map[tokKind]ast.BinaryOp{
	tEq: ast.OpEq, tNe: ast.OpNe, tLt: ast.OpLt, tLe: ast.OpLe, tGt: ast.OpGt, tGe: ast.OpGe,
}

// comparison parses the left-associative comparison level: binary
// comparisons, IS, [NOT] BETWEEN, [NOT] IN and [NOT] LIKE.
func (p *parser) comparison() ast.Expr {
	x := p.concat()
	for {
		t := p.tok()
		if op, ok := comparisonOps[t.kind]; ok {
			p.next()
			x = &ast.Binary{Op: op, X: x, Y: p.concat(), OpPos: t.pos}
			continue
		}
		not := false
		if t.is("NOT") {
			// NOT after an operand can only start NOT BETWEEN, NOT IN or
			// NOT LIKE.
			p.next()
			not = true
			t = p.tok()
			if !t.is("BETWEEN") && !t.is("IN") && !t.is("LIKE") && !(t.is("SIMILAR") && p.peek(1).is("TO")) {
				p.expect("BETWEEN")
				p.expect("IN")
				p.expect("LIKE")
				p.expect("SIMILAR")
				p.unexpected()
			}
		}
		switch {
		case t.is("OVERLAPS") && !not:
			p.next()
			y := p.concat()
			l, ok1 := x.(*ast.RowExpr)
			r, ok2 := y.(*ast.RowExpr)
			if !ok1 || !ok2 || len(l.Values) != 2 || len(r.Values) != 2 {
				p.fail(t.pos, "write (start, end) OVERLAPS (start, end); an end may be an interval: (ts, INTERVAL '1' HOUR)", "OVERLAPS compares two periods of two values each")
			}
			name := &ast.ObjectName{Parts: []*ast.Ident{{Loc: at(t.pos), Name: "OVERLAPS"}}}
			x = &ast.FuncCall{Name: name, Args: append(slices.Clone(l.Values), r.Values...), Overlaps: true}
		case t.is("IS") && !not:
			x = p.is(x)
		case t.is("BETWEEN"):
			p.next()
			symmetric := p.acceptKw("SYMMETRIC")
			if !symmetric {
				p.acceptKw("ASYMMETRIC") // the default
			}
			b := &ast.Between{X: x, Not: not, BetweenPos: t.pos, Lo: p.concat()}
			p.wantKw("AND")
			b.Hi = p.concat()
			x = b
			if symmetric {
				// x BETWEEN SYMMETRIC a AND b is (x BETWEEN a AND b) OR
				// (x BETWEEN b AND a), as Calcite expands it; NOT BETWEEN
				// SYMMETRIC is the AND of both NOT BETWEENs.
				swapped := &ast.Between{X: b.X, Not: not, BetweenPos: t.pos, Lo: b.Hi, Hi: b.Lo}
				op := ast.OpOr
				if not {
					op = ast.OpAnd
				}
				x = &ast.Binary{Op: op, X: b, Y: swapped, OpPos: t.pos}
			}
		case t.is("IN"):
			p.next()
			if p.tok().kind == tLParen && p.isQueryStart(1) {
				p.next()
				x = &ast.In{X: x, Not: not, InPos: t.pos, Query: p.query()}
				p.want(tRParen)
				continue
			}
			p.want(tLParen)
			x = &ast.In{X: x, Not: not, InPos: t.pos, List: p.exprList()}
			p.want(tRParen)
		case t.is("LIKE"), t.is("SIMILAR") && p.peek(1).is("TO"):
			p.next()
			similar := t.is("SIMILAR")
			if similar {
				p.next()
			}
			l := &ast.Like{X: x, Not: not, LikePos: t.pos, Pattern: p.concat(), Similar: similar}
			if p.acceptKw("ESCAPE") {
				l.Escape = p.concat()
			}
			x = l
		default:
			return x
		}
	}
}

// is parses IS [NOT] NULL|TRUE|FALSE|UNKNOWN|JSON [kind] and IS [NOT]
// DISTINCT FROM y after x.
func (p *parser) is(x ast.Expr) ast.Expr {
	t := p.next()
	e := &ast.Is{X: x, IsPos: t.pos, Not: p.acceptKw("NOT")}
	switch {
	case p.acceptKw("DISTINCT"):
		p.wantKw("FROM")
		op := ast.OpIsDistinct
		if e.Not {
			op = ast.OpIsNotDistinct
		}
		return &ast.Binary{Op: op, X: x, Y: p.concat(), OpPos: t.pos}
	case p.acceptKw("JSON"):
		e.What = ast.IsJSON
		switch {
		case p.acceptKw("VALUE"):
		case p.acceptKw("SCALAR"):
			e.What = ast.IsJSONScalar
		case p.acceptKw("ARRAY"):
			e.What = ast.IsJSONArray
		case p.acceptKw("OBJECT"):
			e.What = ast.IsJSONObject
		}
		return e
	}
	switch {
	case p.acceptKw("NULL"):
		e.What = ast.IsNull
	case p.acceptKw("TRUE"):
		e.What = ast.IsTrue
	case p.acceptKw("FALSE"):
		e.What = ast.IsFalse
	case p.acceptKw("UNKNOWN"):
		e.What = ast.IsUnknown
	default:
		p.unexpected()
	}
	return e
}

func (p *parser) concat() ast.Expr {
	x := p.additive()
	for p.tok().kind == tConcat {
		t := p.next()
		x = &ast.Binary{Op: ast.OpConcat, X: x, Y: p.additive(), OpPos: t.pos}
	}
	return x
}

func (p *parser) additive() ast.Expr {
	x := p.multiplicative()
	for {
		t := p.tok()
		var op ast.BinaryOp
		switch t.kind {
		case tPlus:
			op = ast.OpAdd
		case tMinus:
			op = ast.OpSub
		default:
			return x
		}
		p.next()
		x = &ast.Binary{Op: op, X: x, Y: p.multiplicative(), OpPos: t.pos}
	}
}

func (p *parser) multiplicative() ast.Expr {
	x := p.unary()
	for {
		t := p.tok()
		var op ast.BinaryOp
		switch t.kind {
		case tStar:
			op = ast.OpMul
		case tSlash:
			op = ast.OpDiv
		case tPercent:
			op = ast.OpMod
		default:
			return x
		}
		p.next()
		x = &ast.Binary{Op: op, X: x, Y: p.unary(), OpPos: t.pos}
	}
}

// unary parses prefix - and +. A minus directly before a number (not
// followed by a subscript) is folded into the literal.
func (p *parser) unary() ast.Expr {
	t := p.tok()
	if t.kind != tMinus && t.kind != tPlus {
		return p.postfix()
	}
	if n := p.peek(1); t.kind == tMinus && n.kind == tNumber && p.peek(2).kind != tLBrack {
		p.next()
		p.next()
		return &ast.NumericLit{Loc: at(t.pos), Text: "-" + n.text, Kind: numKind(n.text)}
	}
	p.enter()
	defer p.leave()
	p.next()
	op := ast.OpNeg
	if t.kind == tPlus {
		op = ast.OpPlus
	}
	return &ast.Unary{Loc: at(t.pos), Op: op, X: p.unary()}
}

// postfix parses subscripts: x[i][j].
func (p *parser) postfix() ast.Expr {
	x := p.primary()
	for p.tok().kind == tLBrack {
		t := p.next()
		x = &ast.Subscript{X: x, Lbrack: t.pos, Index: p.expr()}
		p.want(tRBrack)
	}
	return x
}

func numKind(text string) ast.NumKind {
	switch {
	case strings.ContainsAny(text, "eE"):
		return ast.ApproxNum
	case strings.Contains(text, "."):
		return ast.DecimalNum
	}
	return ast.IntegerNum
}

// primary parses literals, names, calls, parenthesised expressions and the
// special forms (CAST, CASE, ...).
func (p *parser) primary() ast.Expr {
	t := p.tok()
	switch t.kind {
	case tNumber:
		p.next()
		return &ast.NumericLit{Loc: at(t.pos), Text: t.text, Kind: numKind(t.text)}
	case tString:
		p.next()
		return &ast.StringLit{Loc: at(t.pos), Value: t.val}
	case tLParen:
		if p.isQueryStart(1) {
			p.next()
			q := &ast.ScalarSubquery{Loc: at(t.pos), Query: p.query()}
			p.want(tRParen)
			return q
		}
		p.next()
		x := p.expr()
		if p.tok().kind == tComma {
			// (v1, v2, ...) is ROW(v1, v2, ...): an implicit row has at
			// least two fields, as in Flink.
			p.next()
			r := &ast.RowExpr{Loc: at(t.pos), Values: append([]ast.Expr{x}, p.exprList()...)}
			p.want(tRParen)
			return r
		}
		p.want(tRParen)
		return x
	case tQuoted:
		return p.nameExpr()
	case tWord:
		if x := p.keywordExpr(t); x != nil {
			return x
		}
		if !ast.IsReserved(t.val) {
			return p.nameExpr()
		}
		if ast.IsNiladicFunc(t.val) {
			p.next()
			name := &ast.ObjectName{Parts: []*ast.Ident{{Loc: at(t.pos), Name: t.text}}}
			return &ast.FuncCall{Name: name, Niladic: true}
		}
		if ast.IsReservedFunc(t.val) && p.peek(1).kind == tLParen {
			p.next()
			name := &ast.ObjectName{Parts: []*ast.Ident{{Loc: at(t.pos), Name: t.text}}}
			return p.funcCall(name)
		}
	case tStar:
		p.fail(t.pos, "write * alone in the select list, or COUNT(*)",
			"'*' is only allowed in the select list and in COUNT(*)")
	}
	p.expect("an expression")
	p.unexpected()
	return nil
}

// keywordExpr parses the expressions introduced by a keyword, or returns
// nil when t does not start one.
func (p *parser) keywordExpr(t token) ast.Expr {
	next := p.peek(1)
	switch t.val {
	case "TRUE", "FALSE":
		p.next()
		return &ast.BoolLit{Loc: at(t.pos), Value: t.val == "TRUE"}
	case "NULL":
		p.next()
		return &ast.NullLit{Loc: at(t.pos)}
	case "DATE", "TIME", "TIMESTAMP":
		if next.kind == tString {
			p.next()
			p.next()
			return &ast.TypedLit{Loc: at(t.pos), Type: t.val, Value: next.val}
		}
	case "INTERVAL":
		return p.interval()
	case "CAST", "TRY_CAST":
		if next.kind == tLParen {
			p.next()
			p.next()
			c := &ast.Cast{Loc: at(t.pos), Try: t.val == "TRY_CAST", X: p.expr()}
			p.wantKw("AS")
			c.Type = p.typeName()
			p.want(tRParen)
			return c
		}
	case "CASE":
		return p.caseExpr()
	case "EXTRACT":
		if next.kind == tLParen {
			return p.extract()
		}
	case "ROW":
		if next.kind == tLParen {
			p.next()
			p.next()
			r := &ast.RowExpr{Loc: at(t.pos), Values: p.exprList()}
			p.want(tRParen)
			return r
		}
	case "ARRAY", "MAP":
		if next.kind == tLBrack {
			p.next()
			p.next()
			elems := p.exprList()
			end := p.want(tRBrack)
			if t.val == "ARRAY" {
				return &ast.ArrayExpr{Loc: at(t.pos), Elems: elems}
			}
			if len(elems)%2 != 0 {
				p.fail(end.pos, "list keys and values alternately: MAP['a', 1, 'b', 2]",
					"MAP needs an even number of elements (key, value pairs)")
			}
			return &ast.MapExpr{Loc: at(t.pos), Elems: elems}
		}
		if t.val == "ARRAY" && next.kind == tLParen {
			p.unsupported(t.pos, "", "ARRAY(subquery) is not supported")
		}
	case "EXISTS":
		if next.kind == tLParen && p.isQueryStart(2) {
			p.next()
			p.next()
			e := &ast.Exists{Loc: at(t.pos), Query: p.query()}
			p.want(tRParen)
			return e
		}
		p.fail(t.pos, "write EXISTS (SELECT ...)", "EXISTS needs a subquery in parentheses")
	case "NOT":
		p.fail(t.pos, "put the NOT expression in parentheses: (NOT x)",
			"unexpected NOT, expected an expression")
	}
	return nil
}

// nameExpr parses a column reference a.b.c or a function call a.b(...).
func (p *parser) nameExpr() ast.Expr {
	parts := []*ast.Ident{p.ident("a column name")}
	for p.tok().kind == tDot {
		if s := p.peek(1); s.kind == tStar {
			p.fail(s.pos, "write t.* only as a select-list item", "'.*' is only allowed in the select list")
		}
		p.next()
		parts = append(parts, p.ident("a field name"))
	}
	if p.tok().kind == tLParen {
		if len(parts) > 3 {
			p.failf(parts[3].Pos(), "write the name as function, database.function or catalog.database.function",
				"too many name parts: a function name has at most 3")
		}
		return p.funcCall(&ast.ObjectName{Parts: parts})
	}
	return &ast.ColumnRef{Parts: parts}
}

// funcCall parses (args) after a function name.
func (p *parser) funcCall(name *ast.ObjectName) ast.Expr {
	if len(name.Parts) == 1 {
		switch fn := strings.ToUpper(name.Parts[0].Name); fn {
		case "JSON_VALUE", "JSON_QUERY", "JSON_EXISTS", "JSON_OBJECT", "JSON_ARRAY":
			return p.jsonCall(name, fn)
		}
	}
	p.want(tLParen)
	f := &ast.FuncCall{Name: name}
	if len(name.Parts) == 1 && p.tok().kind != tRParen {
		if p.aggregateCall(f, strings.ToUpper(name.Parts[0].Name)) {
			return p.aggregateTail(f)
		}
		if p.specialCall(f, strings.ToUpper(name.Parts[0].Name)) {
			p.want(tRParen)
			return f
		}
	}
	switch {
	case p.accept(tRParen):
	case p.tok().kind == tStar && p.peek(1).kind == tRParen:
		p.next()
		p.next()
		f.Star = true
	default:
		if p.acceptKw("DISTINCT") {
			f.Distinct = true
		} else {
			p.acceptKw("ALL")
		}
		f.Args = p.exprList()
		p.want(tRParen)
	}
	return p.aggregateTail(f)
}

// aggregateCall parses the arguments of the aggregate functions with
// keyword syntax into f, up to and including ')'; false when fn has none:
//
//	ARRAY_AGG([ALL | DISTINCT] x [RESPECT | IGNORE NULLS])
//	JSON_OBJECTAGG([KEY] k VALUE v [{NULL | ABSENT} ON NULL])
//	JSON_ARRAYAGG(x [{NULL | ABSENT} ON NULL])
func (p *parser) aggregateCall(f *ast.FuncCall, fn string) bool {
	switch fn {
	case "ARRAY_AGG":
		if p.acceptKw("DISTINCT") {
			f.Distinct = true
		} else {
			p.acceptKw("ALL")
		}
		f.Args = []ast.Expr{p.expr()}
		if t := p.tok(); (t.is("RESPECT") || t.is("IGNORE")) && p.peek(1).is("NULLS") {
			p.next()
			p.next()
			f.Nulls = t.val
		}
	case "JSON_OBJECTAGG":
		p.acceptKw("KEY")
		f.Args = []ast.Expr{p.concat()}
		p.wantKw("VALUE")
		f.Args = append(f.Args, p.expr())
		f.OnNull = p.aggOnNull()
	case "JSON_ARRAYAGG":
		f.Args = []ast.Expr{p.expr()}
		f.OnNull = p.aggOnNull()
	default:
		return false
	}
	if t := p.tok(); t.is("ORDER") {
		p.unsupported(t.pos, "", "ORDER BY in %s is not supported (Flink does not support it either)", fn)
	}
	p.want(tRParen)
	return true
}

// aggOnNull parses an optional {NULL | ABSENT} ON NULL.
func (p *parser) aggOnNull() string {
	t := p.tok()
	if !(t.is("NULL") || t.is("ABSENT")) || !p.peek(1).is("ON") {
		return ""
	}
	p.next()
	p.next()
	p.wantKw("NULL")
	return t.val
}

// aggregateTail parses FILTER (WHERE ...) after an aggregate call.
func (p *parser) aggregateTail(f *ast.FuncCall) ast.Expr {
	if p.isKw("FILTER") && p.peek(1).kind == tLParen {
		p.next()
		p.next()
		p.wantKw("WHERE")
		f.Filter = p.expr()
		p.want(tRParen)
	}
	if t := p.tok(); t.is("OVER") {
		p.over(f)
	} else if t.is("WITHIN") {
		p.unsupported(t.pos, "", "%s after a function call is not supported", t.val)
	}
	return f
}

// caseExpr parses CASE [x] WHEN ... THEN ... [ELSE ...] END.
func (p *parser) caseExpr() ast.Expr {
	c := &ast.Case{Loc: at(p.next().pos)}
	if !p.isKw("WHEN") {
		c.Operand = p.expr()
	}
	for {
		w := p.tok()
		if !p.acceptKw("WHEN") {
			break
		}
		when := &ast.When{Loc: at(w.pos), Cond: p.expr()}
		// CASE x WHEN v1, v2 THEN r is CASE x WHEN v1 THEN r WHEN v2 THEN r.
		var more []*ast.When
		for c.Operand != nil && p.accept(tComma) {
			more = append(more, &ast.When{Loc: at(p.tok().pos), Cond: p.expr()})
		}
		p.wantKw("THEN")
		when.Result = p.expr()
		c.Whens = append(c.Whens, when)
		for _, m := range more {
			m.Result = when.Result
			c.Whens = append(c.Whens, m)
		}
	}
	if len(c.Whens) == 0 {
		p.unexpected()
	}
	if p.acceptKw("ELSE") {
		c.Else = p.expr()
	}
	p.wantKw("END")
	return c
}

// extractUnits are the units EXTRACT accepts.
var extractUnits = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true,
	"MICROSECOND": true, "NANOSECOND": true, "DOY": true, "DOW": true,
	"EPOCH": true, "DECADE": true, "CENTURY": true, "MILLENNIUM": true,
	"ISODOW": true, "ISOYEAR": true,
}

// extract parses EXTRACT(unit FROM x).
func (p *parser) extract() ast.Expr {
	e := &ast.Extract{Loc: at(p.next().pos)}
	p.want(tLParen)
	u := p.tok()
	if u.kind != tWord || !extractUnits[u.val] {
		p.expect("a time unit")
		p.unexpectedAs("a time unit", "write e.g. EXTRACT(HOUR FROM ts)")
	}
	p.next()
	e.Unit = ast.TimeUnit(u.val)
	p.wantKw("FROM")
	e.X = p.expr()
	p.want(tRParen)
	return e
}

// timeUnits are the units of TIMESTAMPADD, TIMESTAMPDIFF and
// FLOOR/CEIL(x TO unit).
var timeUnits = map[string]bool{
	"MILLENNIUM": true, "CENTURY": true, "DECADE": true, "YEAR": true, "QUARTER": true, "MONTH": true,
	"WEEK": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true,
	"MICROSECOND": true, "NANOSECOND": true,
	"SQL_TSI_YEAR": true, "SQL_TSI_QUARTER": true, "SQL_TSI_MONTH": true, "SQL_TSI_WEEK": true,
	"SQL_TSI_DAY": true, "SQL_TSI_HOUR": true, "SQL_TSI_MINUTE": true, "SQL_TSI_SECOND": true,
}

// timeUnit parses a time unit argument.
func (p *parser) timeUnit() *ast.TimeUnitArg {
	u := p.tok()
	if u.kind != tWord || !timeUnits[u.val] {
		p.expect("a time unit")
		p.unexpectedAs("a time unit", "write a unit such as DAY, HOUR or MONTH")
	}
	p.next()
	return &ast.TimeUnitArg{Loc: at(u.pos), Unit: ast.TimeUnit(strings.TrimPrefix(u.val, "SQL_TSI_"))}
}

// specialCall parses the arguments of the functions with keyword syntax
// into f.Args, after '(' and before ')'; false when fn has none:
//
//	POSITION(a IN b)                         POSITION(a, b)
//	TRIM([BOTH|LEADING|TRAILING] [c] FROM s)  TRIM(s, c), LTRIM(s, c), RTRIM(s, c)
//	SUBSTRING(s FROM i [FOR n])              SUBSTRING(s, i, n)
//	OVERLAY(s PLACING r FROM i [FOR n])      OVERLAY(s, r, i, n)
//	TIMESTAMPADD(unit, n, t)                 first argument a TimeUnitArg
//	FLOOR(t TO unit), CEIL(t TO unit)        FLOOR(t, unit) with a TimeUnitArg
func (p *parser) specialCall(f *ast.FuncCall, fn string) bool {
	switch fn {
	case "TIMESTAMPADD", "TIMESTAMPDIFF":
		if t := p.tok(); t.kind == tWord && p.peek(1).kind == tComma {
			if !timeUnits[t.val] {
				p.failf(t.pos, "use one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR (or MILLISECOND, MICROSECOND, NANOSECOND)",
					"'%s' is not a time unit of %s", t.text, fn)
			}
			f.Args = []ast.Expr{p.timeUnit()}
			p.want(tComma)
			f.Args = append(f.Args, p.exprList()...)
			return true
		}
		return false
	case "TRIM":
		t := p.tok()
		side := ""
		for _, kw := range []string{"BOTH", "LEADING", "TRAILING"} {
			if p.acceptKw(kw) {
				side = kw
			}
		}
		var chars, s ast.Expr
		if p.acceptKw("FROM") {
			s = p.expr()
		} else {
			if side == "" && p.peek(0).kind != tEOF {
				x := p.expr()
				if !p.acceptKw("FROM") {
					f.Args = append([]ast.Expr{x}, p.restArgs()...)
					return true
				}
				chars, s = x, p.expr()
			} else {
				chars = p.expr()
				p.wantKw("FROM")
				s = p.expr()
			}
		}
		switch side {
		case "LEADING":
			f.Name = &ast.ObjectName{Parts: []*ast.Ident{{Loc: at(f.Name.Pos()), Name: "LTRIM"}}}
		case "TRAILING":
			f.Name = &ast.ObjectName{Parts: []*ast.Ident{{Loc: at(f.Name.Pos()), Name: "RTRIM"}}}
		}
		_ = t
		f.Args = []ast.Expr{s}
		if chars != nil {
			f.Args = append(f.Args, chars)
		}
		return true
	case "POSITION", "SUBSTRING", "OVERLAY", "FLOOR", "CEIL", "CEILING":
	default:
		return false
	}
	if fn == "POSITION" {
		// a IN b: parse a below the comparison level so IN is not taken
		// as the IN predicate.
		a := p.concat()
		if p.acceptKw("IN") {
			f.Args = []ast.Expr{a, p.expr()}
			return true
		}
		f.Args = append([]ast.Expr{a}, p.restArgs()...)
		return true
	}
	x := p.expr()
	f.Args = []ast.Expr{x}
	switch {
	case (fn == "FLOOR" || fn == "CEIL" || fn == "CEILING") && p.acceptKw("TO"):
		f.Args = append(f.Args, p.timeUnit())
	case fn == "SUBSTRING" && p.acceptKw("FROM"):
		f.Args = append(f.Args, p.expr())
		if p.acceptKw("FOR") {
			f.Args = append(f.Args, p.expr())
		}
	case fn == "OVERLAY" && p.acceptKw("PLACING"):
		f.Args = append(f.Args, p.expr())
		p.wantKw("FROM")
		f.Args = append(f.Args, p.expr())
		if p.acceptKw("FOR") {
			f.Args = append(f.Args, p.expr())
		}
	default:
		f.Args = append(f.Args, p.restArgs()...)
	}
	return true
}

// restArgs parses {, expr} up to the closing parenthesis.
func (p *parser) restArgs() []ast.Expr {
	var out []ast.Expr
	for p.accept(tComma) {
		out = append(out, p.expr())
	}
	return out
}

// jsonCall parses JSON_VALUE, JSON_OBJECT and JSON_ARRAY with their
// SQL/JSON clauses.
func (p *parser) jsonCall(name *ast.ObjectName, fn string) ast.Expr {
	p.want(tLParen)
	j := &ast.JSONCall{Loc: at(name.Pos()), Func: fn}
	switch fn {
	case "JSON_VALUE", "JSON_QUERY", "JSON_EXISTS":
		j.Args = []ast.Expr{p.expr()}
		p.want(tComma)
		j.Args = append(j.Args, p.expr())
		if fn != "JSON_EXISTS" && p.acceptKw("RETURNING") {
			j.Returning = p.typeName()
		}
		if fn == "JSON_QUERY" {
			p.jsonWrapper(j)
		}
		for j.OnEmpty == nil || j.OnError == nil {
			on := p.jsonOnKind(fn)
			if on == nil {
				break
			}
			p.wantKw("ON")
			switch {
			case fn != "JSON_EXISTS" && j.OnEmpty == nil && j.OnError == nil && p.acceptKw("EMPTY"):
				j.OnEmpty = on
			case j.OnError == nil && p.acceptKw("ERROR"):
				j.OnError = on
			default:
				p.unexpected()
			}
		}
	case "JSON_OBJECT":
		for p.tok().kind != tRParen && !p.jsonOnNull(j) {
			if len(j.Args) > 0 {
				p.want(tComma)
			}
			p.acceptKw("KEY")
			j.Args = append(j.Args, p.concat())
			p.wantKw("VALUE")
			j.Args = append(j.Args, p.expr())
		}
	default:
		for p.tok().kind != tRParen && !p.jsonOnNull(j) {
			if len(j.Args) > 0 {
				p.want(tComma)
			}
			j.Args = append(j.Args, p.expr())
		}
	}
	p.want(tRParen)
	return j
}

// jsonOnNull parses {NULL | ABSENT} ON NULL.
func (p *parser) jsonOnNull(j *ast.JSONCall) bool {
	t := p.tok()
	if !(t.is("NULL") || t.is("ABSENT")) || !p.peek(1).is("ON") {
		return false
	}
	p.next()
	p.next()
	p.wantKw("NULL")
	j.OnNull = t.val
	return true
}

// jsonWrapper parses {WITHOUT [ARRAY] | WITH [CONDITIONAL | UNCONDITIONAL]
// [ARRAY]} WRAPPER.
func (p *parser) jsonWrapper(j *ast.JSONCall) {
	switch {
	case p.acceptKw("WITHOUT"):
		j.Wrapper = "WITHOUT ARRAY"
	case p.acceptKw("WITH"):
		j.Wrapper = "WITH UNCONDITIONAL ARRAY"
		if p.acceptKw("CONDITIONAL") {
			j.Wrapper = "WITH CONDITIONAL ARRAY"
		} else {
			p.acceptKw("UNCONDITIONAL")
		}
	default:
		return
	}
	p.acceptKw("ARRAY")
	p.wantKw("WRAPPER")
}

// jsonOnKind parses the behaviour before ON EMPTY / ON ERROR; nil when
// there is none.
func (p *parser) jsonOnKind(fn string) *ast.JSONOn {
	if !p.peek(1).is("ON") && !(p.isKw("EMPTY") || p.isKw("DEFAULT")) {
		return nil
	}
	on := &ast.JSONOn{}
	switch {
	case p.acceptKw("ERROR"):
		on.Kind = "ERROR"
	case fn != "JSON_EXISTS" && p.acceptKw("NULL"):
		on.Kind = "NULL"
	case fn == "JSON_VALUE" && p.acceptKw("DEFAULT"):
		on.Kind, on.Default = "DEFAULT", p.concat()
	case fn == "JSON_QUERY" && p.acceptKw("EMPTY"):
		on.Kind = "EMPTY ARRAY"
		if p.acceptKw("OBJECT") {
			on.Kind = "EMPTY OBJECT"
		} else {
			p.wantKw("ARRAY")
		}
	case fn == "JSON_EXISTS" && (p.isKw("TRUE") || p.isKw("FALSE") || p.isKw("UNKNOWN")):
		on.Kind = p.next().val
	default:
		return nil
	}
	return on
}
