package engine

import (
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/runtime"
)

// writer is a running job that writes a table.
type writer struct {
	// label names the writer as DESCRIBE EXTENDED shows it: "statement
	// <name>" or "session job <id>".
	label string
	job   *runtime.Job
}

// ownerLabel names the job that the statement being executed starts: its
// statement's name when it is a durable statement, else "session job n"
// with n counting the session's jobs from 1.
func (e *Engine) ownerLabel() string {
	if e.run != nil && e.run.name != "" {
		return "statement " + e.run.name
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sessionJobs++
	return fmt.Sprintf("session job %d", e.sessionJobs)
}

// addWriter records that job writes table (a full name).
func (e *Engine) addWriter(table, label string, job *runtime.Job) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.writers == nil {
		e.writers = map[string][]writer{}
	}
	e.writers[table] = append(e.writers[table], writer{label: label, job: job})
}

// tableWriters returns the labels of the running jobs that write table,
// forgetting the jobs that ended.
func (e *Engine) tableWriters(table string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ws := slices.DeleteFunc(e.writers[table], func(w writer) bool {
		select {
		case <-w.job.Done():
			return true
		default:
			return false
		}
	})
	if e.writers != nil { // nil until a job writes a table
		e.writers[table] = ws
	}
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w.label) {
			out = append(out, w.label)
		}
	}
	return out
}
