package nexmark

import "math"

// The event types, the values of the table's event_type column.
const (
	PersonEvent  = 0
	AuctionEvent = 1
	BidEvent     = 2
)

// Person is a new person (Nexmark's model.Person). Times are Unix
// milliseconds.
type Person struct {
	ID           int64
	Name         string
	EmailAddress string
	CreditCard   string
	City         string
	State        string
	DateTime     int64
	Extra        string
}

// Auction is a new auction (model.Auction).
type Auction struct {
	ID          int64
	ItemName    string
	Description string
	InitialBid  int64
	Reserve     int64
	DateTime    int64
	Expires     int64
	Seller      int64
	Category    int64
	Extra       string
}

// Bid is a bid on an auction (model.Bid).
type Bid struct {
	Auction  int64
	Bidder   int64
	Price    int64
	Channel  string
	URL      string
	DateTime int64
	Extra    string
}

// Event is one generated event: Type says which of Person, Auction and
// Bid is set.
type Event struct {
	Type    int
	Person  Person
	Auction Auction
	Bid     Bid
}

// Time returns the event's time (the table's `dateTime`), in Unix
// milliseconds.
func (e *Event) Time() int64 {
	switch e.Type {
	case PersonEvent:
		return e.Person.DateTime
	case AuctionEvent:
		return e.Auction.DateTime
	}
	return e.Bid.DateTime
}

// Generator generates the events of a Nexmark configuration, as Flink's
// NexmarkGenerator does for one source split. Event i is a pure function
// of the configuration and i (its random values come from a
// SplittableRandom seeded with the event's id), so a reader can start at
// any event. It is immutable and safe for concurrent use.
type Generator struct {
	cfg Config
	max int64
	t   *statics
}

// NewGenerator returns the generator of cfg; cfg must be valid (as
// NewConfig returns it).
func NewGenerator(cfg Config) *Generator {
	return &Generator{cfg: cfg, max: cfg.maxEvents(), t: static()}
}

// Config returns the generator's configuration.
func (g *Generator) Config() Config { return g.cfg }

// Events returns the number of events (events.num, or stop-at when
// smaller), or -1 when the stream is unbounded.
func (g *Generator) Events() int64 {
	if g.cfg.NumEvents == 0 && g.cfg.StopAt < 0 {
		return -1
	}
	return g.max
}

// EventTime returns the time of event i, in Unix milliseconds.
func (g *Generator) EventTime(i int64) int64 { return g.cfg.timestampForEvent(eventNumber(i)) }

// Event fills e with event i (from 0): NexmarkGenerator.nextEvent after i
// events.
func (g *Generator) Event(i int64, e *Event) {
	c := &g.cfg
	ts := g.EventTime(i)
	id := eventID(i)
	r := newSplittable(id)
	rem := id % c.totalProportion()
	switch {
	case rem < int64(c.PersonProportion):
		e.Type = PersonEvent
		g.person(id, &r, ts, &e.Person)
	case rem < int64(c.PersonProportion+c.AuctionProportion):
		e.Type = AuctionEvent
		g.auction(i, id, &r, ts, &e.Auction)
	default:
		e.Type = BidEvent
		g.bid(id, &r, ts, &e.Bid)
	}
}

// person is PersonGenerator.nextPerson.
func (g *Generator) person(id int64, r *splittable, ts int64, p *Person) {
	c := &g.cfg
	p.ID = c.lastBase0PersonID(id) + FirstPersonID
	p.Name = firstNames[r.nextIntn(int32(len(firstNames)))] + " " + lastNames[r.nextIntn(int32(len(lastNames)))]
	p.EmailAddress = nextString(r, 7, ' ') + "@" + nextString(r, 5, ' ') + ".com"
	var cc [19]byte
	b := cc[:0]
	for i := 0; i < 4; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.t.creditCards[r.nextIntn(10000)]...)
	}
	p.CreditCard = string(b)
	p.City = usCities[r.nextIntn(int32(len(usCities)))]
	p.State = usStates[r.nextIntn(int32(len(usStates)))]
	size := 8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State)
	p.DateTime = ts
	p.Extra = g.t.nextExtra(r, size, c.AvgPersonByteSize)
}

// auction is AuctionGenerator.nextAuction; count is the number of events
// generated before it.
func (g *Generator) auction(count, id int64, r *splittable, ts int64, a *Auction) {
	c := &g.cfg
	a.ID = c.lastBase0AuctionID(id) + FirstAuctionID
	var seller int64
	if r.nextIntn(int32(c.HotSellersRatio)) > 0 {
		// The first person of the batch of the last HOT_SELLER_RATIO people.
		seller = (c.lastBase0PersonID(id) / hotSellerRatio) * hotSellerRatio
	} else {
		seller = c.nextBase0PersonID(id, r)
	}
	a.Seller = seller + FirstPersonID
	a.Category = FirstCategoryID + int64(r.nextIntn(numCategories))
	a.InitialBid = nextPrice(r)
	a.DateTime = ts
	a.Expires = ts + c.nextAuctionLengthMs(count, r, ts)
	a.ItemName = nextString(r, 20, ' ')
	a.Description = nextString(r, 100, ' ')
	a.Reserve = a.InitialBid + nextPrice(r)
	size := 8 + len(a.ItemName) + len(a.Description) + 8 + 8 + 8 + 8 + 8
	a.Extra = g.t.nextExtra(r, size, c.AvgAuctionByteSize)
}

// bid is BidGenerator.nextBid.
func (g *Generator) bid(id int64, r *splittable, ts int64, b *Bid) {
	c := &g.cfg
	var auction int64
	if r.nextIntn(int32(c.HotAuctionRatio)) > 0 {
		// The first auction of the batch of the last HOT_AUCTION_RATIO auctions.
		auction = (c.lastBase0AuctionID(id) / hotAuctionRatio) * hotAuctionRatio
	} else {
		auction = c.nextBase0AuctionID(id, r)
	}
	b.Auction = auction + FirstAuctionID
	var bidder int64
	if r.nextIntn(int32(c.HotBiddersRatio)) > 0 {
		// The second person of the batch of the last HOT_BIDDER_RATIO
		// people, so that hot bidders and hot sellers differ.
		bidder = (c.lastBase0PersonID(id)/hotBidderRatio)*hotBidderRatio + 1
	} else {
		bidder = c.nextBase0PersonID(id, r)
	}
	// Flink adds FIRST_PERSON_ID twice (once here, once after the
	// channel), so bidders are person ids + 1000; kept for identical data.
	bidder += FirstPersonID
	b.Price = nextPrice(r)
	if r.nextIntn(hotChannelsRatio) > 0 {
		i := r.nextIntn(int32(len(hotChannels)))
		b.Channel, b.URL = hotChannels[i], g.t.hotURLs[i]
	} else {
		i := r.nextIntn(channelsNumber)
		b.Channel, b.URL = g.t.channels[i], g.t.channelURLs[i]
	}
	b.Bidder = bidder + FirstPersonID
	b.DateTime = ts
	b.Extra = g.t.nextExtra(r, 8+8+8+8, c.AvgBidByteSize)
}

// javaPow10 stands for Java's Math.pow(10, x), x in [0, 6). Math.pow is
// not bit-exact across implementations (HotSpot's intrinsic and
// StrictMath.pow disagree on about 10% of results, Go's math.Pow within 4
// ulps on more), but the prices it feeds are rounded to whole cents, and
// those agree with Flink's on all 4 million draws TestGolden compares: a
// result would have to fall within a few ulps of half a cent to differ.
func javaPow10(x float64) float64 { return math.Pow(10, x) }
