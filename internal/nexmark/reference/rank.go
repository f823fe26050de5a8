package reference

import (
	"slices"

	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/types"
)

func bidRow(b *nexmark.Bid) []types.Value {
	return row(i64(b.Auction), i64(b.Bidder), i64(b.Price), s(b.Channel), s(b.URL), ts(b.DateTime), s(b.Extra))
}

var bidTypes = []types.Type{bigint, bigint, bigint, str, str, ts3, str}

// q18: the last bid of each bidder on each auction (rowtime
// deduplication keeping the last row: the latest dateTime, and of equal
// ones the last to arrive).
func q18(in *input, _ Options) *Table {
	type key struct{ bidder, auction int64 }
	last := map[key]*nexmark.Bid{}
	var order []key
	for _, b := range in.bids {
		k := key{b.Bidder, b.Auction}
		prev, seen := last[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || b.DateTime >= prev.DateTime {
			last[k] = b
		}
	}
	t := &Table{Types: bidTypes}
	for _, k := range order {
		t.Rows = append(t.Rows, bidRow(last[k]))
	}
	return t
}

// q19: the 10 highest bids of each auction with their rank (ROW_NUMBER
// by price descending; of equal prices the earlier bid ranks first).
func q19(in *input, _ Options) *Table {
	byAuction := bidsByAuction(in)
	var auctions []int64
	for a := range byAuction {
		auctions = append(auctions, a)
	}
	slices.Sort(auctions)
	t := &Table{Types: append(append([]types.Type(nil), bidTypes...), bigint)}
	for _, a := range auctions {
		bids := slices.Clone(byAuction[a])
		slices.SortStableFunc(bids, func(x, y *nexmark.Bid) int {
			switch {
			case x.Price > y.Price:
				return -1
			case x.Price < y.Price:
				return 1
			}
			return 0
		})
		for i, b := range bids[:min(10, len(bids))] {
			t.Rows = append(t.Rows, append(bidRow(b), i64(int64(i+1))))
		}
	}
	return t
}
