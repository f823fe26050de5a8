package server

import (
	"log/slog"
	"net/http"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The statement metric families. Their names are stable (dashboards and
// alerts use them); the collectors of client_golang add the go_*,
// process_* and eddy_http_* families beside them.
var (
	dStatements   = prometheus.NewDesc("eddy_statements", "Statements by phase.", []string{"phase"}, nil)
	dRecordsIn    = statementDesc("eddy_statement_records_in_total", "Records the statement's job read from its sources since it last started.")
	dRecordsOut   = statementDesc("eddy_statement_records_out_total", "Records the statement's job wrote to its sink since it last started.")
	dSourceLag    = statementDesc("eddy_statement_source_lag_records", "Records of the statement's log table inputs that its last checkpoint has not covered (end offsets minus committed positions).")
	dSkipped      = statementDesc("eddy_statement_records_skipped_total", "Input records the statement's job did not decode and skipped ('error-handling.mode' ignore or log) since it last started.")
	dLate         = statementDesc("eddy_statement_late_records_dropped_total", "Rows the statement's job dropped as late (their window had fired, or their time was behind the watermark) since it last started.")
	dWatermark    = statementDesc("eddy_statement_watermark_seconds", "The statement's current watermark, as a Unix time in seconds.")
	dWatermarkLag = statementDesc("eddy_statement_watermark_lag_seconds", "Processing time minus the statement's current watermark.")
	dCkptDuration = statementDesc("eddy_statement_last_checkpoint_duration_seconds", "Duration of the statement's last checkpoint commit.")
	dCkptSize     = statementDesc("eddy_statement_last_checkpoint_size_bytes", "Size of the batch the statement's last checkpoint committed.")
	dCheckpoints  = statementDesc("eddy_statement_checkpoints_total", "Checkpoints the statement's job committed since it last started.")
	dStateSize    = statementDesc("eddy_statement_state_size_bytes", "Bytes (keys and values) of the statement's committed state and timers.")
)

func statementDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, []string{"statement"}, nil)
}

// newMetrics makes the server's registry: the statement families, the Go
// runtime and process collectors, and the HTTP metrics that instrument
// (see instrument) every request. A registry per server, not the global
// one, so that several servers (tests) do not collide.
func (s *Server) newMetrics() {
	s.registry = prometheus.NewRegistry()
	s.httpInFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "eddy_http_requests_in_flight", Help: "HTTP requests being served.",
	})
	s.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "eddy_http_requests_total", Help: "HTTP requests served, by route, method and status code.",
	}, []string{"handler", "method", "code"})
	s.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "eddy_http_request_duration_seconds", Help: "Time to serve an HTTP request, by route and method.",
		Buckets: prometheus.DefBuckets,
	}, []string{"handler", "method"})
	s.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		s.httpInFlight, s.httpRequests, s.httpDuration,
		statementCollector{s},
	)
	s.metricsHandler = promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      slog.NewLogLogger(s.logger.Handler(), slog.LevelError),
	})
}

// instrument wraps h, the handling of requests to route pattern (after
// routing, before authentication, so refused requests are counted too),
// with promhttp's in-flight, counter and duration instrumentation.
func (s *Server) instrument(pattern string, h http.Handler) http.Handler {
	l := prometheus.Labels{"handler": pattern}
	return promhttp.InstrumentHandlerInFlight(s.httpInFlight,
		promhttp.InstrumentHandlerDuration(s.httpDuration.MustCurryWith(l),
			promhttp.InstrumentHandlerCounter(s.httpRequests.MustCurryWith(l), h)))
}

// metrics serves GET /metrics in the Prometheus text format (or what the
// scraper's Accept header asks for).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	s.metricsHandler.ServeHTTP(w, r)
}

// statementCollector collects the statement families at every scrape: job
// counters from Options.JobMetrics for statements with a running job; the
// state size for every statement that runs or may run a job (see
// stateSize).
type statementCollector struct{ s *Server }

func (c statementCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{dStatements, dRecordsIn, dRecordsOut, dSourceLag, dSkipped, dLate, dWatermark, dWatermarkLag, dCkptDuration, dCkptSize, dCheckpoints, dStateSize} {
		ch <- d
	}
}

func (c statementCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	now := s.clock.Now()
	stmts := s.allStatements()
	gauge := func(d *prometheus.Desc, v float64, label string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, label)
	}
	counter := func(d *prometheus.Desc, v float64, label string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, label)
	}
	count := map[v1.Phase]int{}
	for _, st := range stmts {
		count[st.Status.Phase]++
	}
	for _, p := range phases {
		gauge(dStatements, float64(count[p]), string(p))
	}
	for _, st := range stmts {
		name := st.Name
		if s.opts.JobMetrics != nil {
			if m, ok := s.opts.JobMetrics.JobMetrics(name); ok {
				counter(dRecordsIn, float64(m.RecordsIn), name)
				counter(dRecordsOut, float64(m.RecordsOut), name)
				counter(dSkipped, float64(m.Skipped), name)
				counter(dLate, float64(m.LateRecordsDropped), name)
				if !m.Watermark.IsZero() {
					gauge(dWatermark, float64(m.Watermark.UnixMilli())/1000, name)
					gauge(dWatermarkLag, now.Sub(m.Watermark).Seconds(), name)
				}
				if m.Checkpoints > 0 {
					gauge(dCkptDuration, m.LastCheckpointDuration.Seconds(), name)
					gauge(dCkptSize, float64(m.LastCheckpointBytes), name)
				}
				counter(dCheckpoints, float64(m.Checkpoints), name)
			}
		}
		if s.opts.SourceLags != nil {
			if lag, ok := s.opts.SourceLags.SourceLag(name); ok {
				gauge(dSourceLag, float64(lag), name)
			}
		}
		if st.Status.Traits != nil && st.Status.Traits.IsBounded {
			continue // completed at once (DDL, SHOW): no job, no state
		}
		if size, err := s.stateSize(st.Metadata.UID, now); err == nil {
			gauge(dStateSize, float64(size), name)
		} else {
			s.logger.Warn("measuring state size", "statement", name, "err", err)
		}
	}
	s.pruneSizes(stmts)
}

// allStatements pages through every statement, sorted by name.
func (s *Server) allStatements() []v1.Statement {
	var all []v1.Statement
	token := ""
	for {
		page, next := s.mgr.List(statement.Filter{}, maxListPageSize, token)
		all = append(all, page...)
		if next == "" {
			return all
		}
		token = next
	}
}

// stateSize is a measured state size and when it was measured.
type stateSize struct {
	bytes int64
	at    time.Time
}

// stateSize returns the bytes of keys and values of a statement's state
// and timers, measured by scanning them and reused for
// Options.StateSizeRefresh. A statement's job id is "stmt/<uid>" and all
// its state namespaces start with "stmt/<uid>/" (internal/statement's
// jobID and runtime.Job.Namespaces); the uid is hex, so the namespace
// prefix appears unescaped in the keys.
//
// A scan counts exactly what is committed, memtables included, at a cost
// proportional to the state; Pebble's EstimateDiskUsage would be cheaper
// but misses unflushed data, which for small states is all of it.
func (s *Server) stateSize(uid string, now time.Time) (int64, error) {
	if uid == "" {
		return 0, nil
	}
	s.sizesMu.Lock()
	c, ok := s.sizes[uid]
	s.sizesMu.Unlock()
	if ok && now.Sub(c.at) < s.opts.StateSizeRefresh {
		return c.bytes, nil
	}
	ns := "stmt/" + uid + "/"
	var n int64
	for _, prefix := range []byte{store.PrefixState, store.PrefixTimer} {
		err := s.opts.DB.Scan(append([]byte{prefix}, ns...), func(k, v []byte) error {
			n += int64(len(k) + len(v))
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	s.sizesMu.Lock()
	s.sizes[uid] = stateSize{bytes: n, at: now}
	s.sizesMu.Unlock()
	return n, nil
}

// pruneSizes forgets the sizes of statements that are gone.
func (s *Server) pruneSizes(stmts []v1.Statement) {
	live := make(map[string]bool, len(stmts))
	for _, st := range stmts {
		live[st.Metadata.UID] = true
	}
	s.sizesMu.Lock()
	defer s.sizesMu.Unlock()
	for uid := range s.sizes {
		if !live[uid] {
			delete(s.sizes, uid)
		}
	}
}
