package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// connectLocal makes the client of `eddy statement … --data-dir DIR`: the
// directory opened in this process (its statements are not started), or,
// when another process holds it, that process through the directory's
// socket.
func (s *statementCmd) connectLocal(cmd *cobra.Command) error {
	for _, f := range []string{"server", "config", "api-key", "api-secret"} {
		if cmd.Flags().Changed(f) {
			return s.failf("--data-dir and --%s do not go together: --data-dir manages a local data directory, --%s a server", f, f)
		}
	}
	dir := s.dataDir
	s.settings = Settings{Server: "data directory " + dir, Origins: map[string]string{"server": "--data-dir"}}
	cl, closeDir, err := s.opts.OpenStatements(cmd.Context(), dir)
	if errors.Is(err, ErrDataDirInUse) {
		cl, o, derr := dialLocal(cmd.Context(), dir, s.opts.Version)
		if derr != nil {
			return s.failf("opening data directory %s: %v\n%v", dir, err, derr)
		}
		fmt.Fprintf(s.opts.Stderr, "The data directory %s is held by %s: attached to it.\n", dir, ownerText(o))
		s.cl = cl
		return nil
	}
	if err != nil {
		return s.failf("opening data directory %s: %v", dir, err)
	}
	s.cl, s.closeLocal = cl, closeDir
	return nil
}

// closeAfter makes cmd close the local data directory it opened when it
// ends.
func (s *statementCmd) closeAfter(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			err := run(c, args)
			if s.closeLocal != nil {
				closeDir := s.closeLocal
				s.closeLocal = nil
				if cerr := closeDir(); cerr != nil && err == nil {
					err = s.failf("closing data directory %s: %v", s.dataDir, cerr)
				}
			}
			return err
		}
	}
	for _, c := range cmd.Commands() {
		s.closeAfter(c)
	}
}
