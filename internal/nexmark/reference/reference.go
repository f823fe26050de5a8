package reference

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/types"
)

// Table is a query's result: the types of its columns (the sink table's)
// and its rows, in no particular order.
type Table struct {
	Types []types.Type
	Rows  [][]types.Value
}

// Lines formats the rows, one line per row with the columns separated by
// " | ", sorted.
func (t *Table) Lines() []string { return Lines(t.Types, t.Rows) }

// Lines formats rows of the given column types, sorted (see Table.Lines).
func Lines(ts []types.Type, rows [][]types.Value) []string {
	out := make([]string, len(rows))
	var b strings.Builder
	for i, r := range rows {
		b.Reset()
		for j, v := range r {
			if j > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(types.Format(v, ts[j]))
		}
		out[i] = b.String()
	}
	slices.Sort(out)
	return out
}

// Options are the inputs of a query besides the events.
type Options struct {
	// ProcTime is the processing time, in Unix milliseconds, at which q12
	// sees every event (tests run the engine on a clock that stands still).
	ProcTime int64
}

// Events returns events 0 … n-1 of g.
func Events(g *nexmark.Generator, n int64) []nexmark.Event {
	out := make([]nexmark.Event, n)
	for i := range out {
		g.Event(int64(i), &out[i])
	}
	return out
}

// Supported reports whether Compute knows the query (every one: q6 as
// examples/nexmark/q6.sql corrects it, with Eddy's sorted OVER).
func Supported(query string) bool {
	_, ok := queries[query]
	return ok
}

type queryFunc func(in *input, o Options) *Table

var queries = map[string]queryFunc{
	"q0": q0, "q1": q1, "q2": q2, "q3": q3, "q4": q4, "q5": q5, "q6": q6, "q7": q7, "q8": q8, "q9": q9,
	"q10": q10, "q11": q11, "q12": q12, "q13": q13, "q14": q14, "q15": q15, "q16": q16,
	"q17": q17, "q18": q18, "q19": q19, "q20": q20, "q21": q21, "q22": q22,
}

// Compute returns the final result of a query over events, which must be
// in generation order.
func Compute(query string, events []nexmark.Event, o Options) (*Table, error) {
	f, ok := queries[query]
	if !ok {
		return nil, fmt.Errorf("no reference implementation of %s", query)
	}
	return f(split(events), o), nil
}

// input is the event stream split into the three views, in order.
type input struct {
	persons  []*nexmark.Person
	auctions []*nexmark.Auction
	bids     []*nexmark.Bid
}

func split(events []nexmark.Event) *input {
	in := &input{}
	for i := range events {
		e := &events[i]
		switch e.Type {
		case nexmark.PersonEvent:
			in.persons = append(in.persons, &e.Person)
		case nexmark.AuctionEvent:
			in.auctions = append(in.auctions, &e.Auction)
		default:
			in.bids = append(in.bids, &e.Bid)
		}
	}
	return in
}

// Value constructors in the sink's types.
var (
	bigint = types.BigInt
	str    = types.String
	ts3    = types.Timestamp(3)
	dec233 = types.Decimal(23, 3)
)

func i64(n int64) types.Value             { return types.NewInt(n) }
func s(v string) types.Value              { return types.NewString(v) }
func ts(ms int64) types.Value             { return types.NewTimestampMillis(ms) }
func row(vs ...types.Value) []types.Value { return vs }

// euro is 0.908 * price: DECIMAL(4, 3) times BIGINT is DECIMAL(23, 3),
// exact.
func euro(price int64) types.Value { return decimal(price*908, 3) }

const (
	second = int64(1000)
	day    = 24 * 3600 * second
)

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
