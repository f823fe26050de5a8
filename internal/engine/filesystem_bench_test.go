package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The filesystem benchmarks copy 1M csv rows (k, v) from one filesystem
// table into another (INSERT INTO ... SELECT, measured until the job
// committed its files), beside a hand-written loop that reads, parses,
// formats and writes the same lines with bufio. Run them with
//
//	go test -run '^$' -bench 'FilesystemCopy' -benchtime 1x ./internal/engine/

// fsBenchInput writes the input file into dir/in and returns its path.
func fsBenchInput(b *testing.B, dir string) string {
	b.Helper()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for i, r := range sqlBenchRows() {
		_ = i
		fmt.Fprintf(&buf, "%d,%d\n", r[0], r[1])
	}
	if err := os.WriteFile(filepath.Join(in, "part-0"), buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return in
}

// countLines counts the lines of the visible files under dir.
func countLines(b *testing.B, dir string) int {
	b.Helper()
	n := 0
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || strings.HasPrefix(info.Name(), ".") {
			return err
		}
		data, err := os.ReadFile(p)
		n += bytes.Count(data, []byte{'\n'})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkFilesystemCopyEngine: INSERT INTO out SELECT k, v FROM in over
// 1M csv lines.
func BenchmarkFilesystemCopyEngine(b *testing.B) {
	ctx := context.Background()
	var m pipelineMeter
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		dir := b.TempDir()
		in := fsBenchInput(b, dir)
		out := filepath.Join(dir, "out")
		e := pipelineEngine(ctx, b)
		pipelineExec(b, e, fmt.Sprintf(`CREATE TABLE src (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, in))
		pipelineExec(b, e, fmt.Sprintf(`CREATE TABLE dst (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, out))
		pipelineSettle(b, e)
		m.begin(b)
		pipelineExec(b, e, "INSERT INTO dst SELECT k, v FROM src")
		pipelineExec(b, e, "SHOW TABLES") // syncs: waits until the job committed everything
		m.end(b)
		if n := countLines(b, out); n != pipelineEvents {
			b.Fatalf("the copy has %d lines, want %d", n, pipelineEvents)
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// BenchmarkFilesystemCopyHandLoop is the same copy by hand: bufio lines,
// two integers parsed and formatted, one fsync'ed output file.
func BenchmarkFilesystemCopyHandLoop(b *testing.B) {
	var m pipelineMeter
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		dir := b.TempDir()
		in := fsBenchInput(b, dir)
		m.begin(b)
		f, err := os.Open(filepath.Join(in, "part-0"))
		if err != nil {
			b.Fatal(err)
		}
		of, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(of, 64<<10)
		sc := bufio.NewScanner(f)
		var line []byte
		for sc.Scan() {
			ks, vs, _ := bytes.Cut(sc.Bytes(), []byte{','})
			k, err1 := strconv.ParseInt(string(ks), 10, 64)
			v, err2 := strconv.ParseInt(string(vs), 10, 64)
			if err1 != nil || err2 != nil {
				b.Fatal(err1, err2)
			}
			line = strconv.AppendInt(line[:0], k, 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, v, 10)
			line = append(line, '\n')
			w.Write(line)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		of.Sync()
		of.Close()
		f.Close()
		m.end(b)
	}
	m.report(b)
}
