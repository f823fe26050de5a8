package engine

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/types"
)

// TestStateSize10MKeys is the state-size test of issue 11: `SELECT k,
// COUNT(*), SUM(v) ... GROUP BY k` over 10M events with 10M distinct keys
// into an upsert table, on disk, must keep the process's resident memory
// under 2 GiB while the job runs (the aggregate's write-back cache holds
// at most Options.CacheKeys groups; the rest live in Pebble). It takes
// minutes, so it runs only when EDDY_STATE_SIZE is set (`make state-size`):
//
//	EDDY_STATE_SIZE=1 go test -run TestStateSize10MKeys -v -timeout 30m ./internal/engine/
//
// EDDY_STATE_SIZE_KEYS changes the number of keys (and events).
func TestStateSize10MKeys(t *testing.T) {
	if os.Getenv("EDDY_STATE_SIZE") == "" {
		t.Skip("set EDDY_STATE_SIZE=1 to run the state-size test (minutes; make state-size)")
	}
	keys := 10_000_000
	if s := os.Getenv("EDDY_STATE_SIZE_KEYS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("EDDY_STATE_SIZE_KEYS=%q: want a positive number", s)
		}
		keys = n
	}
	const limit = 2 << 30
	ctx := context.Background()
	dir := t.TempDir()
	e, err := Open(ctx, Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	exec := func(sql string) {
		t.Helper()
		res, err := e.Execute(ctx, sql, false)
		if err != nil {
			t.Fatalf("%.60s: %v", sql, err)
		}
		if res.Rows != nil {
			for {
				_, ok, err := res.Rows.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
			}
			res.Rows.Close()
		}
	}
	exec("CREATE TABLE events (k BIGINT NOT NULL, v BIGINT NOT NULL) DISTRIBUTED INTO 1 BUCKETS")
	tbl, ok := e.cat.Table(catalog.DefaultCatalog, catalog.DefaultDatabase, "events")
	if !ok {
		t.Fatal("no table events")
	}
	// Every key once, in a scrambled order (an odd multiplier permutes
	// the 64-bit integers).
	start := time.Now()
	const chunk = 100_000
	rows := make([]types.Row, 0, chunk)
	for lo := 0; lo < keys; lo += chunk {
		rows = rows[:0]
		for i := lo; i < min(lo+chunk, keys); i++ {
			k := int64(uint64(i) * 0x9E3779B97F4A7C15 >> 1)
			rows = append(rows, types.Row{Kind: types.Insert, Values: []types.Value{types.NewInt(k), types.NewInt(int64(i % 1000))}})
		}
		if err := e.appendRows(tbl, rows); err != nil {
			t.Fatal(err)
		}
	}
	rows = nil
	t.Logf("loaded %d events in %s; RSS %s", keys, time.Since(start).Round(time.Second), mib(rss(t)))

	// Measure the peak resident memory of the job only.
	resetPeakRSS()
	var peak int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, rss(t))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	before := e.logRecords()
	cpu0 := pipelineCPU()
	start = time.Now()
	exec(`CREATE TABLE totals (PRIMARY KEY (k) NOT ENFORCED) DISTRIBUTED INTO 1 BUCKETS AS
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM events GROUP BY k`)
	exec("SHOW TABLES") // syncs: waits until the job committed everything
	wall, cpu := time.Since(start), pipelineCPU()-cpu0
	close(done)
	wg.Wait()
	peak = max(peak, peakRSS())
	if got := e.logRecords() - before; got != int64(keys) {
		t.Fatalf("totals received %d rows, want one per key (%d)", got, keys)
	}
	t.Logf("GROUP BY over %d keys: %s wall, %.2f µs CPU per event; peak RSS %s (limit %s); data directory %s",
		keys, wall.Round(time.Second), float64(cpu.Nanoseconds())/float64(keys)/1e3, mib(peak), mib(limit), mib(dirSize(t, dir)))
	if peak >= limit {
		t.Errorf("peak RSS %s while the job ran, want under %s", mib(peak), mib(limit))
	}
}

func mib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 0, 64) + " MiB" }

// rss returns the resident set size of the process (VmRSS).
func rss(t *testing.T) int64 { return procStatus(t, "VmRSS:") }

// peakRSS returns the peak resident set size since resetPeakRSS (VmHWM).
func peakRSS() int64 { return procStatus(nil, "VmHWM:") }

// resetPeakRSS resets VmHWM to the current RSS (Linux clear_refs 5).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func procStatus(t *testing.T, field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		if t != nil {
			t.Fatal(err)
		}
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func dirSize(t *testing.T, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil {
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Logf("data directory size: %v", err)
	}
	return n
}
