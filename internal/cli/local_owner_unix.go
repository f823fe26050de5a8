//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// checkSocketOwner refuses a socket that belongs to another user: a client
// must not send its statements to a process that planted a socket where
// the data directory's owner would serve one.
func checkSocketOwner(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if me := os.Getuid(); int(st.Uid) != me && st.Uid != 0 {
		return fmt.Errorf("the socket %s belongs to user id %d, not to this user (%d)", path, st.Uid, me)
	}
	return nil
}
