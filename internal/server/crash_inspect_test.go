package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// The crash tests read a killed server's data directory after every kill.
// Opening it replays Pebble's WAL (tens of MB after a million rows), which
// under -race takes seconds, so the reading and checking run in a child
// process: this package's test binary built without -race
// (buildInspector), running TestCrashInspectHelper.

// crashInspectEnv holds the JSON inspectRequest of a child process.
const crashInspectEnv = "EDDY_CRASH_INSPECT"

// genPosition is the checkpoint key of the generated table's rows read.
const genPosition = "gen:default_catalog.default_database.gen"

// inspectRequest says what to read and check.
type inspectRequest struct {
	Dir  string `json:"dir"`
	Rows int64  `json:"rows"`
	// UIDs are the statements' uids by name (their checkpoint keys).
	UIDs map[string]string `json:"uids"`
	// Enrich is the statement writing sink; Feed, if set, the statement
	// writing events, which Enrich then reads (else Enrich reads gen).
	Enrich string `json:"enrich"`
	Feed   string `json:"feed,omitempty"`
	// Out is where the child writes its inspectResult.
	Out string `json:"out"`
}

// inspectResult is what the child found.
type inspectResult struct {
	// Positions are the statements' committed source positions.
	Positions map[string]map[string]int64 `json:"positions"`
	// SinkRows is the number of rows of sink; Covered the input rows the
	// checkpoint of Enrich covers; EventsRows the rows of events.
	SinkRows, Covered, EventsRows int
	// Problems are lost, duplicated or wrong rows (at most 20 each).
	Problems []string `json:"problems,omitempty"`
}

// buildInspector builds this package's test binary without -race.
func buildInspector(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "server.test")
	out, err := exec.Command("go", "test", "-c", "-o", bin, "github.com/eddy-sql/eddy/internal/server").CombinedOutput()
	require.NoError(t, err, "go test -c: %s", out)
	return bin
}

// runInspector reads and checks a data directory in a child process.
func runInspector(t *testing.T, inspector string, rq inspectRequest) inspectResult {
	t.Helper()
	rq.Out = filepath.Join(t.TempDir(), "result.json")
	j, err := json.Marshal(rq)
	require.NoError(t, err)
	cmd := exec.Command(inspector, "-test.run", "^TestCrashInspectHelper$", "-test.count", "1")
	cmd.Env = append(os.Environ(), crashInspectEnv+"="+string(j))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "inspecting %s:\n%s", rq.Dir, out)
	b, err := os.ReadFile(rq.Out)
	require.NoError(t, err, "inspector output:\n%s", out)
	var res inspectResult
	require.NoError(t, json.Unmarshal(b, &res))
	return res
}

// TestCrashInspectHelper is the child process of runInspector; without
// its environment variable it does nothing.
func TestCrashInspectHelper(t *testing.T) {
	j := os.Getenv(crashInspectEnv)
	if j == "" {
		t.Skip("a helper process of TestCrash")
	}
	var rq inspectRequest
	require.NoError(t, json.Unmarshal([]byte(j), &rq))
	res, err := inspect(rq)
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(rq.Out, b, 0o600))
}

// crashRow is a decoded row of sink (id, k, count) or events (id, k).
type crashRow struct {
	partition int
	offset    int64
	kind      types.RowKind
	n         int
	vals      [3]int64
}

// inspect opens the data directory, reads the checkpoints and the tables
// and checks them:
//
//   - events (if Feed is set) holds exactly ids 1..P, P being the rows of
//     gen the checkpoint of Feed covers, each key in one partition and ids
//     increasing within a partition;
//   - sink holds exactly one row (id, id % crashKeys, (id-1)/crashKeys + 1)
//     per input row the checkpoint of Enrich covers, and nothing else: the
//     ids 1..P of gen, or the events rows below its offsets.
func inspect(rq inspectRequest) (*inspectResult, error) {
	reg := ptf.NewRegistry()
	if err := examples.Register(reg); err != nil {
		return nil, err
	}
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: rq.Dir, Registry: reg})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	res := &inspectResult{Positions: map[string]map[string]int64{}}
	for name, uid := range rq.UIDs {
		v, ok, err := eng.Env().DB.Get(append([]byte{store.PrefixCheckpoint}, "positions/stmt/"+uid...))
		if err != nil {
			return nil, err
		}
		pos := map[string]int64{}
		if ok {
			if err := json.Unmarshal(v, &pos); err != nil {
				return nil, err
			}
		}
		res.Positions[name] = pos
	}
	problems := map[string]int{}
	report := func(kind, format string, args ...any) {
		if problems[kind]++; problems[kind] <= 20 {
			res.Problems = append(res.Problems, fmt.Sprintf(format, args...))
		}
	}

	// covered[id]: the checkpoint of Enrich covers input row id.
	covered := make([]bool, rq.Rows+1)
	if rq.Feed == "" {
		for id := int64(1); id <= min(res.Positions[rq.Enrich][genPosition], rq.Rows); id++ {
			covered[id] = true
		}
	} else {
		events, log, err := readTable(eng, "events")
		if err != nil {
			return nil, err
		}
		res.EventsRows = len(events)
		fed := res.Positions[rq.Feed][genPosition]
		seen := make([]bool, rq.Rows+1)
		last := map[int]int64{}
		for _, r := range events {
			id := r.vals[0]
			switch {
			case r.kind != types.Insert || r.n != 2 || r.vals[1] != id%crashKeys:
				report("events-row", "events p%d@%d: unexpected row %v %v", r.partition, r.offset, r.kind, r.vals[:r.n])
				continue
			case id < 1 || id > fed:
				report("events-beyond", "events p%d@%d: id %d, but the checkpoint of %s covers ids 1..%d", r.partition, r.offset, id, rq.Feed, fed)
				continue
			case seen[id]:
				report("events-dup", "events p%d@%d: id %d twice (duplicate)", r.partition, r.offset, id)
			case id <= last[r.partition]:
				report("events-order", "events p%d@%d: id %d after id %d", r.partition, r.offset, id, last[r.partition])
			}
			seen[id], last[r.partition] = true, id
			if r.offset < res.Positions[rq.Enrich][log+"/"+strconv.Itoa(r.partition)] {
				covered[id] = true
			}
		}
		for id := int64(1); id <= fed; id++ {
			if !seen[id] {
				report("events-lost", "events: id %d is missing (lost)", id)
			}
		}
	}

	sink, _, err := readTable(eng, "sink")
	if err != nil {
		return nil, err
	}
	res.SinkRows = len(sink)
	seen := make([]bool, rq.Rows+1)
	for _, r := range sink {
		id := r.vals[0]
		switch {
		case r.kind != types.Insert || r.n != 3:
			report("sink-row", "sink p%d@%d: unexpected row %v %v", r.partition, r.offset, r.kind, r.vals[:r.n])
			continue
		case id < 1 || id > rq.Rows || !covered[id]:
			report("sink-beyond", "sink p%d@%d: id %d, which the checkpoint of %s does not cover", r.partition, r.offset, id, rq.Enrich)
			continue
		case r.vals[1] != id%crashKeys || r.vals[2] != (id-1)/crashKeys+1:
			report("sink-count", "sink p%d@%d: id %d has k=%d count=%d, want k=%d count=%d", r.partition, r.offset, id, r.vals[1], r.vals[2], id%crashKeys, (id-1)/crashKeys+1)
		case seen[id]:
			report("sink-dup", "sink p%d@%d: id %d twice (duplicate)", r.partition, r.offset, id)
		}
		seen[id] = true
	}
	for id := int64(1); id <= rq.Rows; id++ {
		if covered[id] {
			res.Covered++
			if !seen[id] {
				report("sink-lost", "sink: id %d is missing (lost)", id)
			}
		}
	}
	if res.SinkRows != res.Covered {
		report("sink-count", "sink has %d rows, the checkpoint of %s covers %d input rows", res.SinkRows, rq.Enrich, res.Covered)
	}
	for kind, n := range problems {
		if n > 20 {
			res.Problems = append(res.Problems, fmt.Sprintf("... %d %s problems in all", n, kind))
		}
	}
	return res, nil
}

// readTable reads every record of a log table in partition and offset
// order.
func readTable(eng *engine.Engine, name string) ([]crashRow, string, error) {
	tbl, ok := eng.Catalog().Table("default_catalog", "default_database", name)
	if !ok {
		return nil, "", fmt.Errorf("no table %s", name)
	}
	logs := eng.Env().Logs
	parts, err := logs.Partitions(tbl.Log)
	if err != nil {
		return nil, "", err
	}
	var rows []crashRow
	var row types.Row
	for p := 0; p < parts; p++ {
		r, err := logs.NewReader(tbl.Log, p, 0)
		if err != nil {
			return nil, "", err
		}
		for {
			rec, ok, err := r.Next()
			if err != nil {
				return nil, "", err
			}
			if !ok {
				break
			}
			if err := types.DecodeRowInto(rec.Value, &row); err != nil {
				return nil, "", fmt.Errorf("%s p%d@%d: %w", name, p, rec.Offset, err)
			}
			cr := crashRow{partition: p, offset: rec.Offset, kind: row.Kind, n: len(row.Values)}
			for i, v := range row.Values {
				if v.IsNull() || i >= len(cr.vals) {
					return nil, "", fmt.Errorf("%s p%d@%d: unexpected row %v", name, p, rec.Offset, row)
				}
				cr.vals[i] = v.Int()
			}
			rows = append(rows, cr)
		}
	}
	return rows, tbl.Log, nil
}
