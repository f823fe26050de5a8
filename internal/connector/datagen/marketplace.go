package datagen

import (
	"sort"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// The built-in examples catalog, as in Confluent Cloud.
const (
	ExamplesCatalog  = "examples"
	ExamplesDatabase = "marketplace"
	// ExamplesCreatedAt is the creation time of the example tables. It is
	// fixed so that their rows, timestamps included, are the same in every
	// data directory and run.
	ExamplesCreatedAt = "2025-01-01T00:00:00Z"
	// ExamplesRowsPerSecond is the rate of Confluent's example tables.
	ExamplesRowsPerSecond = 50
	// RowtimeColumn is the event-time column of the example tables.
	RowtimeColumn = "$rowtime"
)

// ExampleTable is a table of the examples catalog.
type ExampleTable struct {
	Database string
	Name     string
	// Columns are physical: the generator produces every one.
	Columns    []types.Field
	PrimaryKey []string
	// Watermark is the rowtime column; the strategy is WATERMARK FOR it AS
	// it (the largest timestamp seen, as SOURCE_WATERMARK() of Confluent's
	// example tables).
	Watermark string
	Options   map[string]string
	Comment   string
}

// Examples returns the tables of examples.marketplace: clicks, customers,
// orders and products, with the columns of Confluent's tables plus a
// visible `$rowtime` column (Confluent's is a hidden system column).
func Examples() []ExampleTable {
	str := types.String.NonNull()
	integer := types.Int.NonNull()
	rowtime := types.Field{Name: RowtimeColumn, Type: types.TimestampLTZ(3).NonNull()}
	opts := func(example, mode string, extra ...string) map[string]string {
		m := map[string]string{
			OptConnector:     Identifier,
			OptRowsPerSecond: strconv.Itoa(ExamplesRowsPerSecond),
			OptChangelogMode: mode,
			OptCreatedAt:     ExamplesCreatedAt,
			OptExample:       ExamplesDatabase + "." + example,
		}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	return []ExampleTable{
		{
			Database: ExamplesDatabase, Name: "clicks",
			Columns: []types.Field{
				{Name: "click_id", Type: str},
				{Name: "user_id", Type: integer},
				{Name: "url", Type: str},
				{Name: "user_agent", Type: str},
				{Name: "view_time", Type: integer},
				rowtime,
			},
			Watermark: RowtimeColumn,
			Options: opts("clicks", "append",
				"fields.user_id.min", "3000", "fields.user_id.max", "4999",
				"fields.view_time.min", "10", "fields.view_time.max", "119"),
			Comment: "Clicks on the pages of an online marketplace (generated, 50 rows per second).",
		},
		{
			Database: ExamplesDatabase, Name: "customers",
			Columns: []types.Field{
				{Name: "customer_id", Type: integer},
				{Name: "name", Type: str},
				{Name: "address", Type: str},
				{Name: "postcode", Type: str},
				{Name: "city", Type: str},
				{Name: "email", Type: str},
				rowtime,
			},
			PrimaryKey: []string{"customer_id"},
			Watermark:  RowtimeColumn,
			Options: opts("customers", "upsert",
				"fields.customer_id.min", "3000", "fields.customer_id.max", "3249"),
			Comment: "Customers of the marketplace, upserted by customer_id (generated, 50 rows per second).",
		},
		{
			Database: ExamplesDatabase, Name: "orders",
			Columns: []types.Field{
				{Name: "order_id", Type: str},
				{Name: "customer_id", Type: integer},
				{Name: "product_id", Type: str},
				{Name: "price", Type: types.Double.NonNull()},
				rowtime,
			},
			Watermark: RowtimeColumn,
			Options: opts("orders", "append",
				"fields.customer_id.min", "3000", "fields.customer_id.max", "3249"),
			Comment: "Orders placed on the marketplace (generated, 50 rows per second).",
		},
		{
			Database: ExamplesDatabase, Name: "products",
			Columns: []types.Field{
				{Name: "product_id", Type: str},
				{Name: "name", Type: str},
				{Name: "brand", Type: str},
				{Name: "vendor", Type: str},
				{Name: "department", Type: str},
				rowtime,
			},
			PrimaryKey: []string{"product_id"},
			Watermark:  RowtimeColumn,
			Options:    opts("products", "upsert"),
			Comment:    "Products of the marketplace, upserted by product_id (generated, 50 rows per second).",
		},
	}
}

// exampleColumn is a column an example generator produces itself.
type exampleColumn struct {
	name string
	typ  string
	ok   func(types.Type) bool
	gen  func(g *Generator) genFunc
}

type exampleGen struct{ cols []exampleColumn }

func isString(t types.Type) bool { return t.ID == types.TypeVarChar && t.Length >= 64 }

func strCol(name string, f func(r *rng) string) exampleColumn {
	return exampleColumn{name: name, typ: "STRING", ok: isString, gen: func(*Generator) genFunc {
		return func(_ int64, seed uint64) types.Value {
			r := &rng{s: seed}
			return types.NewString(f(r))
		}
	}}
}

// examples are the generators of eddy.example, keyed by name.
var examples = map[string]exampleGen{
	"marketplace.clicks": {cols: []exampleColumn{
		strCol("click_id", uuid),
		strCol("url", func(r *rng) string { return "https://www.acme.com/product/" + letters(r, 5) }),
		strCol("user_agent", func(r *rng) string { return pick(r, userAgents) }),
	}},
	"marketplace.orders": {cols: []exampleColumn{
		strCol("order_id", uuid),
		strCol("product_id", productID),
		{name: "price", typ: "DOUBLE", ok: func(t types.Type) bool { return t.ID == types.TypeDouble }, gen: func(*Generator) genFunc {
			// 10.00 to 100.00 with two decimals.
			return func(_ int64, seed uint64) types.Value {
				r := &rng{s: seed}
				return types.NewFloat(float64(r.between(1000, 10000)) / 100)
			}
		}},
	}},
	"marketplace.customers": {cols: []exampleColumn{
		strCol("name", func(r *rng) string { return pick(r, firstNames) + " " + pick(r, lastNames) }),
		strCol("address", func(r *rng) string {
			return strconv.FormatInt(r.between(1, 9999), 10) + " " + pick(r, streetNames) + " " + pick(r, streetSuffixes)
		}),
		strCol("postcode", func(r *rng) string { return strconv.FormatInt(r.between(10000, 99999), 10) }),
		strCol("city", func(r *rng) string { return pick(r, cities) }),
		strCol("email", func(r *rng) string {
			return strings.ToLower(pick(r, firstNames)+"."+pick(r, lastNames)) + "@" + pick(r, emailDomains)
		}),
	}},
	"marketplace.products": {cols: []exampleColumn{
		strCol("product_id", productID),
		strCol("name", func(r *rng) string {
			return pick(r, productAdjectives) + " " + pick(r, productMaterials) + " " + pick(r, productNouns)
		}),
		strCol("brand", func(r *rng) string { return pick(r, brands) }),
		strCol("vendor", func(r *rng) string { return pick(r, vendors) }),
		strCol("department", func(r *rng) string { return pick(r, departments) }),
	}},
}

func exampleNames() []string {
	var out []string
	for k := range examples {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// productID is a product id from 1000 to 1499, as a string.
func productID(r *rng) string { return strconv.FormatInt(r.between(1000, 1499), 10) }

// uuid returns a random (version 4) UUID.
func uuid(r *rng) string {
	hi, lo := r.next(), r.next()
	hi = hi&^0xf000 | 0x4000           // version 4
	lo = lo&^(0xc000<<48) | 0x8000<<48 // RFC 4122 variant
	var b [36]byte
	put := func(at int, v uint64, digits int) {
		for i := digits - 1; i >= 0; i-- {
			b[at+i] = hexDigits[v&15]
			v >>= 4
		}
	}
	put(0, hi>>32, 8)
	b[8] = '-'
	put(9, hi>>16, 4)
	b[13] = '-'
	put(14, hi, 4)
	b[18] = '-'
	put(19, lo>>48, 4)
	b[23] = '-'
	put(24, lo, 12)
	return string(b[:])
}

func letters(r *rng, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.between(0, 25))
	}
	return string(b)
}

func pick(r *rng, list []string) string { return list[r.between(0, int64(len(list)-1))] }

var userAgents = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
	"Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
	"Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko",
	"Opera/9.80 (Windows NT 6.1; U; en) Presto/2.12.388 Version/12.16",
}

var firstNames = []string{
	"Ada", "Alan", "Amara", "Ana", "Ben", "Carla", "Chen", "Dana", "Diego", "Elif",
	"Emma", "Farah", "Felix", "Grace", "Hana", "Hugo", "Ines", "Ivan", "Jamal", "Julia",
	"Kai", "Lara", "Leo", "Lina", "Marco", "Maya", "Nia", "Noah", "Olga", "Omar",
	"Priya", "Quinn", "Rosa", "Sam", "Sofia", "Tariq", "Uma", "Victor", "Wen", "Yara",
}

var lastNames = []string{
	"Abbott", "Baker", "Carter", "Diaz", "Evans", "Fischer", "Garcia", "Hansen", "Ito", "Jensen",
	"Khan", "Larsen", "Moreau", "Nakamura", "Okafor", "Patel", "Quist", "Rossi", "Schmidt", "Tanaka",
	"Ueda", "Varga", "Weber", "Xu", "Yilmaz", "Zhang", "Novak", "Silva", "Kowalski", "Murphy",
}

var streetNames = []string{
	"Maple", "Oak", "Cedar", "Elm", "Harbor", "Hill", "Lake", "Mill", "Park", "River",
	"Station", "Sunset", "Willow", "Spring", "Church", "Market", "Bridge", "Forest", "Garden", "Meadow",
}

var streetSuffixes = []string{"Street", "Avenue", "Road", "Lane", "Way", "Drive", "Court", "Place", "Boulevard", "Terrace"}

var cities = []string{
	"Springfield", "Riverton", "Lakeside", "Fairview", "Greenville", "Kingston", "Milford", "Newport", "Oakland", "Portland",
	"Salem", "Franklin", "Clinton", "Georgetown", "Madison", "Ashland", "Bristol", "Dover", "Hudson", "Marion",
}

var emailDomains = []string{"example.com", "example.org", "example.net", "mail.example.com"}

var productAdjectives = []string{
	"Small", "Ergonomic", "Rustic", "Intelligent", "Gorgeous", "Incredible", "Fantastic", "Practical", "Sleek", "Awesome",
	"Enormous", "Mediocre", "Synergistic", "Heavy Duty", "Lightweight", "Aerodynamic", "Durable", "Compact", "Elegant", "Handmade",
}

var productMaterials = []string{
	"Steel", "Wooden", "Concrete", "Plastic", "Cotton", "Granite", "Rubber", "Leather", "Silk", "Wool",
	"Linen", "Marble", "Iron", "Bronze", "Copper", "Aluminum", "Paper", "Glass",
}

var productNouns = []string{
	"Chair", "Car", "Computer", "Gloves", "Pants", "Shirt", "Table", "Shoes", "Hat", "Plate",
	"Knife", "Bottle", "Coat", "Lamp", "Keyboard", "Bag", "Bench", "Clock", "Watch", "Wallet",
	"Backpack", "Mug", "Umbrella", "Sofa", "Desk",
}

var brands = []string{
	"Acme", "Northwind", "Contoso", "Globex", "Initech", "Umbrella Works", "Stark Goods", "Wayne Supply", "Hooli", "Vandelay",
	"Soylent", "Cyberdyne", "Tyrell", "Wonka", "Gringotts", "Oscorp", "Pied Piper", "Aperture", "Monarch", "Zenith",
}

var vendors = []string{
	"Acme Retail", "Corner Shop", "Dollar Depot", "Emporium", "Fulfillment Co", "Market Square", "Mega Mart", "Outlet Hub",
	"Shop Central", "Super Store", "The Bazaar", "Trade Post", "Value Mart", "Warehouse Direct",
}

var departments = []string{
	"Automotive", "Baby", "Beauty", "Books", "Clothing", "Computers", "Electronics", "Games", "Garden", "Grocery",
	"Health", "Home", "Industrial", "Jewelry", "Kids", "Movies", "Music", "Outdoors", "Shoes", "Sports", "Tools", "Toys",
}
