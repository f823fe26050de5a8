package nexmark

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
)

// BenchmarkEvent generates events into a Go struct: the generator alone,
// the hand-written baseline of BenchmarkRow.
func BenchmarkEvent(b *testing.B) {
	g := NewGenerator(DefaultConfig())
	var e Event
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g.Event(int64(i), &e)
	}
}

// BenchmarkRow generates events as table rows, as the source reads them.
func BenchmarkRow(b *testing.B) {
	tbl, err := NewTable("t", Schema(), map[string]string{"connector": "nexmark"})
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]types.Value, 0, 4)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dst = tbl.Row(int64(i), dst[:0])
	}
}
