//go:build unix

package server

import (
	"fmt"
	"os"
	"syscall"
)

// checkSocketDir refuses to serve the socket in a directory that another
// user owns or may write to (other than a sticky one like /tmp): that user
// could replace the socket with one of their own.
func checkSocketDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	me := os.Getuid()
	if int(st.Uid) != me && st.Uid != 0 {
		return fmt.Errorf("the socket's directory %s belongs to user id %d, not to this user (%d)", dir, st.Uid, me)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 && int(st.Uid) != me {
		return fmt.Errorf("the socket's directory %s is writable by other users", dir)
	}
	return nil
}
