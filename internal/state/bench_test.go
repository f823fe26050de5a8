package state

import (
	"encoding/binary"
	"testing"

	"github.com/eddy-sql/eddy/internal/store"
)

const benchKeys = 100_000

// benchPebble returns a Pebble backend whose batch holds nothing and whose
// DB holds benchKeys committed values of 32 bytes, flushed to sstables.
func benchPebble(b *testing.B) (*Pebble, *store.Batch) {
	db, err := store.Open(b.TempDir(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	batch := db.NewBatch()
	b.Cleanup(func() {
		_ = batch.Close()
		_ = db.Close()
	})
	p := NewPebble(batch)
	val := make([]byte, 32)
	for i := range benchKeys {
		if err := p.Put("op", "count", benchKey(i), val); err != nil {
			b.Fatal(err)
		}
	}
	if err := batch.Commit(false); err != nil {
		b.Fatal(err)
	}
	if err := db.Pebble().Flush(); err != nil {
		b.Fatal(err)
	}
	return p, batch
}

func benchKey(i int) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(i)*0x9E3779B97F4A7C15)
}

// checkpointEvery commits the batch as a job checkpoint would, so that the
// batch does not grow without bound during a benchmark.
const checkpointEvery = 10_000

// BenchmarkPebble measures state operations through an indexed batch.
func BenchmarkPebble(b *testing.B) {
	keys := make([][]byte, benchKeys)
	for i := range keys {
		keys[i] = benchKey(i)
	}
	val := make([]byte, 32)

	b.Run("get-committed", func(b *testing.B) {
		p, _ := benchPebble(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, ok, err := p.Get("op", "count", keys[i%benchKeys]); err != nil || !ok {
				b.Fatal(ok, err)
			}
			i += 7
		}
	})
	b.Run("get-missing", func(b *testing.B) {
		p, _ := benchPebble(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, _, err := p.Get("op", "other", keys[i%benchKeys]); err != nil {
				b.Fatal(err)
			}
			i += 7
		}
	})
	b.Run("put", func(b *testing.B) {
		p, batch := benchPebble(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := p.Put("op", "count", keys[i%benchKeys], val); err != nil {
				b.Fatal(err)
			}
			i++
			if i%checkpointEvery == 0 {
				if err := batch.Commit(false); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	// get-put is the per-record pattern of a keyed operator: read the
	// key's value (often written earlier in the same checkpoint interval)
	// and write it back.
	b.Run("get-put", func(b *testing.B) {
		p, batch := benchPebble(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[(i*7)%benchKeys]
			v, _, err := p.Get("op", "count", k)
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Put("op", "count", k, v); err != nil {
				b.Fatal(err)
			}
			i++
			if i%checkpointEvery == 0 {
				if err := batch.Commit(false); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("list-append", func(b *testing.B) {
		p, batch := benchPebble(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := p.ListAppend("op", "list", keys[i%1000], val); err != nil {
				b.Fatal(err)
			}
			i++
			if i%checkpointEvery == 0 {
				if err := batch.Commit(false); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("timer-register-pop", func(b *testing.B) {
		p, batch := benchPebble(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := p.RegisterTimer("op", keys[i%benchKeys], "t", int64(i)); err != nil {
				b.Fatal(err)
			}
			if i%100 == 99 {
				if _, err := p.PopDue("op", int64(i), 0); err != nil {
					b.Fatal(err)
				}
			}
			i++
			if i%checkpointEvery == 0 {
				if err := batch.Commit(false); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkMemory measures the in-memory backend for comparison.
func BenchmarkMemory(b *testing.B) {
	m := NewMemory()
	val := make([]byte, 32)
	keys := make([][]byte, benchKeys)
	for i := range keys {
		keys[i] = benchKey(i)
		if err := m.Put("op", "count", keys[i], val); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("get-put", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[(i*7)%benchKeys]
			v, _, err := m.Get("op", "count", k)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Put("op", "count", k, v); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}
