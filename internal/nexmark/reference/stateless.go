package reference

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// q0: SELECT auction, bidder, price, dateTime, extra FROM bid.
func q0(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint, bigint, ts3, str}}
	for _, b := range in.bids {
		t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), i64(b.Price), ts(b.DateTime), s(b.Extra)))
	}
	return t
}

// q1: the price in euros, 0.908 * price, as DECIMAL(23, 3).
func q1(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint, dec233, ts3, str}}
	for _, b := range in.bids {
		t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), euro(b.Price), ts(b.DateTime), s(b.Extra)))
	}
	return t
}

// q2: bids of every 123rd auction.
func q2(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint}}
	for _, b := range in.bids {
		if b.Auction%123 == 0 {
			t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Price)))
		}
	}
	return t
}

// q10: every bid with its day and minute (DATE_FORMAT).
func q10(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint, bigint, ts3, str, str, str}}
	for _, b := range in.bids {
		t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), i64(b.Price), ts(b.DateTime), s(b.Extra),
			s(dateFormat(b.DateTime, "yyyy-MM-dd")), s(dateFormat(b.DateTime, "HH:mm"))))
	}
	return t
}

// q14: bids whose euro price is between 1,000,000 and 50,000,000
// (exclusive), their time of day by HOUR, and count_char(extra, 'c').
func q14(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint, dec233, str, ts3, str, bigint}}
	for _, b := range in.bids {
		// 0.908 * price compared exactly: price * 908 against 1000 × the bound.
		if m := b.Price * 908; m <= 1_000_000_000 || m >= 50_000_000_000 {
			continue
		}
		kind := "otherTime"
		switch h := hour(b.DateTime); {
		case h >= 8 && h <= 18:
			kind = "dayTime"
		case h <= 6 || h >= 20:
			kind = "nightTime"
		}
		t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), euro(b.Price), s(kind), ts(b.DateTime), s(b.Extra),
			i64(int64(strings.Count(b.Extra, "c")))))
	}
	return t
}

// channelID is REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2).
var channelID = regexp.MustCompile(`(&|^)channel_id=([^&]*)`)

// q21: the channel's id: 0-3 for the four hot channels, else the
// channel_id parameter of the URL; bids with neither are dropped.
func q21(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint, bigint, str, str}}
	hot := map[string]string{"apple": "0", "google": "1", "facebook": "2", "baidu": "3"}
	for _, b := range in.bids {
		id, isHot := hot[strings.ToLower(b.Channel)]
		m := channelID.FindStringSubmatch(b.URL)
		if !isHot {
			if m == nil {
				continue
			}
			id = m[2]
		}
		t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), i64(b.Price), s(b.Channel), s(id)))
	}
	return t
}

// q22: the first three directories of the URL: SPLIT_INDEX(url, '/', 3),
// 4 and 5 (0-based, empty tokens kept: "https:", "", host, dir1, …).
func q22(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint, bigint, str, str, str, str}}
	for _, b := range in.bids {
		parts := strings.Split(b.URL, "/")
		dir := func(i int) types.Value {
			if i < len(parts) {
				return s(parts[i])
			}
			return types.Null
		}
		t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), i64(b.Price), s(b.Channel), dir(3), dir(4), dir(5)))
	}
	return t
}

// q13: bids joined with the side input (key i, value "i" for i < 10000,
// as the suite's SideInputGenerator writes it) on auction % 10000.
func q13(in *input, _ Options) *Table {
	t := &Table{Types: []types.Type{bigint, bigint, bigint, ts3, str}}
	for _, b := range in.bids {
		k := b.Auction % 10000
		t.Rows = append(t.Rows, row(i64(b.Auction), i64(b.Bidder), i64(b.Price), ts(b.DateTime), s(strconv.FormatInt(k, 10))))
	}
	return t
}
