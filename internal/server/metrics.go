package server

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/internal/store"
)

// metricsContentType is the Prometheus text exposition format, 0.0.4.
const metricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// metric describes one metric family.
type metric struct {
	name, typ, help string
}

// The metric families, in the order they are written.
var (
	mStatements    = metric{"eddy_statements", "gauge", "Statements by phase."}
	mRecordsIn     = metric{"eddy_statement_records_in_total", "counter", "Records the statement's job read from its sources since it last started."}
	mRecordsOut    = metric{"eddy_statement_records_out_total", "counter", "Records the statement's job wrote to its sink since it last started."}
	mWatermarkLag  = metric{"eddy_statement_watermark_lag_seconds", "gauge", "Processing time minus the statement's current watermark."}
	mCkptDuration  = metric{"eddy_statement_last_checkpoint_duration_seconds", "gauge", "Duration of the statement's last checkpoint commit."}
	mCkptSize      = metric{"eddy_statement_last_checkpoint_size_bytes", "gauge", "Size of the batch the statement's last checkpoint committed."}
	mCheckpoints   = metric{"eddy_statement_checkpoints_total", "counter", "Checkpoints the statement's job committed since it last started."}
	mStateSize     = metric{"eddy_statement_state_size_bytes", "gauge", "Bytes (keys and values) of the statement's committed state and timers."}
	metricFamilies = []metric{mStatements, mRecordsIn, mRecordsOut, mWatermarkLag, mCkptDuration, mCkptSize, mCheckpoints, mStateSize}
)

// sample is one line of a family.
type sample struct {
	labels string // rendered, without braces
	value  float64
}

// metrics serves GET /metrics in the Prometheus text format. Job counters
// come from Options.JobMetrics for statements with a running job; the
// state size is measured for every statement that runs or may run a job
// (see stateSize).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	stmts := s.allStatements()
	byFamily := map[string][]sample{}
	add := func(m metric, labels string, v float64) {
		byFamily[m.name] = append(byFamily[m.name], sample{labels, v})
	}
	count := map[v1.Phase]int{}
	for _, st := range stmts {
		count[st.Status.Phase]++
	}
	for _, p := range phases {
		add(mStatements, label("phase", string(p)), float64(count[p]))
	}
	for _, st := range stmts {
		l := label("statement", st.Name)
		if s.opts.JobMetrics != nil {
			if m, ok := s.opts.JobMetrics.JobMetrics(st.Name); ok {
				add(mRecordsIn, l, float64(m.RecordsIn))
				add(mRecordsOut, l, float64(m.RecordsOut))
				if !m.Watermark.IsZero() {
					add(mWatermarkLag, l, now.Sub(m.Watermark).Seconds())
				}
				if m.Checkpoints > 0 {
					add(mCkptDuration, l, m.LastCheckpointDuration.Seconds())
					add(mCkptSize, l, float64(m.LastCheckpointBytes))
				}
				add(mCheckpoints, l, float64(m.Checkpoints))
			}
		}
		if st.Status.Traits != nil && st.Status.Traits.IsBounded {
			continue // completed at once (DDL, SHOW): no job, no state
		}
		if size, err := s.stateSize(st.Metadata.UID, now); err == nil {
			add(mStateSize, l, float64(size))
		} else {
			s.logger.Warn("measuring state size", "statement", st.Name, "err", err)
		}
	}
	s.pruneSizes(stmts)
	var buf bytes.Buffer
	for _, m := range metricFamilies {
		samples := byFamily[m.name]
		if len(samples) == 0 {
			continue
		}
		fmt.Fprintf(&buf, "# HELP %s %s\n# TYPE %s %s\n", m.name, m.help, m.name, m.typ)
		for _, sm := range samples {
			fmt.Fprintf(&buf, "%s{%s} %s\n", m.name, sm.labels, formatFloat(sm.value))
		}
	}
	w.Header().Set("Content-Type", metricsContentType)
	_, _ = w.Write(buf.Bytes())
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

// label renders name="value" with the value escaped as the format wants.
func label(name, value string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return name + `="` + r.Replace(value) + `"`
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

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
