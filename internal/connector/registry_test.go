package connector_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// fakeFactory declares a few options of every kind; its Validate rejects
// 'size' = '13' to show that it runs after the declared checks.
type fakeFactory struct{ spec connector.Spec }

func (f *fakeFactory) Spec() *connector.Spec { return &f.spec }
func (f *fakeFactory) Validate(t *connector.Table) error {
	if t.Options["size"] == "13" {
		return connector.NewOptionError("size", "unlucky")
	}
	return nil
}
func (f *fakeFactory) ChangelogMode(*connector.Table) string { return connector.Append }

func newFake() *fakeFactory {
	return &fakeFactory{spec: connector.Spec{
		Identifier: "fake",
		Formats:    []string{"json", "csv"},
		Options: []connector.Option{
			{Key: "connector", Type: connector.TypeString, Required: true},
			{Key: "path", Type: connector.TypeString, Required: true},
			{Key: "size", Type: connector.TypeInteger},
			{Key: "enabled", Type: connector.TypeBoolean},
			{Key: "interval", Type: connector.TypeDuration},
			{Key: "file-size", Type: connector.TypeMemorySize},
			{Key: "mode", Type: connector.TypeEnum, Values: []string{"fast", "slow"}},
			{Key: "fields.#.kind", Type: connector.TypeString},
			{Key: "<format>.*", Type: connector.TypeString},
			{Key: "password", Type: connector.TypeString, Secret: true},
		},
		Metadata: []connector.Metadata{
			{Key: "file.path", Type: types.String.NonNull()},
			{Key: "stamp", Type: types.TimestampLTZ(3), Writable: true},
		},
	}}
}

func TestRegistryValidate(t *testing.T) {
	r, err := connector.NewRegistry(newFake())
	require.NoError(t, err)
	cols := []types.Field{{Name: "id", Type: types.Int}, {Name: "user.name", Type: types.String}}
	for _, tc := range []struct {
		name  string
		opts  map[string]string
		meta  []connector.MetaColumn
		parts []int
		// key is the option the error is about; err a part of its message
		// and hint.
		key, err string
	}{
		{name: "ok", opts: map[string]string{"size": "4", "enabled": "TRUE", "interval": "5 s", "file-size": "128 mb", "mode": "FAST"}},
		{name: "column pattern", opts: map[string]string{"fields.user.name.kind": "random"}},
		{name: "format pattern", opts: map[string]string{"csv.field-delimiter": ";", "json.ignore-parse-errors": "true"}},
		{name: "unknown connector", opts: map[string]string{"connector": "faek"}, key: "connector",
			err: "Connector 'faek' is not available in this version of Eddy\nHint: available connectors: fake; did you mean 'fake'?"},
		{name: "did you mean", opts: map[string]string{"sise": "4"}, key: "sise",
			err: "Unsupported option 'sise' for connector 'fake'\nHint: did you mean 'size'?"},
		{name: "did you mean a column option", opts: map[string]string{"fields.id.knd": "x"}, key: "fields.id.knd",
			err: "did you mean 'fields.id.kind'?"},
		{name: "did you mean a format option prefix", opts: map[string]string{"jsn.x": "1"}, key: "jsn.x",
			err: "Unsupported option 'jsn.x' for connector 'fake'"},
		{name: "unknown, listed", opts: map[string]string{"zzzzzzzzzz": "1"}, key: "zzzzzzzzzz",
			err: "supported options: connector, path, size"},
		{name: "integer", opts: map[string]string{"size": "four"}, key: "size",
			err: "Invalid value 'four' for option 'size': expected a whole number"},
		{name: "boolean", opts: map[string]string{"enabled": "yes"}, key: "enabled", err: "expected 'true' or 'false'"},
		{name: "duration", opts: map[string]string{"interval": "soon"}, key: "interval", err: "expected a duration"},
		{name: "memory size", opts: map[string]string{"file-size": "12 parsecs"}, key: "file-size", err: "expected a memory size"},
		{name: "enum", opts: map[string]string{"mode": "medium"}, key: "mode", err: "'mode' = 'medium' is not valid\nHint: use one of: fast, slow"},
		{name: "required", opts: map[string]string{"path": ""}, key: "path", err: "Table 'c.d.t' needs the option 'path'"},
		{name: "factory rule", opts: map[string]string{"size": "13"}, key: "size", err: "unlucky"},
		{name: "unknown metadata", meta: []connector.MetaColumn{{Name: "p", Key: "file.pth", Virtual: true}},
			err: "Unknown metadata key 'file.pth' for connector 'fake'\nHint: the connector provides: file.path, stamp; did you mean 'file.path'?"},
		{name: "read-only metadata", meta: []connector.MetaColumn{{Name: "p", Key: "file.path", Type: types.String}},
			err: "Metadata column 'p' ('file.path') is read-only, so it must be VIRTUAL"},
		{name: "writable metadata", meta: []connector.MetaColumn{{Name: "s", Key: "stamp"}}},
		{name: "not partitioned", parts: []int{0}, err: "Connector 'fake' does not write partitions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]string{"connector": "fake", "path": "/tmp/x"}
			for k, v := range tc.opts {
				opts[k] = v
			}
			if v, ok := tc.opts["path"]; ok && v == "" {
				delete(opts, "path")
			}
			tab := &connector.Table{Name: "t", FullName: "c.d.t", Columns: cols, Options: opts, Metadata: tc.meta, PartitionKeys: tc.parts}
			f, err := r.Validate(tab)
			if tc.err == "" {
				require.NoError(t, err)
				require.Equal(t, "fake", f.Spec().Identifier)
				return
			}
			require.Error(t, err)
			var oe *connector.OptionError
			require.True(t, errors.As(err, &oe), "%T", err)
			require.Equal(t, tc.key, oe.Key)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestRegistryDuplicate(t *testing.T) {
	_, err := connector.NewRegistry(newFake(), newFake())
	require.ErrorContains(t, err, `connector "fake" is registered twice`)
}

func TestRedacted(t *testing.T) {
	r, err := connector.NewRegistry(newFake())
	require.NoError(t, err)
	got := r.Redacted(map[string]string{"connector": "fake", "password": "p", "x.token": "t", "path": "/a"})
	require.Equal(t, map[string]string{"connector": "fake", "password": "****", "x.token": "****", "path": "/a"}, got)
}

func TestParseMemorySize(t *testing.T) {
	for in, want := range map[string]int64{"128mb": 128 << 20, "1 GB": 1 << 30, "10": 10, "4 kib": 4096, "2t": 2 << 40} {
		got, err := connector.ParseMemorySize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "mb", "1 parsec", "99999999999 tb"} {
		_, err := connector.ParseMemorySize(in)
		require.Error(t, err, in)
	}
}

func TestMarkdown(t *testing.T) {
	r, err := connector.NewRegistry(newFake())
	require.NoError(t, err)
	md := r.Markdown()
	require.True(t, strings.HasPrefix(md, "### `fake`\n"), md)
	require.Contains(t, md, "| `mode` |  |  | Enum: fast, slow |  |\n")
	require.Contains(t, md, "| `password` |  |  | String |  Secret: shown as ****. |\n")
	require.Contains(t, md, "| `stamp` | TIMESTAMP_LTZ(3) | yes |  |\n")
}
