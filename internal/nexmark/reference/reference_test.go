package reference

import (
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/stretchr/testify/require"
)

func bids(bs ...nexmark.Bid) []nexmark.Event {
	out := make([]nexmark.Event, len(bs))
	for i, b := range bs {
		out[i] = nexmark.Event{Type: nexmark.BidEvent, Bid: b}
	}
	return out
}

func lines(t *testing.T, q string, events []nexmark.Event) []string {
	t.Helper()
	tbl, err := Compute(q, events, Options{})
	require.NoError(t, err)
	return tbl.Lines()
}

func TestWindows(t *testing.T) {
	require.Equal(t, window{10000, 20000}, tumble(19999, 10000))
	require.Equal(t, window{-10000, 0}, tumble(-1, 10000))
	require.Equal(t, []window{{4000, 14000}, {2000, 12000}, {0, 10000}, {-2000, 8000}, {-4000, 6000}}, hops(4000, 2000, 10000))
	require.Len(t, hops(5999, 2000, 10000), 5)
}

// TestSessionsTouch: a bid exactly 10 s after the last one continues the
// session (Flink merges windows that touch); one more millisecond starts
// a new one.
func TestSessionsTouch(t *testing.T) {
	got := lines(t, "q11", bids(
		nexmark.Bid{Bidder: 7, DateTime: 0}, nexmark.Bid{Bidder: 7, DateTime: 10000},
		nexmark.Bid{Bidder: 7, DateTime: 20001}, nexmark.Bid{Bidder: 8, DateTime: 5},
	))
	require.Equal(t, []string{
		"7 | 1 | 1970-01-01 00:00:20.001 | 1970-01-01 00:00:30.001",
		"7 | 2 | 1970-01-01 00:00:00.000 | 1970-01-01 00:00:20.000",
		"8 | 1 | 1970-01-01 00:00:00.005 | 1970-01-01 00:00:10.005",
	}, got)
}

// TestTies: ROW_NUMBER keeps the earlier of equal rows (q19), and
// keep-last deduplication takes the later of equal times (q18).
func TestTies(t *testing.T) {
	var bs []nexmark.Bid
	for i := 0; i < 12; i++ {
		bs = append(bs, nexmark.Bid{Auction: 1, Bidder: int64(100 + i), Price: 5, DateTime: int64(i)})
	}
	top := lines(t, "q19", bids(bs...))
	require.Len(t, top, 10)
	require.Contains(t, top[0], "1 | 100 | 5 |")
	require.True(t, strings.HasSuffix(top[0], " | 1"), "the first bid ranks first: %s", top[0])
	for _, l := range top {
		require.NotContains(t, l, "| 110 |", "the 11th equal bid is cut")
	}
	last := lines(t, "q18", bids(
		nexmark.Bid{Auction: 1, Bidder: 2, Price: 10, DateTime: 5, Extra: "first"},
		nexmark.Bid{Auction: 1, Bidder: 2, Price: 20, DateTime: 5, Extra: "second"},
		nexmark.Bid{Auction: 1, Bidder: 2, Price: 30, DateTime: 4, Extra: "older"},
	))
	require.Len(t, last, 1)
	require.Contains(t, last[0], "second")
}

func TestUnknownQuery(t *testing.T) {
	require.False(t, Supported("q99"))
	require.True(t, Supported("q6"))
	_, err := Compute("q99", nil, Options{})
	require.ErrorContains(t, err, "no reference implementation of q99")
}
