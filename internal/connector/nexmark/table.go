package nexmark

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// Schema returns the physical columns of a Nexmark table, as Flink's
// NexmarkTableSource declares them: event_type (0 person, 1 auction,
// 2 bid) and one ROW per event type, NULL unless the event is of that
// type.
func Schema() []types.Field {
	f := func(name string, t types.Type) types.Field { return types.Field{Name: name, Type: t} }
	ts := types.Timestamp(3)
	return []types.Field{
		f("event_type", types.Int),
		f("person", types.RowOf(
			f("id", types.BigInt), f("name", types.String), f("emailAddress", types.String),
			f("creditCard", types.String), f("city", types.String), f("state", types.String),
			f("dateTime", ts), f("extra", types.String))),
		f("auction", types.RowOf(
			f("id", types.BigInt), f("itemName", types.String), f("description", types.String),
			f("initialBid", types.BigInt), f("reserve", types.BigInt), f("dateTime", ts),
			f("expires", ts), f("seller", types.BigInt), f("category", types.BigInt), f("extra", types.String))),
		f("bid", types.RowOf(
			f("auction", types.BigInt), f("bidder", types.BigInt), f("price", types.BigInt),
			f("channel", types.String), f("url", types.String), f("dateTime", ts), f("extra", types.String))),
	}
}

// Table is the generator of a 'nexmark' table: row i is event i in the
// table's one-table shape. It implements jobgraph.Generator and is safe
// for concurrent use.
type Table struct {
	gen       *Generator
	createdAt int64
	snapCap   int64
}

// NewTable validates a 'nexmark' table (its options and physical
// columns, which must have the shape of Schema, by position and type)
// and returns its generator. Errors are *OptionError (Key "" for the
// columns).
func NewTable(table string, fields []types.Field, opts map[string]string) (*Table, error) {
	s, err := parseOptions(table, opts)
	if err != nil {
		return nil, err
	}
	if err := checkColumns(table, fields); err != nil {
		return nil, err
	}
	return &Table{gen: NewGenerator(s.cfg), createdAt: s.createdAt, snapCap: s.snapCap}, nil
}

// checkColumns checks the declared physical columns against Schema: the
// same number of columns and ROW fields, with types of the same family
// (any string type for STRING, TIMESTAMP or TIMESTAMP_LTZ of any
// precision for TIMESTAMP(3)). Names may differ, as in Flink, which maps
// the generated rows by position.
func checkColumns(table string, fields []types.Field) error {
	want := Schema()
	const hint = "declare the columns of Flink's Nexmark DDL (examples/nexmark/ddl_gen.sql)"
	if len(fields) != len(want) {
		return optErr("", hint, "A 'nexmark' table has %d physical columns (%s), but '%s' declares %d", len(want), fieldNames(want), table, len(fields))
	}
	for i, f := range fields {
		if path, got, exp, ok := mismatch(f.Name, f.Type, want[i].Type); !ok {
			return optErr("", hint, "%s of '%s' is %s, but the nexmark connector generates %s there", path, table, got, exp)
		}
		if i > 0 && f.Type.NotNull {
			return optErr("", "remove NOT NULL", "Column '%s' of '%s' is NULL for every event that is not a %s, so it cannot be NOT NULL", f.Name, table, want[i].Name)
		}
	}
	return nil
}

// mismatch compares a declared type with the generated one and describes
// the first difference: where (column 'x' or field 'x.y'), what is
// declared and what is generated.
func mismatch(path string, got, want types.Type) (where, declared, generated string, ok bool) {
	where = "Column '" + path + "'"
	if strings.Contains(path, ".") {
		where = "Field '" + path + "'"
	}
	switch {
	case want.ID == types.TypeRow:
		if got.ID != types.TypeRow {
			return where, got.String(), "a ROW of " + fieldNames(want.Fields), false
		}
		if len(got.Fields) != len(want.Fields) {
			n := fmt.Sprintf("a ROW of %d fields", len(got.Fields))
			if len(got.Fields) == 1 {
				n = "a ROW of 1 field"
			}
			return where, n, fmt.Sprintf("%d (%s)", len(want.Fields), fieldNames(want.Fields)), false
		}
		for i := range got.Fields {
			if w, d, g, ok := mismatch(path+"."+got.Fields[i].Name, got.Fields[i].Type, want.Fields[i].Type); !ok {
				return w, d, g, false
			}
		}
		return "", "", "", true
	case want.IsString():
		ok = got.IsString()
	case want.IsTimestamp():
		ok = got.IsTimestamp()
	default:
		ok = got.ID == want.ID
	}
	return where, got.String(), want.String(), ok
}

func fieldNames(fs []types.Field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Name
	}
	return strings.Join(parts, ", ")
}

// Generator returns the event generator.
func (t *Table) Generator() *Generator { return t.gen }

// End returns the number of events of a bounded table, or -1.
func (t *Table) End() int64 { return t.gen.Events() }

// RowsPerSecond is the pace of a continuous read: first-event.rate with
// 'max-emit-speed' = 'false' (events are emitted when their time comes, as
// Flink's source sleeps until then), else as fast as the job reads.
func (t *Table) RowsPerSecond() int64 {
	if t.gen.cfg.MaxEmitSpeed {
		return maxEmitRate
	}
	return int64(t.gen.cfg.FirstEventRate)
}

// SnapshotRows returns how many events a snapshot started at now reads:
// all of a bounded table; of an unbounded one the events whose time has
// come (first-event.rate × the time since created-at), at most
// 'eddy.snapshot.max-rows'.
func (t *Table) SnapshotRows(now time.Time) int64 {
	if n := t.End(); n >= 0 {
		return n
	}
	elapsed := now.UnixNano() - t.createdAt
	if elapsed <= 0 {
		return 0
	}
	rate := uint64(t.gen.cfg.FirstEventRate)
	secs, rem := uint64(elapsed/1e9), uint64(elapsed%1e9)
	hi, n := bits.Mul64(secs, rate)
	n2 := rem * rate / 1e9
	if hi != 0 || n > math.MaxInt64-n2 || int64(n+n2) > t.snapCap {
		return t.snapCap
	}
	return int64(n + n2)
}

// Row appends the physical values of event i to dst: event_type, then
// the person, auction and bid ROWs (two of them NULL).
func (t *Table) Row(i int64, dst []types.Value) []types.Value {
	var e Event
	t.gen.Event(i, &e)
	return AppendRow(&e, dst)
}

// AppendRow appends e in the table's shape to dst.
func AppendRow(e *Event, dst []types.Value) []types.Value {
	dst = append(dst, types.NewInt(int64(e.Type)))
	switch e.Type {
	case PersonEvent:
		p := &e.Person
		dst = append(dst, types.NewRow([]types.Value{
			types.NewInt(p.ID), types.NewString(p.Name), types.NewString(p.EmailAddress),
			types.NewString(p.CreditCard), types.NewString(p.City), types.NewString(p.State),
			types.NewTimestampMillis(p.DateTime), types.NewString(p.Extra),
		}), types.Null, types.Null)
	case AuctionEvent:
		a := &e.Auction
		dst = append(dst, types.Null, types.NewRow([]types.Value{
			types.NewInt(a.ID), types.NewString(a.ItemName), types.NewString(a.Description),
			types.NewInt(a.InitialBid), types.NewInt(a.Reserve), types.NewTimestampMillis(a.DateTime),
			types.NewTimestampMillis(a.Expires), types.NewInt(a.Seller), types.NewInt(a.Category),
			types.NewString(a.Extra),
		}), types.Null)
	default:
		b := &e.Bid
		dst = append(dst, types.Null, types.Null, types.NewRow([]types.Value{
			types.NewInt(b.Auction), types.NewInt(b.Bidder), types.NewInt(b.Price),
			types.NewString(b.Channel), types.NewString(b.URL), types.NewTimestampMillis(b.DateTime),
			types.NewString(b.Extra),
		}))
	}
	return dst
}
