package server

import (
	"log/slog"
	"net"
	"os"
	"syscall"
)

// peerPermitted reports whether the process at the other end of a socket
// connection runs as this process's user (or as root), from the
// connection's SO_PEERCRED credentials.
func peerPermitted(c net.Conn, logger *slog.Logger) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	if me := os.Getuid(); int(cred.Uid) != me && cred.Uid != 0 {
		logger.Warn("refusing a socket connection from another user", "peer_uid", cred.Uid, "peer_pid", cred.Pid)
		return false
	}
	return true
}
