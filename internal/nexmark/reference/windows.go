package reference

import (
	"slices"

	"github.com/eddy-sql/eddy/types"
)

// window is [start, end) in Unix milliseconds.
type window struct{ start, end int64 }

// tumble is the TUMBLE window of t.
func tumble(t, size int64) window {
	start := floorDiv(t, size) * size
	return window{start, start + size}
}

// hops are the HOP windows of t, latest first.
func hops(t, slide, size int64) []window {
	var out []window
	for start := floorDiv(t, slide) * slide; start > t-size; start -= slide {
		out = append(out, window{start, start + size})
	}
	return out
}

// q5: per 10 s window sliding by 2 s, the auctions with the most bids
// (every auction whose count reaches the window's maximum).
func q5(in *input, _ Options) *Table {
	type key struct {
		auction int64
		w       window
	}
	counts := map[key]int64{}
	var order []key
	for _, b := range in.bids {
		for _, w := range hops(b.DateTime, 2*second, 10*second) {
			k := key{b.Auction, w}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
	}
	maxn := map[window]int64{}
	for k, n := range counts {
		maxn[k.w] = max(maxn[k.w], n)
	}
	t := &Table{Types: []types.Type{bigint, bigint}}
	for _, k := range order {
		if n := counts[k]; n >= maxn[k.w] {
			t.Rows = append(t.Rows, row(i64(k.auction), i64(n)))
		}
	}
	return t
}

// q7: the bids whose price is the highest of a 10 s tumbling window,
// found by joining with the window's maximum on price and on B.dateTime
// BETWEEN window_end - 10 s AND window_end (both ends included, so a bid
// at exactly window_end also matches the window before it). The select
// list is (auction, price, bidder, …) and the sink (auction, bidder,
// price, …): the insert maps by position, so the sink's bidder column
// holds the price and its price column the bidder, as in Flink.
func q7(in *input, _ Options) *Table {
	maxPrice := map[window]int64{}
	var windows []window
	for _, b := range in.bids {
		w := tumble(b.DateTime, 10*second)
		if p, seen := maxPrice[w]; !seen || b.Price > p {
			if !seen {
				windows = append(windows, w)
			}
			maxPrice[w] = b.Price
		}
	}
	t := &Table{Types: []types.Type{bigint, bigint, bigint, ts3, str}}
	for _, w := range windows {
		m := maxPrice[w]
		for _, b := range in.bids {
			if b.Price == m && b.DateTime >= w.end-10*second && b.DateTime <= w.end {
				t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Price), i64(b.Bidder), ts(b.DateTime), s(b.Extra)))
			}
		}
	}
	return t
}

// q8: persons who created an auction in the 10 s tumbling window in
// which they appeared (both sides grouped by id/seller and window, then
// joined).
func q8(in *input, _ Options) *Table {
	type person struct {
		id   int64
		name string
		w    window
	}
	type seller struct {
		id int64
		w  window
	}
	sellers := map[seller]bool{}
	for _, a := range in.auctions {
		sellers[seller{a.Seller, tumble(a.DateTime, 10*second)}] = true
	}
	seen := map[person]bool{}
	t := &Table{Types: []types.Type{bigint, str, ts3}}
	for _, p := range in.persons {
		k := person{p.ID, p.Name, tumble(p.DateTime, 10*second)}
		if seen[k] {
			continue
		}
		seen[k] = true
		if sellers[seller{p.ID, k.w}] {
			t.Rows = append(t.Rows, row(i64(p.ID), s(p.Name), ts(k.w.start)))
		}
	}
	return t
}

// q11: per bidder, sessions of bids at most 10 s apart, with their bid
// counts. Each bid opens a window [t, t + 10 s); windows merge when they
// intersect or touch (Flink's TimeWindow.intersects compares end >=
// start), so a bid exactly 10 s after the last one continues the session.
func q11(in *input, _ Options) *Table {
	const gap = 10 * second
	byBidder := map[int64][]int64{}
	for _, b := range in.bids {
		byBidder[b.Bidder] = append(byBidder[b.Bidder], b.DateTime)
	}
	var bidders []int64
	for k := range byBidder {
		bidders = append(bidders, k)
	}
	slices.Sort(bidders)
	t := &Table{Types: []types.Type{bigint, bigint, ts3, ts3}}
	for _, bidder := range bidders {
		times := byBidder[bidder] // in order: event times never decrease
		start, last, n := times[0], times[0], int64(0)
		for _, tm := range times {
			if tm > last+gap {
				t.Rows = append(t.Rows, row(i64(bidder), i64(n), ts(start), ts(last+gap)))
				start, n = tm, 0
			}
			last = tm
			n++
		}
		t.Rows = append(t.Rows, row(i64(bidder), i64(n), ts(start), ts(last+gap)))
	}
	return t
}

// q12: per bidder, the bids of each 10 s processing-time window. Every
// event is processed at o.ProcTime, so each bidder has one window; this
// assumes the window fires when the bounded input ends (as an event-time
// window does with the final maximum watermark), which is for the
// processing-time window operator to confirm against Flink when q12 runs.
func q12(in *input, o Options) *Table {
	w := tumble(o.ProcTime, 10*second)
	counts := map[int64]int64{}
	var order []int64
	for _, b := range in.bids {
		if counts[b.Bidder] == 0 {
			order = append(order, b.Bidder)
		}
		counts[b.Bidder]++
	}
	t := &Table{Types: []types.Type{bigint, bigint, ts3, ts3}}
	for _, b := range order {
		t.Rows = append(t.Rows, row(i64(b), i64(counts[b]), ts(w.start), ts(w.end)))
	}
	return t
}
