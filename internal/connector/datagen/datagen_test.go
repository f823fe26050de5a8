package datagen

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func fields(spec ...any) []types.Field {
	var out []types.Field
	for i := 0; i < len(spec); i += 2 {
		out = append(out, types.Field{Name: spec[i].(string), Type: spec[i+1].(types.Type)})
	}
	return out
}

func opts(kv ...string) map[string]string {
	m := map[string]string{"connector": "datagen"}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func rows(t *testing.T, g *Generator, n int) [][]types.Value {
	t.Helper()
	out := make([][]types.Value, n)
	for i := range out {
		out[i] = g.Row(int64(i), nil)
	}
	return out
}

func TestOptionErrors(t *testing.T) {
	cols := fields("id", types.Int, "v", types.Double, "s", types.String, "c", types.Char(3),
		"ts", types.Timestamp(3), "b", types.Boolean, "n", types.Int.NonNull(), "a", types.ArrayOf(types.Int))
	noArray := cols[:len(cols)-1]
	for _, tc := range []struct {
		name string
		cols []types.Field
		opts map[string]string
		key  string
		msg  string
	}{
		{"unknown table option", noArray, opts("rows-per-secnd", "5"), "rows-per-secnd", "Unsupported option 'rows-per-secnd' for connector 'datagen'"},
		{"unknown column", noArray, opts("fields.idd.kind", "random"), "fields.idd.kind", "refers to column 'idd', which is not a physical column"},
		{"unknown column option", noArray, opts("fields.id.minimum", "1"), "fields.id.minimum", "Unknown option 'fields.id.minimum'"},
		{"bad kind", noArray, opts("fields.id.kind", "seq"), "fields.id.kind", "Invalid value 'seq' for option 'fields.id.kind'"},
		{"bad rows per second", noArray, opts("rows-per-second", "0"), "rows-per-second", "must be at least 1"},
		{"rows per second not a number", noArray, opts("rows-per-second", "fast"), "rows-per-second", "expected a whole number"},
		{"negative number of rows", noArray, opts("number-of-rows", "-1"), "number-of-rows", "must be at least 0"},
		{"min above max", noArray, opts("fields.id.min", "10", "fields.id.max", "5"), "fields.id.min", "is larger than"},
		{"min out of type range", noArray, opts("fields.id.min", "3000000000"), "fields.id.min", "from -2147483648 to 2147483647"},
		{"min on a string", noArray, opts("fields.s.min", "1"), "fields.s.min", "applies to numeric columns, but column 's' has type STRING"},
		{"start on a random column", noArray, opts("fields.id.start", "1"), "fields.id.start", "applies to sequence columns"},
		{"sequence without end", noArray, opts("fields.id.kind", "sequence", "fields.id.start", "1"), "fields.id.end", "Could not find required option 'fields.id.end'"},
		{"sequence with min", noArray, opts("fields.id.kind", "sequence", "fields.id.start", "1", "fields.id.end", "2", "fields.id.min", "1"), "fields.id.min", "applies to random columns"},
		{"sequence start after end", noArray, opts("fields.id.kind", "sequence", "fields.id.start", "5", "fields.id.end", "1"), "fields.id.start", "is larger than"},
		{"sequence out of range", fields("t", types.TinyInt), opts("fields.t.kind", "sequence", "fields.t.start", "1", "fields.t.end", "1000"), "fields.t.end", "does not fit its type TINYINT"},
		{"sequence of booleans", noArray, opts("fields.b.kind", "sequence", "fields.b.start", "1", "fields.b.end", "2"), "fields.b.kind", "cannot generate sequence values of type BOOLEAN"},
		{"length of a char", noArray, opts("fields.c.length", "2"), "fields.c.length", "fixed-length type (CHAR/BINARY)"},
		{"length too long", fields("s", types.VarChar(10)), opts("fields.s.length", "11"), "fields.s.length", "should not be longer than the 10"},
		{"var-len on an int", noArray, opts("fields.id.var-len", "true"), "fields.id.var-len", "applies to variable-length columns"},
		{"max-past on a string", noArray, opts("fields.s.max-past", "5 s"), "fields.s.max-past", "applies to TIMESTAMP"},
		{"bad max-past", noArray, opts("fields.ts.max-past", "5 parsecs"), "fields.ts.max-past", "unknown unit 'parsecs'"},
		{"null rate above 1", noArray, opts("fields.id.null-rate", "1.5"), "fields.id.null-rate", "from 0 to 1"},
		{"null rate of a NOT NULL column", noArray, opts("fields.n.null-rate", "0.5"), "fields.n.null-rate", "Column 'n' is NOT NULL"},
		{"array column", cols, opts(), "fields.a.kind", "cannot generate random values of type ARRAY<INT>"},
		{"bad created-at", noArray, opts("eddy.created-at", "yesterday"), "eddy.created-at", "not a timestamp"},
		{"unknown example", noArray, opts("eddy.example", "marketplace.nope"), "eddy.example", "Unknown example generator 'marketplace.nope'"},
		{"example without its columns", noArray, opts("eddy.example", "marketplace.clicks"), "eddy.example", "needs a column 'click_id' STRING"},
		{"wrong connector", noArray, map[string]string{"connector": "kafka"}, "connector", "not 'datagen'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New("t", tc.cols, tc.opts)
			require.Error(t, err)
			var oe *OptionError
			require.True(t, errors.As(err, &oe), "%T", err)
			require.Equal(t, tc.key, oe.Key)
			require.Contains(t, oe.Message, tc.msg)
		})
	}
}

func TestSuggestions(t *testing.T) {
	_, err := New("t", fields("id", types.Int), opts("number-of-row", "5"))
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "did you mean 'number-of-rows'?", oe.Hint)
	_, err = New("t", fields("user_id", types.Int), opts("fields.userid.min", "5"))
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "did you mean 'user_id'?", oe.Hint)
}

func TestOptionsAreDocumented(t *testing.T) {
	for _, o := range Options {
		require.NotEmpty(t, o.Key)
		require.NotEmpty(t, o.Type, o.Key)
		require.NotEmpty(t, o.Doc, o.Key)
	}
	for _, f := range fieldOptions {
		found := false
		for _, o := range Options {
			found = found || o.Key == "fields.#."+f
		}
		require.True(t, found, f)
	}
}

func TestDeterministic(t *testing.T) {
	cols := fields("id", types.BigInt, "v", types.Double, "s", types.String, "d", types.Decimal(10, 2),
		"b", types.Boolean, "ts", types.TimestampLTZ(3), "bin", types.Bytes, "day", types.Date, "tm", types.Time(0))
	o := opts("fields.ts.max-past", "1 h", "eddy.created-at", "2025-01-01T00:00:00Z")
	g1, err := New("t", cols, o)
	require.NoError(t, err)
	g2, err := New("t", cols, o)
	require.NoError(t, err)
	a, b := rows(t, g1, 200), rows(t, g2, 200)
	require.Equal(t, a, b)
	// Row i does not depend on what was generated before.
	require.Equal(t, a[150], g1.Row(150, nil))
	// Another table name gives other rows; another column keeps the
	// values of the others.
	g3, err := New("u", cols, o)
	require.NoError(t, err)
	require.NotEqual(t, a[0][0], g3.Row(0, nil)[0])
	g4, err := New("t", append(fields("extra", types.Int), cols...), o)
	require.NoError(t, err)
	require.Equal(t, a[7], g4.Row(7, nil)[1:])
	// Rows differ from each other.
	require.NotEqual(t, a[0][0], a[1][0])
}

func TestRandomRanges(t *testing.T) {
	cols := fields("i", types.Int, "t", types.TinyInt, "f", types.Double, "d", types.Decimal(5, 2),
		"s", types.String, "vs", types.VarChar(20), "c", types.Char(4), "ts", types.Timestamp(3), "day", types.Date)
	g, err := New("ranges", cols, opts(
		"fields.i.min", "-5", "fields.i.max", "5",
		"fields.f.min", "1.5", "fields.f.max", "2.5",
		"fields.d.min", "-1.25", "fields.d.max", "1.25",
		"fields.s.length", "7",
		"fields.vs.var-len", "true",
		"fields.ts.max-past", "10 s",
		"fields.day.max-past", "3 d",
		"rows-per-second", "4",
		"eddy.created-at", "2025-01-01T00:00:00Z",
	))
	require.NoError(t, err)
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	seenI := map[int64]bool{}
	lens := map[int]bool{}
	hex := regexp.MustCompile(`^[0-9a-f]+$`)
	for i := int64(0); i < 2000; i++ {
		r := g.Row(i, nil)
		require.Len(t, r, len(cols))
		iv := r[0].Int()
		require.True(t, iv >= -5 && iv <= 5, iv)
		seenI[iv] = true
		require.True(t, r[1].Int() >= math.MinInt8 && r[1].Int() <= math.MaxInt8)
		require.True(t, r[2].Float() >= 1.5 && r[2].Float() <= 2.5)
		dv, err := r[3].Decimal().Float64()
		require.NoError(t, err)
		require.True(t, dv >= -1.25 && dv <= 1.25, dv)
		require.Len(t, r[4].Str(), 7)
		require.Regexp(t, hex, r[4].Str())
		require.True(t, len(r[5].Str()) >= 1 && len(r[5].Str()) <= 20)
		lens[len(r[5].Str())] = true
		require.Len(t, r[6].Str(), 4)
		rowTime := created.Add(time.Duration(i) * 250 * time.Millisecond)
		ts := r[7].Time()
		require.False(t, ts.After(rowTime), "%v after %v", ts, rowTime)
		require.False(t, ts.Before(rowTime.Add(-10*time.Second)))
		require.Zero(t, ts.Nanosecond()%int(time.Millisecond), "TIMESTAMP(3) has millisecond precision")
		day := r[8].Int()
		rowDay := rowTime.Unix() / 86400
		require.True(t, day <= rowDay && day >= rowDay-3, "%d vs %d", day, rowDay)
	}
	require.Len(t, seenI, 11, "every value of a small range shows up")
	require.Greater(t, len(lens), 10, "var-len varies the length")
	require.Equal(t, int64(-1), g.End())
}

func TestSequence(t *testing.T) {
	g, err := New("g", fields("id", types.Int, "v", types.Double), opts(
		"number-of-rows", "5", "fields.id.kind", "sequence", "fields.id.start", "1", "fields.id.end", "5"))
	require.NoError(t, err)
	require.Equal(t, int64(5), g.End())
	for i := int64(0); i < 5; i++ {
		require.Equal(t, i+1, g.Row(i, nil)[0].Int())
	}
	// The shortest bound wins: a sequence ends the table before
	// number-of-rows, and the other way round.
	g, err = New("g", fields("id", types.BigInt, "s", types.String), opts(
		"number-of-rows", "100", "fields.id.kind", "sequence", "fields.id.start", "10", "fields.id.end", "19",
		"fields.s.kind", "sequence", "fields.s.start", "-3", "fields.s.end", "1000"))
	require.NoError(t, err)
	require.Equal(t, int64(10), g.End())
	require.Equal(t, "-3", g.Row(0, nil)[1].Str())
	require.Equal(t, "6", g.Row(9, nil)[1].Str())
	g, err = New("g", fields("id", types.Int), opts("number-of-rows", "3", "fields.id.kind", "sequence", "fields.id.start", "0", "fields.id.end", "100"))
	require.NoError(t, err)
	require.Equal(t, int64(3), g.End())
	// Decimal and float sequences.
	g, err = New("g", fields("d", types.Decimal(6, 2), "f", types.Float), opts(
		"fields.d.kind", "sequence", "fields.d.start", "7", "fields.d.end", "9",
		"fields.f.kind", "sequence", "fields.f.start", "7", "fields.f.end", "9"))
	require.NoError(t, err)
	r := g.Row(2, nil)
	require.Equal(t, "9.00", r[0].Decimal().Text('f'))
	require.Equal(t, 9.0, r[1].Float())
}

func TestNullRate(t *testing.T) {
	count := func(rate string) int {
		g, err := New("n", fields("a", types.Int, "b", types.Int), opts("fields.a.null-rate", rate))
		require.NoError(t, err)
		nulls := 0
		for i := int64(0); i < 10000; i++ {
			r := g.Row(i, nil)
			require.False(t, r[1].IsNull(), "other columns are not affected")
			if r[0].IsNull() {
				nulls++
			}
		}
		return nulls
	}
	require.Zero(t, count("0"))
	require.Equal(t, 10000, count("1"))
	n := count("0.25")
	require.InDelta(t, 2500, n, 200)
	// The non-NULL values are those of the table without a null rate.
	g0, err := New("n", fields("a", types.Int), opts())
	require.NoError(t, err)
	g1, err := New("n", fields("a", types.Int), opts("fields.a.null-rate", "0.5"))
	require.NoError(t, err)
	for i := int64(0); i < 100; i++ {
		if v := g1.Row(i, nil)[0]; !v.IsNull() {
			require.Equal(t, g0.Row(i, nil)[0], v)
		}
	}
}

func TestSnapshotRows(t *testing.T) {
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	g, err := New("s", fields("a", types.Int), opts("rows-per-second", "10", "eddy.created-at", created.Format(time.RFC3339Nano)))
	require.NoError(t, err)
	require.Equal(t, int64(0), g.SnapshotRows(created.Add(-time.Hour)))
	require.Equal(t, int64(0), g.SnapshotRows(created))
	require.Equal(t, int64(25), g.SnapshotRows(created.Add(2500*time.Millisecond)))
	require.Equal(t, int64(DefaultSnapshotRows), g.SnapshotRows(created.Add(1000*time.Hour)))
	require.Equal(t, created.Add(1500*time.Millisecond).UnixNano(), g.RowTime(15))
	g, err = New("s", fields("a", types.Int), opts("rows-per-second", "1000000000", "eddy.snapshot.max-rows", "7"))
	require.NoError(t, err)
	require.Equal(t, int64(7), g.SnapshotRows(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)))
	// A bounded table is read to its end.
	g, err = New("s", fields("a", types.Int), opts("number-of-rows", "12345"))
	require.NoError(t, err)
	require.Equal(t, int64(12345), g.SnapshotRows(time.Unix(0, 0)))
}

func TestExamples(t *testing.T) {
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	created, err := time.Parse(time.RFC3339, ExamplesCreatedAt)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, et := range Examples() {
		names[et.Name] = true
		require.Equal(t, ExamplesDatabase, et.Database)
		g, err := New(et.Name, et.Columns, et.Options)
		require.NoError(t, err, et.Name)
		require.Equal(t, int64(-1), g.End())
		require.Equal(t, int64(ExamplesRowsPerSecond), g.RowsPerSecond())
		idx := func(name string) int {
			for i, c := range et.Columns {
				if c.Name == name {
					return i
				}
			}
			t.Fatalf("%s has no column %s", et.Name, name)
			return -1
		}
		rt := idx(RowtimeColumn)
		prev := int64(math.MinInt64)
		for i := int64(0); i < 500; i++ {
			r := g.Row(i, nil)
			for c, v := range r {
				require.False(t, v.IsNull(), "%s.%s", et.Name, et.Columns[c].Name)
			}
			ts := r[rt].Int()
			require.Equal(t, created.Add(time.Duration(i)*20*time.Millisecond).UnixNano(), ts)
			require.Greater(t, ts, prev, "event times increase")
			prev = ts
			switch et.Name {
			case "clicks":
				require.Regexp(t, uuidRE, r[idx("click_id")].Str())
				u := r[idx("user_id")].Int()
				require.True(t, u >= 3000 && u <= 4999)
				vt := r[idx("view_time")].Int()
				require.True(t, vt >= 10 && vt <= 119)
				require.Regexp(t, `^https://www\.acme\.com/product/[a-z]{5}$`, r[idx("url")].Str())
				require.True(t, strings.HasPrefix(r[idx("user_agent")].Str(), "Mozilla/") || strings.HasPrefix(r[idx("user_agent")].Str(), "Opera/"))
			case "orders":
				require.Regexp(t, uuidRE, r[idx("order_id")].Str())
				c := r[idx("customer_id")].Int()
				require.True(t, c >= 3000 && c <= 3249)
				require.Regexp(t, `^1[0-4][0-9]{2}$`, r[idx("product_id")].Str())
				p := r[idx("price")].Float()
				require.True(t, p >= 10 && p <= 100)
				require.InDelta(t, math.Round(p*100)/100, p, 1e-9, "two decimals")
			case "customers":
				c := r[idx("customer_id")].Int()
				require.True(t, c >= 3000 && c <= 3249)
				require.Regexp(t, `^[a-z]+\.[a-z]+@`, r[idx("email")].Str())
				require.Regexp(t, `^[0-9]{5}$`, r[idx("postcode")].Str())
			case "products":
				require.Regexp(t, `^1[0-4][0-9]{2}$`, r[idx("product_id")].Str())
				require.GreaterOrEqual(t, len(strings.Fields(r[idx("name")].Str())), 3)
			}
		}
	}
	require.Equal(t, map[string]bool{"clicks": true, "customers": true, "orders": true, "products": true}, names)
}

func TestExampleColumnsTakeNoOptions(t *testing.T) {
	var clicks ExampleTable
	for _, et := range Examples() {
		if et.Name == "clicks" {
			clicks = et
		}
	}
	o := map[string]string{}
	for k, v := range clicks.Options {
		o[k] = v
	}
	o["fields.url.length"] = "5"
	_, err := New("clicks", clicks.Columns, o)
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "fields.url.length", oe.Key)
	require.Contains(t, oe.Message, "generated by the example generator 'marketplace.clicks'")
}

func BenchmarkRow(b *testing.B) {
	var clicks ExampleTable
	for _, et := range Examples() {
		if et.Name == "clicks" {
			clicks = et
		}
	}
	g, err := New("clicks", clicks.Columns, clicks.Options)
	require.NoError(b, err)
	dst := make([]types.Value, 0, len(clicks.Columns))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dst = g.Row(int64(i), dst[:0])
	}
}
