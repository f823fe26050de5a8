//go:build duckdb

package reference

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// duckQueries are the queries in DuckDB's SQL over tables of the events
// (times as BIGINT milliseconds; seq is the event's position, for the
// tie-breaks of ROW_NUMBER and deduplication that Flink resolves by
// arrival), for the queries Eddy cannot run yet: two independent
// implementations must agree before the reference is trusted with them.
var duckQueries = map[string]string{
	"q5": `WITH w AS (SELECT auction, (dateTime // 2000) * 2000 - k * 2000 AS ws FROM bid, range(5) t(k)),
		c AS (SELECT auction, ws, count(*) AS num FROM w GROUP BY auction, ws),
		m AS (SELECT ws, max(num) AS maxn FROM c GROUP BY ws)
		SELECT c.auction, c.num FROM c JOIN m ON c.ws = m.ws AND c.num >= m.maxn`,
	"q6": `WITH w AS (SELECT A.id, A.seller, B.price, B.dateTime,
		    row_number() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC, B.seq ASC) AS rn
		  FROM auction A JOIN bid B ON A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires)
		SELECT CAST(seller AS VARCHAR), CAST((sum(price) OVER o) // (count(*) OVER o) AS BIGINT) FROM w WHERE rn = 1
		WINDOW o AS (PARTITION BY seller ORDER BY dateTime, id ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)`,
	"q7": `WITH w AS (SELECT max(price) AS maxprice, (dateTime // 10000) * 10000 + 10000 AS we FROM bid GROUP BY dateTime // 10000)
		SELECT b.auction, b.price, b.bidder, b.dateTime, b.extra FROM bid b JOIN w ON b.price = w.maxprice
		WHERE b.dateTime BETWEEN w.we - 10000 AND w.we`,
	"q8": `WITH p AS (SELECT DISTINCT id, name, (dateTime // 10000) * 10000 AS ws FROM person),
		a AS (SELECT DISTINCT seller, (dateTime // 10000) * 10000 AS ws FROM auction)
		SELECT p.id, p.name, p.ws FROM p JOIN a ON p.id = a.seller AND p.ws = a.ws`,
	"q9": `SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra,
		auction, bidder, price, bid_dateTime, bid_extra FROM (
		  SELECT A.id, A.itemName, A.description, A.initialBid, A.reserve, A.dateTime, A.expires, A.seller, A.category, A.extra,
		    B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
		    row_number() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC, B.seq ASC) AS rn
		  FROM auction A JOIN bid B ON A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires)
		WHERE rn = 1`,
	"q11": `WITH o AS (SELECT bidder, dateTime, seq,
		    CASE WHEN dateTime - lag(dateTime) OVER (PARTITION BY bidder ORDER BY dateTime, seq) > 10000 THEN 1 ELSE 0 END AS brk
		  FROM bid),
		s AS (SELECT bidder, dateTime, sum(brk) OVER (PARTITION BY bidder ORDER BY dateTime, seq ROWS UNBOUNDED PRECEDING) AS sid FROM o)
		SELECT bidder, count(*), min(dateTime), max(dateTime) + 10000 FROM s GROUP BY bidder, sid`,
	"q18": `SELECT auction, bidder, price, channel, url, dateTime, extra FROM (
		  SELECT *, row_number() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC, seq DESC) AS rn FROM bid)
		WHERE rn = 1`,
	"q19": `SELECT auction, bidder, price, channel, url, dateTime, extra, rn FROM (
		  SELECT *, row_number() OVER (PARTITION BY auction ORDER BY price DESC, seq ASC) AS rn FROM bid)
		WHERE rn <= 10`,
}

// TestReferenceAgainstDuckDB computes the queries in duckQueries with
// DuckDB and with Compute over the same 100,000 events and compares the
// results (go test -tags duckdb ./internal/nexmark/reference/).
func TestReferenceAgainstDuckDB(t *testing.T) {
	cfg := nexmark.DefaultConfig()
	cfg.FirstEventRate = 1000
	cfg.BaseTime = time.Date(2015, 7, 15, 23, 59, 20, 0, time.UTC).UnixMilli()
	events := Events(nexmark.NewGenerator(cfg), 100_000)
	db := loadDuckDB(t, events)
	for _, q := range []string{"q5", "q6", "q7", "q8", "q9", "q11", "q18", "q19"} {
		t.Run(q, func(t *testing.T) {
			want, err := Compute(q, events, Options{})
			require.NoError(t, err)
			got := duckRows(t, db, duckQueries[q], want.Types)
			require.NotEmpty(t, got)
			require.Equal(t, Lines(want.Types, got), want.Lines())
		})
	}
}

func loadDuckDB(t *testing.T, events []nexmark.Event) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, ddl := range []string{
		`CREATE TABLE person (id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, dateTime BIGINT, extra VARCHAR, seq BIGINT)`,
		`CREATE TABLE auction (id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, dateTime BIGINT, expires BIGINT, seller BIGINT, category BIGINT, extra VARCHAR, seq BIGINT)`,
		`CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, dateTime BIGINT, extra VARCHAR, seq BIGINT)`,
	} {
		_, err := db.Exec(ddl)
		require.NoError(t, err)
	}
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		apps := map[string]*duckdb.Appender{}
		for _, name := range []string{"person", "auction", "bid"} {
			a, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", name)
			if err != nil {
				return err
			}
			apps[name] = a
		}
		for i := range events {
			e := &events[i]
			seq := int64(i)
			var err error
			switch e.Type {
			case nexmark.PersonEvent:
				p := e.Person
				err = apps["person"].AppendRow(p.ID, p.Name, p.EmailAddress, p.CreditCard, p.City, p.State, p.DateTime, p.Extra, seq)
			case nexmark.AuctionEvent:
				a := e.Auction
				err = apps["auction"].AppendRow(a.ID, a.ItemName, a.Description, a.InitialBid, a.Reserve, a.DateTime, a.Expires, a.Seller, a.Category, a.Extra, seq)
			default:
				b := e.Bid
				err = apps["bid"].AppendRow(b.Auction, b.Bidder, b.Price, b.Channel, b.URL, b.DateTime, b.Extra, seq)
			}
			if err != nil {
				return err
			}
		}
		for _, a := range apps {
			if err := a.Close(); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	return db
}

// duckRows runs a query and converts its rows to the reference's column
// types (TIMESTAMP(3) columns come as BIGINT milliseconds).
func duckRows(t *testing.T, db *sql.DB, query string, ts []types.Type) [][]types.Value {
	t.Helper()
	rows, err := db.Query(query)
	require.NoError(t, err)
	defer rows.Close()
	var out [][]types.Value
	for rows.Next() {
		cells := make([]any, len(ts))
		ptrs := make([]any, len(ts))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		r := make([]types.Value, len(ts))
		for i, c := range cells {
			switch v := c.(type) {
			case nil:
				r[i] = types.Null
			case int64:
				if ts[i].IsTimestamp() {
					r[i] = types.NewTimestampMillis(v)
				} else {
					r[i] = types.NewInt(v)
				}
			case string:
				r[i] = types.NewString(v)
			default:
				t.Fatalf("column %d: unexpected %T", i, c)
			}
		}
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}
