package statement

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/stretchr/testify/require"
)

// TestLegacyStatementResumesWithPlanV1 stores a statement the way versions
// before plan versions did (no plan_version in its outcome) and checks
// that it resumes with plan version 1, while new statements get the
// latest.
func TestLegacyStatementResumesWithPlanV1(t *testing.T) {
	dir := t.TempDir()
	open := func() (*engine.Engine, *Manager) {
		eng, err := engine.Open(context.Background(), engine.Options{DataDir: dir, Registry: ptf.NewRegistry()})
		require.NoError(t, err)
		m, err := Open(Options{Engine: eng, CheckpointInterval: 20 * time.Millisecond})
		require.NoError(t, err)
		return eng, m
	}
	outcome := func(m *Manager, name string, phase v1.Phase) *engine.Outcome {
		var o *engine.Outcome
		require.Eventually(t, func() bool {
			m.mu.Lock()
			defer m.mu.Unlock()
			e := m.stmts[name]
			if e == nil || e.st.Status.Phase != phase {
				return false
			}
			o = e.outcome
			return true
		}, 10*time.Second, 5*time.Millisecond)
		return o
	}
	eng, m := open()
	for i, sql := range []string{
		"CREATE TABLE clicks (u INT NOT NULL, page STRING)",
		"CREATE TABLE counts (u INT PRIMARY KEY NOT ENFORCED, n BIGINT)",
	} {
		_, err := m.Create(context.Background(), v1.Statement{Name: "ddl" + string(rune('a'+i)), Spec: v1.Spec{Statement: sql}})
		require.NoError(t, err)
		outcome(m, "ddl"+string(rune('a'+i)), v1.Completed)
	}
	_, err := m.Create(context.Background(), v1.Statement{Name: "counts", Spec: v1.Spec{Statement: "INSERT INTO counts SELECT u, COUNT(*) FROM clicks GROUP BY u"}})
	require.NoError(t, err)
	require.Equal(t, plan.LatestPlan, outcome(m, "counts", v1.Running).PlanVersion)
	require.NoError(t, m.Close())
	require.NoError(t, eng.Close())

	// Rewrite the stored record as an older version wrote it.
	eng, err = engine.Open(context.Background(), engine.Options{DataDir: dir, Registry: ptf.NewRegistry()})
	require.NoError(t, err)
	db := eng.Env().DB
	raw, ok, err := db.Get(key("counts"))
	require.NoError(t, err)
	require.True(t, ok)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(raw, &rec))
	out := rec["outcome"].(map[string]any)
	delete(out, "plan_version")
	delete(out, "operator_state")
	raw, err = json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, db.Set(key("counts"), raw))
	require.NoError(t, eng.Close())

	eng, m = open()
	defer func() {
		require.NoError(t, m.Close())
		require.NoError(t, eng.Close())
	}()
	require.Equal(t, plan.PlanV1, outcome(m, "counts", v1.Running).PlanVersion, "a statement stored without a plan version resumes with version 1")
	_, err = m.Create(context.Background(), v1.Statement{Name: "again", Spec: v1.Spec{Statement: "INSERT INTO counts SELECT u, COUNT(*) FROM clicks GROUP BY u"}})
	require.NoError(t, err)
	require.Equal(t, plan.LatestPlan, outcome(m, "again", v1.Running).PlanVersion)
}
