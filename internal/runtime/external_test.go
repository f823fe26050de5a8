package runtime

// Tests of external inputs and sinks (external.go) with the fake connectors
// of external_fake_test.go: the merge order of partitions, snapshot and
// scan.bounded targets, syncs, resuming, watermarks with idle partitions,
// bad records, and the two-phase commit of external sinks.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// deliveries are the ways the fake reader hands out records: all at once,
// or a few records of one random partition per Fetch.
var deliveries = []struct {
	name    string
	trickle int
	seed    uint64
}{
	{"all", 0, 0},
	{"trickle1-seed1", 1, 1},
	{"trickle1-seed2", 1, 2},
	{"trickle2-seed3", 2, 3},
	{"trickle3-seed4", 3, 4},
	{"trickle2-seed5", 2, 5},
}

// mergeTopic fills three partitions with interleaved timestamps (ties
// across partitions and within one, control records between records) and
// returns the rows in (timestamp, partition, offset) order.
func mergeTopic() (*fakeTopic, []fakeRow) {
	t := newFakeTopic("merge", 3)
	type at struct {
		p   int32
		off int64
		row fakeRow
	}
	var all []at
	k := int64(0)
	add := func(p int32, ts int64) {
		k++
		v := fmt.Sprintf("p%d#%d", p, k)
		off := t.add(p, ts, k, v)
		all = append(all, at{p, off, fakeRow{K: k, TS: ts, V: v}})
	}
	for _, ts := range []int64{100, 300, 300, 700, 900, 900} {
		add(0, ts)
	}
	for i, ts := range []int64{100, 200, 300, 800, 1000} {
		add(1, ts)
		if i == 1 {
			t.control(1, 2) // a committed transaction's marker, and another
		}
	}
	t.control(1, 1) // a trailing marker
	for _, ts := range []int64{50, 300, 600, 600, 900, 1000} {
		add(2, ts)
	}
	slices.SortFunc(all, func(a, b at) int {
		return cmp.Or(cmp.Compare(a.row.TS, b.row.TS), cmp.Compare(a.p, b.p), cmp.Compare(a.off, b.off))
	})
	out := make([]fakeRow, len(all))
	for i, a := range all {
		out[i] = a.row
	}
	return t, out
}

// TestExternalMergeOrder: a snapshot emits the records of an external
// input in (timestamp, partition, offset) order however its reader's
// fetches split and interleave the partitions.
func TestExternalMergeOrder(t *testing.T) {
	var first []fakeRow
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic, want := mergeTopic()
			src := &fakeSource{topic: topic, trickle: d.trickle, seed: d.seed}
			j := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "merge", Bounded: true})
			got := fakeRows(drain(t, j))
			require.NoError(t, waitJob(t, j))
			require.Equal(t, want, got)
			if first == nil {
				first = got
			}
			require.Equal(t, first, got, "same output for every delivery")
			require.Equal(t, []map[int32]int64{{}}, topic.openCalls(), "a fresh job opens without positions")
			require.True(t, topic.allClosed(), "the reader is closed when the job ends")
		})
	}
}

// TestExternalMergeTwoInputs: records of two external inputs merge by
// timestamp, then input.
func TestExternalMergeTwoInputs(t *testing.T) {
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			a, b := newFakeTopic("a", 2), newFakeTopic("b", 1)
			a.add(0, 10, 1, "a0")
			a.add(1, 20, 2, "a1")
			a.add(0, 30, 3, "a0")
			b.add(0, 10, 4, "b0")
			b.add(0, 20, 5, "b0")
			b.add(0, 25, 6, "b0")
			sa := &fakeSource{topic: a, trickle: d.trickle, seed: d.seed}
			sb := &fakeSource{topic: b, trickle: d.trickle, seed: d.seed + 7}
			j := startJob(t, env, collectJob(fakeInput(sa), fakeInput(sb)), Options{ID: "two", Bounded: true})
			require.Equal(t, []int64{1, 4, 2, 5, 6, 3}, keys(drain(t, j)))
			require.NoError(t, waitJob(t, j))
		})
	}
}

// TestExternalSnapshotTargets: a snapshot reads up to the offsets its
// reader's Targets returned when it started, not the records that arrive
// later, and ends at targets that lie past control records.
func TestExternalSnapshotTargets(t *testing.T) {
	fill := func() (*fakeTopic, []fakeRow) {
		topic := newFakeTopic("snap", 4)
		var want []fakeRow
		add := func(p int32, ts, k int64) {
			v := fmt.Sprintf("p%d", p)
			topic.add(p, ts, k, v)
			want = append(want, fakeRow{k, ts, v})
		}
		add(0, 10, 1)
		add(0, 20, 2)
		topic.control(0, 1) // offset 2
		add(0, 30, 3)       // offset 3
		topic.control(0, 1) // offset 4: the target is 5
		add(1, 15, 4)
		add(1, 25, 5)
		add(1, 35, 6)
		topic.control(1, 1) // offset 3: the target is 4
		// Partition 2 is empty (target 0); partition 3 holds only
		// control records (target 2).
		topic.control(3, 2)
		// Records that arrive once the snapshot has taken its targets.
		topic.onTargets = func() {
			topic.add(0, 1, 100, "late")
			topic.add(1, 1, 101, "late")
			topic.add(2, 1, 102, "late")
			topic.add(3, 1, 103, "late")
		}
		slices.SortFunc(want, func(a, b fakeRow) int { return cmp.Compare(a.TS, b.TS) })
		return topic, want
	}
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic, want := fill()
			src := &fakeSource{topic: topic, trickle: d.trickle, seed: d.seed}
			j := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "snap", Bounded: true})
			require.Equal(t, want, fakeRows(drain(t, j)))
			require.NoError(t, waitJob(t, j))
			topic.mu.Lock()
			require.Equal(t, 1, topic.targets, "targets are taken once, at start")
			topic.mu.Unlock()
		})
	}
	// A snapshot into a log table commits the targets as its positions.
	t.Run("positions", func(t *testing.T) {
		env, _ := newTestEnv(t)
		require.NoError(t, env.Logs.CreateLog("out", 1))
		topic, want := fill()
		src := &fakeSource{topic: topic}
		g := &jobgraph.Job{Inputs: []jobgraph.Input{fakeInput(src)}, Result: jobgraph.Source(0),
			Sink: jobgraph.Sink{Kind: jobgraph.LogSink, Table: "cat.db.out", Log: "out", Partitions: 1, Schema: fakeSchema}}
		j := startJob(t, env, g, Options{ID: "snap-log", Bounded: true})
		require.NoError(t, waitJob(t, j))
		require.Equal(t, map[int32]int64{0: 5, 1: 4, 2: 0, 3: 2}, positionsOf(t, j, src))
		require.Equal(t, want, readLogRows(t, env.Logs, "out"))
	})
}

// readLogRows reads the rows of a one-partition log.
func readLogRows(t *testing.T, logs *logstore.Store, log string) []fakeRow {
	t.Helper()
	var out []fakeRow
	for _, r := range readLog(t, logs, log) {
		out = append(out, toFakeRow(r))
	}
	return out
}

func readLog(t *testing.T, logs *logstore.Store, log string) []types.Row {
	t.Helper()
	rd, err := logs.NewReader(log, 0, 0)
	require.NoError(t, err)
	var out []types.Row
	for {
		rec, ok, err := rd.Next()
		require.NoError(t, err)
		if !ok {
			return out
		}
		row, err := types.DecodeRow(rec.Value)
		require.NoError(t, err)
		out = append(out, row)
	}
}

// TestExternalScanBounded: in a continuous job, an input whose reader is
// bounded ends at its bounds with the maximum watermark (which flushes
// what the ordering PTF still buffers), and the job completes.
func TestExternalScanBounded(t *testing.T) {
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic := newFakeTopic("bounded", 2)
			topic.add(0, 1000, 1, "x")
			topic.add(0, 2000, 2, "x")
			topic.add(0, 9000, 5, "x")
			topic.add(0, 10000, 6, "beyond")
			topic.add(1, 3000, 3, "x")
			topic.add(1, 4000, 4, "x")
			topic.control(1, 1)
			topic.add(1, 5000, 7, "beyond")
			src := &fakeSource{topic: topic, bounds: map[int32]int64{0: 3, 1: 3}, trickle: d.trickle, seed: d.seed}
			j := startJob(t, env, orderedJob(withWatermark(fakeInput(src))), Options{ID: "bounded"})
			// Row 5 (ts 9000) is released only by the final watermark: the
			// input's watermark is at most min(9000, 4000) before.
			require.Equal(t, []int64{1, 2, 3, 4, 5}, keys(drain(t, j)))
			require.NoError(t, waitJob(t, j))
			require.Equal(t, map[int32]int64{0: 3, 1: 3}, positionsOf(t, j, src))
			require.Equal(t, time.UnixMilli(4000).UTC(), j.Metrics().Watermark)
		})
	}
}

// TestExternalScanBoundedBesideUnbounded: an input that reached its
// bounds while another runs on does not end the job, and records past its
// bounds stay unread while the job serves syncs of the other input (see
// also TestMixReaderKeepsNothingPastBounds).
func TestExternalScanBoundedBesideUnbounded(t *testing.T) {
	env, _ := newTestEnv(t)
	a, b := newFakeTopic("a", 1), newFakeTopic("b", 1)
	a.add(0, 10, 1, "a")
	a.add(0, 20, 2, "a")
	a.add(0, 30, 3, "beyond")
	b.add(0, 15, 4, "b")
	sa := &fakeSource{topic: a, bounds: map[int32]int64{0: 2}}
	sb := &fakeSource{topic: b}
	j := startJob(t, env, collectJob(fakeInput(sa), fakeInput(sb)), Options{ID: "mixed"})
	syncJob(t, j)
	require.ElementsMatch(t, []int64{1, 2, 4}, keys(buffered(j)))
	for i := range 3 {
		a.add(0, int64(40+i), int64(10+i), "beyond")
		b.add(0, int64(40+i), int64(20+i), "b")
		syncJob(t, j)
		require.Equal(t, []int64{int64(20 + i)}, keys(buffered(j)))
	}
	require.Equal(t, map[int32]int64{0: 2}, positionsOf(t, j, sa))
	require.Equal(t, map[int32]int64{0: 4}, positionsOf(t, j, sb))
	require.NoError(t, j.Err())
}

// TestExternalSync: Sync returns once every record up to the reader's
// Targets at the sync is processed and committed; records that arrive
// after it wait for the next sync.
func TestExternalSync(t *testing.T) {
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic := newFakeTopic("sync", 3)
			src := &fakeSource{topic: topic, trickle: d.trickle, seed: d.seed}
			j := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "sync"})
			syncJob(t, j) // nothing yet
			require.Empty(t, buffered(j))
			// pending are records appended before a sync and not yet seen.
			var pending []int64
			k := int64(0)
			for round := range 3 {
				for i := range 12 {
					k++
					topic.add(int32(i%3), int64(round*100+i), k, "r")
					pending = append(pending, k)
					if i == 4 {
						topic.control(1, 1)
					}
				}
				targets := topic.ends()
				// Records appended right after the sync took its targets.
				var later []int64
				topic.setOnTargets(func() {
					for p := range int32(3) {
						k++
						topic.add(p, int64(round*100+50), k, "later")
						later = append(later, k)
					}
				})
				syncJob(t, j)
				require.Equal(t, targets, positionsOf(t, j, src), "round %d: committed at the targets", round)
				got := keys(buffered(j))
				for _, x := range pending {
					require.Contains(t, got, x, "round %d: the records before the sync are read", round)
				}
				// Later records may be read once the sync is answered.
				extra := slices.DeleteFunc(slices.Clone(got), func(x int64) bool { return slices.Contains(pending, x) })
				require.Subset(t, later, extra, "round %d", round)
				require.Len(t, got, len(pending)+len(extra), "round %d: no record twice", round)
				pending = slices.DeleteFunc(later, func(x int64) bool { return slices.Contains(extra, x) })
			}
			syncJob(t, j)
			require.ElementsMatch(t, pending, keys(buffered(j)))
			require.Equal(t, topic.ends(), positionsOf(t, j, src))
		})
	}
}

// TestExternalResume: a job restarted with Resume opens its source at the
// positions of its last checkpoint and reads no record twice.
func TestExternalResume(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("resume", 2)
	topic.add(0, 10, 1, "a")
	topic.add(0, 20, 2, "a")
	topic.add(0, 30, 3, "a")
	topic.control(0, 1)
	topic.add(1, 15, 4, "a")
	topic.add(1, 25, 5, "a")
	src := &fakeSource{topic: topic}
	j := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "resume"})
	rows1 := take(t, j, 5)
	checkpointJob(t, j)
	require.Equal(t, map[int32]int64{0: 4, 1: 2}, positionsOf(t, j, src))
	j.Cancel()
	require.NoError(t, waitJob(t, j))
	rows1 = append(rows1, drain(t, j)...)
	require.ElementsMatch(t, []int64{1, 2, 3, 4, 5}, keys(rows1))

	topic.add(0, 40, 6, "b")
	topic.control(1, 2)
	topic.add(1, 45, 7, "b")
	topic.add(1, 50, 8, "b")
	j2 := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "resume", Resume: true})
	syncJob(t, j2)
	require.Equal(t, []map[int32]int64{{}, {0: 4, 1: 2}}, topic.openCalls())
	require.Equal(t, []int64{6, 7, 8}, keys(buffered(j2)))
	require.Equal(t, map[int32][]int64{0: {4}, 1: {4, 5}}, topic.fetchedBy(1), "the resumed reader fetched only new records")
	require.Equal(t, map[int32]int64{0: 5, 1: 6}, positionsOf(t, j2, src))

	// A job with another ID starts from scratch.
	j3 := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "other", Resume: true})
	syncJob(t, j3)
	require.Len(t, buffered(j3), 8)
	require.Equal(t, map[int32]int64{}, topic.openCalls()[2])
}

// TestExternalWatermarks: an input's watermark is the minimum over its
// partitions, and none until every partition produced one (read freely,
// without an idle timeout, a partition without records holds it back, as
// a Flink split does).
func TestExternalWatermarks(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("wm", 3)
	src := &fakeSource{topic: topic}
	j := startJob(t, env, collectJob(withWatermark(fakeInput(src))), Options{ID: "wm"})
	wm := func() int64 { return j.Metrics().Watermark.UnixMilli() }
	syncJob(t, j)
	require.True(t, j.Metrics().Watermark.IsZero(), "no watermark before any record")
	steps := []struct {
		add  map[int32]int64 // partition -> record timestamp (seconds)
		want int64           // seconds
	}{
		// As a Flink split, a partition that never produced holds the
		// watermark back (no idle timeout here), however empty it is.
		{map[int32]int64{0: 10}, -1}, // partitions 1 and 2 never produced
		{map[int32]int64{1: 5}, -1},  // partition 2 never produced
		{map[int32]int64{1: 15, 0: 20}, -1},
		{map[int32]int64{2: 12}, 12}, // min(20, 15, 12)
		{map[int32]int64{2: 30, 1: 40}, 20},
		{map[int32]int64{0: 50}, 30},
		{map[int32]int64{1: 25}, 30}, // min(50, 40, 30): no step back
	}
	k := int64(0)
	for i, s := range steps {
		for _, p := range []int32{0, 1, 2} {
			if ts, ok := s.add[p]; ok {
				k++
				topic.add(p, ts*1000, k, "w")
			}
		}
		syncJob(t, j)
		if s.want < 0 {
			require.True(t, j.Metrics().Watermark.IsZero(), "step %d: no watermark yet, got %v", i, j.Metrics().Watermark)
			continue
		}
		require.Equal(t, s.want*1000, wm(), "step %d", i)
	}
}

// sortJob orders its input by ts (a temporal sort): a row comes out once
// the watermark reached it, and a row behind the watermark is late.
func sortJob(in jobgraph.Input) *jobgraph.Job {
	return &jobgraph.Job{Inputs: []jobgraph.Input{in},
		Nodes:  []jobgraph.Node{{UID: "sort", Inputs: []jobgraph.Edge{{From: jobgraph.Source(0)}}, Op: &jobgraph.TemporalSort{TimeColumn: 1}, Out: fakeSchema}},
		Result: 0, Sink: jobgraph.Sink{Kind: jobgraph.CollectSink}}
}

// TestExternalWatermarkHoldsForBacklog: in a continuous job reading freely,
// a partition that had records to read when the job opened holds the
// watermark back until it produced one (Flink: a split without a watermark
// keeps the combined one at its minimum), however late its fetch comes:
// partition 1's backlog is fetched only after partition 0's whole backlog
// was read, and its row is not late. With an idle timeout the partition
// stops holding once it was idle that long since the job opened.
func TestExternalWatermarkHoldsForBacklog(t *testing.T) {
	setup := func(t *testing.T, idle time.Duration) (*Job, *fakeTopic, *fakeClock) {
		env, clock := newTestEnv(t)
		topic := newFakeTopic("backlog", 2)
		for i, ts := range []int64{10_000, 20_000, 30_000} {
			topic.add(0, ts, int64(i+1), "p0")
		}
		topic.add(1, 5_000, 4, "p1")
		topic.hold(1)
		j := startJob(t, env, sortJob(withWatermark(fakeInput(&fakeSource{topic: topic, idle: idle}))),
			Options{ID: "backlog", CheckpointInterval: 5 * time.Millisecond})
		require.Eventually(t, func() bool { return j.Metrics().RecordsIn == 3 }, waitLimit, time.Millisecond,
			"partition 0's backlog is read")
		return j, topic, clock
	}
	t.Run("held", func(t *testing.T) {
		j, topic, _ := setup(t, 0)
		topic.release(1)
		topic.add(0, 40_000, 5, "p0")
		topic.add(1, 50_000, 6, "p1")
		require.Equal(t, []int64{4, 1, 2, 3}, keys(take(t, j, 4)))
		require.Equal(t, int64(0), j.Metrics().LateRecordsDropped, "partition 1's row is not late")
		require.Equal(t, time.UnixMilli(40_000).UTC(), j.Metrics().Watermark)
		require.NoError(t, j.Err())
	})
	t.Run("idle", func(t *testing.T) {
		j, topic, clock := setup(t, 10*time.Second)
		clock.Advance(6 * time.Second)
		topic.add(0, 35_000, 5, "p0")
		require.Eventually(t, func() bool { return j.Metrics().RecordsIn == 4 }, waitLimit, time.Millisecond)
		require.True(t, j.Metrics().Watermark.IsZero(), "partition 1 holds the watermark back, idle for 6s only")
		// Partition 1 has now been idle for 12s since the job started,
		// partition 0 for 6s: the next tick moves the watermark to 35s.
		clock.Advance(6 * time.Second)
		require.Equal(t, []int64{1, 2, 3, 5}, keys(take(t, j, 4)))
		require.Equal(t, time.UnixMilli(35_000).UTC(), j.Metrics().Watermark)
		topic.release(1)
		syncJob(t, j)
		require.Equal(t, int64(1), j.Metrics().LateRecordsDropped, "idle, partition 1 gave up its hold")
		require.NoError(t, j.Err())
	})
}

// TestExternalIdleTimeout: with an idle timeout, a partition that has not
// produced for longer stops holding the watermark back in a continuous job
// (re-checked on the checkpoint tick, which must also reach downstream
// without new records), but not in a snapshot.
func TestExternalIdleTimeout(t *testing.T) {
	const idle = 10 * time.Second
	t.Run("continuous", func(t *testing.T) {
		env, clock := newTestEnv(t)
		topic := newFakeTopic("idle", 2)
		topic.add(0, 10_000, 1, "x")
		topic.add(1, 5_000, 2, "x")
		src := &fakeSource{topic: topic, idle: idle}
		j := startJob(t, env, orderedJob(withWatermark(fakeInput(src))),
			Options{ID: "idle", CheckpointInterval: 5 * time.Millisecond})
		syncJob(t, j)
		require.Equal(t, []int64{2}, keys(buffered(j)), "row 2 (5s) is released at watermark 5s")
		clock.Advance(6 * time.Second)
		topic.add(0, 20_000, 3, "x")
		syncJob(t, j)
		require.Equal(t, time.UnixMilli(5000).UTC(), j.Metrics().Watermark, "partition 1 is idle for 6s only")
		require.Empty(t, buffered(j))
		// Partition 1 has now been idle for 12s, partition 0 for 6s: the
		// next tick moves the watermark to 20s and releases rows 1 and 3.
		clock.Advance(6 * time.Second)
		require.Equal(t, []int64{1, 3}, keys(take(t, j, 2)))
		require.Equal(t, time.UnixMilli(20_000).UTC(), j.Metrics().Watermark)
		// The idle partition produces again: it holds the watermark back
		// from its next record on.
		topic.add(1, 25_000, 4, "x")
		topic.add(0, 30_000, 5, "x")
		syncJob(t, j)
		require.Equal(t, []int64{4}, keys(buffered(j)))
		require.Equal(t, time.UnixMilli(25_000).UTC(), j.Metrics().Watermark)
		require.NoError(t, j.Err())
	})
	// The same records, with the clock moving past the timeout while the
	// source decodes the last one.
	run := func(t *testing.T, bounded bool) int64 {
		env, clock := newTestEnv(t)
		topic := newFakeTopic("idle", 2)
		topic.add(0, 10_000, 1, "x")
		topic.add(1, 5_000, 2, "x")
		topic.add(0, 20_000, 3, "x")
		src := &fakeSource{topic: topic, idle: idle, onDecode: func(rec *connector.Record) {
			if rec.Timestamp == 20_000 {
				clock.Advance(time.Hour)
			}
		}}
		j := startJob(t, env, collectJob(withWatermark(fakeInput(src))), Options{ID: "idle", Bounded: bounded})
		if bounded {
			require.Len(t, drain(t, j), 3)
			require.NoError(t, waitJob(t, j))
		} else {
			require.Len(t, take(t, j, 3), 3)
			require.Eventually(t, func() bool { return j.Metrics().Watermark.UnixMilli() == 20_000 }, waitLimit, time.Millisecond)
		}
		return j.Metrics().Watermark.UnixMilli()
	}
	t.Run("snapshot", func(t *testing.T) {
		require.Equal(t, int64(5_000), run(t, true), "a snapshot waits for every partition")
	})
	t.Run("continuous-record", func(t *testing.T) {
		require.Equal(t, int64(20_000), run(t, false))
	})
}

// badTopic holds good records around a bad one (with headers) at
// partition 0 offset 1.
func badTopic(name string) *fakeTopic {
	topic := newFakeTopic(name, 1)
	topic.add(0, 10, 1, "ok")
	topic.addRecord(connector.Record{Partition: 0, Timestamp: 20, LeaderEpoch: 3, Key: []byte("k2"), Value: []byte("bad"),
		Headers: []connector.Header{{Key: "h", Value: []byte("1")}, {Key: "n", Value: nil}, {Key: "h", Value: []byte("2")}}})
	topic.add(0, 30, 3, "skip")
	topic.add(0, 40, 4, "ok")
	return topic
}

func TestExternalBadRecords(t *testing.T) {
	t.Run("fail", func(t *testing.T) {
		for _, mode := range []string{"", "fail"} {
			env, _ := newTestEnv(t)
			src := &fakeSource{topic: badTopic("bad")}
			in := fakeInput(src)
			in.Errors.Mode = mode
			j := startJob(t, env, collectJob(in), Options{ID: "bad", Bounded: true})
			drain(t, j)
			err := waitJob(t, j)
			require.Error(t, err)
			msg := err.Error()
			require.Contains(t, msg, "table cat.db.bad")
			require.Contains(t, msg, "fake topic bad partition 0 offset 1")
			require.Contains(t, msg, ": value: not a fake row")
			require.NotContains(t, msg, "bad record: value", "the reason is given without the marker error")
			require.Contains(t, msg, "'error-handling.mode'")
		}
	})
	t.Run("ignore", func(t *testing.T) {
		env, _ := newTestEnv(t)
		src := &fakeSource{topic: badTopic("bad")}
		in := fakeInput(src)
		in.Errors.Mode = "ignore"
		j := startJob(t, env, collectJob(in), Options{ID: "bad", Bounded: true})
		require.Equal(t, []int64{1, 4}, keys(drain(t, j)))
		require.NoError(t, waitJob(t, j))
		m := j.Metrics()
		require.Equal(t, int64(2), m.Skipped, "the bad record and the one its format skips")
		require.Equal(t, int64(2), m.RecordsIn)
	})
	t.Run("log", func(t *testing.T) {
		for _, bounded := range []bool{true, false} {
			t.Run(fmt.Sprintf("bounded=%v", bounded), func(t *testing.T) {
				env, clock := newTestEnv(t)
				require.NoError(t, env.Logs.CreateLog("dlq", 1))
				src := &fakeSource{topic: badTopic("bad")}
				in := fakeInput(src)
				in.Errors = jobgraph.ErrorHandling{Mode: "log", Table: "cat.db.dlq", Log: "dlq", Statement: "stmt-7"}
				j := startJob(t, env, collectJob(in), Options{ID: "bad", Bounded: bounded})
				if bounded {
					require.Equal(t, []int64{1, 4}, keys(drain(t, j)))
					require.NoError(t, waitJob(t, j))
				} else {
					syncJob(t, j)
					require.Equal(t, []int64{1, 4}, keys(buffered(j)))
				}
				require.Equal(t, int64(2), j.Metrics().Skipped)
				rows := readLog(t, env.Logs, "dlq")
				require.Len(t, rows, 1)
				schema := jobgraph.DeadLetterSchema()
				require.Len(t, rows[0].Values, len(schema.Fields))
				got := map[string]types.Value{}
				for i, f := range schema.Fields {
					got[f.Name] = rows[0].Values[i]
				}
				require.Equal(t, clock.Now().UnixNano(), got["error_timestamp"].Int())
				require.Equal(t, "DESERIALIZATION_ERROR", got["error_code"].Str())
				require.Equal(t, "value: not a fake row", got["error_reason"].Str())
				require.Equal(t, "stmt-7", got["statement_name"].Str())
				require.Equal(t, "cat.db.bad", got["source_table"].Str())
				require.Equal(t, "bad", got["topic"].Str())
				require.Equal(t, int64(0), got["partition"].Int())
				require.Equal(t, int64(1), got["offset"].Int())
				require.Equal(t, int64(20*1e6), got["record_timestamp"].Int())
				require.Equal(t, "k2", got["raw_key"].Str())
				require.Equal(t, "bad", got["raw_value"].Str())
				hs := got["headers"].Map()
				require.Len(t, hs, 2, "a duplicate header key keeps its last value, as the headers column does")
				require.Equal(t, "h", hs[0].Key.Str())
				require.Equal(t, "2", hs[0].Val.Str())
				require.Equal(t, "n", hs[1].Key.Str())
				require.True(t, hs[1].Val.IsNull())
			})
		}
	})
	t.Run("not-the-record", func(t *testing.T) {
		for _, mode := range []string{"fail", "ignore", "log"} {
			env, _ := newTestEnv(t)
			require.NoError(t, env.Logs.CreateLog("dlq", 1))
			topic := newFakeTopic("bad", 1)
			topic.add(0, 10, 1, "ok")
			topic.add(0, 20, 2, "broken")
			topic.add(0, 30, 3, "bad")
			src := &fakeSource{topic: topic}
			in := fakeInput(src)
			in.Errors = jobgraph.ErrorHandling{Mode: mode, Table: "cat.db.dlq", Log: "dlq"}
			j := startJob(t, env, collectJob(in), Options{ID: "broken"})
			err := waitJob(t, j)
			require.ErrorContains(t, err, "table cat.db.bad: reading the record at fake topic bad partition 0 offset 1: value: schema registry unreachable", "mode %s", mode)
		}
	})
}

// TestExternalDeadLetterOnce: a dead-letter row commits with the
// checkpoint that covers its record, so a resumed job that reads the
// record again does not log it twice.
func TestExternalDeadLetterOnce(t *testing.T) {
	env, _ := newTestEnv(t)
	require.NoError(t, env.Logs.CreateLog("dlq", 1))
	topic := newFakeTopic("dlq", 1)
	topic.add(0, 10, 1, "ok")
	src := &fakeSource{topic: topic}
	in := fakeInput(src)
	in.Errors = jobgraph.ErrorHandling{Mode: "log", Table: "cat.db.dlq", Log: "dlq", Statement: "s"}
	sink := &fakeSink{db: env.DB, gateAt: 2, entered: make(chan struct{}), release: make(chan struct{})}
	g := &jobgraph.Job{Inputs: []jobgraph.Input{in}, Result: jobgraph.Source(0), Sink: jobgraph.Sink{Kind: jobgraph.ExternalSink, Table: "cat.db.out", Schema: fakeSchema, External: sink}}
	j := startJob(t, env, g, Options{ID: "dlq"})
	syncJob(t, j) // checkpoint 1: position 1
	// Checkpoint 2 is taken at position 1; while its Prepare runs, the
	// source reads the bad record at offset 1.
	cp := make(chan error, 1)
	go func() { cp <- j.Checkpoint(context.Background()) }()
	<-sink.entered
	topic.add(0, 20, 2, "bad")
	require.Eventually(t, func() bool { return j.Metrics().Skipped == 1 }, waitLimit, time.Millisecond)
	close(sink.release)
	require.NoError(t, <-cp)
	require.Equal(t, map[int32]int64{0: 1}, positionsOf(t, j, src))
	j.Cancel()
	require.NoError(t, waitJob(t, j))

	sink2 := &fakeSink{db: env.DB}
	g.Sink.External = sink2
	j2 := startJob(t, env, g, Options{ID: "dlq", Resume: true})
	syncJob(t, j2)
	require.Equal(t, map[int32]int64{0: 2}, positionsOf(t, j2, src))
	rows := readLog(t, env.Logs, "dlq")
	require.Len(t, rows, 1, "the bad record is logged once")
	require.Equal(t, int64(1), rows[0].Values[7].Int())
}

// TestExternalSink: each checkpoint prepares the sink's writer (which
// writes its marker into the commit batch) before the store commit and
// commits it after; recovery sees the committed marker.
func TestExternalSink(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("in", 1)
	topic.add(0, 10, 1, "a")
	topic.add(0, 20, 2, "b")
	src := &fakeSource{topic: topic}
	sink := &fakeSink{db: env.DB, recovered: "run-1"}
	g := &jobgraph.Job{Inputs: []jobgraph.Input{fakeInput(src)}, Result: jobgraph.Source(0),
		Sink: jobgraph.Sink{Kind: jobgraph.ExternalSink, Table: "cat.db.out", Schema: fakeSchema, External: sink}}
	j := startJob(t, env, g, Options{ID: "ext"})
	recovered := append(sinkPrefix("ext"), "recovered"...)
	v, ok, err := env.DB.Get(recovered)
	require.NoError(t, err)
	require.True(t, ok, "what Open committed through the KV is in the store")
	require.Equal(t, "run-1", string(v))
	require.Equal(t, sinkPrefix("ext"), sink.prefix)

	syncJob(t, j)
	topic.add(0, 30, 3, "c")
	syncJob(t, j)
	require.Equal(t, map[int32]int64{0: 3}, positionsOf(t, j, src))
	j.Cancel()
	require.NoError(t, waitJob(t, j))
	require.Equal(t, []string{
		"open job=ext marker=none",
		"write a", "write b",
		"prepare 1 committed=none", "commit 1 committed=txn-1",
		"write c",
		"prepare 2 committed=txn-1", "commit 2 committed=txn-2",
		"close",
	}, sink.callLog())
	require.Equal(t, "txn-2", sink.committedMarker())
	require.Equal(t, []string{"*store.Batch", "*store.Batch"}, sink.prepareBatchTypes, "Prepare writes into the commit batch")

	// A restart recovers from the last committed marker.
	sink2 := &fakeSink{db: env.DB}
	g.Sink.External = sink2
	j2 := startJob(t, env, g, Options{ID: "ext", Resume: true})
	syncJob(t, j2)
	j2.Cancel()
	require.NoError(t, waitJob(t, j2))
	require.Equal(t, []string{"open job=ext marker=txn-2", "prepare 3 committed=txn-2", "commit 3 committed=txn-3", "close"}, sink2.callLog())
}

// TestExternalSinkPrepareFails: a failing Prepare fails the job and
// commits nothing of its checkpoint.
func TestExternalSinkPrepareFails(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("in", 1)
	topic.add(0, 10, 1, "a")
	src := &fakeSource{topic: topic}
	sink := &fakeSink{db: env.DB, failPrepare: 2}
	g := &jobgraph.Job{Inputs: []jobgraph.Input{fakeInput(src)}, Result: jobgraph.Source(0),
		Sink: jobgraph.Sink{Kind: jobgraph.ExternalSink, Table: "cat.db.out", Schema: fakeSchema, External: sink}}
	j := startJob(t, env, g, Options{ID: "ext"})
	syncJob(t, j)
	require.Equal(t, map[int32]int64{0: 1}, positionsOf(t, j, src))
	topic.add(0, 20, 2, "b")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	require.ErrorIs(t, j.Sync(ctx), errFakePrepare)
	err := waitJob(t, j)
	require.ErrorIs(t, err, errFakePrepare)
	require.Equal(t, map[int32]int64{0: 1}, positionsOf(t, j, src), "the positions of the failed checkpoint are not committed")
	require.Equal(t, "txn-1", sink.committedMarker())
	require.Equal(t, []string{
		"open job=ext marker=none",
		"write a", "prepare 1 committed=none", "commit 1 committed=txn-1",
		"write b", "prepare 2 failed",
		"close",
	}, sink.callLog())
	require.True(t, topic.allClosed())
}

// TestExternalSinkCommitFails: a failing Commit fails the job after the
// checkpoint committed (recovery decides the transaction from its marker).
func TestExternalSinkCommitFails(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("in", 1)
	topic.add(0, 10, 1, "a")
	src := &fakeSource{topic: topic}
	sink := &fakeSink{db: env.DB, failCommit: 1}
	g := &jobgraph.Job{Inputs: []jobgraph.Input{fakeInput(src)}, Result: jobgraph.Source(0),
		Sink: jobgraph.Sink{Kind: jobgraph.ExternalSink, Table: "cat.db.out", Schema: fakeSchema, External: sink}}
	j := startJob(t, env, g, Options{ID: "ext"})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	require.ErrorContains(t, j.Sync(ctx), "fake sink: commit failed")
	require.ErrorContains(t, waitJob(t, j), "fake sink: commit failed")
	require.Equal(t, map[int32]int64{0: 1}, positionsOf(t, j, src))
	require.Equal(t, "txn-1", sink.committedMarker())
	require.Equal(t, "close", sink.callLog()[len(sink.callLog())-1])
}

// TestExternalBoundedSink: a snapshot into an external sink prepares and
// commits once, at its end.
func TestExternalBoundedSink(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("in", 2)
	topic.add(0, 10, 1, "a")
	topic.add(1, 20, 2, "b")
	topic.add(0, 30, 3, "c")
	src := &fakeSource{topic: topic, trickle: 1, seed: 9}
	sink := &fakeSink{db: env.DB}
	g := &jobgraph.Job{Inputs: []jobgraph.Input{fakeInput(src)}, Result: jobgraph.Source(0),
		Sink: jobgraph.Sink{Kind: jobgraph.ExternalSink, Table: "cat.db.out", Schema: fakeSchema, External: sink}}
	j := startJob(t, env, g, Options{ID: "ext", Bounded: true})
	require.NoError(t, waitJob(t, j))
	require.Equal(t, []string{
		"open job=ext marker=none",
		"write a", "write b", "write c",
		"prepare 1 committed=none", "commit 1 committed=txn-1",
		"close",
	}, sink.callLog())
	require.Equal(t, map[int32]int64{0: 2, 1: 1}, positionsOf(t, j, src))
}

// TestExternalSharedStartMap: a reader whose Start returns the same map
// every time does not make the source skip records (its read position
// and what its reader fetched are separate maps).
func TestExternalSharedStartMap(t *testing.T) {
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic, want := mergeTopic()
			src := &fakeSource{topic: topic, trickle: d.trickle, seed: d.seed, sharedStart: true}
			j := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "shared", Bounded: true})
			require.Equal(t, want, fakeRows(drain(t, j)))
			require.NoError(t, waitJob(t, j))
		})
	}
}

// TestExternalFetchError: a reader's Fetch error fails the job.
func TestExternalFetchError(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("t", 2)
	topic.add(0, 10, 1, "a")
	src := &fakeSource{topic: topic}
	j := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "fetch"})
	syncJob(t, j)
	topic.failFetch(errors.New("broker gone"))
	require.ErrorContains(t, waitJob(t, j), "reading input: reading fake:cat.db.t: broker gone")
	require.True(t, topic.allClosed())
}

// TestExternalOpenError: when an input cannot open, Start fails and closes
// the readers and the sink writer it opened.
func TestExternalOpenError(t *testing.T) {
	env, _ := newTestEnv(t)
	a, b := newFakeTopic("a", 1), newFakeTopic("b", 1)
	sa := &fakeSource{topic: a}
	sb := &fakeSource{topic: b, openErr: errors.New("no such topic")}
	sink := &fakeSink{db: env.DB}
	g := &jobgraph.Job{Inputs: []jobgraph.Input{fakeInput(sa), fakeInput(sb)}, Result: jobgraph.Source(0),
		Sink: jobgraph.Sink{Kind: jobgraph.ExternalSink, Table: "cat.db.out", Schema: fakeSchema, External: sink}}
	_, err := Start(context.Background(), env, g, Options{ID: "open"})
	require.ErrorContains(t, err, "opening cat.db.b: no such topic")
	require.Len(t, a.openCalls(), 1)
	require.True(t, a.allClosed())
	require.Equal(t, []string{"open job=open marker=none", "close"}, sink.callLog())
}

// TestMixReaderKeepsNothingPastBounds: records past a permanent target
// are not queued (they are never read), so a finished input neither grows
// nor makes Wait return at once.
func TestMixReaderKeepsNothingPastBounds(t *testing.T) {
	e := &extInput{parts: []int32{0}, queues: map[int32]*recQueue{},
		pos: map[int32]int64{0: 2}, avail: map[int32]int64{0: 2}, target: map[int32]int64{0: 2}, bounded: true, finished: true}
	r := &mixReader{logs: noInput{}, ext: []*extInput{e}, batches: make(chan extBatch, 1)}
	r.receive(extBatch{ext: e, recs: []connector.Record{{Partition: 0, Offset: 2}, {Partition: 0, Offset: 3}}, next: map[int32]int64{0: 4}})
	require.Zero(t, e.queues[0].len())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, r.Wait(ctx), context.DeadlineExceeded, "Wait waits for data")
	require.Equal(t, []logstore.Position{{Log: "", Partition: 0, Offset: 2}}, r.Positions())
}

// TestExternalScanBoundedResume: the end a bounded input resolved when the
// job first started is saved in its checkpoints; a restarted job ends
// there, even if resolving again would give a later end.
func TestExternalScanBoundedResume(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("bounded-resume", 1)
	for i := range int64(6) {
		topic.add(0, 1000*(i+1), i+1, "x")
	}
	src := &fakeSource{topic: topic, bounds: map[int32]int64{0: 3}}
	j := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "br"})
	require.Equal(t, []int64{1, 2, 3}, keys(drain(t, j)))
	require.NoError(t, waitJob(t, j))

	// "latest-offset" would now resolve to 6.
	src.bounds = map[int32]int64{0: 6}
	j2 := startJob(t, env, collectJob(fakeInput(src)), Options{ID: "br", Resume: true})
	require.Empty(t, drain(t, j2))
	require.NoError(t, waitJob(t, j2))
	topic.mu.Lock()
	require.Equal(t, []map[int32]int64{nil, {0: 3}}, topic.openBounds)
	topic.mu.Unlock()
}

// TestExternalSeveralRowsPerRecord: a record that decodes to several rows
// (a changelog format's update) gives each row in order with its kind,
// also through computed and metadata columns.
func TestExternalSeveralRowsPerRecord(t *testing.T) {
	for _, computed := range []bool{false, true} {
		t.Run(fmt.Sprintf("computed=%v", computed), func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic := newFakeTopic("cdc", 1)
			topic.add(0, 10, 1, "a")
			topic.add(0, 20, 1, "upd:a>b")
			topic.add(0, 30, 2, "c")
			in := fakeInput(&fakeSource{topic: topic})
			in.Mode = jobgraph.Retract
			if computed {
				// k, ts, v and the record's offset (a metadata column).
				var cols []expr.Expr
				for i, f := range fakeSchema.Fields {
					c, err := expr.Col(i, f.Name, f.Type)
					require.NoError(t, err)
					cols = append(cols, c)
				}
				off, err := expr.Col(fakeSchema.Len()+jobgraph.MetaOffset, "offset", types.BigInt)
				require.NoError(t, err)
				in.Columns = append(cols, off)
				in.Schema = types.NewSchema(append(append([]types.Field{}, fakeSchema.Fields...), types.Field{Name: "off", Type: types.BigInt})...)
				in.MetaUsed = 1 << jobgraph.MetaOffset
			}
			j := startJob(t, env, collectJob(in), Options{ID: "cdc", Bounded: true})
			rows := drain(t, j)
			require.NoError(t, waitJob(t, j))
			var got []string
			for _, r := range rows {
				s := fmt.Sprintf("%v %d %s", r.Kind, r.Values[0].Int(), r.Values[2].Str())
				if computed {
					s += fmt.Sprintf(" @%d", r.Values[3].Int())
				}
				got = append(got, s)
			}
			want := []string{"+I 1 a", "-U 1 a", "+U 1 b", "+I 2 c"}
			if computed {
				want = []string{"+I 1 a @0", "-U 1 a @1", "+U 1 b @1", "+I 2 c @2"}
			}
			require.Equal(t, want, got)
		})
	}
}

// TestExternalSparsePartitions: partition ids need not be 0..n-1 (a file
// source numbers files by a hash): reading, watermarks and resuming work
// by id.
func TestExternalSparsePartitions(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("sparse", 0)
	for _, p := range []int32{7, 1 << 30} {
		topic.parts[p] = &fakePart{}
	}
	topic.add(1<<30, 10, 1, "x")
	topic.add(7, 20, 2, "y")
	topic.add(1<<30, 30, 3, "z")
	src := &fakeSource{topic: topic}
	j := startJob(t, env, collectJob(withWatermark(fakeInput(src))), Options{ID: "sparse", Bounded: true})
	require.Equal(t, []int64{1, 2, 3}, keys(drain(t, j)))
	require.NoError(t, waitJob(t, j))
}

// TestExternalReadTwice: a statement reading one external table twice (a
// self-join, a union with itself) opens it once, hands every record to
// both inputs, and checkpoints its positions once: a resumed job reads on
// from them.
func TestExternalReadTwice(t *testing.T) {
	for _, d := range deliveries {
		t.Run(d.name, func(t *testing.T) {
			env, _ := newTestEnv(t)
			topic := newFakeTopic("twice", 2)
			topic.add(0, 10, 1, "a")
			topic.add(1, 15, 2, "a")
			topic.add(0, 20, 3, "a")
			src := &fakeSource{topic: topic, trickle: d.trickle, seed: d.seed}
			g := collectJob(fakeInput(src), fakeInput(src))
			j := startJob(t, env, g, Options{ID: "twice"})
			rows := take(t, j, 6)
			checkpointJob(t, j)
			require.Equal(t, map[int32]int64{0: 2, 1: 1}, positionsOf(t, j, src))
			j.Cancel()
			require.NoError(t, waitJob(t, j))
			rows = append(rows, drain(t, j)...)
			require.ElementsMatch(t, []int64{1, 1, 2, 2, 3, 3}, keys(rows))
			require.Len(t, topic.openCalls(), 1, "the table is opened once")

			topic.add(1, 30, 4, "b")
			topic.add(0, 35, 5, "b")
			j2 := startJob(t, env, g, Options{ID: "twice", Resume: true})
			syncJob(t, j2)
			require.Equal(t, []map[int32]int64{{}, {0: 2, 1: 1}}, topic.openCalls())
			require.Equal(t, []int64{4, 4, 5, 5}, keys(buffered(j2)))
			require.Equal(t, map[int32]int64{0: 3, 1: 2}, positionsOf(t, j2, src))
			j2.Cancel()
			require.NoError(t, waitJob(t, j2))
			require.True(t, topic.allClosed())
		})
	}
}

// TestExternalReadTwiceBounded: a snapshot of a table read twice hands
// every record, in merge order, to both inputs and ends both.
func TestExternalReadTwiceBounded(t *testing.T) {
	env, _ := newTestEnv(t)
	topic, want := mergeTopic()
	src := &fakeSource{topic: topic}
	j := startJob(t, env, collectJob(fakeInput(src), fakeInput(src)), Options{ID: "twiceb", Bounded: true})
	got := fakeRows(drain(t, j))
	require.NoError(t, waitJob(t, j))
	var twice []fakeRow
	for _, r := range want {
		twice = append(twice, r, r)
	}
	require.Equal(t, twice, got)
}

// TestExternalReadTwiceScanBounded: a continuous job reading a
// 'scan.bounded' table twice ends once the one reader reached the bounds:
// both inputs get their final watermark and count as closed.
func TestExternalReadTwiceScanBounded(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("bounded2", 2)
	topic.add(0, 1000, 1, "x")
	topic.add(0, 2000, 2, "x")
	topic.add(0, 9000, 3, "beyond")
	topic.add(1, 3000, 4, "x")
	src := &fakeSource{topic: topic, bounds: map[int32]int64{0: 2, 1: 1}}
	j := startJob(t, env, collectJob(withWatermark(fakeInput(src)), withWatermark(fakeInput(src))), Options{ID: "bounded2"})
	require.ElementsMatch(t, []int64{1, 1, 2, 2, 4, 4}, keys(drain(t, j)))
	require.NoError(t, waitJob(t, j))
	require.Equal(t, map[int32]int64{0: 2, 1: 1}, positionsOf(t, j, src))
	require.Len(t, topic.openCalls(), 1)
}
