package ast

import "strings"

func (p *printer) query(q Query) {
	switch n := q.(type) {
	case *Select:
		p.selectQuery(n)
	case *Values:
		p.WriteString("VALUES ")
		for i, r := range n.Rows {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString("(")
			p.exprList(r.Values)
			p.WriteString(")")
		}
	case *With:
		p.WriteString("WITH ")
		for i, c := range n.CTEs {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(QuoteIdent(c.Name.Name))
			if len(c.Columns) > 0 {
				p.WriteString(" (")
				for j, col := range c.Columns {
					if j > 0 {
						p.WriteString(", ")
					}
					p.WriteString(QuoteIdent(col.Name))
				}
				p.WriteString(")")
			}
			p.WriteString(" AS (")
			p.query(c.Query)
			p.WriteString(")")
		}
		p.WriteString(" ")
		p.query(n.Body)
	case *SetOp:
		p.setOperand(n.Left, false)
		p.ws(" ", n.Kind.String(), " ")
		if n.All {
			p.WriteString("ALL ")
		}
		p.setOperand(n.Right, true)
		p.orderLimit(n.OrderBy, n.Limit)
	}
}

// setOperand prints an operand of a set operation, in parentheses when its
// own ORDER BY or LIMIT would otherwise bind to the whole operation, or
// when it is a nested operation on the right.
func (p *printer) setOperand(q Query, right bool) {
	paren := false
	switch n := q.(type) {
	case *Select:
		paren = n.OrderBy != nil || n.Limit != nil || n.Offset != nil
	case *SetOp:
		paren = right || n.OrderBy != nil || n.Limit != nil
	case *With:
		paren = true
	}
	if paren {
		p.WriteString("(")
	}
	p.query(q)
	if paren {
		p.WriteString(")")
	}
}

func (p *printer) selectQuery(s *Select) {
	p.WriteString("SELECT ")
	if len(s.Hints) > 0 {
		p.WriteString("/*+ ")
		for i, h := range s.Hints {
			if i > 0 {
				p.WriteString(", ")
			}
			p.ws(h.Name, "(")
			for j, o := range h.Options {
				if j > 0 {
					p.WriteString(", ")
				}
				p.WriteString(QuoteString(o.Key))
				if o.Value != "" {
					p.ws(" = ", QuoteString(o.Value))
				}
			}
			p.WriteString(")")
		}
		p.WriteString(" */ ")
	}
	if s.Distinct {
		p.WriteString("DISTINCT ")
	}
	for i, it := range s.Items {
		if i > 0 {
			p.WriteString(", ")
		}
		p.selectItem(it)
	}
	if s.From != nil {
		p.WriteString(" FROM ")
		p.tableExpr(s.From)
	}
	if s.Where != nil {
		p.WriteString(" WHERE ")
		p.expr(s.Where)
	}
	if s.GroupBy != nil {
		p.WriteString(" GROUP BY ")
		p.exprList(s.GroupBy)
	}
	if s.Having != nil {
		p.WriteString(" HAVING ")
		p.expr(s.Having)
	}
	for i, w := range s.Windows {
		if i == 0 {
			p.WriteString(" WINDOW ")
		} else {
			p.WriteString(", ")
		}
		p.ident(w.Name)
		p.WriteString(" AS (")
		p.windowSpec(w.Spec)
		p.WriteString(")")
	}
	if s.Qualify != nil {
		p.WriteString(" QUALIFY ")
		p.expr(s.Qualify)
	}
	p.orderLimit(s.OrderBy, s.Limit)
	if s.Offset != nil {
		p.WriteString(" OFFSET ")
		p.expr(s.Offset)
	}
}

func (p *printer) orderLimit(order []*OrderItem, limit Expr) {
	if order != nil {
		p.WriteString(" ORDER BY ")
		p.orderItems(order)
	}
	if limit != nil {
		p.WriteString(" LIMIT ")
		p.expr(limit)
	}
}

func (p *printer) orderItems(items []*OrderItem) {
	for i, o := range items {
		if i > 0 {
			p.WriteString(", ")
		}
		p.orderItem(o)
	}
}

func (p *printer) orderItem(o *OrderItem) {
	p.expr(o.Expr)
	if o.Desc {
		p.WriteString(" DESC")
	}
	switch o.Nulls {
	case NullsFirst:
		p.WriteString(" NULLS FIRST")
	case NullsLast:
		p.WriteString(" NULLS LAST")
	}
}

func (p *printer) selectItem(it *SelectItem) {
	p.expr(it.Expr)
	if it.Alias != nil {
		p.WriteString(" AS ")
		p.ident(it.Alias)
	}
}

func (p *printer) alias(a *Alias) {
	if a == nil {
		return
	}
	p.WriteString(" AS ")
	p.ident(a.Name)
	if a.Columns != nil {
		p.WriteString("(")
		p.identList(a.Columns)
		p.WriteString(")")
	}
}

func (p *printer) tableExpr(t TableExpr) {
	switch n := t.(type) {
	case *TableName:
		p.WriteString(n.Name.String())
		if n.AsOf != nil {
			p.WriteString(" FOR SYSTEM_TIME AS OF ")
			p.expr(n.AsOf)
		}
		p.alias(n.Alias)
	case *Subquery:
		p.WriteString("(")
		p.query(n.Query)
		p.WriteString(")")
		p.alias(n.Alias)
	case *TableFunc:
		p.tableFunc(n)
	case *Unnest:
		p.WriteString("UNNEST(")
		p.exprList(n.Args)
		p.WriteString(")")
		if n.Ordinality {
			p.WriteString(" WITH ORDINALITY")
		}
		p.alias(n.Alias)
	case *Join:
		p.tableExpr(n.Left)
		if n.Type == CommaJoin {
			p.WriteString(", ")
		} else {
			p.ws(" ", n.Type.String(), " ")
		}
		p.tableExpr(n.Right)
		if n.On != nil {
			p.WriteString(" ON ")
			p.expr(n.On)
		}
	}
}

func (p *printer) tableFunc(n *TableFunc) {
	if n.Lateral {
		p.WriteString("LATERAL ")
	}
	if n.Wrapped || n.Lateral {
		p.WriteString("TABLE(")
	}
	p.ws(n.Name.String(), "(")
	for i, a := range n.Args {
		if i > 0 {
			p.WriteString(", ")
		}
		p.arg(a)
	}
	p.WriteString(")")
	if n.Wrapped || n.Lateral {
		p.WriteString(")")
	}
	p.alias(n.Alias)
}

func (p *printer) arg(a *Arg) {
	if a.Name != nil {
		p.ident(a.Name)
		p.WriteString(" => ")
	}
	p.expr(a.Value)
}

func (p *printer) tableArg(t *TableArg) {
	if t.Name != nil {
		p.ws("TABLE ", t.Name.String())
	} else {
		p.WriteString("(")
		p.query(t.Query)
		p.WriteString(")")
	}
	if t.PartitionBy != nil {
		p.WriteString(" PARTITION BY ")
		if len(t.PartitionBy) == 1 {
			p.ident(t.PartitionBy[0])
		} else {
			p.WriteString("(")
			p.identList(t.PartitionBy)
			p.WriteString(")")
		}
	}
	if t.OrderBy != nil {
		p.WriteString(" ORDER BY ")
		// A single item goes without parentheses, unless it starts with
		// one itself: they would be read as the list's.
		if len(t.OrderBy) == 1 && !strings.HasPrefix(Format(t.OrderBy[0].Expr), "(") {
			p.orderItem(t.OrderBy[0])
		} else {
			p.WriteString("(")
			p.orderItems(t.OrderBy)
			p.WriteString(")")
		}
	}
}
