package statement

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/store"
)

// usesArtifact reports whether a statement counts as a user of an
// artifact: its last run ran a function of it, and it may run again (it
// is not COMPLETED).
func usesArtifact(phase v1.Phase, artifacts []string, id string) bool {
	return phase != v1.Completed && slices.Contains(artifacts, id)
}

// ArtifactUsers returns the names of the statements that use an artifact
// (engine.ArtifactUsers): an artifact is not deleted while one does.
func (m *Manager) ArtifactUsers(id string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for name, e := range m.stmts {
		if e.outcome != nil && usesArtifact(e.st.Status.Phase, e.outcome.Artifacts, id) {
			names = append(names, "statement "+name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// StoredArtifactUsers is ArtifactUsers for a data directory no server runs
// on: it reads the stored statements.
func StoredArtifactUsers(db *store.DB, id string) ([]string, error) {
	var names []string
	err := db.Scan([]byte{store.PrefixStatement}, func(_, v []byte) error {
		var p persisted
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("decoding a stored statement: %w", err)
		}
		if p.Outcome != nil && usesArtifact(p.Statement.Status.Phase, p.Outcome.Artifacts, id) {
			names = append(names, "statement "+p.Statement.Name)
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

// checkResumable refuses, before anything changes, to resume a statement
// whose functions now declare state its checkpoint cannot be read as (a
// function bound to an artifact whose latest version changed its state
// type): the statement stays as it is, so the caller can bind a
// compatible version and resume again. m.mu must be held.
func (m *Manager) checkResumable(ctx context.Context, e *entry) error {
	if e.outcome == nil || e.outcome.StateSchema == "" {
		return nil
	}
	next, err := m.eng.Run(ctx, e.st.Spec.Statement, engine.RunOptions{Properties: e.st.Spec.Properties, DryRun: true})
	if err != nil {
		return nil // the resume itself fails with this error, recorded
	}
	if err := engine.CompatibleState(e.outcome.StateSchema, next.StateSchema); err != nil {
		return fmt.Errorf("%w: %w", ErrIncompatibleState, err)
	}
	return nil
}
