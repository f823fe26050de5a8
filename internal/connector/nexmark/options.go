package nexmark

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Identifier is the value of 'connector' for Nexmark tables.
const Identifier = "nexmark"

// Option declares one option of the connector: its key, type, default
// and what it does. The list drives validation and the docs.
type Option = connector.Option

// The option keys: Flink's NexmarkSourceOptions, then Eddy's.
const (
	OptConnector         = "connector"
	OptFirstEventRate    = "first-event.rate"
	OptNextEventRate     = "next-event.rate"
	OptRateShape         = "rate.shape"
	OptRatePeriod        = "rate.period"
	OptRateLimited       = "rate.limited"
	OptPersonAvgSize     = "person.avg-size"
	OptAuctionAvgSize    = "auction.avg-size"
	OptBidAvgSize        = "bid.avg-size"
	OptPersonProportion  = "person.proportion"
	OptAuctionProportion = "auction.proportion"
	OptBidProportion     = "bid.proportion"
	OptHotAuctions       = "bid.hot-ratio.auctions"
	OptHotBidders        = "bid.hot-ratio.bidders"
	OptHotSellers        = "auction.hot-ratio.sellers"
	OptEventsNum         = "events.num"
	OptKeepAlive         = "keep-alive"
	OptStopAt            = "stop-at"
	OptMaxEmitSpeed      = "max-emit-speed"
	// OptCreatedAt is when the table was created, in RFC 3339: the time
	// of the first events. The engine sets it from its clock when the DDL
	// does not (Flink takes the wall clock when the source is created).
	OptCreatedAt = "eddy.created-at"
	// OptSnapshotRows caps the events a snapshot reads from an unbounded
	// table.
	OptSnapshotRows = "eddy.snapshot.max-rows"
)

// DefaultSnapshotRows is the default of 'eddy.snapshot.max-rows'.
const DefaultSnapshotRows = 1000

// maxEmitRate is the pace of a continuous read with 'max-emit-speed'
// (as fast as the job goes).
const maxEmitRate = 1_000_000_000

// Options lists every option of the connector.
var Options = []Option{
	{Key: OptConnector, Type: connector.TypeString, Required: true, Doc: "Must be 'nexmark'."},
	{Key: OptFirstEventRate, Type: "Integer", Default: "10000", Doc: "Events per second of event time: event n happens at created-at + n/rate (Nexmark's inter-event delay)."},
	{Key: OptNextEventRate, Type: "Integer", Default: "10000", Doc: "Accepted as in Flink, whose generator does not use it either (one rate)."},
	{Key: OptRateShape, Type: connector.TypeEnum, Values: []string{"SQUARE", "SINE"}, Default: "SQUARE", Doc: "Accepted as in Flink, whose generator does not use it."},
	{Key: OptRatePeriod, Type: "Duration", Default: "600 s", Doc: "Accepted as in Flink, whose generator does not use it."},
	{Key: OptRateLimited, Type: "Boolean", Default: "false", Doc: "Accepted as in Flink, whose source does not use it ('max-emit-speed' decides the pace)."},
	{Key: OptPersonAvgSize, Type: "MemorySize", Default: "200b", Doc: "Average size a person is padded to with 'extra'."},
	{Key: OptAuctionAvgSize, Type: "MemorySize", Default: "500b", Doc: "Average size an auction is padded to with 'extra'."},
	{Key: OptBidAvgSize, Type: "MemorySize", Default: "100b", Doc: "Average size a bid is padded to with 'extra'."},
	{Key: OptPersonProportion, Type: "Integer", Default: "1", Doc: "Persons per person.proportion + auction.proportion + bid.proportion events."},
	{Key: OptAuctionProportion, Type: "Integer", Default: "3", Doc: "Auctions per that many events."},
	{Key: OptBidProportion, Type: "Integer", Default: "46", Doc: "Bids per that many events."},
	{Key: OptHotAuctions, Type: "Integer", Default: "2", Doc: "A bid is for a hot auction with probability 1 - 1/ratio."},
	{Key: OptHotBidders, Type: "Integer", Default: "4", Doc: "A bid is by a hot bidder with probability 1 - 1/ratio."},
	{Key: OptHotSellers, Type: "Integer", Default: "4", Doc: "An auction is by a hot seller with probability 1 - 1/ratio."},
	{Key: OptEventsNum, Type: "Long", Default: "0", Doc: "Number of events; 0 means unbounded."},
	{Key: OptKeepAlive, Type: "Boolean", Default: "false", Doc: "Only 'false': the input ends (its watermark goes to the maximum) after the last event."},
	{Key: OptStopAt, Type: "Long", Default: "-1", Doc: "Stop after this many events (when smaller than events.num)."},
	{Key: OptMaxEmitSpeed, Type: "Boolean", Default: "true", Doc: "Emit events as fast as the job reads them; 'false' paces them at first-event.rate."},
	{Key: OptCreatedAt, Type: "Timestamp (RFC 3339)", Default: "set by Eddy when the table is created", Doc: "The time of the first event. A snapshot of an unbounded table reads the events whose time has come."},
	{Key: OptSnapshotRows, Type: "Long", Default: strconv.Itoa(DefaultSnapshotRows), Doc: "Most events a snapshot (a SELECT in a script) reads from an unbounded table."},
}

// OptionError is an invalid option. Key names the option ("" for the
// table as a whole).
type OptionError struct {
	Key     string
	Message string
	Hint    string
}

func (e *OptionError) Error() string {
	if e.Hint == "" {
		return e.Message
	}
	return e.Message + " (" + e.Hint + ")"
}

func optErr(key, hint, format string, args ...any) *OptionError {
	return &OptionError{Key: key, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// settings are a table's parsed options.
type settings struct {
	cfg       Config
	createdAt int64 // unix nanoseconds
	snapCap   int64
}

// parseOptions validates the options of a 'nexmark' table.
func parseOptions(table string, opts map[string]string) (settings, error) {
	s := settings{cfg: DefaultConfig(), snapCap: DefaultSnapshotRows}
	c := &s.cfg
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		val := strings.TrimSpace(opts[key])
		var err error
		switch key {
		case OptConnector:
			if val != Identifier {
				err = optErr(key, "", "Table '%s' uses connector '%s', not '%s'", table, val, Identifier)
			}
		case OptFirstEventRate:
			c.FirstEventRate, err = parseInt(key, val, 1)
		case OptNextEventRate:
			c.NextEventRate, err = parseInt(key, val, 1)
		case OptRateShape:
			switch strings.ToUpper(val) {
			case "SQUARE", "SINE":
				c.RateShape = strings.ToUpper(val)
			default:
				err = optErr(key, "use 'SQUARE' or 'SINE'", "Invalid value '%s' for option '%s'", val, key)
			}
		case OptRatePeriod:
			var d time.Duration
			d, err = types.ParseDuration(val)
			if err != nil || d < time.Second {
				err = optErr(key, "write a duration such as '600 s' or '10 min'", "Invalid value '%s' for option '%s': expected a duration of at least a second", val, key)
			}
			c.RatePeriodSec = int(d / time.Second)
		case OptRateLimited:
			c.RateLimited, err = parseBool(key, val)
		case OptPersonAvgSize:
			c.AvgPersonByteSize, err = parseSize(key, val)
		case OptAuctionAvgSize:
			c.AvgAuctionByteSize, err = parseSize(key, val)
		case OptBidAvgSize:
			c.AvgBidByteSize, err = parseSize(key, val)
		case OptPersonProportion:
			c.PersonProportion, err = parseInt(key, val, 1)
		case OptAuctionProportion:
			c.AuctionProportion, err = parseInt(key, val, 1)
		case OptBidProportion:
			c.BidProportion, err = parseInt(key, val, 0)
		case OptHotAuctions:
			c.HotAuctionRatio, err = parseInt(key, val, 1)
		case OptHotBidders:
			c.HotBiddersRatio, err = parseInt(key, val, 1)
		case OptHotSellers:
			c.HotSellersRatio, err = parseInt(key, val, 1)
		case OptEventsNum:
			c.NumEvents, err = parseLong(key, val, 0)
		case OptKeepAlive:
			var on bool
			if on, err = parseBool(key, val); err == nil && on {
				err = optErr(key, "remove the option: the input ends after the last event", "'%s' = 'true' is not supported yet", key)
			}
		case OptStopAt:
			c.StopAt, err = parseLong(key, val, -1)
		case OptMaxEmitSpeed:
			c.MaxEmitSpeed, err = parseBool(key, val)
		case OptCreatedAt:
			t, perr := time.Parse(time.RFC3339Nano, val)
			if perr != nil {
				err = optErr(key, "use RFC 3339, such as '2025-01-01T00:00:00Z'", "Invalid value '%s' for option '%s': not a timestamp", val, key)
			}
			s.createdAt = t.UnixNano()
		case OptSnapshotRows:
			s.snapCap, err = parseLong(key, val, 0)
		default:
			hint := "supported options: " + supportedKeys()
			if best := sqlerr.Closest(key, optionKeys(), 4); best != "" {
				hint = "did you mean '" + best + "'?"
			}
			err = optErr(key, hint, "Unsupported option '%s' for connector 'nexmark'", key)
		}
		if err != nil {
			return settings{}, err
		}
	}
	if p := c.totalProportion(); p > math.MaxInt32 {
		return settings{}, optErr(OptBidProportion, "", "The proportions add up to %d, more than %d", p, math.MaxInt32)
	}
	// Event times are milliseconds: the first is created-at truncated to
	// the millisecond.
	c.BaseTime = s.createdAt / 1e6
	if s.createdAt < 0 && s.createdAt%1e6 != 0 {
		c.BaseTime--
	}
	return s, nil
}

func optionKeys() []string {
	out := make([]string, len(Options))
	for i, o := range Options {
		out[i] = o.Key
	}
	return out
}

func supportedKeys() string { return "'" + strings.Join(optionKeys(), "', '") + "'" }

func parseLong(key, s string, min int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, optErr(key, "", "Invalid value '%s' for option '%s': expected a whole number", s, key)
	}
	if n < min {
		return 0, optErr(key, "", "Invalid value '%s' for option '%s': it must be at least %d", s, key, min)
	}
	return n, nil
}

func parseInt(key, s string, min int64) (int, error) {
	n, err := parseLong(key, s, min)
	if err == nil && n > math.MaxInt32 {
		return 0, optErr(key, "", "Invalid value '%s' for option '%s': at most %d", s, key, math.MaxInt32)
	}
	return int(n), err
}

func parseBool(key, s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, optErr(key, "", "Invalid value '%s' for option '%s': expected 'true' or 'false'", s, key)
}

// maxAvgSize bounds the avg-size options (the padding strings are cut
// from a 1 MiB string).
const maxAvgSize = reusableExtraSize / 2

// parseSize parses Flink's MemorySize syntax (connector.ParseMemorySize:
// a whole number with an optional unit b, kb, mb, ...; 1 kb = 1024
// bytes).
func parseSize(key, s string) (int, error) {
	n, err := connector.ParseMemorySize(s)
	if err != nil {
		return 0, optErr(key, "write a size such as '100b' or '1kb'", "Invalid value '%s' for option '%s': %v", s, key, err)
	}
	if n > maxAvgSize {
		return 0, optErr(key, "write a size such as '100b' or '1kb'", "Invalid value '%s' for option '%s': at most %d bytes", s, key, maxAvgSize)
	}
	return int(n), nil
}
