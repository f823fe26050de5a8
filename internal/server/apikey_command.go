package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	yaml "go.yaml.in/yaml/v3"
)

// The variables the CLI reads the key from (cli.APIKeyEnv, cli.APISecretEnv),
// printed by `eddy api-key create -o env`.
const (
	apiKeyEnv    = "EDDY_API_KEY"
	apiSecretEnv = "EDDY_API_SECRET"
)

// KeyManager creates, lists and deletes API keys: a data directory's
// KeyStore, or a running server's REST API (see RemoteAPIKeys).
type KeyManager interface {
	CreateKey(ctx context.Context, description string) (v1.APIKey, error)
	ListKeys(ctx context.Context) ([]v1.APIKey, error)
	DeleteKey(ctx context.Context, id string) error
}

// RemoteAPIKeys connects `eddy api-key` to a running server. It is
// injected (eddy.Run passes the CLI's implementation) so that this package
// does not depend on the CLI's connection settings.
type RemoteAPIKeys interface {
	// AddFlags registers the connection flags (--server, --api-key,
	// --api-secret, --config).
	AddFlags(fs *pflag.FlagSet)
	// Selected reports whether the flags given ask for a server (--server
	// or --config; $EDDY_SERVER alone does not, as for eddy sql).
	Selected(fs *pflag.FlagSet) bool
	// Connect resolves the settings and returns the server's key manager
	// and its URL.
	Connect(fs *pflag.FlagSet) (KeyManager, string, error)
}

// storeKeys is a KeyStore as a KeyManager.
type storeKeys struct{ *KeyStore }

func (k storeKeys) CreateKey(_ context.Context, d string) (v1.APIKey, error) { return k.Create(d) }
func (k storeKeys) ListKeys(context.Context) ([]v1.APIKey, error)            { return k.List() }
func (k storeKeys) DeleteKey(_ context.Context, id string) error {
	if err := k.Delete(id); err != nil {
		if errors.Is(err, ErrKeyNotFound) {
			return fmt.Errorf("API key %s does not exist; list the keys with: eddy api-key list", id)
		}
		return err
	}
	return nil
}

// apiKeyCommand holds the flags shared by the `eddy api-key` commands.
type apiKeyCommand struct {
	opts        CommandOptions
	dataDir     string
	output      string
	description string
}

func newAPIKeyCommand(opts CommandOptions) *cobra.Command {
	c := &apiKeyCommand{opts: opts}
	cmd := &cobra.Command{
		Use:   "api-key",
		Short: "Manage the API keys of a server or a data directory",
		Long: `Manage the API keys that 'eddy server' accepts.

With --server URL (or --config FILE with server=) the commands ask the
running server, authenticated by an existing key (--api-key/--api-secret,
api.key/api.secret in the properties file, or $EDDY_API_KEY/$EDDY_API_SECRET);
keys created or deleted so take effect at once. The server refuses to
delete its last key.

Otherwise they open the data directory (--data-dir) directly, which works
only while no server runs on it (the server locks the directory): use this
to create the first key before the server's first start.

Secrets are stored as SHA-256 hashes: 'create' prints a secret once and it
cannot be shown again. A lost secret is replaced by creating a new key and
deleting the old one.`,
		Example: `  # Before the first start: the first key, in the data directory
  eddy api-key create --data-dir /var/lib/eddy --description admin

  # While the server runs: rotate the CI key, authenticated by another key
  export EDDY_API_KEY=... EDDY_API_SECRET=...
  eddy api-key create --server http://127.0.0.1:8080 --description "CI deploys"
  eddy api-key delete --server http://127.0.0.1:8080 OLDKEYID`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&c.dataDir, "data-dir", "", "data directory (default $EDDY_DATA_DIR, $XDG_DATA_HOME/eddy or ~/.local/share/eddy)")
	pf.StringVarP(&c.output, "output", "o", "human", "output `FORMAT`: human (also called table), json or yaml; create also takes env (export lines for eval)")
	if opts.Remote != nil {
		opts.Remote.AddFlags(pf)
	}

	create := &cobra.Command{
		Use:   "create [--description TEXT]",
		Short: "Create an API key and print its secret (once)",
		Example: `  eddy api-key create --data-dir /var/lib/eddy --description "CI deploys"
  eddy api-key create --server http://127.0.0.1:8080 -o json
  eval "$(eddy api-key create --data-dir ./eddy-data -o env)"   # sets $EDDY_API_KEY and $EDDY_API_SECRET`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.create(cmd) },
	}
	create.Flags().StringVar(&c.description, "description", "", "what the key is for")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the API keys (without secrets)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.list(cmd) },
	}
	del := &cobra.Command{
		Use:   "delete KEY [KEY...]",
		Short: "Delete (revoke) API keys; requests using them are refused from then on",
		Args:  cobra.MinimumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.delete(cmd, args) },
	}
	cmd.AddCommand(create, list, del)
	return cmd
}

// keys returns the key manager the flags select, where the keys live (for
// messages), the base URL for the curl example, and a function to close
// it; create makes the data directory when it does not exist yet.
func (c *apiKeyCommand) keys(cmd *cobra.Command, create bool) (km KeyManager, where, url string, done func() error, err error) {
	switch c.output {
	case "human":
		c.output = "table"
	case "table", "json", "yaml":
	case "env":
		if cmd.Name() != "create" {
			return nil, "", "", nil, fmt.Errorf("-o env is for create only: use human, json or yaml")
		}
	default:
		return nil, "", "", nil, fmt.Errorf("invalid --output %q: use human, json or yaml (or env, for create)", c.output)
	}
	if r := c.opts.Remote; r != nil && r.Selected(cmd.Flags()) {
		if cmd.Flags().Changed("data-dir") {
			return nil, "", "", nil, errors.New("give --data-dir or --server (or --config), not both: keys are managed either in a data directory or on a running server")
		}
		km, url, err := r.Connect(cmd.Flags())
		if err != nil {
			return nil, "", "", nil, err
		}
		return km, "by the server at " + url, url, func() error { return nil }, nil
	}
	db, dir, err := c.openStore(create)
	if err != nil {
		return nil, "", "", nil, err
	}
	return storeKeys{NewKeyStore(db, nil)}, "in " + dir, "http://127.0.0.1:8080", db.Close, nil
}

// openStore opens the data directory's store; create makes the directory
// when it does not exist yet.
func (c *apiKeyCommand) openStore(create bool) (*store.DB, string, error) {
	dir, err := dataDir(c.dataDir, c.opts.DefaultDataDir)
	if err != nil {
		return nil, "", err
	}
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", fmt.Errorf("creating data directory %s: %w", dir, err)
		}
	} else if _, err := os.Stat(dir); err != nil {
		return nil, "", fmt.Errorf("no data directory at %s: %w", dir, err)
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		err = openError(dir, err)
		if c.opts.Remote != nil && isLocked(err) {
			err = fmt.Errorf("%w\nWhile the server runs, manage its keys through it: eddy api-key %s --server URL, with an existing key in --api-key/--api-secret or $EDDY_API_KEY/$EDDY_API_SECRET", err, "create|list|delete")
		}
		return nil, "", err
	}
	return db, dir, nil
}

func (c *apiKeyCommand) create(cmd *cobra.Command) (err error) {
	km, where, url, done, err := c.keys(cmd, true)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	key, err := km.CreateKey(cmd.Context(), c.description)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if c.output == "env" {
		// Shell-safe: ids are base32, secrets base64url.
		_, err := fmt.Fprintf(w, "export %s=%s\nexport %s=%s\n", apiKeyEnv, key.ID, apiSecretEnv, key.Secret)
		return err
	}
	if c.output != "table" {
		return c.write(w, key)
	}
	rows := [][]string{{"Key", key.ID}, {"Secret", key.Secret}}
	if key.Description != "" {
		rows = append(rows, []string{"Description", key.Description})
	}
	rows = append(rows, []string{"Created", key.CreatedAt.Format(time.RFC3339)})
	var b strings.Builder
	writeTable(&b, nil, rows)
	fmt.Fprintf(&b, "\nSave the secret now: only its hash is stored %s, so it cannot be shown again.\n", where)
	fmt.Fprintf(&b, "Send the key and secret with HTTP Basic auth, e.g.\n  curl -u %s:%s %s/v1/statements\n", key.ID, key.Secret, strings.TrimSuffix(url, "/"))
	_, err = io.WriteString(w, b.String())
	return err
}

func (c *apiKeyCommand) list(cmd *cobra.Command) (err error) {
	km, _, _, done, err := c.keys(cmd, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	keys, err := km.ListKeys(cmd.Context())
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if c.output != "table" {
		return c.write(w, v1.APIKeyList{APIVersion: v1.APIVersion, Kind: "APIKeyList", Data: keys})
	}
	if len(keys) == 0 {
		_, err := io.WriteString(w, "No API keys. Create one with: eddy api-key create\n")
		return err
	}
	var rows [][]string
	for _, k := range keys {
		rows = append(rows, []string{k.ID, k.Description, k.CreatedAt.Format(time.RFC3339)})
	}
	var b strings.Builder
	writeTable(&b, []string{"Key", "Description", "Created"}, rows)
	_, err = io.WriteString(w, b.String())
	return err
}

func (c *apiKeyCommand) delete(cmd *cobra.Command, ids []string) (err error) {
	km, _, _, done, err := c.keys(cmd, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	w := cmd.OutOrStdout()
	for _, id := range ids {
		if err := km.DeleteKey(cmd.Context(), id); err != nil {
			return err
		}
		if c.output == "table" {
			fmt.Fprintf(w, "Deleted API key %s.\n", id)
		}
	}
	if c.output != "table" {
		return c.write(w, map[string][]string{"deleted": ids})
	}
	return nil
}

// write prints v as JSON or YAML, following -o.
func (c *apiKeyCommand) write(w io.Writer, v any) error {
	if c.output == "yaml" {
		return writeYAMLTo(w, v)
	}
	return writeJSONTo(w, v)
}

// writeYAMLTo writes v as YAML with the field names of its JSON form (JSON
// is YAML: it is decoded into a node tree and written in block style).
func writeYAMLTo(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	var block func(n *yaml.Node)
	block = func(n *yaml.Node) {
		n.Style = 0
		for _, c := range n.Content {
			block(c)
		}
	}
	block(&doc)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	return enc.Close()
}

func writeJSONTo(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeTable writes a bordered, left-aligned table; header may be nil.
func writeTable(b *strings.Builder, header []string, rows [][]string) {
	n := len(header)
	for _, r := range rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	for _, r := range append([][]string{header}, rows...) {
		for i, cell := range r {
			widths[i] = max(widths[i], len([]rune(cell)))
		}
	}
	border := func() {
		b.WriteByte('+')
		for _, w := range widths {
			b.WriteString(strings.Repeat("-", w+2) + "+")
		}
		b.WriteByte('\n')
	}
	line := func(r []string) {
		b.WriteByte('|')
		for i, w := range widths {
			cell := ""
			if i < len(r) {
				cell = r[i]
			}
			b.WriteString(" " + cell + strings.Repeat(" ", w-len([]rune(cell))) + " |")
		}
		b.WriteByte('\n')
	}
	border()
	if header != nil {
		line(header)
		border()
	}
	for _, r := range rows {
		line(r)
	}
	border()
}
