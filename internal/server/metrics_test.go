package server_test

import (
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	require.Equal(t, string(want), got)
}

// fakeJobs serves job counters by statement name.
type fakeJobs map[string]runtime.Metrics

func (f fakeJobs) JobMetrics(name string) (runtime.Metrics, bool) {
	m, ok := f[name]
	return m, ok
}

// fakeLags serves source lags by statement name.
type fakeLags map[string]int64

func (f fakeLags) SourceLag(name string) (int64, bool) {
	l, ok := f[name]
	return l, ok
}

func (e *client) scrape() string {
	e.t.Helper()
	r := e.do(req{method: "GET", path: "/metrics"})
	require.Equal(e.t, http.StatusOK, r.status, "body: %s", r.body)
	require.Equal(e.t, "text/plain; version=0.0.4; charset=utf-8", r.header.Get("Content-Type"))
	return string(r.body)
}

// TestMetricsGolden checks the exposition of every family with job
// counters from a fake and statements in fixed phases.
func TestMetricsGolden(t *testing.T) {
	clock := &runtime.ManualClock{T: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)}
	jobs := fakeJobs{
		"ingest": {
			RecordsIn: 1200, RecordsOut: 1100, Checkpoints: 42,
			LastCheckpointDuration: 12500 * time.Microsecond, LastCheckpointBytes: 65536,
			Watermark: clock.T.Add(-90 * time.Second), LateRecordsDropped: 7,
		},
		"fresh": {}, // started, nothing read, no checkpoint yet
	}
	lags := fakeLags{"ingest": 250}
	e := newEnv(t, envOptions{server: func(o *server.Options) { o.JobMetrics = jobs; o.SourceLags = lags; o.Clock = clock }})
	for _, name := range []string{"ingest", "fresh", "idle"} {
		r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{Name: name, Spec: v1.Spec{Statement: "SHOW TABLES", Stopped: true}}})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	}
	e.run("done", "SHOW TABLES")
	checkGolden(t, "metrics.golden", statementFamilies(e.scrape()))
}

// statementFamilies keeps the lines of the eddy_statement* families, the
// ones Eddy computes (the go_*, process_* and eddy_http_* families vary
// from run to run).
func statementFamilies(out string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		if strings.HasPrefix(name, "eddy_statement") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestMetricsRuntimeAndHTTP checks the families of client_golang's
// collectors: Go runtime, process, and the HTTP instrumentation of every
// route (refused and unrouted requests included, the latter under one
// label).
func TestMetricsRuntimeAndHTTP(t *testing.T) {
	e := newEnv(t)
	e.create("one", "SHOW TABLES")
	for range 3 {
		require.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/v1/statements"}).status)
	}
	require.Equal(t, http.StatusUnauthorized, e.do(req{method: "GET", path: "/v1/statements", noAuth: true}).status)
	require.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: "/v1/nope/1"}).status)
	require.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: "/v1/nope/2"}).status)
	require.Equal(t, http.StatusMethodNotAllowed, e.do(req{method: "PATCH", path: "/v1/statements"}).status)

	out := e.scrape()
	for _, line := range []string{
		`eddy_http_requests_total{code="201",handler="POST /v1/statements",method="post"} 1`,
		`eddy_http_requests_total{code="200",handler="GET /v1/statements",method="get"} 3`,
		`eddy_http_requests_total{code="401",handler="GET /v1/statements",method="get"} 1`,
		`eddy_http_requests_total{code="404",handler="other",method="get"} 2`,
		`eddy_http_requests_total{code="405",handler="other",method="patch"} 1`,
		`eddy_http_request_duration_seconds_count{handler="GET /v1/statements",method="get"} 4`,
		`eddy_http_requests_in_flight 1`, // the scrape itself
		`go_info{version="` + goruntime.Version() + `"} 1`,
	} {
		require.Contains(t, out, line+"\n")
	}
	for _, family := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "go_gc_duration_seconds", "process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds"} {
		require.Regexp(t, `(?m)^# TYPE `+family+` `, out)
	}
	// The scrapes are counted too, in the next scrape.
	require.Contains(t, e.scrape(), `eddy_http_requests_total{code="200",handler="GET /metrics",method="get"} 1`+"\n")
	// /metrics needs a key, as every endpoint but /healthz.
	require.Equal(t, http.StatusUnauthorized, e.do(req{method: "GET", path: "/metrics", noAuth: true}).status)
}

// stableLines keeps the lines of the families whose presence does not
// depend on timing or on the job counters being available (phases and
// state sizes), with the state sizes masked.
func stableLines(out string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "# HELP "), "# TYPE ")
		switch {
		case strings.HasPrefix(name, "eddy_statements{"), strings.HasPrefix(name, "eddy_statements "):
			b.WriteString(line)
		case strings.HasPrefix(name, "eddy_statement_state_size_bytes{"):
			b.WriteString(line[:strings.LastIndexByte(line, ' ')] + " N\n")
		case strings.HasPrefix(name, "eddy_statement_state_size_bytes "):
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestMetricsLive scrapes a server running a stateful statement: the
// phase gauges are exact, and the statement's state size is positive once
// its PTF state is committed.
func TestMetricsLive(t *testing.T) {
	e := newEnv(t)
	e.run("fn", "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'")
	e.run("events", `CREATE TABLE order_events (
  order_id INT NOT NULL, event_type STRING, event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time
) DISTRIBUTED INTO 1 BUCKETS`)
	e.run("fill", `INSERT INTO order_events VALUES
  (101, 'PLACED', TIMESTAMP '2026-08-01 09:00:00'),
  (102, 'PLACED', TIMESTAMP '2026-08-01 09:00:02'),
  (101, 'SHIPPED', TIMESTAMP '2026-08-01 09:00:30')`)
	e.create("status", `CREATE TABLE order_status (PRIMARY KEY (order_id) NOT ENFORCED)
DISTRIBUTED INTO 1 BUCKETS WITH ('changelog.mode' = 'upsert') AS
SELECT order_id, status FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)`)
	e.waitPhase("status", v1.Running)
	e.create("watch", "SELECT * FROM order_status")
	require.NotEmpty(t, e.results("watch", 2))

	out := e.scrape()
	checkGolden(t, "metrics_live.golden", stableLines(out))
	m := regexp.MustCompile(`(?m)^eddy_statement_state_size_bytes\{statement="status"\} (\d+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	size, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	require.Positive(t, size)

	// The watermark follows the last event time read (09:00:30), at most a
	// millisecond before it (Flink's bounded-delay watermark is max - 1ms).
	if _, ok := any(e.mgr).(server.JobMetrics); ok {
		m = regexp.MustCompile(`(?m)^eddy_statement_watermark_seconds\{statement="status"\} (\S+)$`).FindStringSubmatch(out)
		require.NotNil(t, m, out)
		wm, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		last := float64(time.Date(2026, 8, 1, 9, 0, 30, 0, time.UTC).Unix())
		require.InDelta(t, last-0.0005, wm, 0.0006, "watermark %s", m[1])
		require.Regexp(t, `(?m)^eddy_statement_watermark_lag_seconds\{statement="status"\} \d`, out)
	}
}

// TestMetricsJobCounters checks the job counters of a live statement when
// the statement manager exposes them (server.JobMetrics).
func TestMetricsJobCounters(t *testing.T) {
	if _, ok := any((*statement.Manager)(nil)).(server.JobMetrics); !ok {
		t.Skip("statement.Manager does not implement server.JobMetrics: /metrics exports no job counters")
	}
	e := newEnv(t)
	e.run("src", "CREATE TABLE src (id INT) DISTRIBUTED INTO 1 BUCKETS")
	e.run("sink", "CREATE TABLE sink (id INT) DISTRIBUTED INTO 1 BUCKETS")
	e.run("fill", "INSERT INTO src VALUES (1), (2), (3)")
	e.create("copy", "INSERT INTO sink SELECT * FROM src")
	e.waitPhase("copy", v1.Running)
	e.create("watch", "SELECT * FROM sink")
	e.results("watch", 3)
	out := e.scrape()
	for _, line := range []string{
		`eddy_statement_records_in_total{statement="copy"} 3`,
		`eddy_statement_records_out_total{statement="copy"} 3`,
	} {
		require.Contains(t, out, line+"\n")
	}
	require.Regexp(t, `(?m)^eddy_statement_checkpoints_total\{statement="copy"\} [1-9]\d*$`, out)
	require.Contains(t, out, `eddy_statement_records_skipped_total{statement="copy"} 0`+"\n")
	require.Regexp(t, `(?m)^eddy_statement_last_checkpoint_duration_seconds\{statement="copy"\} \d`, out)
	require.Regexp(t, `(?m)^eddy_statement_last_checkpoint_size_bytes\{statement="copy"\} \d`, out)

	// Source lag: once a checkpoint covers the three rows, 0.
	require.Eventually(t, func() bool {
		return strings.Contains(e.scrape(), `eddy_statement_source_lag_records{statement="copy"} 0`+"\n")
	}, waitTimeout, 20*time.Millisecond)
	// A statement that takes no checkpoint (an interval of an hour) lags by
	// every row of its input however much it read; more rows add to it.
	r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{Name: "slow", Spec: v1.Spec{
		Statement:  "INSERT INTO sink SELECT * FROM src",
		Properties: map[string]string{"execution.checkpointing.interval": "1h"},
	}}})
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	e.waitPhase("slow", v1.Running)
	require.Eventually(t, func() bool {
		return strings.Contains(e.scrape(), `eddy_statement_records_in_total{statement="slow"} 3`+"\n")
	}, waitTimeout, 20*time.Millisecond)
	require.Contains(t, e.scrape(), `eddy_statement_source_lag_records{statement="slow"} 3`+"\n")
	e.run("fill-2", "INSERT INTO src VALUES (4), (5)")
	require.Contains(t, e.scrape(), `eddy_statement_source_lag_records{statement="slow"} 5`+"\n")
}
