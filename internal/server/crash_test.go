package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/stretchr/testify/require"
)

// The crash tests run the eddy binary as `eddy server` on a fresh data
// directory and deploy, over REST, bounded pipelines of generated rows
// through examples.PassThroughEnrich into log tables. They kill the server
// with SIGKILL at many points (while records flow, right after a
// checkpoint commit, just before the next one, right after a restart,
// while a statement is stopping), or stop and resume the statement over
// REST, and check after every kill, with the server down, that the sink
// holds exactly the output of the input its checkpoint says it read: no
// row lost, none twice. At the end every row is there exactly once. The
// checks run in a child process (crash_inspect_test.go).
//
// The generated table has ids 1..rows (a sequence, so every row is
// distinguishable) and k = id % crashKeys. PassThroughEnrich appends a
// running count per key, so the sink row of id must be
// (id, id % crashKeys, (id-1)/crashKeys + 1): per key the counts are 1..n
// without gaps or repeats, and a replayed or lost row shows up as a
// missing, repeated or wrongly counted id.
//
// go test -run Crash -v ./internal/server/ (add -short for the 200k-row
// runs only). The log says where each kill landed and what survived. See
// "Crash guarantees, as tested" in docs/operating.md.

const (
	crashKeys = 100_000
	// crashInterval is the statements' 'execution.checkpointing.interval'.
	crashInterval = 100 * time.Millisecond
	// crashRate is the generated table's rows-per-second, at most: the jobs
	// must keep up with it, since a job that is behind its input takes no
	// periodic checkpoints, and kills would then always find the first
	// checkpoint (see docs/operating.md).
	crashRate = 50_000
	// crashPace is how long a small generated table takes at its
	// rows-per-second.
	crashPace = 8 * time.Second
)

func TestCrash(t *testing.T) {
	bins := crashBinaries{eddy: buildEddy(t), inspector: buildInspector(t)}
	t.Run("kill/200k", func(t *testing.T) { crashKill(t, bins, 200_000) })
	t.Run("stop-resume/200k", func(t *testing.T) { crashStopResume(t, bins, 200_000) })
	if testing.Short() {
		t.Log("-short: skipping the 1,000,000-row runs")
		return
	}
	t.Run("kill/1M", func(t *testing.T) { crashKill(t, bins, 1_000_000) })
	t.Run("stop-resume/1M", func(t *testing.T) { crashStopResume(t, bins, 1_000_000) })
}

// crashBinaries are the eddy binary and the inspector (buildInspector).
type crashBinaries struct{ eddy, inspector string }

// crashEnv is one data directory, its API key and the server running on
// it (p is nil while it is down).
type crashEnv struct {
	t         *testing.T
	bin, dir  string
	inspector string
	key       v1.APIKey
	rows      int64
	rng       *rand.Rand
	p         *process
	c         *client
	// uids are the statements' uids, by name (their checkpoint keys).
	uids map[string]string
}

func newCrashEnv(t *testing.T, bins crashBinaries, rows int64) *crashEnv {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command(bins.eddy, "api-key", "create", "--data-dir", dir, "-o", "json").Output()
	require.NoError(t, err)
	e := &crashEnv{t: t, bin: bins.eddy, inspector: bins.inspector, dir: dir, rows: rows, uids: map[string]string{},
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(rows)))}
	require.NoError(t, json.Unmarshal(out, &e.key))
	return e
}

func (e *crashEnv) start() {
	e.t.Helper()
	e.p = startServer(e.t, e.bin, e.dir)
	e.c = e.p.client(e.key)
}

// kill sends SIGKILL and waits for the process to die.
func (e *crashEnv) kill() {
	e.t.Helper()
	err := e.p.stop(syscall.SIGKILL)
	var exitErr *exec.ExitError
	require.True(e.t, errors.As(err, &exitErr), "eddy server was not killed: %v", err)
	e.p, e.c = nil, nil
}

// term stops the server gracefully.
func (e *crashEnv) term() {
	e.t.Helper()
	require.NoError(e.t, e.p.stop(syscall.SIGTERM), "stderr:\n%s", e.p.stderr.String())
	e.p, e.c = nil, nil
}

// setup creates the function and the generated table: ids 1..rows at a
// pace of rows per crashPace.
func (e *crashEnv) setup() {
	e.t.Helper()
	e.c.run("fn", "CREATE FUNCTION PassThroughEnrich AS 'examples.PassThroughEnrich'")
	rps := min(max(int64(float64(e.rows)/crashPace.Seconds()), 1), crashRate)
	e.c.run("gen", fmt.Sprintf(`CREATE TABLE gen (id BIGINT, k AS id %% %d) WITH (
  'connector' = 'datagen',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d',
  'rows-per-second' = '%d')`, crashKeys, e.rows, rps))
}

// create creates a statement with properties and remembers its uid.
func (e *crashEnv) create(name, sql string, props map[string]string) {
	e.t.Helper()
	r := e.c.do(req{method: "POST", path: "/v1/statements",
		body: v1.Statement{Name: name, Spec: v1.Spec{Statement: sql, Properties: props}}})
	require.Equal(e.t, http.StatusCreated, r.status, "body: %s", r.body)
	var st v1.Statement
	r.decode(e.t, &st)
	e.uids[name] = st.Metadata.UID
	e.c.waitPhase(name, v1.Running)
}

// requireHealthy checks that a statement runs and never failed.
func (e *crashEnv) requireHealthy(name string, phases ...v1.Phase) {
	e.t.Helper()
	st := e.c.get(name)
	require.Contains(e.t, phases, st.Status.Phase, "%s: %s", name, st.Status.Detail)
	r := e.c.do(req{method: "GET", path: "/v1/statements/" + name + "/exceptions"})
	require.Equal(e.t, http.StatusOK, r.status)
	var ex v1.ExceptionList
	r.decode(e.t, &ex)
	require.Empty(e.t, ex.Data, "%s has exceptions", name)
}

// jobCounters are a statement's job metrics from /metrics (since the job
// last started).
type jobCounters struct {
	in, checkpoints int64
	ok              bool // the statement has a running job
}

func (e *crashEnv) counters(name string) jobCounters {
	e.t.Helper()
	r := e.c.do(req{method: "GET", path: "/metrics"})
	require.Equal(e.t, http.StatusOK, r.status, "body: %s", r.body)
	var c jobCounters
	suffix := `{statement="` + name + `"} `
	for _, line := range strings.Split(string(r.body), "\n") {
		name, value, found := strings.Cut(line, suffix)
		if !found {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		require.NoError(e.t, err, line)
		switch name {
		case "eddy_statement_records_in_total":
			c.in, c.ok = int64(v), true
		case "eddy_statement_checkpoints_total":
			c.checkpoints = int64(v)
		}
	}
	return c
}

// waitCounters polls the metrics until cond holds; false after timeout.
func (e *crashEnv) waitCounters(name string, timeout time.Duration, cond func(jobCounters) bool) (jobCounters, bool) {
	e.t.Helper()
	var c jobCounters
	ok := poll(timeout, func() bool {
		c = e.counters(name)
		return c.ok && cond(c)
	})
	return c, ok
}

// poll calls done every millisecond until it returns true; false after
// timeout.
func poll(timeout time.Duration, done func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// waitRead waits until the statement's job has read n rows since it
// started, or until the statement completed: a job that reads the last
// rows of a bounded table ends soon after, and its counters go with it,
// possibly between two polls of a slow machine. False after timeout.
func (e *crashEnv) waitRead(name string, n int64, timeout time.Duration) bool {
	e.t.Helper()
	return poll(timeout, func() bool {
		c := e.counters(name)
		return c.ok && c.in >= n || !c.ok && e.c.get(name).Status.Phase == v1.Completed
	})
}

// diagnose says, for a failed wait, what the server reports of a
// statement: its phase, detail and exceptions, its counters, and the
// server's last warnings and errors.
func (e *crashEnv) diagnose(name string) string {
	e.t.Helper()
	var b strings.Builder
	st := e.c.get(name)
	fmt.Fprintf(&b, "%s: %s %s\n", name, st.Status.Phase, st.Status.Detail)
	if r := e.c.do(req{method: "GET", path: "/v1/statements/" + name + "/exceptions"}); r.status == http.StatusOK {
		fmt.Fprintf(&b, "exceptions: %s\n", r.body)
	}
	c := e.counters(name)
	fmt.Fprintf(&b, "counters: running job %v, %d records in, %d checkpoints\n", c.ok, c.in, c.checkpoints)
	all := strings.Split(strings.TrimSpace(e.p.stderr.String()), "\n")
	var lines []string
	for _, line := range all {
		if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
			lines = append(lines, line)
		}
	}
	b.WriteString("server warnings and errors (last 40):\n")
	b.WriteString(strings.Join(lines[max(0, len(lines)-40):], "\n"))
	b.WriteString("\nthe server's last 15 log lines:\n")
	b.WriteString(strings.Join(all[max(0, len(all)-15):], "\n"))
	return b.String()
}

// inspect checks the data directory with the server down (see
// crash_inspect_test.go) and fails the test on any lost, duplicated or
// wrong row.
func (e *crashEnv) inspect(label, enrich, feed string) *inspectResult {
	e.t.Helper()
	require.Nil(e.t, e.p, "inspect needs the server down")
	res := runInspector(e.t, e.inspector, inspectRequest{Dir: e.dir, Rows: e.rows, UIDs: e.uids, Enrich: enrich, Feed: feed})
	require.Empty(e.t, res.Problems, "%s: sink has %d rows, the checkpoint covers %d input rows", label, res.SinkRows, res.Covered)
	return &res
}

// crashKill: one statement, datagen -> PassThroughEnrich (2 subtasks) ->
// sink, killed at several points; after each kill the sink must hold
// exactly ids 1..P where P is the checkpointed position.
func crashKill(t *testing.T, bins crashBinaries, rows int64) {
	e := newCrashEnv(t, bins, rows)
	e.start()
	e.setup()
	const name = "enrich"
	e.create(name, `CREATE TABLE sink DISTRIBUTED INTO 2 BUCKETS AS
SELECT * FROM PassThroughEnrich(input => TABLE gen PARTITION BY k)`, map[string]string{
		"execution.checkpointing.interval": crashInterval.String(),
		"parallelism.default":              "2",
	})

	// Kill points; each runs with the server up and returns where it
	// killed.
	flowing := func() jobCounters {
		c, ok := e.waitCounters(name, waitTimeout, func(c jobCounters) bool { return c.in > 0 })
		require.True(t, ok, "the job read nothing\n%s", e.diagnose(name))
		return c
	}
	midBatch := func() string {
		flowing()
		d := time.Duration(20+e.rng.IntN(400)) * time.Millisecond
		time.Sleep(d)
		return fmt.Sprintf("records flowing, %v after the first record", d)
	}
	// checkpointed waits for the 2nd to 4th periodic checkpoint after the
	// job started reading (the first one usually comes at once, for the
	// few rows read when the restarted job's first tick is served).
	checkpointed := func() (jobCounters, bool) {
		c0 := flowing()
		n := c0.checkpoints + 2 + int64(e.rng.IntN(3))
		return e.waitCounters(name, 10*time.Second, func(c jobCounters) bool { return c.checkpoints >= n })
	}
	// afterCheckpoint kills as soon as the checkpoint counter moves: right
	// after logstore.Commit returned.
	afterCheckpoint := func() string {
		c, ok := checkpointed()
		if !ok {
			return fmt.Sprintf("no checkpoint within 10s (read %d records since start)", c.in)
		}
		return fmt.Sprintf("right after checkpoint #%d was committed", c.checkpoints)
	}
	// beforeCheckpoint kills 0-10ms before the next periodic checkpoint is
	// due, after seeing one: into the barrier, the flush or the commit.
	beforeCheckpoint := func() string {
		c, ok := checkpointed()
		if !ok {
			return fmt.Sprintf("no checkpoint within 10s (read %d records since start)", c.in)
		}
		early := time.Duration(e.rng.IntN(10_000)) * time.Microsecond
		time.Sleep(crashInterval - early)
		return fmt.Sprintf("%v before checkpoint #%d was due", early, c.checkpoints+1)
	}
	// atStart kills 0-30ms after the server listens: the statement's job
	// was restarted from its checkpoint just before.
	atStart := func() string {
		d := time.Duration(e.rng.IntN(30_000)) * time.Microsecond
		time.Sleep(d)
		return fmt.Sprintf("%v after the restarted server listened", d)
	}
	kills := []func() string{midBatch, afterCheckpoint, beforeCheckpoint, atStart, afterCheckpoint, beforeCheckpoint, midBatch}

	var last int64
	check := func(i int, where string) {
		label := fmt.Sprintf("kill %d, %s", i, where)
		s := e.inspect(label, name, "")
		pos := s.Positions[name][genPosition]
		require.GreaterOrEqual(t, pos, last, "%s: the committed position went back", label)
		t.Logf("%s: checkpoint at %d/%d rows, the sink holds exactly ids 1..%d (%d rows)", label, pos, rows, pos, s.SinkRows)
		last = pos
	}
	for i, kill := range kills {
		if e.p == nil {
			e.start()
		}
		e.requireHealthy(name, v1.Running)
		where := kill()
		c := e.counters(name)
		e.kill()
		prev := last
		check(i+1, fmt.Sprintf("%s; the job had read %d rows and committed %d checkpoints since its start", where, c.in, c.checkpoints))
		if c.checkpoints > 0 && last == prev {
			// Each periodic checkpoint covers new rows, so the position
			// should have moved: the job's commits were acknowledged but
			// did not survive SIGKILL (the unwritten WAL tail; see
			// docs/operating.md).
			t.Logf("kill %d: none of the %d checkpoints the job committed survived the kill", i+1, c.checkpoints)
		}
	}

	// Run to the end: wait until the job read the rest, give the next
	// periodic checkpoint time to commit it, and kill.
	for attempt := 0; last < rows; attempt++ {
		require.Less(t, attempt, 3, "the statement does not finish")
		e.start()
		e.requireHealthy(name, v1.Running)
		rest := rows - last
		require.True(t, e.waitRead(name, rest, 2*time.Minute), "the job did not read the remaining %d rows\n%s", rest, e.diagnose(name))
		time.Sleep(10 * crashInterval)
		e.kill()
		check(len(kills)+attempt+1, "after the job read its last row")
	}

	// A statement over a bounded generated table completes once it wrote
	// every row; after a restart it stays COMPLETED and reads nothing again.
	e.start()
	deadline := time.Now().Add(time.Minute)
	for e.c.get(name).Status.Phase != v1.Completed {
		require.True(t, time.Now().Before(deadline), "%s did not complete", name)
		time.Sleep(20 * time.Millisecond)
	}
	e.requireHealthy(name, v1.Completed)
	time.Sleep(5 * crashInterval)
	c := e.counters(name)
	require.False(t, c.ok, "a completed statement has no running job")
	e.term()
	s := e.inspect("after the end", name, "")
	require.Equal(t, rows, s.Positions[name][genPosition])
	require.Equal(t, int(rows), s.SinkRows)
}

// crashStopResume: a feeder statement copies the generated rows into the
// log table events (2 buckets, by k) at their pace; the statement enrich
// reads events through PassThroughEnrich into sink and is stopped and
// resumed over REST (PUT spec.stopped) while the feeder writes, once
// killed while STOPPING. At the end both tables hold every row exactly
// once.
func crashStopResume(t *testing.T, bins crashBinaries, rows int64) {
	e := newCrashEnv(t, bins, rows)
	e.start()
	e.setup()
	props := map[string]string{"execution.checkpointing.interval": crashInterval.String()}
	e.create("feed", "CREATE TABLE events DISTRIBUTED BY (k) INTO 2 BUCKETS AS SELECT id, k FROM gen", props)
	const name = "enrich"
	e.create(name, "CREATE TABLE sink AS SELECT * FROM PassThroughEnrich(input => TABLE events PARTITION BY k)", props)

	// progress is the events rows enrich has committed (from its
	// latest_offsets while it runs), or -1.
	progress := func() int64 {
		st := e.c.get(name)
		off, ok := st.Status.LatestOffsets["default_catalog.default_database.events"]
		if !ok {
			return -1
		}
		var n int64
		for _, part := range strings.Split(off, ";") {
			_, o, _ := strings.Cut(part, "offset:")
			v, err := strconv.ParseInt(o, 10, 64)
			require.NoError(t, err, off)
			n += v
		}
		return n
	}

	const cycles = 5
	for i := 1; i <= cycles; i++ {
		time.Sleep(time.Duration(100+e.rng.IntN(500)) * time.Millisecond)
		before := progress()
		st := e.c.update(name, true)
		require.Contains(t, []v1.Phase{v1.Stopping, v1.Stopped}, st.Status.Phase)
		if i == 3 {
			// Kill while the final checkpoint of the stop is being taken.
			time.Sleep(time.Duration(e.rng.IntN(5000)) * time.Microsecond)
			e.kill()
			s := e.inspect("killed while stopping", name, "feed")
			t.Logf("cycle %d: killed while STOPPING: events holds exactly ids 1..%d (the feeder's checkpoint), the sink exactly the %d rows the checkpoint of %s covers", i, s.Positions["feed"][genPosition], s.SinkRows, name)
			e.start()
			e.requireHealthy(name, v1.Stopped)
			e.requireHealthy("feed", v1.Running, v1.Completed)
		} else {
			e.c.waitPhase(name, v1.Stopped)
			t.Logf("cycle %d: stopped (had committed %d events rows before the stop)", i, before)
		}
		time.Sleep(time.Duration(50+e.rng.IntN(250)) * time.Millisecond)
		e.c.update(name, false)
		e.c.waitPhase(name, v1.Running)
	}

	// Kill right after enrich reports a new checkpoint (its latest_offsets,
	// read from the store, moved).
	p0 := progress()
	deadline := time.Now().Add(10 * time.Second)
	reported := p0
	for reported <= p0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		reported = progress()
	}
	e.kill()
	s := e.inspect("killed after a reported checkpoint", name, "feed")
	var committed int64
	for _, o := range s.Positions[name] {
		committed += o
	}
	if committed < reported {
		t.Logf("killed right after enrich reported a checkpoint at %d events rows: that checkpoint did not survive, enrich resumes from %d (the sink holds exactly those rows)", reported, committed)
	} else {
		t.Logf("killed right after enrich reported a checkpoint at %d events rows: it survived (%d)", reported, committed)
	}
	e.start()
	e.requireHealthy(name, v1.Running)

	// Wait until enrich has committed every row.
	deadline = time.Now().Add(2 * time.Minute)
	for progress() < rows {
		require.True(t, time.Now().Before(deadline), "enrich committed %d of %d rows", progress(), rows)
		time.Sleep(50 * time.Millisecond)
	}
	e.requireHealthy(name, v1.Running)
	e.requireHealthy("feed", v1.Running, v1.Completed) // the feed is bounded
	e.term()
	s = e.inspect("at the end", name, "feed")
	require.Equal(t, rows, s.Positions["feed"][genPosition])
	require.Equal(t, int(rows), s.EventsRows)
	require.Equal(t, int(rows), s.SinkRows)
	t.Logf("after %d stop/resume cycles: events and sink hold ids 1..%d exactly once", cycles, rows)
}
