package ast

// Visitor is called by Walk for each node. If Visit returns a non-nil
// visitor w, Walk visits the children of node with w and then calls
// w.Visit(nil).
type Visitor interface {
	Visit(node Node) (w Visitor)
}

// Walk traverses the tree rooted at node depth-first, in source order,
// like go/ast.Walk. Absent optional children (nil pointers) are skipped.
func Walk(v Visitor, node Node) {
	if v = v.Visit(node); v == nil {
		return
	}
	walkChildren(v, node)
	v.Visit(nil)
}

type inspector func(Node) bool

// Visit implements Visitor.
func (f inspector) Visit(node Node) Visitor {
	if f(node) {
		return f
	}
	return nil
}

// Inspect traverses the tree rooted at node in source order, calling f for
// each node; if f returns true, Inspect visits the node's children and then
// calls f(nil).
func Inspect(node Node, f func(Node) bool) { Walk(inspector(f), node) }

// walk visits n when it is non-nil. It accepts interfaces holding nil
// pointers, which are skipped too.
func walk(v Visitor, n Node) {
	if n == nil || isNilNode(n) {
		return
	}
	Walk(v, n)
}

func walkList[N Node](v Visitor, list []N) {
	for _, n := range list {
		walk(v, n)
	}
}

func isNilNode(n Node) bool {
	switch x := n.(type) {
	case *Ident:
		return x == nil
	case *ObjectName:
		return x == nil
	case *StringLit:
		return x == nil
	case *TypeName:
		return x == nil
	case *Alias:
		return x == nil
	case *PrimaryKey:
		return x == nil
	case *Watermark:
		return x == nil
	case *Distribution:
		return x == nil
	case *WindowSpec:
		return x == nil
	case *WindowFrame:
		return x == nil
	case *FrameBound:
		return x == nil
	}
	return false
}

func walkChildren(v Visitor, node Node) {
	switch n := node.(type) {
	// Names and leaves.
	case *Ident, *StringLit, *TypeName, *NumericLit, *BoolLit, *NullLit,
		*TypedLit, *IntervalLit, *Default, *Show, *TimeUnitArg:
	case *ObjectName:
		walkList(v, n.Parts)
	case *Option:
		walk(v, n.Key)
		walk(v, n.Value)

	// DDL.
	case *CreateTable:
		walk(v, n.Name)
		walkList(v, n.Columns)
		walk(v, n.PrimaryKey)
		walk(v, n.Watermark)
		walk(v, n.Comment)
		walk(v, n.Distribution)
		walkList(v, n.PartitionedBy)
		walkList(v, n.Options)
		walk(v, n.Query)
	case *ColumnDef:
		walk(v, n.Name)
		walk(v, n.Type)
		walk(v, n.Expr)
		walk(v, n.MetadataKey)
		walk(v, n.Comment)
	case *PrimaryKey:
		walk(v, n.Name)
		walkList(v, n.Columns)
	case *Watermark:
		walk(v, n.Column)
		walk(v, n.Expr)
	case *Distribution:
		walkList(v, n.Columns)
	case *DropTable:
		walk(v, n.Name)
	case *CreateFunction:
		walk(v, n.Name)
		walk(v, n.Identifier)
		walkList(v, n.Resources)
	case *Resource:
		walk(v, n.Path)
	case *DropFunction:
		walk(v, n.Name)
	case *CreateCatalog:
		walk(v, n.Name)
		walk(v, n.Comment)
		walkList(v, n.Options)
	case *DropCatalog:
		walk(v, n.Name)
	case *CreateDatabase:
		walk(v, n.Name)
		walk(v, n.Comment)
		walkList(v, n.Options)
	case *DropDatabase:
		walk(v, n.Name)

	// Other statements.
	case *Insert:
		walk(v, n.Table)
		walkList(v, n.Partition)
		walkList(v, n.Columns)
		walk(v, n.Query)
	case *StatementSet:
		walkList(v, n.Inserts)
	case *AlterTable:
		walk(v, n.Name)
		walkList(v, n.Set)
		walkList(v, n.Reset)
		if n.Add != nil {
			walkList(v, n.Add.Columns)
		}
		if n.Modify != nil {
			walkList(v, n.Modify.Columns)
		}
		walkList(v, n.Drop)
		walk(v, n.RenameColumn)
		walk(v, n.RenameColumnTo)
		walk(v, n.RenameTo)
	case *PartitionValue:
		walk(v, n.Name)
		walk(v, n.Value)
	case *Set:
		walk(v, n.Key)
		walk(v, n.Value)
	case *Reset:
		walk(v, n.Key)
	case *UseCatalog:
		walk(v, n.Name)
	case *UseDatabase:
		walk(v, n.Name)
	case *ShowCreateTable:
		walk(v, n.Name)
	case *Describe:
		walk(v, n.Name)
	case *DescribeFunction:
		walk(v, n.Name)
	case *Explain:
		walk(v, n.Statement)
	case *AddJar:
		walk(v, n.Path)

	// Queries and sources.
	case *Select:
		walkList(v, n.Items)
		walk(v, n.From)
		walk(v, n.Where)
		walkList(v, n.GroupBy)
		walk(v, n.Having)
		walkList(v, n.OrderBy)
		walk(v, n.Limit)
		walk(v, n.Offset)
		walkList(v, n.Windows)
		walk(v, n.Qualify)
	case *SelectItem:
		walk(v, n.Expr)
		walk(v, n.Alias)
	case *Star:
		walk(v, n.Qualifier)
	case *Values:
		walkList(v, n.Rows)
	case *With:
		for _, c := range n.CTEs {
			walk(v, c.Name)
			walkList(v, c.Columns)
			walk(v, c.Query)
		}
		walk(v, n.Body)
	case *CreateView:
		walk(v, n.Name)
		walkList(v, n.Columns)
		walk(v, n.Comment)
		walk(v, n.Query)
	case *DropView:
		walk(v, n.Name)
	case *SetOp:
		walk(v, n.Left)
		walk(v, n.Right)
		walkList(v, n.OrderBy)
		walk(v, n.Limit)
	case *OrderItem:
		walk(v, n.Expr)
	case *Alias:
		walk(v, n.Name)
		walkList(v, n.Columns)
	case *TableName:
		walk(v, n.Name)
		walk(v, n.AsOf)
		walk(v, n.Alias)
	case *Subquery:
		walk(v, n.Query)
		walk(v, n.Alias)
	case *TableFunc:
		walk(v, n.Name)
		walkList(v, n.Args)
		walk(v, n.Alias)
	case *Unnest:
		walkList(v, n.Args)
		walk(v, n.Alias)
	case *Join:
		walk(v, n.Left)
		walk(v, n.Right)
		walk(v, n.On)
	case *Arg:
		walk(v, n.Name)
		walk(v, n.Value)
	case *TableArg:
		walk(v, n.Name)
		walk(v, n.Query)
		walkList(v, n.PartitionBy)
		walkList(v, n.OrderBy)
	case *Descriptor:
		walkList(v, n.Columns)

	// Expressions.
	case *ColumnRef:
		walkList(v, n.Parts)
	case *Unary:
		walk(v, n.X)
	case *Binary:
		walk(v, n.X)
		walk(v, n.Y)
	case *Is:
		walk(v, n.X)
	case *Between:
		walk(v, n.X)
		walk(v, n.Lo)
		walk(v, n.Hi)
	case *In:
		walk(v, n.X)
		walkList(v, n.List)
		walk(v, n.Query)
	case *Exists:
		walk(v, n.Query)
	case *Grouping:
		for _, set := range n.Sets {
			walkList(v, set)
		}
	case *ScalarSubquery:
		walk(v, n.Query)
	case *Like:
		walk(v, n.X)
		walk(v, n.Pattern)
		walk(v, n.Escape)
	case *Cast:
		walk(v, n.X)
		walk(v, n.Type)
	case *Case:
		walk(v, n.Operand)
		walkList(v, n.Whens)
		walk(v, n.Else)
	case *When:
		walk(v, n.Cond)
		walk(v, n.Result)
	case *FuncCall:
		walk(v, n.Name)
		walkList(v, n.Args)
		walk(v, n.Filter)
		walk(v, n.Over)
	case *WindowSpec:
		walk(v, n.Ref)
		walkList(v, n.PartitionBy)
		walkList(v, n.OrderBy)
		walk(v, n.Frame)
	case *WindowFrame:
		walk(v, n.Start)
		walk(v, n.End)
	case *FrameBound:
		walk(v, n.Offset)
	case *NamedWindow:
		walk(v, n.Name)
		walk(v, n.Spec)
	case *Extract:
		walk(v, n.X)
	case *JSONCall:
		walkList(v, n.Args)
		walk(v, n.Returning)
		for _, on := range []*JSONOn{n.OnEmpty, n.OnError} {
			if on != nil && on.Default != nil {
				walk(v, on.Default)
			}
		}
	case *RowExpr:
		walkList(v, n.Values)
	case *ArrayExpr:
		walkList(v, n.Elems)
	case *MapExpr:
		walkList(v, n.Elems)
	case *Subscript:
		walk(v, n.X)
		walk(v, n.Index)
	}
}
