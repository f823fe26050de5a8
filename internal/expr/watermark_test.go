package expr

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestCurrentWatermark: an unbound CURRENT_WATERMARK is NULL; each bound
// copy reads its own cell, also below a function whose rendering is
// opaque to the rewriter; the optimizer sees it as opaque.
func TestCurrentWatermark(t *testing.T) {
	must := func(e Expr, err error) Expr {
		t.Helper()
		require.NoError(t, err)
		return e
	}
	ts := mustCol(t, 0, "ts", types.Timestamp(3))
	wm := CurrentWatermark(types.Timestamp(3).NonNull(), "ts")
	require.False(t, wm.Type().NotNull, "nullable")
	late := must(Binary("<=", ts, wm))
	text := must(Call("DATE_FORMAT", wm, mustLit(t, types.NewString("HH:mm:ss"), types.String.NonNull())))
	require.True(t, HasWatermark(late))
	require.True(t, HasWatermark(text))
	require.False(t, HasWatermark(ts))
	_, known := Columns(late)
	require.False(t, known, "opaque to the rewriter")
	require.False(t, IsDeterministic(late))

	row := []types.Value{types.NewTimestamp(5e9)}
	v, err := late.Eval(row)
	require.NoError(t, err)
	require.True(t, v.IsNull(), "no watermark yet")

	a, b := &WatermarkCell{WM: MinWatermark}, &WatermarkCell{WM: MinWatermark}
	la, lb := BindWatermark(late, a), BindWatermark(late, b)
	ta := BindWatermark(text, a)
	require.Equal(t, late.String(), la.String())
	a.WM = 6e9
	v, err = la.Eval(row)
	require.NoError(t, err)
	require.True(t, v.Bool(), "5 s <= 6 s")
	v, err = lb.Eval(row)
	require.NoError(t, err)
	require.True(t, v.IsNull(), "b has no watermark")
	v, err = ta.Eval(row)
	require.NoError(t, err)
	require.Equal(t, "00:00:06", v.String())
	b.WM = 4e9
	v, err = lb.Eval(row)
	require.NoError(t, err)
	require.False(t, v.Bool())
	v, err = late.Eval(row)
	require.NoError(t, err)
	require.True(t, v.IsNull(), "the original stays unbound")
	require.Nil(t, BindWatermark(nil, a))
	require.Same(t, ts, BindWatermark(ts, a))
}
