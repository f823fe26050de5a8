package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/spf13/cobra"
)

// newFunctionCommand returns `eddy function`, whose `build` turns a Go
// package of process table functions into a module for `eddy artifact`.
func newFunctionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "function",
		Short: "Build process table functions into WebAssembly modules",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var out, goTool string
	build := &cobra.Command{
		Use:   "build [PACKAGE] -o FILE.wasm",
		Short: "Build a main package that registers functions (package ptf/wasmguest) into a module",
		Long: `Build a Go main package into a WebAssembly module of process table
functions, then load it to check it and list the functions it exports. The
package registers its ptf.Definitions in an init function:

  func init() { wasmguest.Register("acme.Dedup", dedup.Definition) }
  func main() {}

This runs the Go toolchain (1.24 or later, no other install) as

  ` + wasm.BuildCommandLine("PACKAGE", "FILE.wasm") + `

Upload the module with: eddy artifact create NAME --artifact-file FILE.wasm`,
		Example: `  eddy function build ./examples/wasm/OrderStatusTracker -o order_status.wasm
  eddy function build ./cmd/myfunctions -o myfunctions.wasm`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pkg := "."
			if len(args) == 1 {
				pkg = args[0]
			}
			if out == "" {
				return errors.New("give the module's file with -o FILE.wasm")
			}
			return buildFunctions(cmd, goTool, pkg, out)
		},
	}
	build.Flags().StringVarP(&out, "output", "o", "", "the module `FILE` to write (.wasm)")
	build.Flags().StringVar(&goTool, "go", "go", "the Go toolchain to run")
	cmd.AddCommand(build)
	return cmd
}

func buildFunctions(cmd *cobra.Command, goTool, pkg, out string) error {
	ctx := cmd.Context()
	if err := wasm.Build(ctx, goTool, "", pkg, out, cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
		return err
	}
	code, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	rt, err := wasm.New(wasm.Options{CacheDir: wasm.UserCacheDir()})
	if err != nil {
		return err
	}
	defer rt.Close()
	m, err := rt.Load(context.WithoutCancel(ctx), code, wasm.Limits{})
	if err != nil {
		_ = os.Remove(out)
		return fmt.Errorf("%s is not a usable function module (removed): %w", out, err)
	}
	abs, _ := filepath.Abs(out)
	fmt.Fprintf(cmd.OutOrStdout(), "Built %s (%.1f MB) exporting %s.\nUpload it with: eddy artifact create NAME --artifact-file %s\n",
		abs, float64(len(code))/(1<<20), strings.Join(m.IDs(), ", "), shellQuote(out))
	return nil
}
