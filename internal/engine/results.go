package engine

import (
	"context"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/types"
)

// staticResult returns a bounded, static result (SHOW, DESCRIBE, EXPLAIN).
func staticResult(schema *types.Schema, rows [][]types.Value) *cli.Result {
	i := 0
	return &cli.Result{Rows: &cli.RowStream{
		Schema: schema,
		Static: true,
		Next: func(context.Context) (types.Row, bool, error) {
			if i >= len(rows) {
				return types.Row{}, false, nil
			}
			i++
			return types.Row{Kind: types.Insert, Values: rows[i-1]}, true, nil
		},
		Close: func() {},
	}}
}

// jobResult streams the rows of a job with a collect sink.
func jobResult(job *runtime.Job, schema *types.Schema, key []int, limit int) *cli.Result {
	n := 0
	return &cli.Result{Rows: &cli.RowStream{
		Schema: schema,
		Key:    key,
		Next: func(ctx context.Context) (types.Row, bool, error) {
			if limit > 0 && n >= limit {
				job.Cancel()
				return types.Row{}, false, nil
			}
			select {
			case r, ok := <-job.Results():
				if !ok {
					return types.Row{}, false, job.Wait()
				}
				n++
				return r, true, nil
			case <-ctx.Done():
				return types.Row{}, false, ctx.Err()
			}
		},
		Close: func() {
			job.Cancel()
			_ = job.Wait()
		},
	}}
}

func stringSchema(names ...string) *types.Schema {
	fields := make([]types.Field, len(names))
	for i, n := range names {
		fields[i] = types.Field{Name: n, Type: types.String}
	}
	return types.NewSchema(fields...)
}

func stringRows(vals [][]string) [][]types.Value {
	out := make([][]types.Value, len(vals))
	for i, r := range vals {
		for _, v := range r {
			if v == "" {
				out[i] = append(out[i], types.Null)
				continue
			}
			out[i] = append(out[i], types.NewString(v))
		}
	}
	return out
}
