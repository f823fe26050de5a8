package ptfhost_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/ptfhost"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func clicks() ptfhost.Call {
	return ptfhost.Call{
		Name: "PassThroughEnrich", Def: examples.PassThroughEnrich, Required: ptf.Retract(),
		Tables: []ptfhost.TableSpec{{Arg: "input", PartitionBy: []string{"user_id"},
			Schema: types.NewSchema(types.Field{Name: "user_id", Type: types.Int}, types.Field{Name: "url", Type: types.String})}},
	}
}

// A host keeps its callbacks across a restore, and the state comes back.
func TestRestoreKeepsCallbacksAndState(t *testing.T) {
	h, err := ptfhost.New(clicks(), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	var out []string
	h.Emit = func(r types.Row) error { out = append(out, r.Values[2].String()); return nil }
	require.Equal(t, 1, h.TableCount())
	d, ok := h.Delivered(0)
	require.True(t, ok)
	require.True(t, d.Contains(types.Insert))
	require.False(t, d.Contains(types.Delete))
	row := types.Row{Kind: types.Insert, Values: []types.Value{types.NewInt(1), types.NewString("/a")}}
	require.NoError(t, h.Process(0, row))
	snap, err := h.Snapshot()
	require.NoError(t, err)
	require.NoError(t, h.Process(0, row))
	require.NoError(t, h.Restore(snap))
	require.NoError(t, h.Process(0, row))
	require.Equal(t, []string{"1", "2", "2"}, out)
}

// Planning errors are SQL's.
func TestPlanningErrors(t *testing.T) {
	c := clicks()
	c.Tables[0].PartitionBy = nil
	_, err := ptfhost.New(c, time.Time{})
	require.ErrorContains(t, err, "requires a PARTITION BY clause")
}
