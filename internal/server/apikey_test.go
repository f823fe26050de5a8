package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

func TestKeyStore(t *testing.T) {
	db, err := store.Open(t.TempDir(), store.Options{})
	require.NoError(t, err)
	defer db.Close()
	clock := &runtime.ManualClock{T: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	ks := server.NewKeyStore(db, clock)

	exists, err := ks.Any()
	require.NoError(t, err)
	require.False(t, exists)

	k, err := ks.Create("ci")
	require.NoError(t, err)
	require.Regexp(t, `^[A-Z2-7]{16}$`, k.ID)
	require.Len(t, k.Secret, 43) // 32 bytes, base64url
	require.Equal(t, "APIKey", k.Kind)
	require.Equal(t, clock.T, k.CreatedAt)

	// Only the SHA-256 of the secret is stored: the raw store holds
	// neither the secret nor anything it can be recovered from.
	var raw [][]byte
	require.NoError(t, db.Scan([]byte{store.PrefixAPIKey}, func(key, v []byte) error {
		require.Equal(t, append([]byte{store.PrefixAPIKey}, k.ID...), key)
		raw = append(raw, append([]byte(nil), v...))
		return nil
	}))
	require.Len(t, raw, 1)
	require.NotContains(t, string(raw[0]), k.Secret)
	var stored map[string]any
	require.NoError(t, json.Unmarshal(raw[0], &stored))
	sum := sha256.Sum256([]byte(k.Secret))
	require.Equal(t, hex.EncodeToString(sum[:]), stored["secret_sha256"])
	require.NotContains(t, stored, "secret")

	ok, err := ks.Verify(k.ID, k.Secret)
	require.NoError(t, err)
	require.True(t, ok)
	for _, tc := range [][2]string{
		{k.ID, k.Secret + "x"}, {k.ID, ""}, {k.ID, hex.EncodeToString(sum[:])},
		{"AAAAAAAAAAAAAAAA", k.Secret}, {strings.ToLower(k.ID), k.Secret}, {"", k.Secret},
	} {
		ok, err := ks.Verify(tc[0], tc[1])
		require.NoError(t, err)
		require.False(t, ok, "%q", tc)
	}

	k2, err := ks.Create("")
	require.NoError(t, err)
	require.NotEqual(t, k.ID, k2.ID)
	require.NotEqual(t, k.Secret, k2.Secret)
	keys, err := ks.List()
	require.NoError(t, err)
	require.Len(t, keys, 2)
	for _, l := range keys {
		require.Empty(t, l.Secret)
	}

	require.NoError(t, ks.Delete(k.ID))
	ok, err = ks.Verify(k.ID, k.Secret)
	require.NoError(t, err)
	require.False(t, ok)
	require.True(t, errors.Is(ks.Delete(k.ID), server.ErrKeyNotFound))
	keys, err = ks.List()
	require.NoError(t, err)
	require.Equal(t, []string{k2.ID}, []string{keys[0].ID})
}

// runCommand runs an eddy subcommand built by server.Commands in-process.
func runCommand(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := &cobra.Command{Use: "eddy", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(server.Commands(server.CommandOptions{})...)
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

func TestAPIKeyCommands(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")

	_, _, err := runCommand(t, ctx, "api-key", "list", "--data-dir", dir)
	require.ErrorContains(t, err, "no data directory")

	out, _, err := runCommand(t, ctx, "api-key", "create", "--data-dir", dir, "--description", "deploys")
	require.NoError(t, err)
	require.Contains(t, out, "| Secret ")
	require.Contains(t, out, "cannot be shown again")
	require.Contains(t, out, "curl -u ")

	out, _, err = runCommand(t, ctx, "api-key", "create", "--data-dir", dir, "-o", "json")
	require.NoError(t, err)
	var k v1.APIKey
	require.NoError(t, json.Unmarshal([]byte(out), &k))
	require.NotEmpty(t, k.ID)
	require.NotEmpty(t, k.Secret)

	out, _, err = runCommand(t, ctx, "api-key", "list", "--data-dir", dir)
	require.NoError(t, err)
	require.Contains(t, out, k.ID)
	require.Contains(t, out, "deploys")
	require.NotContains(t, out, k.Secret)

	out, _, err = runCommand(t, ctx, "api-key", "list", "--data-dir", dir, "-o", "json")
	require.NoError(t, err)
	var list v1.APIKeyList
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list.Data, 2)
	require.NotContains(t, out, k.Secret)

	out, _, err = runCommand(t, ctx, "api-key", "delete", "--data-dir", dir, k.ID)
	require.NoError(t, err)
	require.Equal(t, "Deleted API key "+k.ID+".\n", out)
	_, _, err = runCommand(t, ctx, "api-key", "delete", "--data-dir", dir, k.ID)
	require.ErrorContains(t, err, "does not exist")

	out, _, err = runCommand(t, ctx, "api-key", "list", "--data-dir", dir, "-o", "yaml")
	require.NoError(t, err)
	require.Contains(t, out, "kind: APIKeyList\n")
	require.Contains(t, out, "  - api_version: ")
	out, _, err = runCommand(t, ctx, "api-key", "list", "--data-dir", dir, "-o", "human")
	require.NoError(t, err)
	require.Contains(t, out, "| Key ")
	_, _, err = runCommand(t, ctx, "api-key", "list", "--data-dir", dir, "-o", "xml")
	require.ErrorContains(t, err, `invalid --output "xml": use human, json or yaml`)

	// -o env prints export lines for eval, for create only.
	out, _, err = runCommand(t, ctx, "api-key", "create", "--data-dir", dir, "-o", "env")
	require.NoError(t, err)
	require.Regexp(t, `^export EDDY_API_KEY=[A-Z2-7]{16}\nexport EDDY_API_SECRET=[A-Za-z0-9_-]{43}\n$`, out)
	_, _, err = runCommand(t, ctx, "api-key", "list", "--data-dir", dir, "-o", "env")
	require.ErrorContains(t, err, "-o env is for create only")
}

func TestServerRefusesWithoutKeys(t *testing.T) {
	dir := t.TempDir()
	_, _, err := runCommand(t, context.Background(), "server", "--data-dir", dir, "--listen", "127.0.0.1:0", "--log-level", "error")
	require.Error(t, err)
	require.Contains(t, err.Error(), "no API key exists")
	require.Contains(t, err.Error(), "eddy api-key create --data-dir "+dir)
	require.Contains(t, err.Error(), "--insecure-no-auth")
}
