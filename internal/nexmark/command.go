package nexmark

import (
	"context"
	"fmt"
	"io"
	goruntime "runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// Command returns the `bench` command with `bench nexmark` under it, for
// cli.Options.Commands.
func Command(stdout, stderr io.Writer) *cobra.Command {
	bench := &cobra.Command{
		Use:   "bench",
		Short: "Run benchmarks",
		Long: `Commands under 'eddy bench' run benchmarks on an embedded engine in this
process, each on a fresh temporary data directory.`,
		Example:      "  eddy bench nexmark --queries q0,q1,q2 --events 1000000",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	bench.AddCommand(newNexmarkCommand(stdout, stderr))
	return bench
}

type nexmarkCommand struct {
	stdout, stderr io.Writer
	queries        string
	events, tps    int64
	cores          int
	checkpoint     time.Duration
	check          bool
	miniBatch      bool
	markdown       bool
	dir            string
}

func newNexmarkCommand(stdout, stderr io.Writer) *cobra.Command {
	n := &nexmarkCommand{stdout: stdout, stderr: stderr}
	cmd := &cobra.Command{
		Use:   "nexmark [--queries q0,q1,...] [--events N] [--tps N] [--cores 1]",
		Short: "Run the Nexmark queries q0-q22 and print what each costs per core",
		Long: `Run queries of the Nexmark benchmark as the Nexmark suite runs them on Flink
(the scripts in examples/nexmark: the 'nexmark' source table, the person,
auction and bid views, and the query writing into a blackhole table), each
over --events events on a fresh engine, and print a table:

  events/s/core  events per second of CPU time (user + system of the process,
                 garbage collection included), the figure Nexmark publishes
  events/s       events per second of wall time
  p50, p99       latency of result rows: from the source sending a batch of
                 events to the sink receiving the rows they produced
                 (queueing included; waiting for a window to close is not)
  state          bytes of keyed state and timers in the store at the end
  allocs/event   heap allocations per event
  rows           changes written to the sink

The source emits events as fast as the job takes them (Nexmark's
max-emit-speed); --tps is their rate in event time (first-event.rate), which
decides how many events fall in a window. --cores sets GOMAXPROCS (1: one
core, as the per-core figures assume).

With --check, each query instead runs over --events events and its final
result is compared with a plain-Go reference implementation.

By default the queries Eddy runs today are run; --queries all also lists the
others with what they wait for. See docs/nexmark.md.`,
		Example: `  # The running queries over 1M events on one core
  eddy bench nexmark

  # Three queries, 10M events, as a Markdown table
  eddy bench nexmark --queries q0,q1,q2 --events 10000000 --markdown

  # Compare the results of every running query with the reference
  eddy bench nexmark --check --events 100000 --tps 1000`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return n.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&n.queries, "queries", "", "comma-separated queries (q0,q5,...), 'running' (the default) or 'all'")
	f.Int64Var(&n.events, "events", 1_000_000, "events per query (events.num)")
	f.Int64Var(&n.tps, "tps", 10_000_000, "events per second of event time (first-event.rate)")
	f.IntVar(&n.cores, "cores", 1, "GOMAXPROCS during the runs (0: leave it)")
	f.DurationVar(&n.checkpoint, "checkpoint-interval", 0, "checkpoint interval of the jobs (default: the runtime's, 1s)")
	f.BoolVar(&n.miniBatch, "mini-batch", false, "run with the Flink suite's mini-batch setting ('table.exec.mini-batch.*': 2 s, 50000 rows)")
	f.BoolVar(&n.check, "check", false, "compare each query's result with the reference implementation instead of measuring it")
	f.BoolVar(&n.markdown, "markdown", false, "print the table in Markdown")
	f.StringVar(&n.dir, "dir", "", "where the runs' temporary data directories go (default: the system's temporary directory)")
	return cmd
}

// selectQueries resolves --queries.
func selectQueries(spec string) ([]Query, error) {
	switch strings.TrimSpace(spec) {
	case "", "running":
		var out []Query
		for _, q := range Queries {
			if q.Runs() {
				out = append(out, q)
			}
		}
		return out, nil
	case "all":
		return Queries, nil
	}
	var out []Query
	for _, name := range strings.Split(spec, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if !strings.HasPrefix(name, "q") {
			name = "q" + name
		}
		q, ok := Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown query %q: the suite has q0 to q22", name)
		}
		out = append(out, q)
	}
	return out, nil
}

func (n *nexmarkCommand) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	qs, err := selectQueries(n.queries)
	if err != nil {
		return err
	}
	if n.events < 1 || n.tps < 1 {
		return fmt.Errorf("--events and --tps must be at least 1")
	}
	if n.cores > 0 {
		defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(n.cores))
	}
	if n.check {
		return n.runCheck(ctx, qs)
	}
	t := newTable(n.stdout, n.markdown, "query", "events/s/core", "events/s", "p50", "p99", "state", "allocs/event", "rows")
	failed := 0
	var waiting []string
	for _, q := range qs {
		if !q.Runs() {
			waiting = append(waiting, fmt.Sprintf("%s waits for %s", q.Name, q.Waits))
			continue
		}
		fmt.Fprintf(n.stderr, "running %s (%s) over %d events...\n", q.Name, q.Title, n.events)
		r, err := Bench(ctx, q.Name, BenchOptions{Events: n.events, TPS: n.tps, Dir: n.dir, CheckpointInterval: n.checkpoint, MiniBatch: n.miniBatch})
		if err != nil {
			failed++
			t.row(q.Name, "failed: "+err.Error())
			continue
		}
		perCore := "-"
		if r.CPU > 0 {
			perCore = fmt.Sprintf("%.0fk", r.EventsPerCoreSecond()/1000)
		}
		t.row(q.Name, perCore, fmt.Sprintf("%.0fk", r.EventsPerSecond()/1000), duration(r.P50), duration(r.P99),
			byteSize(r.StateBytes), fmt.Sprintf("%.2f", r.AllocsPerEvent()), fmt.Sprint(r.Rows))
	}
	t.flush()
	if len(waiting) > 0 {
		fmt.Fprintf(n.stdout, "\nNot run:\n  %s\n", strings.Join(waiting, "\n  "))
	}
	fmt.Fprintf(n.stdout, "\n%d events per query at %d events/s of event time, GOMAXPROCS %d, %s/%s, %s.\n",
		n.events, n.tps, goruntime.GOMAXPROCS(0), goruntime.GOOS, goruntime.GOARCH, goruntime.Version())
	if failed > 0 {
		return fmt.Errorf("%d of %d queries failed", failed, len(qs))
	}
	return nil
}

func (n *nexmarkCommand) runCheck(ctx context.Context, qs []Query) error {
	t := newTable(n.stdout, n.markdown, "query", "result")
	bad := 0
	for _, q := range qs {
		if !q.Runs() {
			t.row(q.Name, "not run: waits for "+q.Waits)
			continue
		}
		fmt.Fprintf(n.stderr, "checking %s (%s) over %d events...\n", q.Name, q.Title, n.events)
		o, err := Verify(ctx, q.Name, Check{Events: n.events, TPS: n.tps, Start: time.Date(2015, 7, 15, 23, 59, 20, 0, time.UTC), MiniBatch: n.miniBatch})
		if err != nil {
			return err
		}
		if !o.Matches() {
			bad++
		}
		t.row(q.Name, strings.ReplaceAll(o.String(), "\n", "; "))
	}
	t.flush()
	if bad > 0 {
		return fmt.Errorf("%d of %d queries do not match the reference", bad, len(qs))
	}
	return nil
}

func duration(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// table prints rows as aligned text or Markdown.
type table struct {
	w        io.Writer
	tw       *tabwriter.Writer
	markdown bool
	cols     int
}

func newTable(w io.Writer, markdown bool, header ...string) *table {
	t := &table{w: w, markdown: markdown, cols: len(header)}
	if !markdown {
		t.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	}
	t.row(header...)
	if markdown {
		fmt.Fprintln(w, "|"+strings.Repeat("---|", len(header)))
	}
	return t
}

// row prints a row; a row with fewer cells than columns leaves the rest
// empty.
func (t *table) row(cells ...string) {
	for len(cells) < t.cols {
		cells = append(cells, "")
	}
	if t.markdown {
		fmt.Fprintln(t.w, "| "+strings.Join(cells, " | ")+" |")
		return
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() {
	if t.tw != nil {
		t.tw.Flush()
	}
}
