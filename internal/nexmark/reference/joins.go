package reference

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/types"
)

// q3: persons in OR, ID or CA selling in category 10: every (auction,
// seller) pair of the regular join.
func q3(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{str, str, str, bigint}}
	people := map[int64][]*nexmark.Person{}
	for _, p := range in.persons {
		if p.State == "OR" || p.State == "ID" || p.State == "CA" {
			people[p.ID] = append(people[p.ID], p)
		}
	}
	for _, a := range in.auctions {
		if a.Category != 10 {
			continue
		}
		for _, p := range people[a.Seller] {
			t.Rows = append(t.Rows, row(s(p.Name), s(p.City), s(p.State), i64(a.ID)))
		}
	}
	return t
}

// bidsByAuction indexes the bids by auction, in order.
func bidsByAuction(in *input) map[int64][]*nexmark.Bid {
	m := map[int64][]*nexmark.Bid{}
	for _, b := range in.bids {
		m[b.Auction] = append(m[b.Auction], b)
	}
	return m
}

// during reports whether b falls in a's lifetime: B.dateTime BETWEEN
// A.dateTime AND A.expires.
func during(b *nexmark.Bid, a *nexmark.Auction) bool {
	return b.DateTime >= a.DateTime && b.DateTime <= a.Expires
}

// q4: per category, the average (BIGINT, truncated) of the winning
// (highest) price of each auction that got a bid in its lifetime.
func q4(in *input, _ Options) *Table {
	bids := bidsByAuction(in)
	type acc struct{ sum, n int64 }
	cats := map[int64]*acc{}
	var order []int64
	for _, a := range in.auctions {
		best, found := int64(0), false
		for _, b := range bids[a.ID] {
			if during(b, a) && (!found || b.Price > best) {
				best, found = b.Price, true
			}
		}
		if !found {
			continue
		}
		c := cats[a.Category]
		if c == nil {
			c = &acc{}
			cats[a.Category] = c
			order = append(order, a.Category)
		}
		c.sum += best
		c.n++
	}
	t := &Table{Types: []types.Type{bigint, bigint}}
	for _, cat := range order {
		c := cats[cat]
		t.Rows = append(t.Rows, row(i64(cat), i64(c.sum/c.n)))
	}
	return t
}

// q6 (as examples/nexmark/q6.sql corrects it): per seller, over the
// winning bids of the seller's auctions (q9's winner: highest price, then
// earliest) in the order of their time, every winning bid with the
// average (BIGINT, truncated) of its price and the prices of the 10 before
// it. Bids of equal time are ordered by their auction's id, as Eddy's
// sorted OVER breaks ties by the columns of its input (id, seller, price,
// dateTime), the first of which, id, differs.
func q6(in *input, _ Options) *Table {
	bids := bidsByAuction(in)
	type win struct{ id, price, at int64 }
	sellers := map[int64][]win{}
	for _, a := range in.auctions {
		var best *nexmark.Bid
		for _, b := range bids[a.ID] {
			if during(b, a) && (best == nil || b.Price > best.Price || b.Price == best.Price && b.DateTime < best.DateTime) {
				best = b
			}
		}
		if best != nil {
			sellers[a.Seller] = append(sellers[a.Seller], win{a.ID, best.Price, best.DateTime})
		}
	}
	t := &Table{Types: []types.Type{str, bigint}}
	for seller, ws := range sellers {
		slices.SortFunc(ws, func(x, y win) int {
			if c := cmp.Compare(x.at, y.at); c != 0 {
				return c
			}
			return cmp.Compare(x.id, y.id)
		})
		for i := range ws {
			var sum, n int64
			for j := max(0, i-10); j <= i; j++ {
				sum += ws[j].price
				n++
			}
			t.Rows = append(t.Rows, row(s(strconv.FormatInt(seller, 10)), i64(sum/n)))
		}
	}
	return t
}

// q9: each auction with its winning bid (highest price, then earliest;
// among bids equal in both the first one, as ROW_NUMBER keeps the row
// that came first), over bids in the auction's lifetime.
func q9(in *input, _ Options) *Table {
	bids := bidsByAuction(in)
	t := &Table{Types: []types.Type{bigint, str, str, bigint, bigint, ts3, ts3, bigint, bigint, str, bigint, bigint, bigint, ts3, str}}
	for _, a := range in.auctions {
		var win *nexmark.Bid
		for _, b := range bids[a.ID] {
			if during(b, a) && (win == nil || b.Price > win.Price || (b.Price == win.Price && b.DateTime < win.DateTime)) {
				win = b
			}
		}
		if win == nil {
			continue
		}
		t.Rows = append(t.Rows, row(i64(a.ID), s(a.ItemName), s(a.Description), i64(a.InitialBid), i64(a.Reserve),
			ts(a.DateTime), ts(a.Expires), i64(a.Seller), i64(a.Category), s(a.Extra),
			i64(win.Auction), i64(win.Bidder), i64(win.Price), ts(win.DateTime), s(win.Extra)))
	}
	return t
}

// q20: bids joined with their auction, for auctions in category 10.
func q20(in *input, _ Options) *Table {
	bids := bidsByAuction(in)
	t := &Table{Types: []types.Type{bigint, bigint, bigint, str, str, ts3, str, str, str, bigint, bigint, ts3, ts3, bigint, bigint, str}}
	for _, a := range in.auctions {
		if a.Category != 10 {
			continue
		}
		for _, b := range bids[a.ID] {
			t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), i64(b.Price), s(b.Channel), s(b.URL), ts(b.DateTime), s(b.Extra),
				s(a.ItemName), s(a.Description), i64(a.InitialBid), i64(a.Reserve), ts(a.DateTime), ts(a.Expires),
				i64(a.Seller), i64(a.Category), s(a.Extra)))
		}
	}
	return t
}
