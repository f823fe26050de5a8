package nexmark

// Query describes one query of the suite and whether Eddy runs it.
type Query struct {
	Name string
	// Title is the suite's name for it; What says what it computes and
	// with which SQL features.
	Title, What string
	// Waits is empty for the queries Eddy runs today with results equal
	// to the reference implementation's; otherwise it says what the query
	// waits for. TestQueries keeps the list true: a listed query must
	// match and an unlisted one must still fail.
	Waits string
}

// Runs reports whether Eddy runs the query today.
func (q Query) Runs() bool { return q.Waits == "" }

// Queries lists q0 … q22.
var Queries = []Query{
	{"q0", "Pass through", "every bid, projected (the cost of the source and the sink)", ""},
	{"q1", "Currency conversion", "every bid with its price in euros: 0.908 * price, DECIMAL(23, 3)", ""},
	{"q2", "Selection", "the bids of every 123rd auction (MOD filter)", ""},
	{"q3", "Local item suggestion", "sellers in OR, ID or CA of auctions in category 10: a regular join of auction and person", ""},
	{"q4", "Average price for a category", "per category, the average winning price: a join with a time-range condition, MAX per auction, AVG per category over an updating input", ""},
	{"q5", "Hot items", "the auctions with the most bids per 10 s window sliding by 2 s: two HOP window aggregations and a join on the window", ""},
	{"q6", "Average selling price by seller", "AVG OVER the seller's last 10 winning bids, over a ROW_NUMBER Top-1 of a join: Eddy's sorted OVER over an updating input (Flink cannot run it), the suite's invalid SQL corrected", ""},
	{"q7", "Highest bid", "the bids with the highest price of each 10 s tumbling window, joined back on price and a time range", ""},
	{"q8", "Monitor new users", "persons who opened an auction in the 10 s tumbling window they registered in: two window aggregations joined on the window", ""},
	{"q9", "Winning bids", "each auction with its winning bid: ROW_NUMBER Top-1 over a join with a time-range condition", ""},
	{"q10", "Log to file system", "every bid with DATE_FORMAT day and minute, into a filesystem table partitioned by them (dt=/hm= directories)", ""},
	{"q11", "User sessions", "bids per bidder session (gap 10 s): the legacy GROUP BY SESSION(...) window with SESSION_START/SESSION_END", ""},
	{"q12", "Processing time windows", "bids per bidder per 10 s processing-time tumbling window (PROCTIME() in a view)", ""},
	{"q13", "Bounded side input join", "bids enriched from a CSV file by a processing-time lookup join (FOR SYSTEM_TIME AS OF a PROCTIME(), legacy 'connector.type' options)", ""},
	{"q14", "Calculation", "bids in a price range with HOUR-based CASE and a scalar UDF count_char (in Go, registered under the suite's class name)", ""},
	{"q15", "Bidding statistics report", "per day: COUNT with FILTER, COUNT(DISTINCT) with FILTER over three price ranks", ""},
	{"q16", "Channel statistics report", "q15 per channel and day, plus MAX of the minute string", ""},
	{"q17", "Auction statistics report", "per auction and day: counts per price rank, MIN, MAX, AVG, SUM", ""},
	{"q18", "Find last bid", "the last bid per bidder and auction: ROW_NUMBER deduplication on the event time", ""},
	{"q19", "Auction top-10 price", "the 10 highest bids per auction with their rank: ROW_NUMBER Top-N", ""},
	{"q20", "Expand bid with auction", "bids joined with their auction in category 10 (wide rows)", ""},
	{"q21", "Add channel id", "bids with a channel id from CASE on lower(channel) or REGEXP_EXTRACT of the URL", ""},
	{"q22", "Get URL directories", "bids with the first three directories of their URL (SPLIT_INDEX)", ""},
}

// Lookup returns the query named name.
func Lookup(name string) (Query, bool) {
	for _, q := range Queries {
		if q.Name == name {
			return q, true
		}
	}
	return Query{}, false
}
