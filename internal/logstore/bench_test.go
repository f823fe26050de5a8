package logstore

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/eddy-sql/eddy/internal/store"
)

// benchRecords is the commit size of the benchmarks: 1000 records of 40
// bytes (8-byte key, 32-byte value).
const benchRecords = 1000

func benchOpen(b *testing.B, onDisk bool) (*store.DB, *Store) {
	dir := ""
	if onDisk {
		dir = b.TempDir()
	}
	db, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	s, err := New(db)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.CreateLog("l", 4); err != nil {
		b.Fatal(err)
	}
	return db, s
}

// BenchmarkCommit measures Writer.Append of 1000 records plus one
// Store.Commit. ns/op is per commit; ns/record is per record.
func BenchmarkCommit(b *testing.B) {
	for _, bc := range []struct {
		name         string
		onDisk, sync bool
	}{{"mem", false, false}, {"disk", true, false}, {"disk-sync", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			db, s := benchOpen(b, bc.onDisk)
			w := s.NewWriter()
			batch := db.NewBatch()
			defer func() { _ = batch.Close() }()
			var key [8]byte
			value := make([]byte, 32)
			b.ReportAllocs()
			b.ResetTimer()
			var i uint64
			for b.Loop() {
				for range benchRecords {
					i++
					binary.BigEndian.PutUint64(key[:], i)
					w.Append("l", int(i%4), key[:], value)
				}
				if err := s.Commit(w, batch, bc.sync); err != nil {
					b.Fatal(err)
				}
			}
			perRec := float64(b.Elapsed().Nanoseconds()) / float64(b.N*benchRecords)
			b.ReportMetric(perRec, "ns/record")
			b.ReportMetric(1e9/perRec, "records/s")
		})
	}
}

// BenchmarkReader measures reading committed records: one op reads one
// record.
func BenchmarkReader(b *testing.B) {
	db, s := benchOpen(b, false)
	const total = 200_000
	w := s.NewWriter()
	batch := db.NewBatch()
	defer func() { _ = batch.Close() }()
	value := make([]byte, 32)
	for i := range total {
		w.Append("l", 0, binary.BigEndian.AppendUint64(nil, uint64(i)), value)
		if w.Len() == benchRecords {
			if err := s.Commit(w, batch, false); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("single", func(b *testing.B) {
		b.ReportAllocs()
		var r *Reader
		for b.Loop() {
			if r == nil {
				var err error
				if r, err = s.NewReader("l", 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			_, ok, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				r = nil
			}
		}
	})
	// Two inputs interleaved record by record.
	if err := s.CreateLog("m", 2); err != nil {
		b.Fatal(err)
	}
	for i := range total {
		w.Append("m", i%2, binary.BigEndian.AppendUint64(nil, uint64(i)), value)
		if w.Len() == benchRecords {
			if err := s.Commit(w, batch, false); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("merged", func(b *testing.B) {
		b.ReportAllocs()
		var m *MergedReader
		for b.Loop() {
			if m == nil {
				var err error
				if m, err = s.NewMergedReader([]Position{{"m", 0, 0}, {"m", 1, 0}}); err != nil {
					b.Fatal(err)
				}
			}
			_, ok, err := m.Next()
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				m = nil
			}
		}
	})
}

func ExampleStore_Commit() {
	db, _ := store.Open("", store.Options{})
	defer db.Close()
	s, _ := New(db)
	_ = s.CreateLog("orders", 3)

	w := s.NewWriter()
	key := []byte("customer-7")
	w.Append("orders", Partition(key, 3), key, []byte(`{"amount":12}`))
	b := db.NewBatch() // the job's batch, also holding its state
	defer b.Close()
	if err := s.Commit(w, b, true); err != nil {
		panic(err)
	}

	r, _ := s.NewReader("orders", Partition(key, 3), 0)
	rec, ok, _ := r.Next()
	fmt.Println(ok, rec.Offset, rec.Seq, string(rec.Key), string(rec.Value))
	// Output: true 0 0 customer-7 {"amount":12}
}
