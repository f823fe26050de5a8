package v1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSocketPath(t *testing.T) {
	dir := t.TempDir()
	if got, want := SocketPath(dir), filepath.Join(dir, SocketName); len(want) <= maxSocketPath && got != want {
		t.Fatalf("SocketPath(%q) = %q, want %q", dir, got, want)
	}
	long := filepath.Join(dir, strings.Repeat("d", 120))
	p := SocketPath(long)
	if len(p) > maxSocketPath || !strings.HasPrefix(p, filepath.Join(os.TempDir(), "eddy-")) || !strings.HasSuffix(p, ".sock") {
		t.Fatalf("SocketPath of a long directory = %q: want a short path under the temporary directory", p)
	}
	if SocketPath(long) != p || SocketPath(long+"/") != p {
		t.Fatal("SocketPath is not the same for the same directory")
	}
	if SocketPath(long+"x") == p {
		t.Fatal("two directories share a socket")
	}
}
