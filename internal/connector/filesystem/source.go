package filesystem

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/types"
)

// Source reads a filesystem table: the files present when the statement
// first started. It is plain configuration until Open.
type Source struct {
	cfg *config
	// files are the opened source's files by partition id; codec decodes
	// their records (Decode runs on the job's source task only).
	files map[int32]*file
	codec *codec
	buf   []types.Value
}

// file is one data file of the source.
type file struct {
	path  string // absolute
	rel   string // relative to the table's directory
	id    int32
	order int64 // position in path order: the record timestamp
	size  int64 // bytes read: the size when the statement first started
	// partition values, in PARTITIONED BY order.
	parts []types.Value
}

// batchRecords is the most records one Fetch returns of a file.
const batchRecords = 1024

// Name implements connector.Source.
func (s *Source) Name() string { return "fs:" + s.cfg.table }

// Topic implements connector.Source: the table's directory.
func (s *Source) Topic() string { return s.cfg.dir }

// IdleTimeout implements connector.Source: files are read to their end.
func (s *Source) IdleTimeout() time.Duration { return 0 }

// Describe implements connector.Source.
func (s *Source) Describe(r *connector.Record) string {
	if f := s.files[r.Partition]; f != nil {
		return fmt.Sprintf("file %s at byte %d", f.rel, r.Offset)
	}
	return fmt.Sprintf("file #%d at byte %d", r.Partition, r.Offset)
}

// fileID is a file's partition id: a 31-bit hash of its relative path,
// stable whatever other files come and go.
func fileID(rel string) int32 {
	h := fnv.New32a()
	h.Write([]byte(filepath.ToSlash(rel)))
	return int32(h.Sum32() & 0x7fffffff)
}

// hidden reports whether a file or directory is skipped, as Flink skips
// names starting with '.' or '_' (in-progress files, _SUCCESS).
func hidden(name string) bool { return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") }

// listFiles returns the data files under dir: at the depth of the
// partition columns, in directories "col=value" in PARTITIONED BY order.
func (c *config) listFiles() ([]*file, error) {
	var out []*file
	depth := len(c.parts)
	if st, err := os.Stat(c.dir); err == nil && st.Mode().IsRegular() && depth == 0 {
		// 'path' names one file (as Flink allows): the table is that file.
		rel := filepath.Base(c.dir)
		return []*file{{path: c.dir, rel: rel, id: fileID(rel)}}, nil
	}
	err := filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == c.dir && errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("the table's directory %s does not exist", c.dir)
			}
			return err
		}
		if p == c.dir {
			return nil
		}
		rel, _ := filepath.Rel(c.dir, p)
		level := strings.Count(filepath.ToSlash(rel), "/")
		if hidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if level >= depth {
				return filepath.SkipDir
			}
			col, _, ok := strings.Cut(d.Name(), "=")
			if !ok || col != c.partitionKey[level] {
				return filepath.SkipDir // not a partition of this table
			}
			return nil
		}
		if level != depth || !d.Type().IsRegular() {
			return nil
		}
		f := &file{path: p, rel: filepath.ToSlash(rel), id: fileID(rel)}
		dirs := strings.Split(f.rel, "/")
		for i, pi := range c.parts {
			_, val, _ := strings.Cut(dirs[i], "=")
			v, err := parsePartition(unescapePathName(val), c.columns[pi].Type, c.defaultName)
			if err != nil {
				return fmt.Errorf("file %s: %w", f.rel, err)
			}
			f.parts = append(f.parts, v)
		}
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

// Open implements connector.Source. A new statement reads the files
// present now, each to its current size; a resumed one (env.Bounds holds
// the sizes its first run saw) reads those files only.
func (s *Source) Open(ctx context.Context, env connector.Env, from map[int32]int64) (connector.Reader, error) {
	files, err := s.cfg.listFiles()
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", s.cfg.table, err)
	}
	byID := map[int32]*file{}
	for i, f := range files {
		if g, dup := byID[f.id]; dup {
			return nil, fmt.Errorf("files %s and %s of %s have the same id: rename one of them", g.rel, f.rel, s.cfg.table)
		}
		f.order = int64(i)
		byID[f.id] = f
	}
	bounds := map[int32]int64{}
	if len(env.Bounds) > 0 {
		for id, size := range env.Bounds {
			f, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("a file that %s was reading (id %d) is gone: the statement cannot resume", s.cfg.table, id)
			}
			f.size = size
			bounds[id] = size
		}
		for id := range byID {
			if _, ok := bounds[id]; !ok {
				delete(byID, id) // came after the statement started
			}
		}
	} else {
		for id, f := range byID {
			st, err := os.Stat(f.path)
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", f.rel, err)
			}
			f.size = st.Size()
			bounds[id] = f.size
		}
	}
	c, err := s.cfg.newCodec()
	if err != nil {
		return nil, err
	}
	s.files, s.codec = byID, c
	r := &reader{src: s, bounds: bounds, start: map[int32]int64{}, next: map[int32]int64{}}
	for id := range byID {
		r.start[id] = min(from[id], bounds[id])
		r.next[id] = r.start[id]
		r.order = append(r.order, byID[id])
	}
	sort.Slice(r.order, func(i, j int) bool { return r.order[i].order < r.order[j].order })
	return r, nil
}

// Decode implements connector.Source: the record's columns, with the
// partition values of its file.
func (s *Source) Decode(rec *connector.Record, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error) {
	f := s.files[rec.Partition]
	if f == nil {
		return dst, kinds, fmt.Errorf("%s: a record of unknown file #%d", s.cfg.table, rec.Partition)
	}
	var vals []types.Value
	var err error
	n := len(kinds)
	if s.codec.changelog != nil {
		vals, kinds, err = s.codec.changelog.DecodeChanges(rec.Value, s.buf[:0], kinds)
	} else {
		vals, err = s.codec.row.Decode(rec.Value, s.buf[:0])
		if err == nil && vals != nil {
			kinds = append(kinds, types.Insert)
		}
	}
	if err != nil {
		var fe *format.Error
		if errors.As(err, &fe) {
			return dst, kinds[:n], &connector.BadRecordError{Err: err}
		}
		return dst, kinds[:n], err
	}
	s.buf = vals
	w := s.cfg.dataSchema.Len()
	for r := range kinds[n:] {
		row := vals[r*w : (r+1)*w]
		base := len(dst)
		for range s.cfg.columns {
			dst = append(dst, types.Value{})
		}
		for j, ci := range s.cfg.data {
			dst[base+ci] = row[j]
		}
		for j, pi := range s.cfg.parts {
			dst[base+pi] = f.parts[j]
		}
	}
	return dst, kinds, nil
}

// reader reads the files of an opened Source, one Fetch at a time: first
// the first record of every file (the runtime merges files by their
// heads), then each file in path order, in batches.
type reader struct {
	src           *Source
	bounds, start map[int32]int64
	// next is the byte offset after the records fetched of each file.
	next  map[int32]int64
	order []*file
	// headsDone is set once every file's first record was fetched; cur is
	// the file being read after that.
	headsDone bool
	cur       int
	// The open file: rd reads fh from byte rdPos.
	fh     *os.File
	rdFile *file
	rd     *bufio.Reader
	rdPos  int64
}

func (r *reader) Start() map[int32]int64  { return maps.Clone(r.start) }
func (r *reader) Bounds() map[int32]int64 { return maps.Clone(r.bounds) }

// Targets implements connector.Reader: the files end where they ended
// when the statement started.
func (r *reader) Targets(context.Context) (map[int32]int64, error) { return maps.Clone(r.bounds), nil }

// Next implements connector.Reader.
func (r *reader) Next(p int32) int64 { return r.next[p] }

// Close implements connector.Reader.
func (r *reader) Close() error {
	if r.fh == nil {
		return nil
	}
	err := r.fh.Close()
	r.fh, r.rdFile, r.rd = nil, nil, nil
	return err
}

// Fetch implements connector.Reader. Once every file is read it waits for
// ctx: the source ends by its bounds.
func (r *reader) Fetch(ctx context.Context) ([]connector.Record, error) {
	if !r.headsDone {
		r.headsDone = true
		var out []connector.Record
		for _, f := range r.order {
			recs, err := r.read(f, 1)
			if err != nil {
				return nil, err
			}
			out = append(out, recs...)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	for r.cur < len(r.order) {
		f := r.order[r.cur]
		if r.next[f.id] >= f.size {
			r.cur++
			continue
		}
		recs, err := r.read(f, batchRecords)
		if err != nil {
			return nil, err
		}
		if len(recs) > 0 {
			return recs, nil
		}
	}
	r.Close()
	<-ctx.Done()
	return nil, ctx.Err()
}

// read reads up to n records of f from its next offset.
func (r *reader) read(f *file, n int) ([]connector.Record, error) {
	pos := r.next[f.id]
	if pos >= f.size {
		return nil, nil
	}
	if r.rdFile != f || r.rdPos != pos {
		if err := r.open(f, pos); err != nil {
			return nil, err
		}
	}
	var out []connector.Record
	for len(out) < n && r.rdPos < f.size {
		rec, size, err := r.record()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading %s: %w", f.rel, err)
		}
		start := r.rdPos
		r.rdPos += int64(size)
		if len(bytes.TrimSpace(rec)) > 0 {
			out = append(out, connector.Record{Partition: f.id, Offset: start, Timestamp: f.order,
				TimestampType: connector.NoTimestampType, LeaderEpoch: -1, Value: rec})
		}
		if errors.Is(err, io.EOF) {
			r.rdPos = f.size
		}
	}
	r.next[f.id] = r.rdPos
	return out, nil
}

// open opens f for reading from a checkpointed position.
func (r *reader) open(f *file, pos int64) error {
	r.Close()
	fh, err := os.Open(f.path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", f.rel, err)
	}
	r.fh, r.rdFile = fh, f
	start, err := r.resumeAt(f, pos)
	if err != nil {
		return err
	}
	if _, err := fh.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("reading %s: %w", f.rel, err)
	}
	r.rd = bufio.NewReaderSize(io.LimitReader(fh, f.size-start), 64<<10)
	r.rdPos = start
	return nil
}

// record reads one record (a line, or several lines of a csv record with
// a quoted line break): its bytes without the final line break, and the
// bytes consumed.
func (r *reader) record() ([]byte, int, error) {
	var rec []byte
	size := 0
	for {
		line, err := r.rd.ReadBytes('\n')
		size += len(line)
		rec = append(rec, line...)
		if err != nil || r.src.codec.row == nil || format.RecordComplete(r.src.codec.row, rec) {
			rec = bytes.TrimSuffix(rec, []byte{'\n'})
			rec = bytes.TrimSuffix(rec, []byte{'\r'})
			return rec, size, err
		}
	}
}

// resumeAt returns where reading f continues for a position from a
// checkpoint: the runtime records one past the start of the last record
// it took (or the next record's start once a file's fetched records are
// all taken). If the byte before pos ends a line, pos starts a record;
// otherwise the record starting at pos-1 was read and is skipped.
func (r *reader) resumeAt(f *file, pos int64) (int64, error) {
	if pos == 0 {
		return 0, nil
	}
	var b [1]byte
	if _, err := r.fh.ReadAt(b[:], pos-1); err != nil {
		return 0, fmt.Errorf("reading %s: %w", f.rel, err)
	}
	if b[0] == '\n' {
		return pos, nil
	}
	if _, err := r.fh.Seek(pos-1, io.SeekStart); err != nil {
		return 0, fmt.Errorf("reading %s: %w", f.rel, err)
	}
	r.rd = bufio.NewReaderSize(io.LimitReader(r.fh, f.size-(pos-1)), 64<<10)
	_, size, err := r.record()
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("reading %s: %w", f.rel, err)
	}
	return pos - 1 + int64(size), nil
}
