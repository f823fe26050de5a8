package server

import (
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
)

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
		Short: "Manage the API keys of a data directory",
		Long: `Manage the API keys that 'eddy server' accepts. The commands open the data
directory directly, so run them while the server is stopped (it holds the
directory); the server reads the keys at every request once it runs.

Secrets are stored as SHA-256 hashes: 'create' prints a secret once and it
cannot be shown again. A lost secret is replaced by creating a new key and
deleting the old one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&c.dataDir, "data-dir", "", "data directory (default $EDDY_DATA_DIR, $XDG_DATA_HOME/eddy or ~/.local/share/eddy)")
	cmd.PersistentFlags().StringVarP(&c.output, "output", "o", "table", "output format: table or json")

	create := &cobra.Command{
		Use:   "create [--description TEXT]",
		Short: "Create an API key and print its secret (once)",
		Example: `  eddy api-key create --data-dir /var/lib/eddy --description "CI deploys"
  eddy api-key create -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return c.create(cmd.OutOrStdout()) },
	}
	create.Flags().StringVar(&c.description, "description", "", "what the key is for")

	list := &cobra.Command{
		Use:   "list",
		Short: "List the API keys (without secrets)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.list(cmd.OutOrStdout()) },
	}
	del := &cobra.Command{
		Use:   "delete KEY [KEY...]",
		Short: "Delete API keys; requests using them are refused from then on",
		Args:  cobra.MinimumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.delete(cmd.OutOrStdout(), args) },
	}
	cmd.AddCommand(create, list, del)
	return cmd
}

// openStore opens the data directory's store; create makes the directory
// when it does not exist yet.
func (c *apiKeyCommand) openStore(create bool) (*store.DB, string, error) {
	if c.output != "table" && c.output != "json" {
		return nil, "", fmt.Errorf("invalid --output %q: use table or json", c.output)
	}
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
		return nil, "", openError(dir, err)
	}
	return db, dir, nil
}

func (c *apiKeyCommand) create(w io.Writer) (err error) {
	db, dir, err := c.openStore(true)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	key, err := NewKeyStore(db, nil).Create(c.description)
	if err != nil {
		return err
	}
	if c.output == "json" {
		return writeJSONTo(w, key)
	}
	rows := [][]string{{"Key", key.ID}, {"Secret", key.Secret}}
	if key.Description != "" {
		rows = append(rows, []string{"Description", key.Description})
	}
	rows = append(rows, []string{"Created", key.CreatedAt.Format(time.RFC3339)})
	var b strings.Builder
	writeTable(&b, nil, rows)
	fmt.Fprintf(&b, "\nSave the secret now: only its hash is stored in %s, so it cannot be shown again.\n", dir)
	fmt.Fprintf(&b, "Send the key and secret with HTTP Basic auth, e.g.\n  curl -u %s:%s http://127.0.0.1:8080/v1/statements\n", key.ID, key.Secret)
	_, err = io.WriteString(w, b.String())
	return err
}

func (c *apiKeyCommand) list(w io.Writer) (err error) {
	db, _, err := c.openStore(false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	keys, err := NewKeyStore(db, nil).List()
	if err != nil {
		return err
	}
	if c.output == "json" {
		return writeJSONTo(w, v1.APIKeyList{APIVersion: v1.APIVersion, Kind: "APIKeyList", Data: keys})
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

func (c *apiKeyCommand) delete(w io.Writer, ids []string) (err error) {
	db, _, err := c.openStore(false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	ks := NewKeyStore(db, nil)
	for _, id := range ids {
		if err := ks.Delete(id); err != nil {
			if errors.Is(err, ErrKeyNotFound) {
				return fmt.Errorf("API key %s does not exist; list the keys with: eddy api-key list", id)
			}
			return err
		}
		if c.output == "table" {
			fmt.Fprintf(w, "Deleted API key %s.\n", id)
		}
	}
	if c.output == "json" {
		return writeJSONTo(w, map[string][]string{"deleted": ids})
	}
	return nil
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
