package engine_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// TestFilesystem runs testdata/filesystem/* with a scratch directory for
// 'filesystem' tables. Besides the commands of TestSQL (whose input may
// use ${TMP}, the scratch directory; it is printed back as ${TMP}):
//
//	write path=P  write the input as the file P under ${TMP} (directories
//	              are created)
//	files [dir=D] print the data under ${TMP}/D: per directory the number
//	              of visible files and their lines, sorted (part file
//	              names hold job ids, which change every run), then the
//	              hidden files, if any
func TestFilesystem(t *testing.T) {
	datadriven.Walk(t, "testdata/filesystem", func(t *testing.T, path string) {
		h := &fsHarness{harness: newHarness(t, true), tmp: t.TempDir()}
		datadriven.RunTest(t, path, h.run)
	})
}

type fsHarness struct {
	*harness
	tmp string
}

func (h *fsHarness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "write":
		var p string
		d.ScanArgs(t, "path", &p)
		full := filepath.Join(h.tmp, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(d.Input), 0o644))
		return "ok"
	case "files":
		dir := ""
		if d.HasArg("dir") {
			d.ScanArgs(t, "dir", &dir)
		}
		// Running statements first catch up, as before any statement.
		if _, err := h.eng.Execute(t.Context(), "SHOW CATALOGS", false); err != nil {
			d.Fatalf(t, "syncing: %v", err)
		}
		return listData(t, filepath.Join(h.tmp, dir))
	}
	d.Input = strings.ReplaceAll(d.Input, "${TMP}", h.tmp)
	return strings.ReplaceAll(h.harness.run(t, d), h.tmp, "${TMP}")
}

// listData prints the files under root, per directory.
func listData(t *testing.T, root string) string {
	type dirData struct {
		files  int
		lines  []string
		hidden []string
	}
	dirs := map[string]*dirData{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		dd := dirs[rel]
		if dd == nil {
			dd = &dirData{}
			dirs[rel] = dd
		}
		if strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
			dd.hidden = append(dd.hidden, d.Name())
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dd.files++
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if l != "" {
				dd.lines = append(dd.lines, strings.TrimSuffix(l, "\n"))
			}
		}
		return nil
	})
	require.NoError(t, err)
	if len(dirs) == 0 {
		return "(no files)\n"
	}
	var names []string
	for n := range dirs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		dd := dirs[n]
		sort.Strings(dd.lines)
		fmt.Fprintf(&b, "%s/ (%d files)\n", filepath.ToSlash(n), dd.files)
		for _, l := range dd.lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		if len(dd.hidden) > 0 {
			fmt.Fprintf(&b, "  hidden: %d\n", len(dd.hidden))
		}
	}
	return b.String()
}
