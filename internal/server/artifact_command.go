package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ArtifactManager creates, lists, describes and deletes artifacts: a data
// directory's (through its engine), or a running server's REST API (see
// RemoteArtifacts).
type ArtifactManager interface {
	CreateArtifact(ctx context.Context, name, description string, module []byte) (v1.Artifact, error)
	AddArtifactVersion(ctx context.Context, id string, module []byte, description *string) (v1.Artifact, error)
	ListArtifacts(ctx context.Context) ([]v1.Artifact, error)
	GetArtifact(ctx context.Context, id string) (v1.Artifact, error)
	DeleteArtifact(ctx context.Context, id string) error
}

// RemoteArtifacts connects `eddy artifact` to a running server, as
// RemoteAPIKeys does for `eddy api-key` (eddy.Run injects the CLI's
// implementation, which owns the connection settings).
type RemoteArtifacts interface {
	AddFlags(fs *pflag.FlagSet)
	Selected(fs *pflag.FlagSet) bool
	Connect(fs *pflag.FlagSet) (ArtifactManager, string, error)
}

// engineArtifacts is a data directory's engine as an ArtifactManager.
type engineArtifacts struct{ eng *engine.Engine }

func (a engineArtifacts) CreateArtifact(ctx context.Context, name, description string, module []byte) (v1.Artifact, error) {
	x, err := a.eng.CreateArtifact(ctx, name, description, module)
	if err != nil {
		return v1.Artifact{}, err
	}
	return ArtifactV1(x), nil
}

func (a engineArtifacts) AddArtifactVersion(ctx context.Context, id string, module []byte, description *string) (v1.Artifact, error) {
	x, err := a.eng.AddArtifactVersion(ctx, id, module, description)
	if err != nil {
		return v1.Artifact{}, err
	}
	return ArtifactV1(x), nil
}

func (a engineArtifacts) ListArtifacts(context.Context) ([]v1.Artifact, error) {
	all, err := a.eng.Artifacts()
	out := []v1.Artifact{}
	for _, x := range all {
		out = append(out, ArtifactV1(x))
	}
	return out, err
}

func (a engineArtifacts) GetArtifact(_ context.Context, id string) (v1.Artifact, error) {
	x, err := a.eng.Artifact(id)
	if err != nil {
		return v1.Artifact{}, err
	}
	return ArtifactV1(x), nil
}

func (a engineArtifacts) DeleteArtifact(_ context.Context, id string) error {
	db := a.eng.Env().DB
	return a.eng.DeleteArtifact(id, func(id string) ([]string, error) { return statement.StoredArtifactUsers(db, id) })
}

// artifactCommand holds the flags shared by the `eddy artifact` commands.
type artifactCommand struct {
	opts        CommandOptions
	dataDir     string
	output      string
	file        string
	description string
}

func newArtifactCommand(opts CommandOptions) *cobra.Command {
	c := &artifactCommand{opts: opts}
	cmd := &cobra.Command{
		Use:   "artifact",
		Short: "Manage function artifacts (WebAssembly modules) of a server or a data directory",
		Long: `Upload process table functions compiled to WebAssembly (eddy function build)
as artifacts, and manage them. A statement binds a function of an artifact with

  CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'
  USING JAR 'eddy-artifact://art-3f9a0c2d4e1b';

without restarting the server. An artifact has versions (ver-1, ver-2, ...):
'update' uploads the next one; functions bound without a version use the
latest each time a statement is planned, 'eddy-artifact://ID/ver-N' pins one.

With --server URL (or --config FILE with server=) the commands ask the
running server; otherwise they open the data directory (--data-dir), which
works only while no server runs on it. See docs/artifacts.md.`,
		Example: `  eddy function build ./examples/wasm/OrderStatusTracker -o order_status.wasm
  eddy artifact create order_status_ptf --artifact-file order_status.wasm --server http://127.0.0.1:8080
  eddy artifact list --server http://127.0.0.1:8080
  eddy artifact update art-3f9a0c2d4e1b --artifact-file order_status_v2.wasm --server http://127.0.0.1:8080
  eddy artifact delete art-3f9a0c2d4e1b --server http://127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&c.dataDir, "data-dir", "", "data directory (default $EDDY_DATA_DIR, $XDG_DATA_HOME/eddy or ~/.local/share/eddy)")
	pf.StringVarP(&c.output, "output", "o", "human", "output `FORMAT`: human (also called table), json or yaml")
	if opts.Artifacts != nil {
		opts.Artifacts.AddFlags(pf)
	}
	create := &cobra.Command{
		Use:   "create NAME --artifact-file FILE [--description TEXT]",
		Short: "Upload a function module as a new artifact and print its id",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.create(cmd, args[0]) },
	}
	create.Flags().StringVar(&c.file, "artifact-file", "", "the module (.wasm) to upload")
	create.Flags().StringVar(&c.description, "description", "", "what the artifact is for")
	_ = create.MarkFlagRequired("artifact-file")
	update := &cobra.Command{
		Use:   "update ID --artifact-file FILE [--description TEXT]",
		Short: "Upload a new version of an artifact",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.update(cmd, args[0]) },
	}
	update.Flags().StringVar(&c.file, "artifact-file", "", "the module (.wasm) of the new version")
	update.Flags().StringVar(&c.description, "description", "", "a new description")
	_ = update.MarkFlagRequired("artifact-file")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the artifacts",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return c.list(cmd) },
	}
	describe := &cobra.Command{
		Use:   "describe ID",
		Short: "Show an artifact with its versions and functions",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.describe(cmd, args[0]) },
	}
	del := &cobra.Command{
		Use:   "delete ID [ID...]",
		Short: "Delete artifacts (refused while a statement uses one)",
		Args:  cobra.MinimumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.delete(cmd, args) },
	}
	cmd.AddCommand(create, update, list, describe, del)
	return cmd
}

// manager returns the artifact manager the flags select and a function
// to close it; create makes the data directory when it does not exist.
func (c *artifactCommand) manager(cmd *cobra.Command, create bool) (ArtifactManager, func() error, error) {
	switch c.output {
	case "human":
		c.output = "table"
	case "table", "json", "yaml":
	default:
		return nil, nil, fmt.Errorf("invalid --output %q: use human, json or yaml", c.output)
	}
	if r := c.opts.Artifacts; r != nil && r.Selected(cmd.Flags()) {
		if cmd.Flags().Changed("data-dir") {
			return nil, nil, errors.New("give --data-dir or --server (or --config), not both: artifacts live either in a data directory or on a running server")
		}
		m, _, err := r.Connect(cmd.Flags())
		if err != nil {
			return nil, nil, err
		}
		return m, func() error { return nil }, nil
	}
	dir, err := dataDir(c.dataDir, c.opts.DefaultDataDir)
	if err != nil {
		return nil, nil, err
	}
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("creating data directory %s: %w", dir, err)
		}
	} else if _, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("no data directory at %s: %w", dir, err)
	}
	eng, err := engine.Open(cmd.Context(), engine.Options{DataDir: dir, Registry: c.opts.Registry, WasmCacheDir: wasm.CacheDirFromEnv()})
	if err != nil {
		err = openError(dir, err)
		if c.opts.Artifacts != nil && isLocked(err) {
			err = fmt.Errorf("%w\nWhile the server runs, manage its artifacts through it: eddy artifact %s --server URL", err, cmd.Name())
		}
		return nil, nil, err
	}
	return engineArtifacts{eng}, eng.Close, nil
}

func (c *artifactCommand) readFile() ([]byte, error) {
	b, err := os.ReadFile(c.file)
	if err != nil {
		return nil, fmt.Errorf("reading the artifact file: %w", err)
	}
	return b, nil
}

func (c *artifactCommand) create(cmd *cobra.Command, name string) (err error) {
	code, err := c.readFile()
	if err != nil {
		return err
	}
	m, done, err := c.manager(cmd, true)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	a, err := m.CreateArtifact(cmd.Context(), name, c.description, code)
	if err != nil {
		return err
	}
	return c.show(cmd.OutOrStdout(), a, false)
}

func (c *artifactCommand) update(cmd *cobra.Command, id string) (err error) {
	code, err := c.readFile()
	if err != nil {
		return err
	}
	var desc *string
	if cmd.Flags().Changed("description") {
		desc = &c.description
	}
	m, done, err := c.manager(cmd, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	a, err := m.AddArtifactVersion(cmd.Context(), id, code, desc)
	if err != nil {
		return err
	}
	return c.show(cmd.OutOrStdout(), a, false)
}

func (c *artifactCommand) list(cmd *cobra.Command) (err error) {
	m, done, err := c.manager(cmd, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	all, err := m.ListArtifacts(cmd.Context())
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if c.output != "table" {
		return c.write(w, v1.ArtifactList{APIVersion: v1.APIVersion, Kind: "ArtifactList", Data: all})
	}
	if len(all) == 0 {
		_, err := io.WriteString(w, "No artifacts. Upload one with: eddy artifact create NAME --artifact-file f.wasm\n")
		return err
	}
	var rows [][]string
	for _, a := range all {
		latest := a.Versions[len(a.Versions)-1]
		rows = append(rows, []string{a.ID, a.Name, latest.Version, strings.Join(latest.Functions, ", "), a.Description})
	}
	var b strings.Builder
	writeTable(&b, []string{"ID", "Name", "Latest Version", "Functions", "Description"}, rows)
	_, err = io.WriteString(w, b.String())
	return err
}

func (c *artifactCommand) describe(cmd *cobra.Command, id string) (err error) {
	m, done, err := c.manager(cmd, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	a, err := m.GetArtifact(cmd.Context(), id)
	if err != nil {
		return err
	}
	return c.show(cmd.OutOrStdout(), a, true)
}

func (c *artifactCommand) delete(cmd *cobra.Command, ids []string) (err error) {
	m, done, err := c.manager(cmd, false)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	w := cmd.OutOrStdout()
	for _, id := range ids {
		if err := m.DeleteArtifact(cmd.Context(), id); err != nil {
			return err
		}
		if c.output == "table" {
			fmt.Fprintf(w, "Deleted artifact %s.\n", id)
		}
	}
	if c.output != "table" {
		return c.write(w, map[string][]string{"deleted": ids})
	}
	return nil
}

// show prints an artifact: its latest version (and with versions every
// version) as a table, or the whole resource as JSON or YAML.
func (c *artifactCommand) show(w io.Writer, a v1.Artifact, versions bool) error {
	if c.output != "table" {
		return c.write(w, a)
	}
	latest := a.Versions[len(a.Versions)-1]
	rows := [][]string{
		{"ID", a.ID},
		{"Name", a.Name},
		{"Version", latest.Version},
		{"Content Format", a.ContentFormat},
		{"Runtime Language", a.RuntimeLanguage},
		{"Description", a.Description},
		{"Functions", strings.Join(latest.Functions, ", ")},
		{"SHA-256", latest.SHA256},
		{"Size", fmt.Sprintf("%d bytes", latest.Size)},
		{"URI", a.URI},
		{"Created", a.CreatedAt.Format(time.RFC3339)},
	}
	var b strings.Builder
	writeTable(&b, nil, rows)
	if versions {
		var vrows [][]string
		for _, v := range a.Versions {
			vrows = append(vrows, []string{v.Version, strings.Join(v.Functions, ", "), v.SHA256[:12], v.CreatedAt.Format(time.RFC3339), v.URI})
		}
		b.WriteString("\n")
		writeTable(&b, []string{"Version", "Functions", "SHA-256", "Created", "URI"}, vrows)
	} else {
		fmt.Fprintf(&b, "\nBind a function with: CREATE FUNCTION %s AS '%s' USING JAR '%s';\n", shortName(latest.Functions), firstOr(latest.Functions), a.URI)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func firstOr(fns []string) string {
	if len(fns) == 0 {
		return "<id>"
	}
	return fns[0]
}

func shortName(fns []string) string {
	id := firstOr(fns)
	return id[strings.LastIndexByte(id, '.')+1:]
}

// write prints v as JSON or YAML, following -o.
func (c *artifactCommand) write(w io.Writer, v any) error {
	if c.output == "yaml" {
		return writeYAMLTo(w, v)
	}
	return writeJSONTo(w, v)
}
