package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// fakeEngine is an Engine that knows a few canned statements:
//
//	SET 'k' = 'v' / SET                   session configuration
//	CREATE TABLE ...                      accepted, does nothing
//	SHOW TABLES                           static: clicks, empty, order_status
//	SHOW DATADIR                          static: the data directory
//	SELECT * FROM order_status            the upsert tutorial's changelog, keyed by order_id
//	SELECT * FROM clicks                  a retract stream without key
//	SELECT * FROM empty                   no rows
//	SELECT * FROM broken                  one row, then a runtime error
//	SELECT * FROM endless                 one row, then blocks until cancelled
//	SELECT * FROM <other>                 UNKNOWN_TABLE at the name's position
//	anything else                         SYNTAX_ERROR without position
//
// It appends every statement to fake.log in the data directory, prefixed
// with "script:" or "interactive:".
type fakeEngine struct {
	dir string
	cfg map[string]string
	log *os.File
	// started is closed when an endless stream has sent its row, if set.
	started chan struct{}
}

func openFake(_ context.Context, dir string) (Engine, error) {
	e := &fakeEngine{dir: dir, cfg: map[string]string{}}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, "fake.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		e.log = f
	}
	return e, nil
}

var (
	setRE    = regexp.MustCompile(`(?is)^SET\s+'([^']*)'\s*=\s*'([^']*)'$`)
	selectRE = regexp.MustCompile(`(?is)^SELECT\s+\*\s+FROM\s+(\w+)$`)
)

func (e *fakeEngine) Execute(ctx context.Context, sql string, interactive bool) (*Result, error) {
	if e.log != nil {
		kind := "script"
		if interactive {
			kind = "interactive"
		}
		fmt.Fprintf(e.log, "%s: %s\n", kind, strings.Join(strings.Fields(sql), " "))
	}
	upper := strings.ToUpper(strings.Join(strings.Fields(sql), " "))
	switch {
	case setRE.MatchString(sql):
		m := setRE.FindStringSubmatch(sql)
		e.cfg[m[1]] = m[2]
		return &Result{Message: "Execute statement succeeded."}, nil
	case upper == "SET":
		return e.showConfig(), nil
	case strings.HasPrefix(upper, "CREATE TABLE "):
		return &Result{Message: "Execute statement succeeded."}, nil
	case upper == "SHOW TABLES":
		return staticResult("table name", "clicks", "empty", "order_status"), nil
	case upper == "SHOW DATADIR":
		return staticResult("data dir", e.dir), nil
	case selectRE.MatchString(sql):
		m := selectRE.FindStringSubmatchIndex(sql)
		return e.query(sql[m[2]:m[3]], posAt(sql, m[2]))
	}
	return nil, sqlerr.Newf(sqlerr.Syntax, "Unsupported statement.")
}

func (e *fakeEngine) query(table string, at sqlerr.Pos) (*Result, error) {
	switch strings.ToLower(table) {
	case "order_status":
		return &Result{Rows: sliceStream(orderSchema, []int{0}, orderChanges)}, nil
	case "clicks":
		return &Result{Rows: sliceStream(orderSchema, nil, []types.Row{
			order(types.Insert, 1, "home"),
			order(types.Insert, 2, "cart"),
			order(types.Insert, 1, "home"),
			order(types.UpdateBefore, 1, "home"),
			order(types.UpdateAfter, 1, "checkout"),
			order(types.Delete, 2, "cart"),
		})}, nil
	case "empty":
		return &Result{Rows: sliceStream(orderSchema, nil, nil)}, nil
	case "broken":
		rs := sliceStream(orderSchema, nil, orderChanges[:1])
		next := rs.Next
		rs.Next = func(ctx context.Context) (types.Row, bool, error) {
			r, ok, err := next(ctx)
			if !ok && err == nil {
				err = sqlerr.Newf(sqlerr.Runtime, "Function Boom failed: kaput.").WithHint("See the statement's exceptions.")
			}
			return r, ok, err
		}
		return &Result{Rows: rs}, nil
	case "endless":
		return &Result{Rows: e.endless()}, nil
	}
	return nil, sqlerr.Newf(sqlerr.UnknownTable, "Table '%s' not found.", table).
		At(at).WithHint("Run SHOW TABLES; to list the tables.")
}

// endless returns a stream with one row that then blocks until ctx is done.
func (e *fakeEngine) endless() *RowStream {
	sent := false
	return &RowStream{
		Schema: orderSchema,
		Key:    []int{0},
		Next: func(ctx context.Context) (types.Row, bool, error) {
			if !sent {
				sent = true
				return order(types.Insert, 1, "first"), true, nil
			}
			if e.started != nil {
				close(e.started)
				e.started = nil
			}
			<-ctx.Done()
			return types.Row{}, false, ctx.Err()
		},
	}
}

func (e *fakeEngine) showConfig() *Result {
	keys := make([]string, 0, len(e.cfg))
	for k := range e.cfg {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rows := make([]types.Row, len(keys))
	for i, k := range keys {
		rows[i] = types.Row{Values: []types.Value{types.NewString(k), types.NewString(e.cfg[k])}}
	}
	s := types.NewSchema(types.Field{Name: "key", Type: types.String}, types.Field{Name: "value", Type: types.String})
	rs := sliceStream(s, nil, rows)
	rs.Static = true
	return &Result{Rows: rs}
}

func staticResult(column string, values ...string) *Result {
	rows := make([]types.Row, len(values))
	for i, v := range values {
		rows[i] = strRow(v)
	}
	rs := sliceStream(types.NewSchema(types.Field{Name: column, Type: types.String}), nil, rows)
	rs.Static = true
	return &Result{Rows: rs}
}

// posAt returns the 1-based position of byte offset off in s.
func posAt(s string, off int) sqlerr.Pos {
	before := s[:off]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndex(before, "\n")+1:]) + 1
	return sqlerr.Pos{Line: line, Col: col}
}

func (e *fakeEngine) Config() map[string]string { return e.cfg }

func (e *fakeEngine) Close() error {
	if e.log != nil {
		return e.log.Close()
	}
	return nil
}
