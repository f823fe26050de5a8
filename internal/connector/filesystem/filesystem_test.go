package filesystem

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func testTable(t *testing.T, dir, fmtName string, parts ...int) *connector.Table {
	t.Helper()
	return &connector.Table{Name: "t", FullName: "c.d.t",
		Columns:       []types.Field{{Name: "id", Type: types.Int}, {Name: "s", Type: types.String}, {Name: "dt", Type: types.String}},
		PartitionKeys: parts,
		Options:       map[string]string{"connector": Identifier, "path": dir, "format": fmtName},
	}
}

// readAll reads every record of an opened source, as the runtime takes
// them, and returns the decoded rows ("id|s|dt") and the records.
func readAll(t *testing.T, s *Source, r connector.Reader) ([]string, []connector.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	bounds := r.Bounds()
	done := func() bool {
		for p, b := range bounds {
			if r.Next(p) < b {
				return false
			}
		}
		return true
	}
	var rows []string
	var recs []connector.Record
	for !done() {
		batch, err := r.Fetch(ctx)
		require.NoError(t, err)
		for _, rec := range batch {
			recs = append(recs, rec)
			vals, kinds, err := s.Decode(&rec, nil, nil)
			require.NoError(t, err)
			for i := range kinds {
				var parts []string
				for _, v := range vals[i*3 : (i+1)*3] {
					parts = append(parts, v.String())
				}
				rows = append(rows, strings.Join(parts, "|"))
			}
		}
	}
	return rows, recs
}

func TestSourceResume(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "dt=x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dt=x", "a"), []byte("1,one\n\n2,\"two\nlines\"\r\n3,three"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dt=x", "b"), []byte("4,four\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dt=x", "_SUCCESS"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stray"), []byte("9,nine\n"), 0o644)) // not in a partition
	tab := testTable(t, dir, "csv", 2)
	in, err := Factory{}.Source(tab)
	require.NoError(t, err)
	s := in.Source.(*Source)
	r, err := s.Open(t.Context(), connector.Env{}, nil)
	require.NoError(t, err)
	rows, recs := readAll(t, s, r)
	require.NoError(t, r.Close())
	want := []string{"1|one|x", "4|four|x", "2|two\nlines|x", "3|three|x"} // heads first, then file by file
	require.Equal(t, want, rows)
	bounds := r.Bounds()

	// A checkpoint holds one past the start of the last record taken, or
	// the start of the next: resuming at either reads the rest once.
	for i, rec := range recs {
		for _, from := range []int64{rec.Offset + 1, rec.Offset} {
			s2 := in.Source.(*Source)
			r2, err := s2.Open(t.Context(), connector.Env{Bounds: bounds}, map[int32]int64{rec.Partition: from})
			require.NoError(t, err)
			got, _ := readAll(t, s2, r2)
			require.NoError(t, r2.Close())
			// Expected: every row of the other file, and this file's rows
			// after (from = Offset+1) or from (from = Offset) this one.
			var exp []string
			for j, other := range recs {
				switch {
				case other.Partition != rec.Partition:
					exp = append(exp, want[j])
				case other.Offset > rec.Offset || from == rec.Offset && other.Offset == rec.Offset:
					exp = append(exp, want[j])
				}
			}
			require.ElementsMatch(t, exp, got, "record %d, from %d", i, from)
		}
	}

	// A file added after the statement started is not read on resume; a
	// file it was reading that is gone is an error.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dt=x", "c"), []byte("5,five\n"), 0o644))
	r3, err := s.Open(t.Context(), connector.Env{Bounds: bounds}, nil)
	require.NoError(t, err)
	got, _ := readAll(t, s, r3)
	require.ElementsMatch(t, want, got)
	require.NoError(t, os.Remove(filepath.Join(dir, "dt=x", "b")))
	_, err = s.Open(t.Context(), connector.Env{Bounds: bounds}, nil)
	require.ErrorContains(t, err, "is gone")
}

// memKV is a connector.KV over a map.
type memKV map[string][]byte

func (m memKV) Get(k []byte) ([]byte, bool, error) { v, ok := m[string(k)]; return v, ok, nil }
func (m memKV) Set(k, v []byte) error              { m[string(k)] = append([]byte(nil), v...); return nil }
func (m memKV) Delete(k []byte) error              { delete(m, string(k)); return nil }
func (m memKV) Commit(fn func(connector.Batch) error) error {
	return fn(m)
}

func row(id int64, s, dt string) types.Row {
	return types.Row{Values: []types.Value{types.NewInt(id), types.NewString(s), types.NewString(dt)}}
}

func visible(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if hidden(filepath.Base(p)) {
			out = append(out, "hidden:"+filepath.Dir(rel))
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			out = append(out, filepath.Dir(rel)+":"+l)
		}
		return nil
	}))
	return out
}

func TestSinkRecovery(t *testing.T) {
	dir := t.TempDir()
	tab := testTable(t, dir, "json", 2)
	sink, err := Factory{}.Sink(tab, connector.SinkOptions{})
	require.NoError(t, err)
	env := connector.Env{Job: "job-1", KeyPrefix: []byte("p/"), Now: time.Now}
	kv := memKV{}
	ctx := t.Context()

	w, err := sink.Open(ctx, env, kv)
	require.NoError(t, err)
	require.NoError(t, w.Write(ctx, row(1, "a", "x")))
	require.NoError(t, w.Write(ctx, row(2, "b", "y")))
	require.NoError(t, w.Prepare(ctx, kv))
	require.NoError(t, w.Commit(ctx))
	require.ElementsMatch(t, []string{`dt=x:{"id":1,"s":"a"}`, `dt=y:{"id":2,"s":"b"}`}, visible(t, dir))

	// Checkpoint 2 is prepared and its batch committed, then the process
	// dies before the renames; rows after it are in an in-progress file.
	require.NoError(t, w.Write(ctx, row(3, "c", "x")))
	require.NoError(t, w.Prepare(ctx, kv))
	require.NoError(t, w.Write(ctx, row(4, "d", "x")))
	require.NoError(t, w.(*writer).open[filepath.Join(dir, "dt=x")].w.Flush())
	require.ElementsMatch(t, []string{`dt=x:{"id":1,"s":"a"}`, `dt=y:{"id":2,"s":"b"}`, "hidden:dt=x", "hidden:dt=x"}, visible(t, dir))

	// The restarted job completes checkpoint 2 and drops row 4's file (it
	// writes row 4 again from the checkpoint's positions).
	w2, err := sink.Open(ctx, env, kv)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{`dt=x:{"id":1,"s":"a"}`, `dt=y:{"id":2,"s":"b"}`, `dt=x:{"id":3,"s":"c"}`}, visible(t, dir))
	// Opening again applies the same marker again: nothing changes.
	w3, err := sink.Open(ctx, env, kv)
	require.NoError(t, err)
	require.NoError(t, w3.Close())
	require.NoError(t, w2.Write(ctx, row(4, "d", "x")))
	require.NoError(t, w2.Prepare(ctx, kv))
	require.NoError(t, w2.Commit(ctx))
	require.NoError(t, w2.Close())
	require.ElementsMatch(t, []string{`dt=x:{"id":1,"s":"a"}`, `dt=y:{"id":2,"s":"b"}`, `dt=x:{"id":3,"s":"c"}`, `dt=x:{"id":4,"s":"d"}`}, visible(t, dir))

	// Another job's INSERT OVERWRITE replaces the partitions it writes
	// (dt=x) at its first commit and keeps the others; a crash between its
	// batch commit and the deletions is completed on restart.
	osink, err := Factory{}.Sink(tab, connector.SinkOptions{Overwrite: true})
	require.NoError(t, err)
	oenv := connector.Env{Job: "job-2", KeyPrefix: []byte("q/"), Now: time.Now}
	ow, err := osink.Open(ctx, oenv, kv)
	require.NoError(t, err)
	require.NoError(t, ow.Write(ctx, row(10, "new", "x")))
	require.NoError(t, ow.Prepare(ctx, kv))
	require.NoError(t, ow.Close()) // dies before Commit
	ow2, err := osink.Open(ctx, oenv, kv)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{`dt=y:{"id":2,"s":"b"}`, `dt=x:{"id":10,"s":"new"}`}, visible(t, dir))
	// Later checkpoints of the same overwrite add to the partition.
	require.NoError(t, ow2.Write(ctx, row(11, "newer", "x")))
	require.NoError(t, ow2.Prepare(ctx, kv))
	require.NoError(t, ow2.Commit(ctx))
	require.NoError(t, ow2.Close())
	require.ElementsMatch(t, []string{`dt=y:{"id":2,"s":"b"}`, `dt=x:{"id":10,"s":"new"}`, `dt=x:{"id":11,"s":"newer"}`}, visible(t, dir))
}

func TestSinkRolling(t *testing.T) {
	dir := t.TempDir()
	tab := testTable(t, dir, "csv")
	tab.Options["sink.rolling-policy.file-size"] = "10b"
	sink, err := Factory{}.Sink(tab, connector.SinkOptions{})
	require.NoError(t, err)
	kv := memKV{}
	w, err := sink.Open(t.Context(), connector.Env{Job: "j"}, kv)
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, w.Write(t.Context(), row(int64(i), "0123456789", "")))
	}
	require.NoError(t, w.Prepare(t.Context(), kv))
	require.NoError(t, w.Commit(t.Context()))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 3, "a file per row past 10 bytes")
	for _, e := range entries {
		require.True(t, strings.HasPrefix(e.Name(), "part-j-0-"), e.Name())
	}
}

func TestPartitionPaths(t *testing.T) {
	for _, tc := range []struct {
		v    types.Value
		typ  types.Type
		text string
	}{
		{types.NewString("a/b=c%"), types.String, "a%2Fb%3Dc%25"},
		{types.NewString(""), types.String, DefaultPartitionName},
		{types.Null, types.Int, DefaultPartitionName},
		{types.NewInt(-7), types.BigInt, "-7"},
		{types.NewBool(true), types.Boolean, "true"},
		{types.NewDate(types.DaysFromCivil(2024, 1, 31)), types.Date, "2024-01-31"},
		{types.NewTimestamp(1706696130500 * 1e6), types.TimestampLTZ(3), "2024-01-31T10%3A15%3A30.500Z"},
	} {
		got := escapePathName(partitionText(tc.v, tc.typ, DefaultPartitionName))
		require.Equal(t, tc.text, got)
		if tc.typ.ID == types.TypeTimestampLTZ || tc.v.IsNull() || tc.v.Str() == "" && tc.typ.ID == types.TypeVarChar {
			continue
		}
		back, err := parsePartition(unescapePathName(got), tc.typ, DefaultPartitionName)
		require.NoError(t, err)
		require.Equal(t, 0, types.Compare(tc.v, back), "%v", tc.v)
	}
	ts, err := parsePartition("2024-01-31T10:15", types.Timestamp(3), DefaultPartitionName)
	require.NoError(t, err)
	require.Equal(t, "2024-01-31 10:15:00.000", types.Format(ts, types.Timestamp(3)))
}

// TestPartitionCommitOptions: Flink's partition-commit options (Nexmark
// q10's) are accepted; an unknown commit policy is refused.
func TestPartitionCommitOptions(t *testing.T) {
	tbl := testTable(t, t.TempDir(), "csv", 2)
	for k, v := range map[string]string{
		"sink.partition-commit.trigger":              "partition-time",
		"sink.partition-commit.delay":                "1 min",
		"sink.partition-commit.policy.kind":          "success-file, metastore",
		"partition.time-extractor.timestamp-pattern": "$dt $hm:00",
		"sink.rolling-policy.rollover-interval":      "1min",
		"sink.rolling-policy.check-interval":         "1min",
	} {
		tbl.Options[k] = v
	}
	c, err := parse(tbl)
	require.NoError(t, err)
	require.Equal(t, time.Minute, c.rollover)
	tbl.Options["sink.partition-commit.policy.kind"] = "success-file,hive"
	_, err = parse(tbl)
	require.ErrorContains(t, err, "unknown policy 'hive'")
}

// TestSingleFile: 'path' may name one file (Nexmark q13's side input):
// the table reads it and cannot be written.
func TestSingleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "side_input.txt")
	require.NoError(t, os.WriteFile(path, []byte("1,a,x\n2,b,y\n"), 0o644))
	tbl := testTable(t, path, "csv")
	_, err := Factory{}.Create(t.Context(), tbl)
	require.NoError(t, err)
	c, err := parse(tbl)
	require.NoError(t, err)
	files, err := c.listFiles()
	require.NoError(t, err)
	require.Len(t, files, 1)
	require.Equal(t, path, files[0].path)
	_, err = Factory{}.Sink(tbl, connector.SinkOptions{})
	require.ErrorContains(t, err, "can be read, not written")
	_, err = Factory{}.Create(t.Context(), testTable(t, path, "csv", 2))
	require.ErrorContains(t, err, "is a file, not a directory")
}
