package jobgraph

import (
	"errors"
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func TestMergeStatementSet(t *testing.T) {
	schema := types.NewSchema(types.Field{Name: "k", Type: types.Int})
	in := Input{Table: "c.d.orders", Log: "orders#1", Partitions: 1, Physical: schema, Schema: schema}
	other := Input{Table: "c.d.other", Log: "other#1", Partitions: 1, Physical: schema, Schema: schema}
	agg := func() *Job {
		return &Job{
			Inputs: []Input{in},
			Nodes:  []Node{{UID: "agg/0", Inputs: []Edge{{From: Source(0), Exchange: Hash, Keys: []int{0}}}, Op: &Aggregate{Keys: []int{0}}, Out: schema}},
			Result: 0,
			Sink:   Sink{Kind: LogSink, Table: "c.d.a", Schema: schema},
		}
	}
	pass := &Job{
		Inputs: []Input{other, in},
		Nodes:  []Node{{Inputs: []Edge{{From: Source(0)}, {From: Source(1)}}, Op: &Union{}, Out: schema}},
		Result: 0,
		Sink:   Sink{Kind: LogSink, Table: "c.d.b", Schema: schema},
	}
	m, err := MergeStatementSet([]*Job{agg(), pass, agg()})
	require.NoError(t, err)
	// orders is read once; other is a second input.
	require.Len(t, m.Inputs, 2)
	require.Equal(t, "c.d.orders", m.Inputs[0].Table)
	require.Len(t, m.Nodes, 3)
	require.Equal(t, []string{"agg/0", "", "set2-agg/0"}, []string{m.Nodes[0].UID, m.Nodes[1].UID, m.Nodes[2].UID})
	require.Equal(t, []Edge{{From: Source(1)}, {From: Source(0)}}, m.Nodes[1].Inputs)
	require.Equal(t, Source(0), m.Nodes[2].Inputs[0].From)
	require.Equal(t, []int{0, 1, 2}, m.Results())
	var tables []string
	for _, s := range m.Sinks() {
		tables = append(tables, s.Table)
	}
	require.Equal(t, []string{"c.d.a", "c.d.b", "c.d.a"}, tables)

	// Two calls of process table functions with one uid share no state.
	ptf := func() *Job {
		return &Job{
			Inputs: []Input{in},
			Nodes:  []Node{{UID: "u", Inputs: []Edge{{From: Source(0)}}, Op: &PTF{UID: "u"}, Out: schema}},
			Sink:   Sink{Kind: LogSink, Table: "c.d.a", Schema: schema},
		}
	}
	_, err = MergeStatementSet([]*Job{ptf(), ptf()})
	var dup *DuplicateUIDError
	require.True(t, errors.As(err, &dup))
	require.Equal(t, 1, dup.Second)
}
