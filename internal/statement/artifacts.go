package statement

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	v1 "github.com/eddy-sql/eddy/api/v1"
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
