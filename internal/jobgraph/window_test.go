package jobgraph

import (
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// TestWindowExplain checks the EXPLAIN forms and changelog modes of the
// window operators.
func TestWindowExplain(t *testing.T) {
	in := types.NewSchema(types.Field{Name: "k", Type: types.String}, types.Field{Name: "ts", Type: types.TimestampLTZ(3)},
		types.Field{Name: "v", Type: types.Int})
	withWin := types.NewSchema(append(append([]types.Field(nil), in.Fields...), WindowColumns(in.Fields[1].Type)...)...)
	ranked := types.NewSchema(append(append([]types.Field(nil), withWin.Fields...), types.Field{Name: "rn", Type: types.BigInt.NonNull()})...)
	hop := Window{Kind: Hop, Size: int64(10 * time.Minute), Slide: int64(5 * time.Minute), Offset: int64(-time.Minute),
		TimeColumn: 1, TimeZone: "Asia/Shanghai"}
	attached := Windowing{Window: hop, Attached: true, WindowStart: 3, WindowEnd: 4}
	agg := types.NewSchema(append([]types.Field{{Name: "k", Type: types.String}, {Name: "cnt", Type: types.BigInt.NonNull()}},
		WindowColumns(in.Fields[1].Type)...)...)
	j := &Job{
		Inputs: []Input{{Table: "cat.db.t", Log: "t", Partitions: 1, Schema: in, Physical: in}},
		Nodes: []Node{
			{UID: "tvf/0", Inputs: []Edge{{From: Source(0)}}, Op: &WindowTVF{Window: hop}, Out: withWin},
			{UID: "rank/1", Inputs: []Edge{{From: 0}}, Op: &WindowRank{Windowing: attached, PartitionKeys: []int{0},
				OrderBy: []SortKey{{Col: 2, Desc: true}}, Func: RowNumber, Start: 1, End: 3, OutputRank: true}, Out: ranked},
			{UID: "dedup/2", Inputs: []Edge{{From: 0}}, Op: &WindowDeduplicate{Windowing: attached, Keys: []int{0}, KeepLast: true, TimeColumn: 1}, Out: withWin},
			{UID: "join/3", Inputs: []Edge{{From: 2}, {From: 0}}, Op: &WindowJoin{Kind: LeftJoin, Window: hop, LeftStart: 3, LeftEnd: 4,
				RightStart: 3, RightEnd: 4, LeftKeys: []int{0}, RightKeys: []int{0}, Left: withWin, Right: withWin},
				Out: types.NewSchema(append(append([]types.Field(nil), withWin.Fields...), withWin.Fields...)...)},
			{UID: "agg/4", Inputs: []Edge{{From: Source(0)}}, Op: &WindowAggregate{Keys: []int{0}, Calls: []AggCall{{Func: AggCountStar, Filter: -1, Type: types.BigInt.NonNull()}},
				Windowing: Windowing{Window: Window{Kind: Session, Gap: int64(90 * time.Second), TimeColumn: -1, TimeZone: "UTC"}}}, Out: agg},
			{UID: "agg/5", Inputs: []Edge{{From: Source(0)}}, Op: &WindowAggregate{Keys: []int{0}, Calls: []AggCall{{Func: AggCountStar, Filter: -1, Type: types.BigInt.NonNull()}},
				Windowing: Windowing{Window: Window{Kind: Cumulate, Size: int64(24 * time.Hour), Step: int64(time.Hour), TimeColumn: 1}}}, Out: agg},
		},
		Sink: Sink{Kind: CollectSink},
	}
	want := map[int]string{
		0: "WindowTableFunction(uid=[tvf/0], window=[HOP(time_col=[ts], size=[10 min], slide=[5 min], offset=[-1 min], time_zone=[Asia/Shanghai])]), fields=[k ts v window_start window_end window_time], changelogMode=[I]",
		1: "WindowRank(uid=[rank/1], window=[HOP(win_start=[window_start], win_end=[window_end], size=[10 min], slide=[5 min], offset=[-1 min], time_zone=[Asia/Shanghai])], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=3], partitionBy=[k], orderBy=[v DESC], outputRank=[true]), fields=[k ts v window_start window_end window_time rn], changelogMode=[I]",
		2: "WindowDeduplicate(uid=[dedup/2], window=[HOP(win_start=[window_start], win_end=[window_end], size=[10 min], slide=[5 min], offset=[-1 min], time_zone=[Asia/Shanghai])], keep=[LastRow], partitionKeys=[k], orderKey=[ts], order=[ROWTIME]), fields=[k ts v window_start window_end window_time], changelogMode=[I]",
		3: "WindowJoin(uid=[join/3], leftWindow=[HOP(win_start=[window_start], win_end=[window_end], size=[10 min], slide=[5 min], offset=[-1 min], time_zone=[Asia/Shanghai])], rightWindow=[HOP(win_start=[window_start], win_end=[window_end], size=[10 min], slide=[5 min], offset=[-1 min], time_zone=[Asia/Shanghai])], joinType=[LeftOuterJoin], where=[k = k]), fields=[k ts v window_start window_end window_time k ts v window_start window_end window_time], changelogMode=[I]",
		4: "WindowAggregate(uid=[agg/4], groupBy=[k], window=[SESSION(time_col=[PROCTIME()], gap=[90 s], time_zone=[UTC])], select=[k, COUNT(*) AS cnt, start('w$) AS window_start, end('w$) AS window_end, proctime('w$) AS window_time]), fields=[k cnt window_start window_end window_time], changelogMode=[I]",
		5: "WindowAggregate(uid=[agg/5], groupBy=[k], window=[CUMULATE(time_col=[ts], max_size=[1 d], step=[1 h])], select=[k, COUNT(*) AS cnt, start('w$) AS window_start, end('w$) AS window_end, rowtime('w$) AS window_time]), fields=[k cnt window_start window_end window_time], changelogMode=[I]",
	}
	for k, w := range want {
		j.Result = k
		got := Explain(j)
		if !strings.Contains(got, "  "+w+"\n") {
			t.Errorf("node %d:\n%s\nwant the line\n%s", k, got, w)
		}
	}
	// A window TVF passes its input's kinds on.
	j.Inputs[0].Mode = Retract
	nodes, _ := ChangelogKinds(j)
	if got := nodes[0].String(); got != "[I,UB,UA,D]" {
		t.Errorf("TVF over a retract input: %s", got)
	}
	for _, k := range []int{1, 2, 3, 4, 5} {
		if got := nodes[k].String(); got != "[I]" {
			t.Errorf("node %d: %s", k, got)
		}
	}
	if got := (Window{Kind: Session, Gap: 5e9, TimeColumn: 0, PartitionKeys: []int{0, 2}}).Summary(Windowing{}, in.Names()); got != "SESSION(time_col=[k], gap=[5 s], partition keys=[k, v])" {
		t.Errorf("session summary: %s", got)
	}
	for ns, s := range map[int64]string{1500e6: "1500 ms", 7200e9: "2 h", 90e9: "90 s", 1500: "1500 ns", 3e3: "3 µs"} {
		if got := FormatDuration(ns); got != s {
			t.Errorf("FormatDuration(%d) = %s, want %s", ns, got, s)
		}
	}
}
