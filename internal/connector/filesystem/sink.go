package filesystem

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/types"
)

// Sink writes a filesystem table. It is plain configuration until Open.
type Sink struct {
	cfg       *config
	overwrite bool
	// staticDir is the directory INSERT OVERWRITE clears at its first
	// commit whether or not rows reach it ("" when only the written
	// partitions are cleared).
	staticDir string
}

// marker is what a checkpoint records of the sink: the renames (and, for
// INSERT OVERWRITE, the deletions) its commit makes. Recovery applies it
// again; every step is idempotent.
type marker struct {
	// Counter is the number of the last part file named.
	Counter int64 `json:"counter"`
	// Renames maps in-progress files to their visible names (absolute).
	Renames [][2]string `json:"renames,omitempty"`
	// Clear lists directories whose visible files not written by this job
	// are deleted before the renames (INSERT OVERWRITE).
	Clear []string `json:"clear,omitempty"`
}

// partFile is an in-progress part file of one partition directory.
type partFile struct {
	dir, tmp, final string
	fh              *os.File
	w               *bufio.Writer
	size            int64
	opened          time.Time
}

// writer is one job's output. Write may be called concurrently (it locks);
// Prepare, Commit and Close by one goroutine while no Write runs.
type writer struct {
	s         *Sink
	env       connector.Env
	codec     *codec
	markerKey []byte
	// token names this job's files ("part-<token>-0-<n>").
	token string

	mu      sync.Mutex
	counter int64
	open    map[string]*partFile // by partition directory
	// pending are finished files not yet in a checkpoint; prepared the
	// marker the last Prepare wrote, applied by Commit.
	pending  []*partFile
	prepared *marker
	// cleared holds the directories an overwrite has cleared.
	cleared map[string]bool
	buf     []byte
	vals    []types.Value
}

// jobToken is a job id as it may appear in a file name.
func jobToken(job string) string {
	var b strings.Builder
	for _, r := range job {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "job"
	}
	return b.String()
}

// Open implements connector.Sink: it first completes the commit the last
// checkpoint of the job recorded, then deletes the job's in-progress
// files no checkpoint covered.
func (s *Sink) Open(ctx context.Context, env connector.Env, kv connector.KV) (connector.SinkWriter, error) {
	c, err := s.cfg.newCodec()
	if err != nil {
		return nil, err
	}
	w := &writer{s: s, env: env, codec: c, token: jobToken(env.Job), open: map[string]*partFile{}, cleared: map[string]bool{}}
	w.markerKey = append(append([]byte{}, env.KeyPrefix...), "fs/"+s.cfg.table...)
	if err := os.MkdirAll(s.cfg.dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", s.cfg.dir, err)
	}
	v, ok, err := kv.Get(w.markerKey)
	if err != nil {
		return nil, fmt.Errorf("reading the sink's checkpoint: %w", err)
	}
	if ok {
		var m marker
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, fmt.Errorf("decoding the sink's checkpoint: %w", err)
		}
		if err := w.apply(&m); err != nil {
			return nil, fmt.Errorf("completing the last checkpoint's files: %w", err)
		}
		w.counter = m.Counter
		for _, d := range m.Clear {
			w.cleared[d] = true
		}
	}
	if err := w.removeInProgress(); err != nil {
		return nil, err
	}
	return w, nil
}

// removeInProgress deletes the job's in-progress files: output after the
// last checkpoint, which the restarted job writes again.
func (w *writer) removeInProgress() error {
	prefix := ".part-" + w.token + "-"
	return filepath.WalkDir(w.s.cfg.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), prefix) && strings.HasSuffix(d.Name(), ".inprogress") {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("removing the uncommitted file %s: %w", p, err)
			}
		}
		return nil
	})
}

// Write implements connector.SinkWriter.
func (w *writer) Write(_ context.Context, row types.Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.s.cfg
	if !c.changelog && row.Kind != types.Insert {
		return fmt.Errorf("writing into %s: format '%s' takes inserts only, not %v", c.table, c.format, row.Kind)
	}
	dir := c.dir
	for _, p := range c.parts {
		dir = filepath.Join(dir, c.columns[p].Name+"="+escapePathName(partitionText(row.Values[p], c.columns[p].Type, c.defaultName)))
	}
	pf := w.open[dir]
	if pf != nil && w.env.Now != nil && c.rollover > 0 && w.env.Now().Sub(pf.opened) >= c.rollover {
		if err := w.finish(pf); err != nil {
			return err
		}
		pf = nil
	}
	if pf == nil {
		var err error
		if pf, err = w.newFile(dir); err != nil {
			return err
		}
	}
	w.vals = w.vals[:0]
	for _, d := range c.data {
		w.vals = append(w.vals, row.Values[d])
	}
	var err error
	if w.codec.changelog != nil {
		w.buf, err = w.codec.changelog.EncodeChange(w.buf[:0], row.Kind, w.vals)
	} else {
		w.buf, err = w.codec.row.Encode(w.buf[:0], w.vals)
	}
	if err != nil {
		return fmt.Errorf("writing into %s: %w", c.table, err)
	}
	w.buf = append(w.buf, '\n')
	if _, err := pf.w.Write(w.buf); err != nil {
		return fmt.Errorf("writing %s: %w", pf.tmp, err)
	}
	pf.size += int64(len(w.buf))
	if pf.size >= c.fileSize {
		return w.finish(pf)
	}
	return nil
}

// newFile opens the next in-progress part file of a directory.
func (w *writer) newFile(dir string) (*partFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	w.counter++
	name := fmt.Sprintf("part-%s-0-%d", w.token, w.counter)
	pf := &partFile{dir: dir, tmp: filepath.Join(dir, "."+name+".inprogress"), final: filepath.Join(dir, name)}
	fh, err := os.OpenFile(pf.tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", pf.tmp, err)
	}
	pf.fh, pf.w = fh, bufio.NewWriterSize(fh, 64<<10)
	if w.env.Now != nil {
		pf.opened = w.env.Now()
	}
	w.open[dir] = pf
	return pf, nil
}

// finish flushes, syncs and closes a part file; it becomes pending (its
// rename goes into the next checkpoint).
func (w *writer) finish(pf *partFile) error {
	delete(w.open, pf.dir)
	err := pf.w.Flush()
	if err == nil {
		err = pf.fh.Sync()
	}
	if cerr := pf.fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("finishing %s: %w", pf.tmp, err)
	}
	w.pending = append(w.pending, pf)
	return nil
}

// Prepare implements connector.SinkWriter: the open part files are
// finished, and the renames of every file finished since the last
// checkpoint go into b (with the directories an overwrite clears).
func (w *writer) Prepare(_ context.Context, b connector.Batch) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	dirs := make([]string, 0, len(w.open))
	for d := range w.open {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := w.finish(w.open[d]); err != nil {
			return err
		}
	}
	m := &marker{Counter: w.counter}
	for _, pf := range w.pending {
		m.Renames = append(m.Renames, [2]string{pf.tmp, pf.final})
	}
	if w.s.overwrite {
		want := map[string]bool{}
		if w.s.staticDir != "" {
			want[w.s.staticDir] = true
		} else if len(w.s.cfg.parts) == 0 {
			want[w.s.cfg.dir] = true
		}
		for _, pf := range w.pending {
			want[pf.dir] = true
		}
		for d := range want {
			if !w.cleared[d] {
				m.Clear = append(m.Clear, d)
			}
		}
		sort.Strings(m.Clear)
	}
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := b.Set(w.markerKey, v); err != nil {
		return fmt.Errorf("recording the sink's files: %w", err)
	}
	w.prepared = m
	return nil
}

// Commit implements connector.SinkWriter: the checkpoint committed, so
// its files become visible.
func (w *writer) Commit(context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.prepared
	if m == nil {
		return nil
	}
	if err := w.apply(m); err != nil {
		return err
	}
	for _, d := range m.Clear {
		w.cleared[d] = true
	}
	w.prepared, w.pending = nil, nil
	return nil
}

// apply makes a recorded checkpoint's output visible: the overwritten
// directories lose their other files, the in-progress files get their
// names. A step already done is skipped, so apply can run again after a
// crash.
func (w *writer) apply(m *marker) error {
	own := "part-" + w.token + "-"
	for _, d := range m.Clear {
		entries, err := os.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("overwriting %s: %w", d, err)
		}
		for _, e := range entries {
			if e.IsDir() || hidden(e.Name()) || strings.HasPrefix(e.Name(), own) {
				continue
			}
			if err := os.Remove(filepath.Join(d, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("overwriting %s: %w", d, err)
			}
		}
	}
	synced := map[string]bool{}
	for _, r := range m.Renames {
		if err := os.Rename(r[0], r[1]); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if _, serr := os.Stat(r[1]); serr == nil {
					continue // renamed before the crash
				}
			}
			return fmt.Errorf("committing %s: %w", r[1], err)
		}
		synced[filepath.Dir(r[1])] = false
	}
	for _, d := range m.Clear {
		synced[d] = false
	}
	for d := range synced {
		if err := syncDir(d); err != nil {
			return fmt.Errorf("committing %s: %w", d, err)
		}
	}
	return nil
}

// syncDir makes a directory's renames and deletions durable.
func syncDir(dir string) error {
	fh, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer fh.Close()
	return fh.Sync()
}

// Close implements connector.SinkWriter. Files no checkpoint recorded
// are deleted (a restarted job writes their rows again); files a
// checkpoint recorded stay for the next Open to commit.
func (w *writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for _, pf := range w.open {
		errs = append(errs, pf.fh.Close(), os.Remove(pf.tmp))
	}
	if w.prepared == nil {
		for _, pf := range w.pending {
			errs = append(errs, os.Remove(pf.tmp))
		}
		w.pending = nil
	}
	w.open = map[string]*partFile{}
	return errors.Join(errs...)
}
