package v1

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// SocketName is the file name of the Unix socket through which the process
// holding a data directory (an `eddy sql` shell or `eddy server`) serves
// this API to other processes of its user: in the data directory itself.
const SocketName = "eddy.sock"

// maxSocketPath is the longest socket path every Unix accepts (sun_path is
// 104 bytes on macOS and the BSDs, 108 on Linux, with the final NUL).
const maxSocketPath = 103

// SocketPath returns the Unix socket of a data directory: DIR/eddy.sock,
// with DIR made absolute. When that path is too long for a socket, the
// socket lives in a directory of the user's own under the temporary
// directory instead, named by a hash of the data directory's absolute
// path, so that every process computes the same path.
func SocketPath(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = filepath.Clean(dataDir)
	}
	p := filepath.Join(abs, SocketName)
	if len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(os.TempDir(), fmt.Sprintf("eddy-%d", os.Getuid()), hex.EncodeToString(sum[:12])+".sock")
}

// OwnerPath is the endpoint, served only on the socket of SocketPath, that
// tells which process holds the data directory (GET, an Owner).
const OwnerPath = "/v1/local/owner"

// Owner describes the process that holds a data directory, for the clients
// that attach to it through its socket.
type Owner struct {
	// Command is what runs: "eddy sql" or "eddy server".
	Command string `json:"command"`
	// PID is the process id.
	PID int `json:"pid"`
	// User is the user name the process runs as.
	User string `json:"user,omitempty"`
	// DataDir is the data directory's absolute path.
	DataDir string `json:"data_dir"`
	// Listen is the HTTP address of an `eddy server`, if any.
	Listen string `json:"listen,omitempty"`
	// StartedAt is when the process opened the data directory.
	StartedAt time.Time `json:"started_at"`
}

// CodeForbidden answers a request the caller may not make: a request to
// OwnerPath from another user.
const CodeForbidden = "FORBIDDEN"
