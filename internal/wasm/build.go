package wasm

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildEnv is the environment (added to the caller's) under which the Go
// toolchain builds a function module: WASI, no cgo, and the saturating
// conversion and sign extension instructions (faster guest code; wazero
// runs them).
var BuildEnv = []string{"GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0", "GOWASM=satconv,signext"}

// BuildArgs returns the arguments of `go` that build the main package pkg
// into the module out: a WASI reactor (-buildmode=c-shared), whose
// exports Eddy calls after its init functions ran.
func BuildArgs(pkg, out string) []string {
	return []string{"build", "-buildmode=c-shared", "-trimpath", "-o", out, pkg}
}

// BuildCommandLine is the documented equivalent of Build, for messages.
func BuildCommandLine(pkg, out string) string {
	return strings.Join([]string{BuildEnv[0], BuildEnv[1], BuildEnv[3]}, " ") + " go " + strings.Join(BuildArgs(pkg, out), " ")
}

// Build runs the Go toolchain (goTool, "go" when empty) in dir to build
// the main package pkg into the module out.
func Build(ctx context.Context, goTool, dir, pkg, out string, stdout, stderr io.Writer) error {
	if goTool == "" {
		goTool = "go"
	}
	cmd := exec.CommandContext(ctx, goTool, BuildArgs(pkg, out)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), BuildEnv...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", BuildCommandLine(pkg, out), err)
	}
	return nil
}

// CacheDirEnv names the environment variable that moves the compiled-module
// cache of the eddy command (default: wasm-cache in the data directory, and
// for eddy function build the user's cache directory).
const CacheDirEnv = "EDDY_WASM_CACHE_DIR"

// CacheDirFromEnv returns $EDDY_WASM_CACHE_DIR ("" when unset).
func CacheDirFromEnv() string { return os.Getenv(CacheDirEnv) }

// UserCacheDir is the compiled-module cache of commands without a data
// directory (eddy function build): $EDDY_WASM_CACHE_DIR, else
// eddy/wasm-cache in the user's cache directory, else "" (memory).
func UserCacheDir() string {
	if d := CacheDirFromEnv(); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "eddy", "wasm-cache")
	}
	return ""
}
