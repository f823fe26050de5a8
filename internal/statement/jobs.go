package statement

import (
	"sort"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/runtime"
)

// RunningJobs returns the jobs of the statements that run now, sorted by
// statement name. A script uses them to let every statement catch up
// before its next statement (engine.SyncAlso).
func (m *Manager) RunningJobs() []*runtime.Job {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.stmts))
	for n, e := range m.stmts {
		if e.job != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	jobs := make([]*runtime.Job, len(names))
	for i, n := range names {
		jobs[i] = m.stmts[n].job
	}
	return jobs
}

// Background returns the statements that are meant to run (not stopped,
// in phase PENDING, RUNNING, DEGRADED or FAILING), sorted by name: those
// that keep running while the manager is open and resume when it opens
// again.
func (m *Manager) Background() []v1.Statement {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []v1.Statement
	for _, e := range m.stmts {
		if e.st.Spec.Stopped {
			continue
		}
		switch e.st.Status.Phase {
		case v1.Pending, v1.Running, v1.Degraded, v1.Failing:
			out = append(out, m.view(e))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
