package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func newVersionCommand(opts Options) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of eddy",
		Long:  "Print the version of eddy, the Go version it was built with, and the platform.",
		Example: `  eddy version
  eddy --version`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "eddy version %s %s %s/%s\n",
				opts.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
