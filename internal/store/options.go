package store

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configures Open. The zero value is valid: EnsureDefaults fills in
// every unset field. The plain fields load from YAML (the server config).
type Options struct {
	// Logger receives Pebble's own log lines (Info at Debug level, errors at
	// Error level). Default: a logger that discards everything.
	Logger *slog.Logger `yaml:"-"`

	// CacheSize is the size in bytes of the block cache shared by all reads.
	// Pebble charges the memtables (the active one, the queued ones and
	// those still referenced by readers) to this budget, so it must be well
	// above MemTableSize: with CacheSize 64 MiB and two 32 MiB memtables no
	// block is cached at all. Memory is only taken as blocks are read.
	// Default: 256 MiB.
	CacheSize int64 `yaml:"cache_size"`

	// MemTableSize is the size in bytes of one memtable. Larger memtables
	// absorb write bursts and turn overwrites of hot state keys into one
	// flushed entry. Default: 32 MiB.
	MemTableSize uint64 `yaml:"memtable_size"`

	// MemTableStopWritesThreshold is the number of queued memtables at which
	// writes stall. Default: 4.
	MemTableStopWritesThreshold int `yaml:"memtable_stop_writes_threshold"`

	// L0StopWritesThreshold is the L0 read amplification at which writes
	// stall. Streaming writes come in bursts (catch-up after a restart, a
	// bounded script), so the default is far above Pebble's 12. Default: 36.
	L0StopWritesThreshold int `yaml:"l0_stop_writes_threshold"`

	// MaxConcurrentCompactions is the upper bound of concurrent compactions.
	// Default: half the CPUs, at least 2 and at most 4.
	MaxConcurrentCompactions int `yaml:"max_concurrent_compactions"`

	// FS is the file system the store lives on. Tests pass a crashable
	// in-memory file system (vfs.NewCrashableMem) to simulate crashes.
	// Default: the OS file system, or a fresh in-memory one when Open is
	// given an empty directory.
	FS vfs.FS `yaml:"-"`

	// BloomBitsPerKey is the bits per key of the bloom filters on every
	// level; they make point reads of absent state keys cheap. 0 means the
	// default; a negative value disables filters. Default: 10.
	BloomBitsPerKey int `yaml:"bloom_bits_per_key"`
}

// EnsureDefaults fills in the default of every unset field.
func (o *Options) EnsureDefaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.CacheSize == 0 {
		o.CacheSize = 512 << 20
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 128 << 20
	}
	if o.MemTableStopWritesThreshold == 0 {
		o.MemTableStopWritesThreshold = 4
	}
	if o.L0StopWritesThreshold == 0 {
		o.L0StopWritesThreshold = 36
	}
	if o.MaxConcurrentCompactions == 0 {
		o.MaxConcurrentCompactions = min(4, max(2, runtime.NumCPU()/2))
	}
	if o.BloomBitsPerKey == 0 {
		o.BloomBitsPerKey = 10
	}
}

// Validate reports the first invalid field.
func (o *Options) Validate() error {
	switch {
	case o.MemTableSize < 1<<20 || o.MemTableSize >= 4<<30:
		return fmt.Errorf("store: MemTableSize %d is outside [1 MiB, 4 GiB)", o.MemTableSize)
	case o.CacheSize < 2*int64(o.MemTableSize):
		return fmt.Errorf("store: CacheSize %d is below twice MemTableSize %d (memtables are charged to the cache)",
			o.CacheSize, o.MemTableSize)
	case o.MemTableStopWritesThreshold < 2:
		return fmt.Errorf("store: MemTableStopWritesThreshold %d is below 2", o.MemTableStopWritesThreshold)
	case o.L0StopWritesThreshold < 4:
		return fmt.Errorf("store: L0StopWritesThreshold %d is below 4", o.L0StopWritesThreshold)
	case o.MaxConcurrentCompactions < 1:
		return fmt.Errorf("store: MaxConcurrentCompactions %d is below 1", o.MaxConcurrentCompactions)
	}
	return nil
}

// pebbleOptions translates o (with defaults applied) into Pebble options.
// fs is nil for the OS file system.
func (o *Options) pebbleOptions(fs vfs.FS) *pebble.Options {
	po := &pebble.Options{
		FS:                          fs,
		CacheSize:                   o.CacheSize,
		MemTableSize:                o.MemTableSize,
		MemTableStopWritesThreshold: o.MemTableStopWritesThreshold,
		L0CompactionThreshold:       4,
		L0StopWritesThreshold:       o.L0StopWritesThreshold,
		FormatMajorVersion:          pebble.FormatNewest,
		Logger:                      pebbleLogger{o.Logger},
	}
	maxc := o.MaxConcurrentCompactions
	po.CompactionConcurrencyRange = func() (int, int) { return 1, maxc }
	for i := range po.Levels {
		if o.BloomBitsPerKey > 0 {
			po.Levels[i].FilterPolicy = bloom.FilterPolicy(o.BloomBitsPerKey)
		}
		// A large index block keeps the index single-level for tables of
		// typical size, saving a block lookup per point read (CockroachDB
		// uses the same value).
		po.Levels[i].IndexBlockSize = 256 << 10
	}
	po.EnsureDefaults()
	return po
}

// pebbleLogger routes Pebble's logger interface to slog.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	if p.l.Enabled(context.Background(), slog.LevelDebug) {
		p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
	}
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf is called by Pebble on unrecoverable errors (corruption, a failed
// WAL sync). Pebble expects it not to return; a panic keeps the message and
// lets a test observe it.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error(msg, "component", "pebble", "fatal", true)
	panic("pebble: fatal: " + msg)
}
