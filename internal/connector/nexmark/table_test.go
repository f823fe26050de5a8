package nexmark

import (
	"errors"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func opts(kv ...string) map[string]string {
	m := map[string]string{"connector": "nexmark", "eddy.created-at": "2015-07-15T00:00:00Z"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]string
		key  string
		msg  string
	}{
		{opts("events.nun", "5"), "events.nun", "Unsupported option 'events.nun' for connector 'nexmark' (did you mean 'events.num'?)"},
		{opts("events.num", "-1"), "events.num", "it must be at least 0"},
		{opts("first-event.rate", "0"), "first-event.rate", "it must be at least 1"},
		{opts("first-event.rate", "fast"), "first-event.rate", "expected a whole number"},
		{opts("first-event.rate", "3000000000"), "first-event.rate", "at most 2147483647"},
		{opts("person.proportion", "0"), "person.proportion", "at least 1"},
		{opts("bid.hot-ratio.auctions", "0"), "bid.hot-ratio.auctions", "at least 1"},
		{opts("bid.avg-size", "10 parsecs"), "bid.avg-size", "unknown unit"},
		{opts("bid.avg-size", "1gb"), "bid.avg-size", "at most 524288 bytes"},
		{opts("rate.shape", "TRIANGLE"), "rate.shape", "Invalid value 'TRIANGLE'"},
		{opts("rate.period", "soon"), "rate.period", "expected a duration"},
		{opts("max-emit-speed", "yes"), "max-emit-speed", "expected 'true' or 'false'"},
		{opts("keep-alive", "true"), "keep-alive", "not supported yet"},
		{opts("stop-at", "-2"), "stop-at", "at least -1"},
		{opts("eddy.created-at", "yesterday"), "eddy.created-at", "not a timestamp"},
		{opts("connector", "datagen"), "connector", "uses connector 'datagen', not 'nexmark'"},
	} {
		_, err := NewTable("t", Schema(), tc.opts)
		var oe *OptionError
		require.True(t, errors.As(err, &oe), "%v: %v", tc.opts, err)
		require.Equal(t, tc.key, oe.Key)
		require.Contains(t, oe.Error(), tc.msg)
	}
}

func TestOptions(t *testing.T) {
	tbl, err := NewTable("t", Schema(), opts(
		"first-event.rate", "1000", "next-event.rate", "5", "events.num", "100", "stop-at", "40",
		"person.avg-size", "1kb", "auction.avg-size", "2 K", "bid.avg-size", "64",
		"person.proportion", "2", "auction.proportion", "4", "bid.proportion", "10",
		"bid.hot-ratio.auctions", "3", "bid.hot-ratio.bidders", "5", "auction.hot-ratio.sellers", "6",
		"rate.shape", "sine", "rate.period", "10 min", "rate.limited", "true", "max-emit-speed", "false"))
	require.NoError(t, err)
	c := tbl.Generator().Config()
	want := DefaultConfig()
	want.FirstEventRate, want.NextEventRate, want.NumEvents, want.StopAt = 1000, 5, 100, 40
	want.AvgPersonByteSize, want.AvgAuctionByteSize, want.AvgBidByteSize = 1024, 2048, 64
	want.PersonProportion, want.AuctionProportion, want.BidProportion = 2, 4, 10
	want.HotAuctionRatio, want.HotBiddersRatio, want.HotSellersRatio = 3, 5, 6
	want.RateShape, want.RatePeriodSec, want.RateLimited, want.MaxEmitSpeed = "SINE", 600, true, false
	want.BaseTime = time.Date(2015, 7, 15, 0, 0, 0, 0, time.UTC).UnixMilli()
	require.Equal(t, want, c)
	require.Equal(t, int64(40), tbl.End(), "stop-at below events.num")
	require.Equal(t, int64(1000), tbl.RowsPerSecond(), "paced at first-event.rate")

	def, err := NewTable("t", Schema(), opts())
	require.NoError(t, err)
	require.Equal(t, int64(-1), def.End())
	require.Equal(t, int64(maxEmitRate), def.RowsPerSecond())
	at := time.Date(2015, 7, 15, 0, 0, 0, 0, time.UTC)
	require.Equal(t, int64(0), def.SnapshotRows(at))
	require.Equal(t, int64(50), def.SnapshotRows(at.Add(5*time.Millisecond)), "10000 events per second")
	require.Equal(t, int64(DefaultSnapshotRows), def.SnapshotRows(at.Add(time.Hour)))
}

func TestColumnsChecked(t *testing.T) {
	s := Schema()
	_, err := NewTable("t", s[:3], opts())
	require.ErrorContains(t, err, "A 'nexmark' table has 4 physical columns (event_type, person, auction, bid), but 't' declares 3")

	wrong := append([]types.Field(nil), s...)
	wrong[0].Type = types.BigInt
	_, err = NewTable("t", wrong, opts())
	require.ErrorContains(t, err, "Column 'event_type' of 't' is BIGINT, but the nexmark connector generates INT there")

	wrong = append([]types.Field(nil), s...)
	wrong[3].Type = types.RowOf(s[3].Type.Fields[:6]...)
	_, err = NewTable("t", wrong, opts())
	require.ErrorContains(t, err, "Column 'bid' of 't' is a ROW of 6 fields, but the nexmark connector generates 7 (auction, bidder, price, channel, url, dateTime, extra) there")

	wrong = append([]types.Field(nil), s...)
	auction := append([]types.Field(nil), s[2].Type.Fields...)
	auction[3].Type = types.Double
	wrong[2].Type = types.RowOf(auction...)
	_, err = NewTable("t", wrong, opts())
	require.ErrorContains(t, err, "Field 'auction.initialBid' of 't' is DOUBLE, but the nexmark connector generates BIGINT there")

	wrong = append([]types.Field(nil), s...)
	wrong[1].Type = wrong[1].Type.NonNull()
	_, err = NewTable("t", wrong, opts())
	require.ErrorContains(t, err, "cannot be NOT NULL")

	// Other names, VARCHAR(n) for STRING and TIMESTAMP_LTZ for TIMESTAMP
	// are accepted: the rows are mapped by position.
	other := append([]types.Field(nil), s...)
	bid := append([]types.Field(nil), s[3].Type.Fields...)
	bid[3] = types.Field{Name: "ch", Type: types.VarChar(20)}
	bid[5] = types.Field{Name: "ts", Type: types.TimestampLTZ(6)}
	other[3] = types.Field{Name: "b", Type: types.RowOf(bid...)}
	_, err = NewTable("t", other, opts())
	require.NoError(t, err)
}

// TestShape checks properties of the stream that follow from Flink's
// generator code: which events are persons, auctions and bids, their ids
// and times, and that a row carries exactly one non-NULL ROW.
func TestShape(t *testing.T) {
	tbl, err := NewTable("t", Schema(), opts("events.num", "100000"))
	require.NoError(t, err)
	base := time.Date(2015, 7, 15, 0, 0, 0, 0, time.UTC).UnixMilli()
	counts := [3]int{}
	var lastPerson, lastAuction int64 = FirstPersonID, FirstAuctionID
	hotAuction := 0
	for i := int64(0); i < tbl.End(); i++ {
		row := tbl.Row(i, nil)
		require.Len(t, row, 4)
		typ := int(row[0].Int())
		counts[typ]++
		// Event id i+2 decides the type: id % 50 == 0 person, 1..3
		// auction, else bid (the first event, id 2, is an auction).
		switch id := (i + 2) % 50; {
		case id == 0:
			require.Equal(t, PersonEvent, typ, "event %d", i)
		case id <= 3:
			require.Equal(t, AuctionEvent, typ, "event %d", i)
		default:
			require.Equal(t, BidEvent, typ, "event %d", i)
		}
		for j := 1; j < 4; j++ {
			require.Equal(t, j-1 != typ, row[j].IsNull(), "event %d column %d", i, j)
		}
		// Event number i+1 happens at base + (i+1) * 100 µs, truncated to ms.
		wantTime := base + (i+1)/10
		fields := row[typ+1].Fields()
		switch typ {
		case PersonEvent:
			lastPerson++
			require.Equal(t, lastPerson, fields[0].Int(), "persons are numbered from 1001")
			require.Equal(t, wantTime*1e6, fields[6].Int())
		case AuctionEvent:
			lastAuction++
			require.Equal(t, lastAuction, fields[0].Int(), "auctions are numbered from 1001")
			require.Equal(t, wantTime*1e6, fields[5].Int())
			require.Greater(t, fields[6].Int(), fields[5].Int(), "expires after it starts")
			cat := fields[8].Int()
			require.True(t, cat >= 10 && cat <= 14, "category %d", cat)
		case BidEvent:
			require.Equal(t, wantTime*1e6, fields[5].Int())
			a := fields[0].Int()
			require.LessOrEqual(t, a, lastAuction+auctionIDLead, "a bid is for an auction at most 10 ahead")
			if a == ((lastAuction-FirstAuctionID)/100)*100+FirstAuctionID {
				hotAuction++
			}
		}
	}
	require.Equal(t, [3]int{2000, 6000, 92000}, counts)
	// P(hot) = 1/2, plus the random picks that land on the hot auction.
	require.InDelta(t, 0.5, float64(hotAuction)/92000, 0.03)
}

func TestDeterministicAndSeekable(t *testing.T) {
	a, err := NewTable("t", Schema(), opts())
	require.NoError(t, err)
	b, err := NewTable("other", Schema(), opts())
	require.NoError(t, err)
	for _, i := range []int64{123456, 7, 0, 99999999} {
		require.Equal(t, a.Row(i, nil), b.Row(i, nil))
	}
}
