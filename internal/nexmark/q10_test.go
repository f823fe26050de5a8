package nexmark

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	nexgen "github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/nexmark/reference"
	"github.com/stretchr/testify/require"
)

// TestQ10WritesFiles runs q10's script as it is, into its partitioned
// filesystem table, and reads the files back through a filesystem table
// over the same directory: the rows are the reference's, in dt=/hm=
// directories.
func TestQ10WritesFiles(t *testing.T) {
	const events = 45000 // 45 s of event time from 23:59:20
	dir := t.TempDir()
	require.NoError(t, Prepare(dir))
	v := DefaultVars(events)
	v.TPS, v.Dir, v.SubmitTime = 1000, dir, "2015-07-15T23:59:20"
	script, err := Script("q10", v)
	require.NoError(t, err)
	e, err := engine.Open(t.Context(), engine.Options{Clock: stillClock{testStart}})
	require.NoError(t, err)
	defer e.Close()
	require.NoError(t, Exec(t.Context(), e, Statements(script, false)))
	require.NoError(t, e.Sync(t.Context()))

	out := filepath.Join(dir, "data", "output", v.SubmitTime, "bid")
	days, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, d := range days {
		names = append(names, d.Name())
	}
	require.Equal(t, []string{"dt=2015-07-15", "dt=2015-07-16"}, names, "the events cross midnight")
	minutes, err := os.ReadDir(filepath.Join(out, "dt=2015-07-16"))
	require.NoError(t, err)
	require.NotEmpty(t, minutes)
	require.Equal(t, "hm=00%3A00", minutes[0].Name(), "':' is escaped in directory names, as in Flink")

	require.NoError(t, Exec(t.Context(), e, []string{`CREATE TABLE q10_files (
  auction BIGINT, bidder BIGINT, price BIGINT, ` + "`dateTime`" + ` TIMESTAMP(3), extra VARCHAR, dt STRING, hm STRING
) PARTITIONED BY (dt, hm) WITH ('connector' = 'filesystem', 'path' = '` + out + `', 'format' = 'csv')`}))
	res, err := e.Execute(t.Context(), "SELECT * FROM q10_files", false)
	require.NoError(t, err)
	schema, rows, err := Drain(t.Context(), res)
	require.NoError(t, err)

	tbl, err := nexgen.NewTable("datagen", nexgen.Schema(), map[string]string{
		nexgen.OptFirstEventRate: "1000",
		nexgen.OptEventsNum:      strconv.Itoa(events),
		nexgen.OptCreatedAt:      testStart.Format(time.RFC3339Nano),
	})
	require.NoError(t, err)
	want, err := reference.Compute("q10", reference.Events(tbl.Generator(), events), reference.Options{ProcTime: testStart.UnixMilli()})
	require.NoError(t, err)
	got := reference.Lines(schemaTypes(schema), rows)
	require.NotEmpty(t, got)
	require.Empty(t, diff(want.Lines(), got, 20), "%d rows read back, want %d", len(got), len(want.Lines()))
	_, err = os.Stat(filepath.Join(out, "dt=2015-07-16", minutes[0].Name(), "_SUCCESS"))
	require.True(t, os.IsNotExist(err), "the commit policy is accepted without effect: no success file")
}
