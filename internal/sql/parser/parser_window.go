package parser

import "github.com/eddy-sql/eddy/internal/sql/ast"

// over parses OVER w or OVER (spec) after a function call.
func (p *parser) over(f *ast.FuncCall) {
	t := p.next() // OVER
	if p.tok().kind != tLParen {
		ref := p.ident("a window name or '('")
		f.Over = &ast.WindowSpec{Loc: at(t.pos), Ref: ref}
		return
	}
	p.next()
	f.Over = p.windowSpec(t)
	p.want(tRParen)
}

// windowSpec parses the inside of OVER (...) or WINDOW w AS (...):
//
//	[w] [PARTITION BY exprs] [ORDER BY items] [{ROWS | RANGE} frame]
func (p *parser) windowSpec(start token) *ast.WindowSpec {
	w := &ast.WindowSpec{Loc: at(start.pos)}
	if isIdent(p.tok()) {
		w.Ref = p.ident("a window name")
	}
	if p.isKw("PARTITION") {
		p.next()
		p.wantKw("BY")
		w.PartitionBy = p.exprList()
	} else {
		p.expect("PARTITION BY")
	}
	if p.isKw("ORDER") {
		p.next()
		p.wantKw("BY")
		w.OrderBy = []*ast.OrderItem{p.orderItem()}
		for p.accept(tComma) {
			w.OrderBy = append(w.OrderBy, p.orderItem())
		}
	} else {
		p.expect("ORDER BY")
	}
	if t := p.tok(); t.is("ROWS") || t.is("RANGE") {
		p.next()
		fr := &ast.WindowFrame{Loc: at(t.pos), Rows: t.is("ROWS")}
		if p.acceptKw("BETWEEN") {
			fr.Start = p.frameBound()
			p.wantKw("AND")
			fr.End = p.frameBound()
		} else {
			fr.Start = p.frameBound()
		}
		w.Frame = fr
	} else {
		p.expect("ROWS")
		p.expect("RANGE")
	}
	return w
}

// frameBound parses UNBOUNDED {PRECEDING | FOLLOWING}, CURRENT ROW or
// expr {PRECEDING | FOLLOWING}.
func (p *parser) frameBound() *ast.FrameBound {
	t := p.tok()
	b := &ast.FrameBound{Loc: at(t.pos)}
	switch {
	case t.is("UNBOUNDED"):
		p.next()
		if p.acceptKw("FOLLOWING") {
			b.Kind = ast.UnboundedFollowing
		} else {
			p.expect("FOLLOWING")
			p.wantKw("PRECEDING")
			b.Kind = ast.UnboundedPreceding
		}
	case t.is("CURRENT") && p.peek(1).is("ROW"):
		p.next()
		p.next()
		b.Kind = ast.CurrentRow
	default:
		b.Offset = p.concat()
		if p.acceptKw("FOLLOWING") {
			b.Kind = ast.Following
		} else {
			p.expect("FOLLOWING")
			p.wantKw("PRECEDING")
			b.Kind = ast.Preceding
		}
	}
	return b
}

// windows parses the definitions of a WINDOW clause after WINDOW:
// name AS (spec), ....
func (p *parser) windows() []*ast.NamedWindow {
	var out []*ast.NamedWindow
	for {
		w := &ast.NamedWindow{Name: p.ident("a window name")}
		p.wantKw("AS")
		t := p.want(tLParen)
		w.Spec = p.windowSpec(t)
		p.want(tRParen)
		out = append(out, w)
		if !p.accept(tComma) {
			return out
		}
	}
}
