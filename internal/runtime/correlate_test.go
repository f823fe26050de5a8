package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// splitFunc is a test table function: it splits its string argument on
// commas, one row (part, length) per part; "boom" panics, "fail" fails.
type splitFunc struct{}

func (splitFunc) Eval(args []types.Value, emit func([]types.Value) error) error {
	if args[0].IsNull() {
		return nil
	}
	switch s := args[0].Str(); s {
	case "boom":
		panic("kaboom")
	case "fail":
		return errors.New("fail requested")
	case "":
		return nil
	default:
		for _, p := range strings.Split(s, ",") {
			if err := emit([]types.Value{types.NewString(p), types.NewInt(int64(len(p)))}); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestCorrelate runs testdata/correlate:
//
//	new split [left]                 the split function over (k BIGINT, s STRING)
//	new unnest [left] [ordinality]   UNNEST(x) over (k BIGINT, x TYPE), the
//	                                 input being TYPE
//	feed   lines "+I k value": values are NULL, integers, words,
//	       [a, b] arrays, {k=v} maps and multisets, (a, b) rows
//	watermark wm=N
func TestCorrelate(t *testing.T) {
	var op *correlateOp
	var in *types.Schema
	out := &collectOut{}
	datadriven.RunTest(t, "testdata/correlate", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "new":
			spec := &jobgraph.Correlate{Left: d.HasArg("left")}
			if d.HasArg("split") {
				in = types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "s", Type: types.String})
				spec.Name, spec.Func = "split", splitFunc{}
				spec.Columns = types.NewSchema(types.Field{Name: "part", Type: types.String}, types.Field{Name: "len", Type: types.BigInt})
			} else {
				xt := types.MustParseType(strings.TrimSpace(d.Input))
				in = types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "x", Type: xt})
				spec.Unnest = &jobgraph.Unnest{Of: xt, Ordinality: d.HasArg("ordinality")}
				spec.Columns = types.NewSchema(types.Field{Name: "e", Type: types.String}) // width only matters
				switch {
				case xt.ID == types.TypeMap:
					spec.Columns = types.NewSchema(types.Field{Name: "k", Type: *xt.Elem}, types.Field{Name: "v", Type: *xt.Val})
				case xt.ID == types.TypeArray && xt.Elem.ID == types.TypeRow:
					spec.Columns = types.NewSchema(xt.Elem.Fields...)
				}
				if spec.Unnest.Ordinality {
					spec.Columns = types.NewSchema(append(spec.Columns.Fields, types.Field{Name: "ord", Type: types.Int})...)
				}
			}
			x, err := expr.Col(1, in.Fields[1].Name, in.Fields[1].Type)
			require.NoError(t, err)
			spec.Args = []expr.Expr{x}
			op, err = newCorrelateOp(spec, out)
			require.NoError(t, err)
			return "ok"
		case "feed":
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				kind, rest, _ := strings.Cut(line, " ")
				k, val, _ := strings.Cut(rest, " ")
				n, err := strconv.ParseInt(k, 10, 64)
				require.NoError(t, err)
				p := &corrValueParser{s: val}
				v := p.value()
				row := types.Row{Kind: joinRowKinds[kind], Values: []types.Value{types.NewInt(n), v}}
				if err := op.Process(0, row); err != nil {
					return out.take() + "error: " + err.Error() + "\n"
				}
			}
			return out.take()
		case "watermark":
			var wm int64
			d.ScanArgs(t, "wm", &wm)
			require.NoError(t, op.Watermark(0, wm))
			s := fmt.Sprint(out.wms)
			out.wms = nil
			return s
		}
		t.Fatalf("unknown command %q", d.Cmd)
		return ""
	})
}

// corrValueParser parses the values of the correlate tests.
type corrValueParser struct{ s string }

func (p *corrValueParser) skip() { p.s = strings.TrimLeft(p.s, " ") }

func (p *corrValueParser) value() types.Value {
	p.skip()
	switch {
	case strings.HasPrefix(p.s, "["):
		p.s = p.s[1:]
		elems := []types.Value{}
		for p.skip(); !strings.HasPrefix(p.s, "]"); p.skip() {
			elems = append(elems, p.value())
			p.skip()
			p.s = strings.TrimPrefix(p.s, ",")
		}
		p.s = p.s[1:]
		return types.NewArray(elems)
	case strings.HasPrefix(p.s, "("):
		p.s = p.s[1:]
		var fields []types.Value
		for p.skip(); !strings.HasPrefix(p.s, ")"); p.skip() {
			fields = append(fields, p.value())
			p.skip()
			p.s = strings.TrimPrefix(p.s, ",")
		}
		p.s = p.s[1:]
		return types.NewRow(fields)
	case strings.HasPrefix(p.s, "{"):
		p.s = p.s[1:]
		entries := []types.MapEntry{}
		for p.skip(); !strings.HasPrefix(p.s, "}"); p.skip() {
			k := p.value()
			p.s = strings.TrimPrefix(p.s, "=")
			entries = append(entries, types.MapEntry{Key: k, Val: p.value()})
			p.skip()
			p.s = strings.TrimPrefix(p.s, ",")
		}
		p.s = p.s[1:]
		return types.NewMap(entries)
	}
	i := strings.IndexAny(p.s, ",]}=) ")
	if i < 0 {
		i = len(p.s)
	}
	w := p.s[:i]
	p.s = p.s[i:]
	if w == "NULL" {
		return types.Null
	}
	if n, err := strconv.ParseInt(w, 10, 64); err == nil {
		return types.NewInt(n)
	}
	return types.NewString(w)
}
