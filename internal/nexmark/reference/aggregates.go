package reference

import (
	"github.com/eddy-sql/eddy/types"
)

// priceRank is the rank of the price ranges of q15-q17: 1 below 10,000,
// 2 below 1,000,000, else 3.
func priceRank(p int64) int {
	switch {
	case p < 10000:
		return 1
	case p < 1000000:
		return 2
	}
	return 3
}

// bidStats accumulates the counts of q15 and q16.
type bidStats struct {
	bids     [4]int64 // [0] all, [r] rank r
	bidders  [4]map[int64]bool
	auctions [4]map[int64]bool
	minute   string
}

func newBidStats() *bidStats {
	st := &bidStats{}
	for i := range st.bidders {
		st.bidders[i], st.auctions[i] = map[int64]bool{}, map[int64]bool{}
	}
	return st
}

func (st *bidStats) add(bidder, auction, price int64) {
	for _, r := range []int{0, priceRank(price)} {
		st.bids[r]++
		st.bidders[r][bidder] = true
		st.auctions[r][auction] = true
	}
}

// counts returns total_bids, rank1..3_bids, total_bidders, …,
// rank3_auctions.
func (st *bidStats) counts() []types.Value {
	var out []types.Value
	for r := 0; r < 4; r++ {
		out = append(out, i64(st.bids[r]))
	}
	for r := 0; r < 4; r++ {
		out = append(out, i64(int64(len(st.bidders[r]))))
	}
	for r := 0; r < 4; r++ {
		out = append(out, i64(int64(len(st.auctions[r]))))
	}
	return out
}

func countTypes(prefix ...types.Type) []types.Type {
	out := append([]types.Type(nil), prefix...)
	for i := 0; i < 12; i++ {
		out = append(out, bigint)
	}
	return out
}

// q15: per day, bid counts and distinct bidders and auctions, in total
// and per price rank.
func q15(in *input, _ Options) *Table {
	days := map[string]*bidStats{}
	var order []string
	for _, b := range in.bids {
		d := dateFormat(b.DateTime, "yyyy-MM-dd")
		st := days[d]
		if st == nil {
			st = newBidStats()
			days[d] = st
			order = append(order, d)
		}
		st.add(b.Bidder, b.Auction, b.Price)
	}
	t := &Table{Types: countTypes(str)}
	for _, d := range order {
		t.Rows = append(t.Rows, append(row(s(d)), days[d].counts()...))
	}
	return t
}

// q16: q15 per channel and day, with the latest minute ('HH:mm', the
// largest string).
func q16(in *input, _ Options) *Table {
	type key struct{ channel, day string }
	groups := map[key]*bidStats{}
	var order []key
	for _, b := range in.bids {
		k := key{b.Channel, dateFormat(b.DateTime, "yyyy-MM-dd")}
		st := groups[k]
		if st == nil {
			st = newBidStats()
			groups[k] = st
			order = append(order, k)
		}
		st.add(b.Bidder, b.Auction, b.Price)
		if m := dateFormat(b.DateTime, "HH:mm"); m > st.minute {
			st.minute = m
		}
	}
	t := &Table{Types: countTypes(str, str, str)}
	for _, k := range order {
		st := groups[k]
		t.Rows = append(t.Rows, append(row(s(k.channel), s(k.day), s(st.minute)), st.counts()...))
	}
	return t
}

// q17: per auction and day, bid counts per price rank and the minimum,
// maximum, average (BIGINT, truncated) and sum of the prices.
func q17(in *input, _ Options) *Table {
	type key struct {
		auction int64
		day     string
	}
	type acc struct {
		n             [4]int64
		min, max, sum int64
	}
	groups := map[key]*acc{}
	var order []key
	for _, b := range in.bids {
		k := key{b.Auction, dateFormat(b.DateTime, "yyyy-MM-dd")}
		a := groups[k]
		if a == nil {
			a = &acc{min: b.Price, max: b.Price}
			groups[k] = a
			order = append(order, k)
		}
		a.n[0]++
		a.n[priceRank(b.Price)]++
		a.min, a.max, a.sum = min(a.min, b.Price), max(a.max, b.Price), a.sum+b.Price
	}
	t := &Table{Types: []types.Type{bigint, str, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint}}
	for _, k := range order {
		a := groups[k]
		t.Rows = append(t.Rows, row(i64(k.auction), s(k.day), i64(a.n[0]), i64(a.n[1]), i64(a.n[2]), i64(a.n[3]),
			i64(a.min), i64(a.max), i64(a.sum/a.n[0]), i64(a.sum)))
	}
	return t
}
