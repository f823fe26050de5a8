package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
)

// TestTimeOperatorsInAJob runs the deduplication and the temporal sorts as
// nodes of a job, end to end from a source with a watermark to a collect
// sink, and checks that the late rows they drop reach the job's metrics.
func TestTimeOperatorsInAJob(t *testing.T) {
	for _, c := range []struct {
		name string
		op   any
		want []string
		late int64
	}{
		// Keep the first row per k by ts: 2@3 is late (the watermark is 20
		// when it arrives); 1@12 loses to 1@10.
		{"dedup", &jobgraph.Deduplicate{Keys: []int{0}, TimeColumn: 1}, []string{"1@10:a", "2@15:c", "3@30:f"}, 1},
		// ORDER BY ts: 2@3 is late; the rest comes out in time order.
		{"sort", &jobgraph.TemporalSort{TimeColumn: 1}, []string{"1@10:a", "1@12:b", "2@15:c", "1@20:d", "3@30:f"}, 1},
		// ORDER BY PROCTIME(), v DESC: the clock does not move, so every
		// row is in one millisecond, emitted when the bounded input ends
		// (the subtask's last processing-time callback).
		{"proctime-sort", &jobgraph.TemporalSort{ProcTime: true, OrderBy: []jobgraph.SortKey{{Col: 2, Desc: true}}},
			[]string{"3@30:f", "2@3:e", "1@20:d", "2@15:c", "1@12:b", "1@10:a"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic := newFakeTopic("events", 1)
			for _, r := range []struct {
				ts, k int64
				v     string
			}{{10, 1, "a"}, {12, 1, "b"}, {15, 2, "c"}, {20, 1, "d"}, {3, 2, "e"}, {30, 3, "f"}} {
				topic.add(0, r.ts, r.k, r.v)
			}
			in := withWatermark(fakeInput(&fakeSource{topic: topic}))
			g := &jobgraph.Job{Inputs: []jobgraph.Input{in},
				Nodes:  []jobgraph.Node{{UID: c.name, Inputs: []jobgraph.Edge{{From: jobgraph.Source(0)}}, Op: c.op, Out: fakeSchema}},
				Result: 0, Sink: jobgraph.Sink{Kind: jobgraph.CollectSink}}
			j := startJob(t, env, g, Options{ID: c.name, Bounded: true})
			var got []string
			for _, r := range fakeRows(drain(t, j)) {
				got = append(got, r.String())
			}
			require.NoError(t, waitJob(t, j))
			require.Equal(t, c.want, got)
			require.Equal(t, c.late, j.Metrics().LateRecordsDropped)
		})
	}
}
