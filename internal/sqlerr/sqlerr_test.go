package sqlerr_test

import (
	"testing"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/stretchr/testify/require"
)

func TestClosest(t *testing.T) {
	known := []string{"scan.startup.mode", "scan.bounded.mode", "topic"}
	require.Equal(t, "scan.startup.mode", sqlerr.Closest("scan.startup.mod", known, 4))
	require.Equal(t, "topic", sqlerr.Closest("topik", known, 4))
	require.Equal(t, "", sqlerr.Closest("bootstrap", known, 4), "nothing close")
	require.Equal(t, "", sqlerr.Closest("topics", known, 1), "one edit is not fewer than 1")
}
