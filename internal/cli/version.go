package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// versionInfo is the json/yaml output of `eddy version`.
type versionInfo struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func newVersionCommand(opts Options) *cobra.Command {
	output := "human"
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of eddy",
		Long:  "Print the version of eddy, the Go version it was built with, and the platform.",
		Example: `  eddy version
  eddy version -o json
  eddy --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := versionInfo{Version: opts.Version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
			w := cmd.OutOrStdout()
			switch output {
			case "human", "table":
				_, err := fmt.Fprintf(w, "eddy version %s %s %s/%s\n", v.Version, v.Go, v.OS, v.Arch)
				return err
			case "json":
				return writeJSON(w, v)
			case "yaml":
				return writeYAML(w, v)
			}
			return fmt.Errorf("invalid output format %q: use human, json or yaml", output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", output, "output `FORMAT`: human, json or yaml")
	return cmd
}
