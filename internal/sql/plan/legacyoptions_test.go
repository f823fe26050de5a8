package plan

import (
	"testing"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/stretchr/testify/require"
)

func TestLegacyOptions(t *testing.T) {
	o := map[string]string{"connector.type": "filesystem", "connector.path": "file:///tmp/side_input.txt",
		"format.type": "CSV", "format.field-delimiter": ";", "format.derive-schema": "true"}
	require.NoError(t, legacyOptions(o, &ast.CreateTable{}))
	require.Equal(t, map[string]string{"connector": "filesystem", "path": "file:///tmp/side_input.txt",
		"format": "csv", "csv.field-delimiter": ";"}, o)

	current := map[string]string{"connector": "filesystem", "path": "/x", "format": "csv"}
	require.NoError(t, legacyOptions(current, &ast.CreateTable{}))
	require.Len(t, current, 3, "current options stay as they are")

	err := legacyOptions(map[string]string{"connector.type": "kafka"}, &ast.CreateTable{})
	require.ErrorContains(t, err, "Unsupported legacy option 'connector.type' = 'kafka'")
}
