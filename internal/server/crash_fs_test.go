package server_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/stretchr/testify/require"
)

// TestCrashFilesystem kills a server whose statement writes a bounded
// generated table (ids 1..rows, in order) into a 'filesystem' table, at
// several points, and restarts it. With the server down after every kill,
// the visible part files must hold ids 1..m for some m, each once: no row
// twice, none skipped (a checkpoint's files become visible together, in
// the order the rows were read). At the end they hold every id exactly
// once and no in-progress file is left.
func TestCrashFilesystem(t *testing.T) {
	bins := crashBinaries{eddy: buildEddy(t), inspector: ""}
	// From generated rows, and from a filesystem table (the source resumes
	// inside its files).
	t.Run("datagen", func(t *testing.T) { crashFilesystem(t, bins, 200_000, false) })
	t.Run("files", func(t *testing.T) { crashFilesystem(t, bins, 1_000_000, true) })
}

func crashFilesystem(t *testing.T, bins crashBinaries, rows int, fromFiles bool) {
	e := newCrashEnv(t, bins, int64(rows))
	out := filepath.Join(t.TempDir(), "out")
	e.start()
	e.setup()
	e.c.run("out", fmt.Sprintf(`CREATE TABLE out_fs (id BIGINT, k BIGINT) WITH (
  'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, out))
	src := "gen"
	if fromFiles {
		// The ids in 40 files of 25k lines, read in path order, so that
		// kills land inside files and between them.
		in := filepath.Join(t.TempDir(), "in")
		require.NoError(t, os.MkdirAll(in, 0o755))
		const files = 40
		var parts [files]strings.Builder
		for id := 1; id <= rows; id++ {
			fmt.Fprintf(&parts[(id-1)*files/rows], "%d,%d\n", id, id%crashKeys)
		}
		for i := range parts {
			require.NoError(t, os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%02d", i)), []byte(parts[i].String()), 0o644))
		}
		e.c.run("in", fmt.Sprintf(`CREATE TABLE in_fs (id BIGINT, k BIGINT) WITH (
  'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, in))
		src = "in_fs"
	}
	const name = "write-files"
	e.create(name, `INSERT INTO out_fs SELECT id, k FROM `+src, map[string]string{
		"execution.checkpointing.interval": crashInterval.String(),
	})

	flowing := func() jobCounters {
		c, ok := e.waitCounters(name, waitTimeout, func(c jobCounters) bool { return c.in > 0 })
		require.True(t, ok, "the job read nothing")
		return c
	}
	midBatch := func() string {
		flowing()
		d := time.Duration(20+e.rng.IntN(400)) * time.Millisecond
		time.Sleep(d)
		return fmt.Sprintf("records flowing, %v after the first record", d)
	}
	afterCheckpoint := func() string {
		c0 := flowing()
		n := c0.checkpoints + 2 + int64(e.rng.IntN(3))
		c, ok := e.waitCounters(name, 10*time.Second, func(c jobCounters) bool { return c.checkpoints >= n })
		if !ok {
			return fmt.Sprintf("no checkpoint within 10s (read %d records)", c.in)
		}
		return fmt.Sprintf("right after checkpoint #%d", c.checkpoints)
	}
	beforeCheckpoint := func() string {
		where := afterCheckpoint()
		early := time.Duration(e.rng.IntN(10_000)) * time.Microsecond
		time.Sleep(crashInterval - early)
		return fmt.Sprintf("%v before the checkpoint after the one %s", early, strings.TrimPrefix(where, "right after "))
	}
	atStart := func() string {
		d := time.Duration(e.rng.IntN(30_000)) * time.Microsecond
		time.Sleep(d)
		return fmt.Sprintf("%v after the restarted server listened", d)
	}
	kills := []func() string{midBatch, afterCheckpoint, beforeCheckpoint, atStart, afterCheckpoint, beforeCheckpoint, midBatch}

	last := 0
	for i, kill := range kills {
		if e.p == nil {
			e.start()
		}
		e.requireHealthy(name, v1.Running, v1.Completed)
		if e.c.get(name).Status.Phase == v1.Completed {
			t.Logf("kill %d skipped: the statement completed", i+1)
			continue
		}
		where := kill()
		e.kill()
		ids, hidden := readPartFiles(t, out)
		m := checkPrefix(t, ids, fmt.Sprintf("kill %d, %s", i+1, where))
		t.Logf("kill %d, %s: %d ids visible in part files (%d in-progress files left for the restart)", i+1, where, m, hidden)
		last = m
	}
	// Run to the end.
	e.start()
	deadline := time.Now().Add(2 * time.Minute)
	for e.c.get(name).Status.Phase != v1.Completed {
		require.True(t, time.Now().Before(deadline), "%s did not complete (%d of %d ids were visible at the last kill)", name, last, rows)
		time.Sleep(20 * time.Millisecond)
	}
	e.requireHealthy(name, v1.Completed)
	e.term()
	ids, hidden := readPartFiles(t, out)
	require.Equal(t, rows, checkPrefix(t, ids, "after the end"), "every id once")
	_ = last
	require.Zero(t, hidden, "in-progress files are left")
}

// readPartFiles returns the ids of the visible part files of a csv table
// (first column), and the number of hidden (in-progress) files.
func readPartFiles(t *testing.T, dir string) ([]int, int) {
	t.Helper()
	var ids []int
	hidden := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") {
			hidden++
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line == "" {
				continue
			}
			id, err := strconv.Atoi(strings.SplitN(line, ",", 2)[0])
			if err != nil {
				return fmt.Errorf("%s: %q: %w", p, line, err)
			}
			ids = append(ids, id)
		}
		return nil
	})
	require.NoError(t, err)
	return ids, hidden
}

// checkPrefix checks that ids are 1..len(ids), each once, and returns
// len(ids).
func checkPrefix(t *testing.T, ids []int, label string) int {
	t.Helper()
	sort.Ints(ids)
	for i, id := range ids {
		if id != i+1 {
			if i > 0 && id == ids[i-1] {
				t.Fatalf("%s: id %d is written twice", label, id)
			}
			t.Fatalf("%s: the files hold %d ids but not id %d", label, len(ids), i+1)
		}
	}
	return len(ids)
}
