package parser

import (
	"github.com/eddy-sql/eddy/internal/sql/ast"
)

// query parses a query: terms joined by UNION, then ORDER BY and LIMIT.
func (p *parser) query() ast.Query {
	p.enter()
	defer p.leave()
	if t := p.tok(); t.is("WITH") {
		return p.with()
	}
	q := p.queryTerm()
	for {
		t := p.tok()
		var kind ast.SetOpKind
		switch {
		case p.acceptKw("UNION"):
			kind = ast.Union
		case p.acceptKw("INTERSECT"):
			kind = ast.Intersect
		case p.acceptKw("EXCEPT"), p.acceptKw("MINUS"):
			kind = ast.Except
		default:
			goto done
		}
		op := &ast.SetOp{Kind: kind, Left: q, OpPos: t.pos}
		if p.acceptKw("ALL") {
			op.All = true
		} else {
			p.acceptKw("DISTINCT")
		}
		// INTERSECT binds tighter than UNION and EXCEPT.
		op.Right = p.queryTerm()
		for kind != ast.Intersect && p.isKw("INTERSECT") {
			it := p.tok()
			p.next()
			in := &ast.SetOp{Kind: ast.Intersect, Left: op.Right, OpPos: it.pos}
			if p.acceptKw("ALL") {
				in.All = true
			} else {
				p.acceptKw("DISTINCT")
			}
			in.Right = p.queryTerm()
			op.Right = in
		}
		q = op
	}
done:
	start := p.tok()
	var order []*ast.OrderItem
	var limit ast.Expr
	if p.isKw("ORDER") {
		p.next()
		p.wantKw("BY")
		order = []*ast.OrderItem{p.orderItem()}
		for p.accept(tComma) {
			order = append(order, p.orderItem())
		}
	} else {
		p.expect("ORDER BY")
	}
	var offset ast.Expr
	if p.acceptKw("LIMIT") {
		limit = p.expr()
	}
	if p.acceptKw("OFFSET") {
		offset = p.expr()
		if !p.acceptKw("ROWS") {
			p.acceptKw("ROW")
		}
	}
	if limit == nil && p.acceptKw("FETCH") {
		if !p.acceptKw("FIRST") {
			p.wantKw("NEXT")
		}
		limit = p.expr()
		if !p.acceptKw("ROWS") {
			p.wantKw("ROW")
		}
		p.wantKw("ONLY")
	}
	if order == nil && limit == nil && offset == nil {
		return q
	}
	const hint = "wrap the query in a subquery: SELECT * FROM (...) ORDER BY ... LIMIT ..."
	switch n := q.(type) {
	case *ast.Select:
		if n.OrderBy != nil || n.Limit != nil || n.Offset != nil {
			p.fail(start.pos, hint, "the query already has ORDER BY or LIMIT")
		}
		n.OrderBy, n.Limit, n.Offset = order, limit, offset
	case *ast.SetOp:
		if n.OrderBy != nil || n.Limit != nil {
			p.fail(start.pos, hint, "the query already has ORDER BY or LIMIT")
		}
		if offset != nil {
			p.unsupported(offset.Pos(), hint, "OFFSET after a set operation is not supported")
		}
		n.OrderBy, n.Limit = order, limit
	case *ast.Values:
		p.fail(start.pos, "select from the values instead: SELECT * FROM (VALUES ...) AS t(a, b) ORDER BY a",
			"ORDER BY and LIMIT cannot follow VALUES")
	}
	return q
}

// queryTerm parses SELECT ..., VALUES ... or (query).
func (p *parser) queryTerm() ast.Query {
	t := p.tok()
	switch {
	case t.is("SELECT"):
		return p.selectCore()
	case t.is("VALUES"):
		return p.values()
	case t.kind == tLParen:
		p.next()
		q := p.query()
		p.want(tRParen)
		return q
	case t.is("WITH"):
		return p.with()
	}
	p.expect("SELECT")
	p.expect("VALUES")
	p.unexpected()
	return nil
}

// values parses VALUES (a, b), ROW(c, d), ....
func (p *parser) values() *ast.Values {
	v := &ast.Values{Loc: at(p.next().pos)}
	for {
		t := p.tok()
		if t.is("ROW") {
			p.next()
		}
		p.want(tLParen)
		v.Rows = append(v.Rows, &ast.RowExpr{Loc: at(t.pos), Values: p.exprList()})
		p.want(tRParen)
		if !p.accept(tComma) {
			return v
		}
	}
}

// selectCore parses SELECT ... up to HAVING; ORDER BY and LIMIT belong to
// query.
func (p *parser) selectCore() *ast.Select {
	kw := p.next()
	s := &ast.Select{Loc: at(kw.pos)}
	s.Hints = p.hints(kw)
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	s.Items = []*ast.SelectItem{p.selectItem()}
	for p.accept(tComma) {
		s.Items = append(s.Items, p.selectItem())
	}
	if p.acceptKw("FROM") {
		s.From = p.from()
	}
	if p.acceptKw("WHERE") {
		s.Where = p.expr()
	}
	if p.isKw("GROUP") {
		p.next()
		p.wantKw("BY")
		s.GroupBy = p.groupItems()
	} else {
		p.expect("GROUP BY")
	}
	if p.acceptKw("HAVING") {
		s.Having = p.expr()
	}
	if p.isKw("WINDOW") {
		p.next()
		s.Windows = p.windows()
	}
	if p.isKw("QUALIFY") {
		p.next()
		s.Qualify = p.expr()
	}
	return s
}

// selectItem parses expr [[AS] alias], * or name.*.
func (p *parser) selectItem() *ast.SelectItem {
	t := p.tok()
	if t.kind == tStar {
		p.next()
		return &ast.SelectItem{Expr: &ast.Star{Loc: at(t.pos)}}
	}
	// name.name.* : look ahead for the star.
	for i := 0; isIdent(p.peek(i)) && p.peek(i+1).kind == tDot; i += 2 {
		if p.peek(i+2).kind != tStar {
			continue
		}
		q := &ast.ObjectName{}
		for j := 0; j <= i; j += 2 {
			q.Parts = append(q.Parts, p.ident("a table name"))
			p.next() // '.'
		}
		p.next() // '*'
		return &ast.SelectItem{Expr: &ast.Star{Loc: at(t.pos), Qualifier: q}}
	}
	it := &ast.SelectItem{Expr: p.expr()}
	it.Alias = p.optAlias()
	return it
}

// clauseKeywords are keywords that can follow an expression or a source;
// a near-miss of one in alias position is reported as a typo.
var clauseKeywords = []string{
	"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "JOIN",
	"INNER", "LEFT", "RIGHT", "FULL", "CROSS", "ON", "SELECT", "VALUES", "PARTITION",
}

// optAlias parses an optional [AS] name.
func (p *parser) optAlias() *ast.Ident {
	if p.acceptKw("AS") {
		return p.ident("an alias")
	}
	t := p.tok()
	if !isIdent(t) || t.kind == tWord && t.is("QUALIFY") {
		// QUALIFY is reserved in Calcite; Eddy keeps it a name except
		// where an alias would swallow the clause.
		return nil
	}
	if t.kind == tWord {
		// "FORM t": a misspelt keyword followed by what cannot follow an
		// alias. "x form FROM t" is a valid alias.
		if s := suggest(t.val, clauseKeywords); s != "" {
			switch n := p.peek(1); {
			case isIdent(n), n.kind == tNumber, n.kind == tString:
				p.failf(t.pos, "did you mean "+s+"?", "unexpected %s, expected %s", t.describe(), s)
			}
		}
	}
	return p.ident("an alias")
}

// optSourceAlias parses an optional [AS] name [(col, ...)] after a FROM
// source.
func (p *parser) optSourceAlias() *ast.Alias {
	name := p.optAlias()
	if name == nil {
		return nil
	}
	a := &ast.Alias{Name: name}
	if p.tok().kind == tLParen {
		a.Columns = p.parenIdents("a column name")
	}
	return a
}

// orderItem parses expr [ASC|DESC] [NULLS FIRST|LAST].
func (p *parser) orderItem() *ast.OrderItem {
	o := &ast.OrderItem{Expr: p.expr()}
	if p.acceptKw("DESC") {
		o.Desc = true
	} else {
		p.acceptKw("ASC")
	}
	if p.acceptKw("NULLS") {
		if p.acceptKw("FIRST") {
			o.Nulls = ast.NullsFirst
		} else {
			p.wantKw("LAST")
			o.Nulls = ast.NullsLast
		}
	}
	return o
}

// from parses the FROM clause: sources joined by commas and JOINs.
func (p *parser) from() ast.TableExpr {
	left := p.tableRef()
	for {
		t := p.tok()
		j := &ast.Join{Left: left, JoinPos: t.pos}
		switch {
		case t.kind == tComma:
			p.next()
			j.Type = ast.CommaJoin
		case t.is("JOIN"):
			p.next()
			j.Type = ast.InnerJoin
		case t.is("INNER"):
			p.next()
			p.wantKw("JOIN")
			j.Type = ast.InnerJoin
		case t.is("LEFT"), t.is("RIGHT"), t.is("FULL"):
			p.next()
			p.acceptKw("OUTER")
			p.wantKw("JOIN")
			j.Type = map[string]ast.JoinType{"LEFT": ast.LeftJoin, "RIGHT": ast.RightJoin, "FULL": ast.FullJoin}[t.val]
		case t.is("CROSS"):
			p.next()
			p.wantKw("JOIN")
			j.Type = ast.CrossJoin
		case t.is("NATURAL"):
			p.unsupported(t.pos, "write the join condition with ON", "NATURAL JOIN is not supported")
		default:
			p.expect("JOIN")
			return left
		}
		j.Right = p.tableRef()
		if j.Type != ast.CommaJoin && j.Type != ast.CrossJoin {
			p.wantKw("ON")
			j.On = p.expr()
		}
		left = j
	}
}

// tableRef parses one FROM source.
func (p *parser) tableRef() ast.TableExpr {
	t := p.tok()
	switch {
	case t.is("LATERAL") && p.peek(1).is("UNNEST"):
		p.next()
		return p.tableRef()
	case t.is("LATERAL"):
		p.next()
		p.wantKw("TABLE")
		return p.wrappedTableFunc(t, true)
	case t.is("TABLE"):
		p.next()
		if p.tok().kind != tLParen {
			p.expect("'('")
			p.unexpectedAs("'('", "to read a table write FROM t; TABLE t is only valid as a table function argument")
		}
		return p.wrappedTableFunc(t, false)
	case t.kind == tLParen:
		if !p.isQueryStart(1) {
			p.next()
			p.expect("SELECT")
			p.expect("VALUES")
			p.unexpectedAs("a query", "parentheses in FROM enclose a subquery: FROM (SELECT ...) AS t")
		}
		p.next()
		s := &ast.Subquery{Loc: at(t.pos), Query: p.query()}
		p.want(tRParen)
		s.Alias = p.optSourceAlias()
		return s
	case t.is("UNNEST"):
		p.next()
		u := &ast.Unnest{Loc: at(t.pos)}
		p.want(tLParen)
		u.Args = p.exprList()
		p.want(tRParen)
		if p.isKw("WITH") && p.peek(1).is("ORDINALITY") {
			p.next()
			p.next()
			u.Ordinality = true
		}
		u.Alias = p.optSourceAlias()
		return u
	}
	name := p.tableName()
	if p.tok().kind == tLParen {
		f := &ast.TableFunc{Loc: at(t.pos), Name: name, Args: p.args()}
		f.Alias = p.optSourceAlias()
		return f
	}
	tn := &ast.TableName{Name: name}
	if p.isKw("FOR") {
		p.next()
		p.wantKw("SYSTEM_TIME")
		p.wantKw("AS")
		p.wantKw("OF")
		tn.AsOf = p.concat()
	}
	tn.Alias = p.optSourceAlias()
	return tn
}

// wrappedTableFunc parses (f(args)) [alias] after TABLE.
func (p *parser) wrappedTableFunc(start token, lateral bool) *ast.TableFunc {
	p.want(tLParen)
	f := &ast.TableFunc{Loc: at(start.pos), Lateral: lateral, Wrapped: true}
	f.Name = p.objectName("table function", 3, "function, database.function or catalog.database.function")
	if p.tok().kind != tLParen {
		p.expect("'('")
		p.unexpectedAs("'('", "TABLE(...) encloses a table function call such as TABLE(f(x))")
	}
	f.Args = p.args()
	p.want(tRParen)
	f.Alias = p.optSourceAlias()
	return f
}

// args parses the argument list of a table function call.
func (p *parser) args() []*ast.Arg {
	p.want(tLParen)
	args := []*ast.Arg{}
	if p.accept(tRParen) {
		return args
	}
	for {
		args = append(args, p.arg())
		if !p.accept(tComma) {
			p.want(tRParen)
			return args
		}
	}
}

// arg parses [name =>] value.
func (p *parser) arg() *ast.Arg {
	a := &ast.Arg{}
	if isIdent(p.tok()) && p.peek(1).kind == tArrow {
		a.Name = p.ident("an argument name")
		p.next()
	}
	a.Value = p.argValue()
	a.Loc = at(a.Value.Pos())
	if a.Name != nil {
		a.Loc = a.Name.Loc
	}
	return a
}

// argValue parses a table argument, DESCRIPTOR(...), DEFAULT or a scalar
// expression.
func (p *parser) argValue() ast.Expr {
	t := p.tok()
	switch {
	case t.is("TABLE"):
		p.next()
		ta := &ast.TableArg{Loc: at(t.pos), Name: p.tableName()}
		p.partitionOrder(ta)
		return ta
	case t.kind == tLParen && p.isQueryStart(1):
		p.next()
		ta := &ast.TableArg{Loc: at(t.pos), Query: p.query()}
		p.want(tRParen)
		p.partitionOrder(ta)
		return ta
	case t.is("DESCRIPTOR") && p.peek(1).kind == tLParen:
		p.next()
		p.next()
		d := &ast.Descriptor{Loc: at(t.pos), Columns: []*ast.Ident{}}
		if !p.accept(tRParen) {
			d.Columns = []*ast.Ident{p.descriptorColumn()}
			for p.accept(tComma) {
				d.Columns = append(d.Columns, p.descriptorColumn())
			}
			p.want(tRParen)
		}
		return d
	case t.is("DEFAULT"):
		p.next()
		return &ast.Default{Loc: at(t.pos)}
	}
	return p.expr()
}

// descriptorColumn parses a column name of DESCRIPTOR(...), which takes
// no qualifier (Flink resolves it against the table arguments).
func (p *parser) descriptorColumn() *ast.Ident {
	id := p.ident("a column name")
	if p.tok().kind == tDot {
		name, last := id.Name, id
		for p.accept(tDot) {
			last = p.ident("a column name")
			name += "." + last.Name
		}
		p.failf(id.Pos(), "write DESCRIPTOR("+last.Name+"): the column is looked up in the table arguments of the call",
			"DESCRIPTOR takes column names without a qualifier, but '%s' is qualified", name)
	}
	return id
}

// partitionOrder parses [PARTITION BY col | (cols)] [ORDER BY item |
// (items)] after a table argument.
func (p *parser) partitionOrder(ta *ast.TableArg) {
	if p.isKw("PARTITION") {
		p.next()
		p.wantKw("BY")
		if p.tok().kind == tLParen {
			ta.PartitionBy = p.parenIdents("a column name")
		} else {
			ta.PartitionBy = []*ast.Ident{p.ident("a column name")}
		}
	} else {
		p.expect("PARTITION BY")
	}
	if p.isKw("ORDER") {
		p.next()
		p.wantKw("BY")
		if p.accept(tLParen) {
			ta.OrderBy = []*ast.OrderItem{p.orderItem()}
			for p.accept(tComma) {
				ta.OrderBy = append(ta.OrderBy, p.orderItem())
			}
			p.want(tRParen)
		} else {
			ta.OrderBy = []*ast.OrderItem{p.orderItem()}
		}
	} else {
		p.expect("ORDER BY")
	}
}

// with parses WITH name [(columns)] AS (query), ... query.
func (p *parser) with() ast.Query {
	w := &ast.With{Loc: at(p.next().pos)}
	for {
		c := &ast.CTE{Name: p.ident("a name for the query")}
		if p.accept(tLParen) {
			for {
				c.Columns = append(c.Columns, p.ident("a column name"))
				if !p.accept(tComma) {
					break
				}
			}
			p.want(tRParen)
		}
		p.wantKw("AS")
		p.want(tLParen)
		c.Query = p.query()
		p.want(tRParen)
		w.CTEs = append(w.CTEs, c)
		if !p.accept(tComma) {
			break
		}
	}
	w.Body = p.query()
	return w
}

// groupItems parses the items of GROUP BY: expressions, GROUPING SETS
// (...), ROLLUP (...) and CUBE (...).
func (p *parser) groupItems() []ast.Expr {
	var out []ast.Expr
	for {
		t := p.tok()
		switch {
		case t.is("GROUPING") && p.peek(1).is("SETS"):
			p.next()
			p.next()
			g := &ast.Grouping{Loc: at(t.pos), Kind: ast.GroupingSets}
			p.want(tLParen)
			for {
				if p.accept(tLParen) {
					var set []ast.Expr
					if !p.accept(tRParen) {
						set = p.exprList()
						p.want(tRParen)
					}
					g.Sets = append(g.Sets, set)
				} else {
					g.Sets = append(g.Sets, []ast.Expr{p.expr()})
				}
				if !p.accept(tComma) {
					break
				}
			}
			p.want(tRParen)
			out = append(out, g)
		case (t.is("ROLLUP") || t.is("CUBE")) && p.peek(1).kind == tLParen:
			p.next()
			p.next()
			kind := ast.Rollup
			if t.is("CUBE") {
				kind = ast.Cube
			}
			out = append(out, &ast.Grouping{Loc: at(t.pos), Kind: kind, Sets: [][]ast.Expr{p.exprList()}})
			p.want(tRParen)
		default:
			out = append(out, p.expr())
		}
		if !p.accept(tComma) {
			return out
		}
	}
}
