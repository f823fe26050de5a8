package ast

import "strings"

// Operator precedence levels, lowest first, as the parser applies them.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCmp // comparisons, IS, BETWEEN, IN, LIKE
	precConcat
	precAdd
	precMul
	precUnary
	precPrimary
)

func binaryPrec(op BinaryOp) int {
	switch op {
	case OpOr:
		return precOr
	case OpAnd:
		return precAnd
	case OpConcat:
		return precConcat
	case OpAdd, OpSub:
		return precAdd
	case OpMul, OpDiv, OpMod:
		return precMul
	}
	return precCmp
}

func exprPrec(e Expr) int {
	switch n := e.(type) {
	case *Binary:
		return binaryPrec(n.Op)
	case *Unary:
		if n.Op == OpNot {
			return precNot
		}
		return precUnary
	case *Is, *Between, *In, *Like:
		return precCmp
	}
	return precPrimary
}

// operand prints e, in parentheses when its precedence is below min.
func (p *printer) operand(e Expr, min int) {
	if exprPrec(e) < min {
		p.WriteString("(")
		p.expr(e)
		p.WriteString(")")
		return
	}
	p.expr(e)
}

func (p *printer) expr(e Expr) {
	switch n := e.(type) {
	case *ColumnRef:
		for i, part := range n.Parts {
			if i > 0 {
				p.WriteString(".")
			}
			p.ident(part)
		}
	case *NumericLit:
		p.WriteString(n.Text)
	case *StringLit:
		p.str(n)
	case *BoolLit:
		if n.Value {
			p.WriteString("TRUE")
		} else {
			p.WriteString("FALSE")
		}
	case *NullLit:
		p.WriteString("NULL")
	case *TypedLit:
		p.ws(n.Type, " ", QuoteString(n.Value))
	case *IntervalLit:
		p.ws("INTERVAL ", QuoteString(n.Value), " ", string(n.Start))
		if n.End != "" {
			p.ws(" TO ", string(n.End))
		}
	case *Unary:
		p.unary(n)
	case *Binary:
		prec := binaryPrec(n.Op)
		p.operand(n.X, prec)
		p.ws(" ", n.Op.String(), " ")
		p.operand(n.Y, prec+1)
	case *Star:
		if n.Qualifier != nil {
			p.ws(n.Qualifier.String(), ".")
		}
		p.WriteString("*")
	default:
		p.predicate(e)
	}
}

func (p *printer) unary(n *Unary) {
	if n.Op == OpNot {
		p.WriteString("NOT ")
		p.operand(n.X, precNot)
		return
	}
	p.WriteString(n.Op.String())
	// Parenthesise a signed operand: "--1" would start a comment.
	s := Format(n.X)
	if exprPrec(n.X) < precUnary || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		p.ws("(", s, ")")
		return
	}
	p.WriteString(s)
}

func (p *printer) not(b bool) {
	if b {
		p.WriteString(" NOT")
	}
}

func (p *printer) predicate(e Expr) {
	switch n := e.(type) {
	case *Is:
		p.operand(n.X, precCmp)
		p.WriteString(" IS")
		p.not(n.Not)
		p.ws(" ", n.What.String())
	case *Between:
		p.operand(n.X, precCmp)
		p.not(n.Not)
		p.WriteString(" BETWEEN ")
		p.operand(n.Lo, precCmp+1)
		p.WriteString(" AND ")
		p.operand(n.Hi, precCmp+1)
	case *In:
		p.operand(n.X, precCmp)
		p.not(n.Not)
		p.WriteString(" IN (")
		if n.Query != nil {
			p.query(n.Query)
		} else {
			p.exprList(n.List)
		}
		p.WriteString(")")
	case *Grouping:
		p.WriteString([...]string{"GROUPING SETS", "ROLLUP", "CUBE"}[n.Kind])
		p.WriteString(" (")
		for i, set := range n.Sets {
			if i > 0 {
				p.WriteString(", ")
			}
			if n.Kind == GroupingSets {
				p.WriteString("(")
			}
			p.exprList(set)
			if n.Kind == GroupingSets {
				p.WriteString(")")
			}
		}
		p.WriteString(")")
	case *Exists:
		p.WriteString("EXISTS (")
		p.query(n.Query)
		p.WriteString(")")
	case *ScalarSubquery:
		p.WriteString("(")
		p.query(n.Query)
		p.WriteString(")")
	case *Like:
		p.operand(n.X, precCmp)
		p.not(n.Not)
		if n.Similar {
			p.WriteString(" SIMILAR TO ")
		} else {
			p.WriteString(" LIKE ")
		}
		p.operand(n.Pattern, precCmp+1)
		if n.Escape != nil {
			p.WriteString(" ESCAPE ")
			p.operand(n.Escape, precCmp+1)
		}
	default:
		p.primary(e)
	}
}

func (p *printer) primary(e Expr) {
	switch n := e.(type) {
	case *Cast:
		if n.Try {
			p.WriteString("TRY_CAST(")
		} else {
			p.WriteString("CAST(")
		}
		p.expr(n.X)
		p.ws(" AS ", n.Type.Text, ")")
	case *Case:
		p.WriteString("CASE")
		if n.Operand != nil {
			p.WriteString(" ")
			p.expr(n.Operand)
		}
		for _, w := range n.Whens {
			p.WriteString(" WHEN ")
			p.expr(w.Cond)
			p.WriteString(" THEN ")
			p.expr(w.Result)
		}
		if n.Else != nil {
			p.WriteString(" ELSE ")
			p.expr(n.Else)
		}
		p.WriteString(" END")
	case *FuncCall:
		p.funcCall(n)
	case *TimeUnitArg:
		p.WriteString(string(n.Unit))
	case *JSONCall:
		p.jsonCall(n)
	case *Extract:
		p.ws("EXTRACT(", string(n.Unit), " FROM ")
		p.expr(n.X)
		p.WriteString(")")
	case *RowExpr:
		p.WriteString("ROW(")
		p.exprList(n.Values)
		p.WriteString(")")
	case *ArrayExpr:
		p.WriteString("ARRAY[")
		p.exprList(n.Elems)
		p.WriteString("]")
	case *MapExpr:
		p.WriteString("MAP[")
		p.exprList(n.Elems)
		p.WriteString("]")
	case *Subscript:
		p.operand(n.X, precPrimary)
		p.WriteString("[")
		p.expr(n.Index)
		p.WriteString("]")
	case *TableArg:
		p.tableArg(n)
	case *Descriptor:
		p.WriteString("DESCRIPTOR(")
		p.identList(n.Columns)
		p.WriteString(")")
	case *Default:
		p.WriteString("DEFAULT")
	}
}

func (p *printer) funcCall(f *FuncCall) {
	if f.Overlaps && len(f.Args) == 4 {
		// (s1, e1) OVERLAPS (s2, e2), parenthesised: it parses as a call.
		p.WriteString("((")
		p.expr(f.Args[0])
		p.WriteString(", ")
		p.expr(f.Args[1])
		p.WriteString(") OVERLAPS (")
		p.expr(f.Args[2])
		p.WriteString(", ")
		p.expr(f.Args[3])
		p.WriteString("))")
		return
	}
	if len(f.Name.Parts) == 1 {
		name := f.Name.Parts[0].Name
		if IsNiladicFunc(name) && f.Niladic {
			p.WriteString(upper(name))
			return
		}
		if IsReservedFunc(name) {
			p.WriteString(upper(name))
		} else {
			p.WriteString(QuoteIdent(name))
		}
	} else {
		p.WriteString(f.Name.String())
	}
	p.WriteString("(")
	if p.specialArgs(f) {
		p.WriteString(")")
		return
	}
	switch {
	case f.Star:
		p.WriteString("*")
	case len(f.Name.Parts) == 1 && upper(f.Name.Parts[0].Name) == "JSON_OBJECTAGG" && len(f.Args) == 2:
		p.WriteString("KEY ")
		p.expr(f.Args[0])
		p.WriteString(" VALUE ")
		p.expr(f.Args[1])
	default:
		if f.Distinct {
			p.WriteString("DISTINCT ")
		}
		p.exprList(f.Args)
	}
	if f.Nulls != "" {
		p.ws(" ", f.Nulls, " NULLS")
	}
	if f.OnNull != "" {
		p.ws(" ", f.OnNull, " ON NULL")
	}
	p.WriteString(")")
	if f.Filter != nil {
		p.WriteString(" FILTER (WHERE ")
		p.expr(f.Filter)
		p.WriteString(")")
	}
	if f.Over != nil {
		p.WriteString(" OVER ")
		if f.Over.Ref != nil && f.Over.PartitionBy == nil && f.Over.OrderBy == nil && f.Over.Frame == nil {
			p.ident(f.Over.Ref)
			return
		}
		p.WriteString("(")
		p.windowSpec(f.Over)
		p.WriteString(")")
	}
}

// windowSpec prints the inside of OVER (...) and of WINDOW w AS (...).
func (p *printer) windowSpec(w *WindowSpec) {
	sep := ""
	if w.Ref != nil {
		p.ident(w.Ref)
		sep = " "
	}
	if w.PartitionBy != nil {
		p.ws(sep, "PARTITION BY ")
		p.exprList(w.PartitionBy)
		sep = " "
	}
	if w.OrderBy != nil {
		p.ws(sep, "ORDER BY ")
		p.orderItems(w.OrderBy)
		sep = " "
	}
	if f := w.Frame; f != nil {
		p.WriteString(sep)
		if f.Rows {
			p.WriteString("ROWS ")
		} else {
			p.WriteString("RANGE ")
		}
		if f.End == nil {
			p.frameBound(f.Start)
			return
		}
		p.WriteString("BETWEEN ")
		p.frameBound(f.Start)
		p.WriteString(" AND ")
		p.frameBound(f.End)
	}
}

func (p *printer) frameBound(b *FrameBound) {
	switch b.Kind {
	case UnboundedPreceding:
		p.WriteString("UNBOUNDED PRECEDING")
	case UnboundedFollowing:
		p.WriteString("UNBOUNDED FOLLOWING")
	case CurrentRow:
		p.WriteString("CURRENT ROW")
	case Preceding:
		p.expr(b.Offset)
		p.WriteString(" PRECEDING")
	case Following:
		p.expr(b.Offset)
		p.WriteString(" FOLLOWING")
	}
}

// specialArgs prints the arguments of the functions with keyword syntax:
// POSITION(a IN b), FLOOR(x TO unit), CEIL(x TO unit).
func (p *printer) specialArgs(f *FuncCall) bool {
	if len(f.Name.Parts) != 1 || len(f.Args) != 2 {
		return false
	}
	switch upper(f.Name.Parts[0].Name) {
	case "POSITION":
		p.expr(f.Args[0])
		p.WriteString(" IN ")
		p.expr(f.Args[1])
		return true
	case "FLOOR", "CEIL", "CEILING":
		if u, ok := f.Args[1].(*TimeUnitArg); ok {
			p.expr(f.Args[0])
			p.ws(" TO ", string(u.Unit))
			return true
		}
	}
	return false
}

func (p *printer) jsonCall(n *JSONCall) {
	p.ws(n.Func, "(")
	switch n.Func {
	case "JSON_OBJECT":
		for i := 0; i+1 < len(n.Args); i += 2 {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString("KEY ")
			p.expr(n.Args[i])
			p.WriteString(" VALUE ")
			p.expr(n.Args[i+1])
		}
	default:
		p.exprList(n.Args)
	}
	if n.Returning != nil {
		p.ws(" RETURNING ", n.Returning.Text)
	}
	if n.Wrapper != "" {
		p.ws(" ", n.Wrapper, " WRAPPER")
	}
	for _, on := range []struct {
		c    *JSONOn
		what string
	}{{n.OnEmpty, "EMPTY"}, {n.OnError, "ERROR"}} {
		if on.c == nil {
			continue
		}
		p.ws(" ", on.c.Kind)
		if on.c.Default != nil {
			p.WriteString(" ")
			p.expr(on.c.Default)
		}
		p.ws(" ON ", on.what)
	}
	if n.OnNull != "" {
		if len(n.Args) > 0 {
			p.WriteString(" ")
		}
		p.ws(n.OnNull, " ON NULL")
	}
	p.WriteString(")")
}
