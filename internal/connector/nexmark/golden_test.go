package nexmark

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGolden pins the generator to Flink's, value for value.
//
// testdata/golden.tsv was written by testdata/java/gen.sh: it compiles
// nexmark-flink's generator classes (commit 6b3646c) with javac, changed
// only to seed the generator (a SplittableRandom per event seeded with
// the event id, fixed seeds for the static URL and padding tables, as
// Eddy does), and prints events of three configurations, including ranges
// that start from a generator which has already emitted a million (and a
// hundred billion) events, the way Flink resumes a split. Every field is
// compared; 'extra' by its length, Java hash code and first characters.
func TestGolden(t *testing.T) {
	f, err := os.Open("testdata/golden.tsv")
	require.NoError(t, err)
	defer f.Close()
	var g *Generator
	var name string
	lines, events := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		cols := strings.Split(sc.Text(), "\t")
		switch cols[0] {
		case "config":
			name = cols[1]
			cfg := DefaultConfig()
			cfg.BaseTime = atoi(t, cols[2])
			ints := []*int{&cfg.FirstEventRate, &cfg.PersonProportion, &cfg.AuctionProportion, &cfg.BidProportion,
				&cfg.HotAuctionRatio, &cfg.HotBiddersRatio, &cfg.HotSellersRatio,
				&cfg.AvgPersonByteSize, &cfg.AvgAuctionByteSize, &cfg.AvgBidByteSize}
			for i, p := range ints {
				*p = int(atoi(t, cols[3+i]))
			}
			cfg.NextEventRate = cfg.FirstEventRate
			g = NewGenerator(cfg)
			continue
		case "pricehash":
			n := int(atoi(t, cols[1]))
			r := newSplittable(7)
			var h int64
			for i := 0; i < n; i++ {
				h = h*31 + nextPrice(&r)
			}
			require.Equal(t, cols[2], strconv.FormatInt(h, 10), "prices of %d draws", n)
			continue
		}
		require.NotNil(t, g, "line %d: an event before any config", lines)
		i := atoi(t, cols[0])
		var e Event
		g.Event(i, &e)
		require.Equal(t, atoi(t, cols[1]), e.Time(), "%s event %d: time", name, i)
		require.Equal(t, strings.Join(cols[2:], "\t"), formatEvent(&e), "%s event %d", name, i)
		events++
	}
	require.NoError(t, sc.Err())
	require.Greater(t, events, 1500)
}

// formatEvent formats e as Golden.java does (after the count and time).
func formatEvent(e *Event) string {
	var f []string
	add := func(vs ...any) {
		for _, v := range vs {
			switch v := v.(type) {
			case int64:
				f = append(f, strconv.FormatInt(v, 10))
			case string:
				f = append(f, v)
			}
		}
	}
	extra := func(s string) {
		add(int64(len(s)), int64(javaHash(s)), s[:min(16, len(s))])
	}
	switch e.Type {
	case PersonEvent:
		p := e.Person
		add("P", p.ID, p.Name, p.EmailAddress, p.CreditCard, p.City, p.State, p.DateTime)
		extra(p.Extra)
	case AuctionEvent:
		a := e.Auction
		add("A", a.ID, a.ItemName, a.Description, a.InitialBid, a.Reserve, a.DateTime, a.Expires, a.Seller, a.Category)
		extra(a.Extra)
	default:
		b := e.Bid
		add("B", b.Auction, b.Bidder, b.Price, b.Channel, b.URL, b.DateTime)
		extra(b.Extra)
	}
	return strings.Join(f, "\t")
}

// javaHash is String.hashCode for ASCII strings.
func javaHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	return h
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}
