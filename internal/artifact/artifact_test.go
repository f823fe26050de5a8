package artifact_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/artifact"
	"github.com/eddy-sql/eddy/internal/store"
)

func TestStore(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{})
	require.NoError(t, err)
	now := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	s := artifact.NewStore(db, func() time.Time { return now })

	a, err := s.Create("order_status_ptf", "tracks orders", []byte("module v1"), []string{"examples.OrderStatusTracker"})
	require.NoError(t, err)
	require.Regexp(t, `^art-[0-9a-f]{12}$`, a.ID)
	require.Equal(t, "ver-1", a.Latest().Version)
	require.Equal(t, int64(9), a.Latest().Size)

	_, err = s.Create("order_status_ptf", "", []byte("other"), nil)
	require.True(t, errors.Is(err, artifact.ErrExists), "%v", err)
	_, err = s.Create("bad name!", "", []byte("x"), nil)
	require.True(t, errors.Is(err, artifact.ErrInvalid), "%v", err)

	now = now.Add(time.Hour)
	desc := "v2"
	a2, err := s.AddVersion(a.ID, []byte("module v2"), []string{"examples.OrderStatusTracker"}, &desc)
	require.NoError(t, err)
	require.Equal(t, "ver-2", a2.Latest().Version)
	require.Equal(t, "v2", a2.Description)

	// A second artifact with the same bytes as ver-1 shares the stored module.
	b, err := s.Create("copy", "", []byte("module v1"), nil)
	require.NoError(t, err)

	code, v, err := s.Code(a.ID, "ver-1")
	require.NoError(t, err)
	require.Equal(t, "module v1", string(code))
	require.Equal(t, "ver-1", v.Version)
	code, v, err = s.Code(a.ID, "")
	require.NoError(t, err)
	require.Equal(t, "module v2", string(code))
	require.Equal(t, "ver-2", v.Version)
	_, _, err = s.Code(a.ID, "ver-9")
	require.ErrorContains(t, err, "has no version ver-9 (it has ver-1, ver-2)")

	require.NoError(t, db.Close())
	db, err = store.Open(dir, store.Options{})
	require.NoError(t, err)
	defer db.Close()
	s = artifact.NewStore(db, nil)
	all, err := s.List()
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "copy", all[0].Name)

	require.NoError(t, s.Delete(a.ID))
	_, err = s.Get(a.ID)
	require.True(t, errors.Is(err, artifact.ErrNotFound))
	code, _, err = s.Code(b.ID, "")
	require.NoError(t, err, "the shared module stays with the artifact that still uses it")
	require.Equal(t, "module v1", string(code))
}

func TestParseURI(t *testing.T) {
	id, ver, ok, err := artifact.ParseURI("eddy-artifact://art-3f9a0c2d4e1b/ver-2")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "art-3f9a0c2d4e1b", id)
	require.Equal(t, "ver-2", ver)
	_, ver, ok, err = artifact.ParseURI("eddy-artifact://art-3f9a0c2d4e1b")
	require.NoError(t, err)
	require.True(t, ok)
	require.Empty(t, ver)
	_, _, ok, _ = artifact.ParseURI("confluent-artifact://cfa-123456")
	require.False(t, ok)
	_, _, ok, err = artifact.ParseURI("eddy-artifact://cfa-123456")
	require.True(t, ok)
	require.ErrorContains(t, err, `"cfa-123456" is not an artifact id`)
	_, _, _, err = artifact.ParseURI("eddy-artifact://art-3f9a0c2d4e1b/v2")
	require.ErrorContains(t, err, "not a version")
}
