package parser

import (
	"errors"
	"strings"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// typeHint lists common types for errors about unknown types.
const typeHint = "types include BOOLEAN, INT, BIGINT, DOUBLE, DECIMAL(p, s), STRING, BYTES, DATE, " +
	"TIMESTAMP(p), TIMESTAMP_LTZ(p), ARRAY<t>, MAP<k, v> and ROW<name t, ...>"

// typeBuf accumulates the canonical text of a type and remembers where
// each source token went, to map type errors back to the source.
type typeBuf struct {
	strings.Builder
	marks []typeMark
}

type typeMark struct {
	off int // byte offset in the text
	pos sqlerr.Pos
}

// tok writes s, the text of source token t.
func (b *typeBuf) tok(t token, s string) {
	b.marks = append(b.marks, typeMark{b.Len(), t.pos})
	b.WriteString(s)
}

// posAt returns the source position of byte off of the text.
func (b *typeBuf) posAt(off int) sqlerr.Pos {
	pos := b.marks[0].pos
	for _, m := range b.marks {
		if m.off > off {
			break
		}
		pos = m.pos
	}
	return pos
}

// typeName parses a data type. The parser only finds where the type ends
// and builds its canonical text; types.ParseType interprets it.
func (p *parser) typeName() *ast.TypeName {
	start := p.tok()
	var b typeBuf
	p.typeText(&b)
	text := b.String()
	typ, err := types.ParseType(text)
	if err != nil {
		var pe *types.ParseError
		if !errors.As(err, &pe) {
			p.failf(start.pos, "", "invalid type %s: %v", text, err)
		}
		hint := ""
		if strings.HasPrefix(pe.Msg, "expected a type") {
			hint = typeHint
		}
		p.failf(b.posAt(pe.Pos), hint, "invalid type %s: %s", text, pe.Msg)
	}
	return &ast.TypeName{Loc: at(start.pos), Text: text, Type: typ}
}

// typeText appends the canonical text of one type to b.
func (p *parser) typeText(b *typeBuf) {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind != tWord {
		p.expect("a data type")
		p.unexpectedAs("a data type", typeHint)
	}
	p.next()
	b.tok(t, t.val)
	switch t.val {
	case "ROW":
		p.rowFields(b)
	case "ARRAY", "MULTISET":
		b.tok(p.want(tLt), "<")
		p.typeText(b)
		b.tok(p.want(tGt), ">")
	case "MAP":
		b.tok(p.want(tLt), "<")
		p.typeText(b)
		b.tok(p.want(tComma), ", ")
		p.typeText(b)
		b.tok(p.want(tGt), ">")
	case "RAW":
		b.tok(p.want(tLParen), "(")
		b.tok(p.tok(), ast.QuoteString(p.stringLit("a class name", "").Value))
		if c := p.tok(); p.accept(tComma) {
			b.tok(c, ", ")
			b.tok(p.tok(), ast.QuoteString(p.stringLit("a serializer snapshot", "").Value))
		}
		b.tok(p.want(tRParen), ")")
	case "INTERVAL":
		p.typeIntervalUnit(b)
		if to := p.tok(); p.acceptKw("TO") {
			b.tok(to, " TO")
			p.typeIntervalUnit(b)
		}
	case "TIMESTAMP", "TIME":
		p.typeParams(b)
		p.timeZone(b)
	case "DOUBLE":
		p.typeWords(b, "PRECISION")
	case "CHARACTER", "CHAR", "BINARY":
		p.typeWords(b, "VARYING")
		p.typeParams(b)
	default:
		p.typeParams(b)
	}
	for p.typeWords(b, "ARRAY") || p.typeWords(b, "MULTISET") {
	}
	switch n := p.tok(); {
	case n.is("NOT") && p.peek(1).is("NULL"):
		p.next()
		p.next()
		b.tok(n, " NOT NULL")
	case n.is("NULL"):
		p.next()
	}
}

// typeWords consumes the keyword kw, writing it to b, if it is next.
func (p *parser) typeWords(b *typeBuf, kw string) bool {
	t := p.tok()
	if !p.acceptKw(kw) {
		return false
	}
	b.tok(t, " "+kw)
	return true
}

// rowFields parses <name type ['description'], ...> or (name type, ...)
// after ROW, always writing the angle-bracket form. A description may be
// preceded by COMMENT.
func (p *parser) rowFields(b *typeBuf) {
	closing := tGt
	open := p.tok()
	if !p.accept(tLt) {
		p.want(tLParen)
		closing = tRParen
	}
	b.tok(open, "<")
	for {
		f := p.tok()
		b.tok(f, ast.QuoteIdent(p.ident("a field name").Name)+" ")
		p.typeText(b)
		p.acceptKw("COMMENT")
		if d := p.tok(); d.kind == tString {
			p.next()
			b.tok(d, " "+ast.QuoteString(d.val))
		}
		c := p.tok()
		if !p.accept(tComma) {
			break
		}
		b.tok(c, ", ")
	}
	b.tok(p.want(closing), ">")
}

// typeParams parses an optional (n [, m]) of unsigned integers.
func (p *parser) typeParams(b *typeBuf) {
	open := p.tok()
	if !p.accept(tLParen) {
		return
	}
	b.tok(open, "(")
	for i := 0; ; i++ {
		t := p.tok()
		if t.kind != tNumber || !isAllDigits(t.text) {
			p.expect("an unsigned integer")
			p.unexpected()
		}
		p.next()
		n := strings.TrimLeft(t.text, "0")
		if n == "" {
			n = "0"
		}
		if i > 0 {
			n = ", " + n
		}
		b.tok(t, n)
		if !p.accept(tComma) {
			break
		}
	}
	b.tok(p.want(tRParen), ")")
}

// timeZone parses WITH LOCAL TIME ZONE, WITH TIME ZONE or WITHOUT TIME
// ZONE after TIME or TIMESTAMP.
func (p *parser) timeZone(b *typeBuf) {
	t := p.tok()
	switch {
	case t.is("WITH") && (p.peek(1).is("LOCAL") || p.peek(1).is("TIME")):
		p.next()
		b.tok(t, " WITH")
		p.typeWords(b, "LOCAL")
	case t.is("WITHOUT"):
		p.next()
		b.tok(t, " WITHOUT")
	default:
		return
	}
	b.tok(p.wantKw("TIME"), " TIME")
	b.tok(p.wantKw("ZONE"), " ZONE")
}

// typeIntervalUnit parses a unit with an optional precision in an
// INTERVAL type.
func (p *parser) typeIntervalUnit(b *typeBuf) {
	u, t := p.intervalUnit()
	b.tok(t, " "+string(u))
	p.typeParams(b)
}

// intervalUnits maps unit words (singular and plural) to units.
var intervalUnits = map[string]ast.TimeUnit{
	"YEAR": ast.Year, "YEARS": ast.Year, "MONTH": ast.Month, "MONTHS": ast.Month,
	"DAY": ast.Day, "DAYS": ast.Day, "HOUR": ast.Hour, "HOURS": ast.Hour,
	"MINUTE": ast.Minute, "MINUTES": ast.Minute, "SECOND": ast.Second, "SECONDS": ast.Second,
}

// intervalUnit parses one interval unit.
func (p *parser) intervalUnit() (ast.TimeUnit, token) {
	t := p.tok()
	u := intervalUnits[t.val]
	if t.kind != tWord || u == "" {
		p.expect("a time unit")
		p.unexpectedAs("a time unit (YEAR, MONTH, DAY, HOUR, MINUTE or SECOND)", "")
	}
	p.next()
	return u, t
}

// intervalRanges are the valid START TO END pairs.
var intervalRanges = map[[2]ast.TimeUnit]bool{
	{ast.Year, ast.Month}: true,
	{ast.Day, ast.Hour}:   true, {ast.Day, ast.Minute}: true, {ast.Day, ast.Second}: true,
	{ast.Hour, ast.Minute}: true, {ast.Hour, ast.Second}: true,
	{ast.Minute, ast.Second}: true,
}

const intervalRangeHint = "valid ranges are YEAR TO MONTH, DAY TO HOUR|MINUTE|SECOND, HOUR TO MINUTE|SECOND and MINUTE TO SECOND"

// interval parses INTERVAL 'value' unit [TO unit].
func (p *parser) interval() ast.Expr {
	t := p.next()
	v := p.tok()
	if v.kind != tString {
		p.expect("a quoted interval value")
		p.unexpectedAs("a quoted interval value", "quote the value: INTERVAL '5' SECOND")
	}
	p.next()
	lit := &ast.IntervalLit{Loc: at(t.pos), Value: v.val}
	lit.Start, _ = p.intervalUnit()
	const noPrec = "write the unit alone, e.g. INTERVAL '5' SECOND"
	if l := p.tok(); l.kind == tLParen {
		p.fail(l.pos, noPrec, "interval literals take no precision")
	}
	if p.acceptKw("TO") {
		var e token
		lit.End, e = p.intervalUnit()
		if l := p.tok(); l.kind == tLParen {
			p.fail(l.pos, noPrec, "interval literals take no precision")
		}
		if !intervalRanges[[2]ast.TimeUnit{lit.Start, lit.End}] {
			p.failf(e.pos, intervalRangeHint, "invalid interval range %s TO %s", lit.Start, lit.End)
		}
	}
	return lit
}
