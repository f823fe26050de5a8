package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Window table-valued functions in FROM (reference §4, decision 0025):
// TUMBLE, HOP, CUMULATE and SESSION over a table argument, positional or
// with named arguments, with or without the TABLE(...) wrapper. The call
// becomes a WindowTVF node; window aggregation, window joins and the
// legacy group windows read the window columns it appends.

// WindowTVF is a window table-valued function: the input columns, then
// window_start, window_end and window_time (the new time attribute; the
// input's time column becomes a plain timestamp).
type WindowTVF struct {
	In     Rel
	Window jobgraph.Window
	// UID names the state of a SESSION TVF (window/N); "" for the
	// stateless ones.
	UID  string
	Cols []Column
	Pos  sqlerr.Pos
}

// Inputs implements Rel.
func (n *WindowTVF) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *WindowTVF) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *WindowTVF) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// windowKinds maps the window TVF names to their kinds.
var windowKinds = map[string]jobgraph.WindowKind{
	"TUMBLE": jobgraph.Tumble, "HOP": jobgraph.Hop, "CUMULATE": jobgraph.Cumulate, "SESSION": jobgraph.Session,
}

// windowParams are the parameters of each window TVF, in positional
// order (Flink's SqlWindowTableFunction operand names).
var windowParams = map[jobgraph.WindowKind][]string{
	jobgraph.Tumble:   {"DATA", "TIMECOL", "SIZE", "OFFSET"},
	jobgraph.Hop:      {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"},
	jobgraph.Cumulate: {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"},
	jobgraph.Session:  {"DATA", "TIMECOL", "GAP"},
}

// windowSignatures are Flink's signatures of the window TVFs (messages).
var windowSignatures = map[jobgraph.WindowKind]string{
	jobgraph.Tumble:   "TUMBLE(TABLE table_name, DESCRIPTOR(timecol), datetime interval[, datetime interval])",
	jobgraph.Hop:      "HOP(TABLE table_name, DESCRIPTOR(timecol), datetime interval, datetime interval[, datetime interval])",
	jobgraph.Cumulate: "CUMULATE(TABLE table_name, DESCRIPTOR(timecol), datetime interval, datetime interval[, datetime interval])",
	jobgraph.Session:  "SESSION(TABLE table_name [PARTITION BY (key, ...)], DESCRIPTOR(timecol), datetime interval)",
}

// windowTVFKind reports whether a FROM function call is a window TVF.
func windowTVFKind(tf *ast.TableFunc) (jobgraph.WindowKind, bool) {
	if len(tf.Name.Parts) != 1 {
		return 0, false
	}
	k, ok := windowKinds[strings.ToUpper(tf.Name.Last().Name)]
	return k, ok
}

// windowUID numbers the stateful window operators in binding order.
func (st *stmt) windowUID() string {
	st.windows++
	return fmt.Sprintf("window/%d", st.windows-1)
}

// sessionTimeZone returns 'table.local-time-zone' ("UTC" by default).
func (p *Planner) sessionTimeZone() string {
	if p.Session != nil {
		if z := p.Session.Config[LocalTimeZoneKey]; z != "" && !strings.EqualFold(z, "default") { // 'default' is UTC (ParseLocalTimeZone)
			return z
		}
	}
	return "UTC"
}

// planWindowTVF binds a window TVF call in FROM.
func (p *Planner) planWindowTVF(tf *ast.TableFunc, kind jobgraph.WindowKind, st *stmt) (*frag, error) {
	name := strings.ToUpper(tf.Name.Last().Name)
	sig := windowSignatures[kind]
	params := windowParams[kind]
	args := map[string]*ast.Arg{}
	named := false
	for i, a := range tf.Args {
		var pname string
		if a.Name != nil {
			named = true
			pname = strings.ToUpper(a.Name.Name)
			if !containsFold(params, pname) {
				return nil, errAt(a.Pos(), sqlerr.InvalidArgument, "%s has no parameter named '%s'", name, a.Name.Name).
					WithHint("the parameters of %s are %s", name, strings.Join(params, ", "))
			}
		} else {
			if named {
				return nil, errAt(a.Pos(), sqlerr.InvalidArgument, "A positional argument cannot follow a named argument in a call of %s", name)
			}
			if i >= len(params) {
				return nil, errAt(a.Pos(), sqlerr.InvalidArgument, "Invalid number of arguments to function '%s'. Was expecting %s", name, sig)
			}
			pname = params[i]
		}
		if _, dup := args[pname]; dup {
			return nil, errAt(a.Pos(), sqlerr.InvalidArgument, "The argument %s of %s is given twice", pname, name)
		}
		args[pname] = a
	}
	required := []string{"DATA", "TIMECOL"}
	switch kind {
	case jobgraph.Tumble:
		required = append(required, "SIZE")
	case jobgraph.Hop:
		required = append(required, "SLIDE", "SIZE")
	case jobgraph.Cumulate:
		required = append(required, "STEP", "SIZE")
	case jobgraph.Session:
		required = append(required, "GAP")
	}
	for _, r := range required {
		if args[r] == nil {
			return nil, errAt(tf.Name.Pos(), sqlerr.InvalidArgument, "Invalid number of arguments to function '%s'. Was expecting %s", name, sig).
				WithHint("the argument %s is missing", r)
		}
	}

	// DATA: the table argument.
	ta, ok := args["DATA"].Value.(*ast.TableArg)
	if !ok {
		return nil, errAt(args["DATA"].Value.Pos(), sqlerr.InvalidArgument, "The first argument of %s must be a table: TABLE t or (SELECT ...). Was expecting %s", name, sig)
	}
	if len(ta.OrderBy) > 0 {
		return nil, errAt(ta.OrderBy[0].Pos(), sqlerr.InvalidArgument, "The table argument of %s takes no ORDER BY", name)
	}
	if len(ta.PartitionBy) > 0 && kind != jobgraph.Session {
		return nil, errAt(ta.PartitionBy[0].Pos(), sqlerr.InvalidArgument, "Only the SESSION window function takes PARTITION BY; %s partitions nothing", name)
	}
	var f *frag
	var err error
	if ta.Name != nil {
		f, err = p.planFrom(&ast.TableName{Name: ta.Name}, st)
	} else {
		f, err = p.planQuery(ta.Query, st)
	}
	if err != nil {
		return nil, err
	}
	if cl := f.changelog(); cl.Mode != jobgraph.Append {
		return nil, errAt(ta.Pos(), sqlerr.ChangelogMismatch, "StreamPhysicalWindowTableFunction doesn't support consuming update and delete changes which is produced by the table argument of %s (%s)", name, cl.Mode).
			WithHint("window an insert-only table: window TVFs need append-only input")
	}
	cols := f.rel.Columns()
	w := jobgraph.Window{Kind: kind}

	// TIMECOL: DESCRIPTOR(col), a time attribute.
	d, ok := args["TIMECOL"].Value.(*ast.Descriptor)
	if !ok || len(d.Columns) != 1 {
		return nil, errAt(args["TIMECOL"].Value.Pos(), sqlerr.InvalidArgument, "The second argument of %s must be a DESCRIPTOR of one time column, e.g. DESCRIPTOR(ts). Was expecting %s", name, sig)
	}
	tc, err := resolveName(f.sc, d.Columns[0])
	if err != nil {
		return nil, err
	}
	tcol := cols[tc]
	if tcol.Time == NotTime {
		return nil, errAt(d.Columns[0].Pos(), sqlerr.InvalidArgument, "The window function %s requires the timecol is a time attribute type, but is %s.", sig, tcol.Type).
			WithHint("window on a TIMESTAMP(3) or TIMESTAMP_LTZ(3) column with a WATERMARK, or on a PROCTIME() column")
	}
	w.TimeColumn = tc
	if tcol.Time == ProcTime {
		w.TimeColumn = -1
	}
	if tcol.Time == ProcTime || tcol.Type.ID == types.TypeTimestampLTZ {
		w.TimeZone = p.sessionTimeZone()
	}

	// PARTITION BY of SESSION.
	for _, k := range ta.PartitionBy {
		i, err := resolveName(f.sc, k)
		if err != nil {
			return nil, err
		}
		w.PartitionKeys = append(w.PartitionKeys, i)
	}

	// The intervals.
	dur := func(param string, positive bool) (int64, error) {
		if a := args[param]; a != nil {
			return windowInterval(a.Value, param, name, sig, positive)
		}
		return 0, nil
	}
	if w.Size, err = dur("SIZE", true); err != nil {
		return nil, err
	}
	if w.Slide, err = dur("SLIDE", true); err != nil {
		return nil, err
	}
	if w.Step, err = dur("STEP", true); err != nil {
		return nil, err
	}
	if w.Gap, err = dur("GAP", true); err != nil {
		return nil, err
	}
	if w.Offset, err = dur("OFFSET", false); err != nil {
		return nil, err
	}
	ms := func(n int64) int64 { return n / int64(time.Millisecond) }
	switch kind {
	case jobgraph.Hop:
		if w.Size%w.Slide != 0 {
			return nil, errAt(args["SIZE"].Value.Pos(), sqlerr.InvalidArgument, "Slicing Hopping Window requires size must be an integral multiple of slide, but got size %dms and slide %dms.", ms(w.Size), ms(w.Slide))
		}
	case jobgraph.Cumulate:
		if w.Size%w.Step != 0 {
			return nil, errAt(args["SIZE"].Value.Pos(), sqlerr.InvalidArgument, "Cumulative Window requires maxSize must be an integral multiple of step, but got maxSize %dms and step %dms.", ms(w.Size), ms(w.Step))
		}
	}

	n := &WindowTVF{In: f.rel, Window: w, Pos: tf.Pos()}
	if kind == jobgraph.Session {
		n.UID = st.windowUID()
	}
	n.Cols = make([]Column, 0, len(cols)+3)
	for i, c := range cols {
		if i == tc {
			c.Time = NotTime
		}
		n.Cols = append(n.Cols, c)
	}
	sc := &scope{cols: append([]column(nil), f.sc.cols...)}
	qual := tf.Name.Last().Name
	for i, fl := range jobgraph.WindowColumns(tcol.Type) {
		c := Column{Name: fl.Name, Type: fl.Type}
		if i == 2 {
			c.Time = tcol.Time
		}
		n.Cols = append(n.Cols, c)
		sc.cols = append(sc.cols, column{qualifier: qual, name: fl.Name, typ: fl.Type})
	}
	for i := range sc.cols {
		sc.cols[i].qualifier = qual
	}
	return &frag{st: st, rel: n, sc: sc}, nil
}

// resolveName resolves a bare column name (DESCRIPTOR, PARTITION BY).
func resolveName(sc *scope, id *ast.Ident) (int, error) {
	i, err := sc.resolve(&ast.ColumnRef{Parts: []*ast.Ident{id}})
	if err != nil {
		return 0, positioned(err, id.Pos(), sqlerr.UnknownColumn)
	}
	return i, nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// windowInterval binds a size, slide, step, gap or offset of a window: a
// constant day-time interval of whole milliseconds (positive unless it is
// an offset); it returns nanoseconds.
func windowInterval(e ast.Expr, param, name, sig string, positive bool) (int64, error) {
	x, err := bindExpr(e, &scope{})
	if err != nil {
		return 0, err
	}
	if x.Type().ID != types.TypeIntervalDayTime {
		return 0, errAt(e.Pos(), sqlerr.TypeMismatch, "The %s of %s must be a day-time interval such as INTERVAL '10' SECOND, but %s has type %s. Was expecting %s", param, name, ast.Format(e), x.Type(), sig)
	}
	v, err := x.Eval(nil)
	if err != nil || v.IsNull() {
		return 0, errAt(e.Pos(), sqlerr.InvalidArgument, "The %s of %s must be a constant interval", param, name)
	}
	n := v.Int()
	if positive && n <= 0 {
		return 0, errAt(e.Pos(), sqlerr.InvalidArgument, "The %s of %s must be positive, but is %s", param, name, ast.Format(e))
	}
	if n%int64(time.Millisecond) != 0 {
		return 0, errAt(e.Pos(), sqlerr.InvalidArgument, "The %s of %s must be a whole number of milliseconds, but is %s", param, name, ast.Format(e))
	}
	return n, nil
}
