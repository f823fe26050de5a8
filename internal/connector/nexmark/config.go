package nexmark

import "math"

// The constants of Nexmark's GeneratorConfig and model generators.
const (
	// FirstPersonID, FirstAuctionID and FirstCategoryID are where ids
	// start (GeneratorConfig.FIRST_*_ID).
	FirstPersonID   = 1000
	FirstAuctionID  = 1000
	FirstCategoryID = 10

	numCategories    = 5   // AuctionGenerator.NUM_CATEGORIES
	auctionIDLead    = 10  // AuctionGenerator.AUCTION_ID_LEAD
	hotSellerRatio   = 100 // AuctionGenerator.HOT_SELLER_RATIO
	personIDLead     = 10  // PersonGenerator.PERSON_ID_LEAD
	hotAuctionRatio  = 100 // BidGenerator.HOT_AUCTION_RATIO
	hotBidderRatio   = 100 // BidGenerator.HOT_BIDDER_RATIO
	hotChannelsRatio = 2   // BidGenerator.HOT_CHANNELS_RATIO
	channelsNumber   = 10000
	numInFlight      = 100  // NexmarkConfiguration.numInFlightAuctions
	numActivePeople  = 1000 // NexmarkConfiguration.numActivePeople
)

// Config is the part of Nexmark's NexmarkConfiguration and GeneratorConfig
// that decides the events: the options of a 'nexmark' table, with Flink's
// defaults (see DefaultConfig).
type Config struct {
	// FirstEventRate is events per second ('first-event.rate'): event n
	// happens at BaseTime + n/rate. NextEventRate, RateShape and
	// RatePeriodSec are accepted as Flink does, which does not use them
	// either (its GeneratorConfig keeps one inter-event delay).
	FirstEventRate, NextEventRate int
	RateShape                     string
	RatePeriodSec                 int
	RateLimited                   bool
	// Person, Auction and Bid proportions (1 : 3 : 46).
	PersonProportion, AuctionProportion, BidProportion int
	// Average sizes in bytes that 'extra' pads records to.
	AvgPersonByteSize, AvgAuctionByteSize, AvgBidByteSize int
	// Hot ratios: a bid is for a hot auction with probability
	// 1 - 1/HotAuctionRatio, and so on.
	HotAuctionRatio, HotBiddersRatio, HotSellersRatio int
	// NumEvents is 'events.num'; 0 means unbounded.
	NumEvents int64
	// StopAt is 'stop-at' (-1: not set).
	StopAt int64
	// MaxEmitSpeed emits events as fast as possible; false paces them by
	// their event time.
	MaxEmitSpeed bool
	// BaseTime is the time of event number 0, in Unix milliseconds
	// (Flink: the wall clock when the source was created; Eddy: the
	// table's 'eddy.created-at').
	BaseTime int64
}

// DefaultConfig returns the defaults of Flink's NexmarkSourceOptions.
func DefaultConfig() Config {
	return Config{
		FirstEventRate: 10000, NextEventRate: 10000, RateShape: "SQUARE", RatePeriodSec: 600,
		PersonProportion: 1, AuctionProportion: 3, BidProportion: 46,
		AvgPersonByteSize: 200, AvgAuctionByteSize: 500, AvgBidByteSize: 100,
		HotAuctionRatio: 2, HotBiddersRatio: 4, HotSellersRatio: 4,
		StopAt: -1, MaxEmitSpeed: true,
	}
}

// The event generation of Nexmark's GeneratorConfig for one generator
// (numEventGenerators = 1) created as Flink's table source creates it:
// firstEventId = 1, firstEventNumber = 1, outOfOrderGroupSize = 1. Event
// count i (from 0) is event number 1+i and has event id 2+i.
const (
	firstEventID     = 1
	firstEventNumber = 1
)

func (c *Config) totalProportion() int64 {
	return int64(c.PersonProportion + c.AuctionProportion + c.BidProportion)
}

// interEventDelayUs is GeneratorConfig.interEventDelayUs[0].
func (c *Config) interEventDelayUs() float64 { return 1000000.0 / float64(c.FirstEventRate) }

// maxEvents is GeneratorConfig.maxEvents (min'ed with stopAtEvent as
// NexmarkGenerator does).
func (c *Config) maxEvents() int64 {
	n := c.NumEvents
	if n == 0 {
		// "Scale maximum down to avoid overflow in getEstimatedSizeBytes."
		n = math.MaxInt64 / (c.totalProportion() * int64(max(c.AvgPersonByteSize, c.AvgAuctionByteSize, c.AvgBidByteSize)))
	}
	if c.StopAt >= 0 {
		n = min(n, c.StopAt)
	}
	return n
}

// eventNumber is nextEventNumber(count) (= nextAdjustedEventNumber with
// outOfOrderGroupSize 1).
func eventNumber(count int64) int64 { return firstEventNumber + count }

// eventID is NexmarkGenerator.getNextEventId() after count events.
func eventID(count int64) int64 { return firstEventID + eventNumber(count) }

// timestampForEvent is GeneratorConfig.timestampForEvent: Java's
// baseTime + (long)(eventNumber * interEventDelayUs) / 1000L.
func (c *Config) timestampForEvent(n int64) int64 {
	return c.BaseTime + javaD2L(float64(n)*c.interEventDelayUs())/1000
}

// javaD2L is Java's (long) cast of a double: truncation, saturating, NaN
// to 0.
func javaD2L(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// lastBase0PersonID is PersonGenerator.lastBase0PersonId.
func (c *Config) lastBase0PersonID(eventID int64) int64 {
	epoch := eventID / c.totalProportion()
	offset := eventID % c.totalProportion()
	if offset >= int64(c.PersonProportion) {
		offset = int64(c.PersonProportion) - 1
	}
	return epoch*int64(c.PersonProportion) + offset
}

// lastBase0AuctionID is AuctionGenerator.lastBase0AuctionId.
func (c *Config) lastBase0AuctionID(eventID int64) int64 {
	epoch := eventID / c.totalProportion()
	offset := eventID % c.totalProportion()
	switch {
	case offset < int64(c.PersonProportion):
		epoch--
		offset = int64(c.AuctionProportion) - 1
	case offset >= int64(c.PersonProportion+c.AuctionProportion):
		offset = int64(c.AuctionProportion) - 1
	default:
		offset -= int64(c.PersonProportion)
	}
	return epoch*int64(c.AuctionProportion) + offset
}

// nextBase0PersonID is PersonGenerator.nextBase0PersonId.
func (c *Config) nextBase0PersonID(eventID int64, r *splittable) int64 {
	numPeople := c.lastBase0PersonID(eventID) + 1
	activePeople := min(numPeople, numActivePeople)
	n := r.nextLongn(activePeople + personIDLead)
	return numPeople - activePeople + n
}

// nextBase0AuctionID is AuctionGenerator.nextBase0AuctionId.
func (c *Config) nextBase0AuctionID(eventID int64, r *splittable) int64 {
	maxAuction := c.lastBase0AuctionID(eventID)
	minAuction := max(maxAuction-numInFlight, 0)
	return minAuction + r.nextLongn(maxAuction-minAuction+1+auctionIDLead)
}

// nextAuctionLengthMs is AuctionGenerator.nextAuctionLengthMs.
func (c *Config) nextAuctionLengthMs(count int64, r *splittable, timestamp int64) int64 {
	current := eventNumber(count)
	numEventsForAuctions := (numInFlight * c.totalProportion()) / int64(c.AuctionProportion)
	futureAuction := c.timestampForEvent(current + numEventsForAuctions)
	horizonMs := futureAuction - timestamp
	return 1 + r.nextLongn(max(horizonMs*2, 1))
}
