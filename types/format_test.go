package types

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// valueFromText builds a scalar value of type t from test text: NULL,
// TRUE/FALSE, numbers, decimals, strings as is, hex for binary strings,
// date/time literals, Go durations for day-time intervals and month counts
// for year-month intervals.
func valueFromText(t Type, s string) (Value, error) {
	if s == "NULL" {
		return Null, nil
	}
	switch t.ID {
	case TypeBoolean:
		b, err := strconv.ParseBool(s)
		return NewBool(b), err
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeIntervalYearMonth:
		n, err := strconv.ParseInt(s, 10, 64)
		if t.ID == TypeIntervalYearMonth {
			return NewIntervalMonths(n), err
		}
		return NewInt(n), err
	case TypeFloat, TypeDouble:
		f, err := strconv.ParseFloat(s, 64)
		if t.ID == TypeFloat {
			f = float64(float32(f))
		}
		return NewFloat(f), err
	case TypeDecimal:
		d, err := ParseDecimal(s)
		return NewDecimal(d), err
	case TypeChar, TypeVarChar:
		return NewString(s), nil
	case TypeBinary, TypeVarBinary:
		b, err := hex.DecodeString(s)
		return NewBytes(b), err
	case TypeDate:
		return ParseDate(s)
	case TypeTime:
		return ParseTime(s)
	case TypeTimestamp, TypeTimestampLTZ:
		return ParseTimestamp(s)
	case TypeIntervalDayTime:
		d, err := time.ParseDuration(s)
		return NewInterval(d), err
	}
	return Null, fmt.Errorf("no test syntax for values of type %s", t)
}

// TestFormat runs testdata/format.txt. Each input line of a "format" or
// "format-sql" directive is "TYPE | value"; the output line is Format or
// FormatSQL of the value.
func TestFormat(t *testing.T) {
	datadriven.RunTest(t, "testdata/format.txt", func(t *testing.T, d *datadriven.TestData) string {
		var out strings.Builder
		for _, line := range strings.Split(d.Input, "\n") {
			ts, vs, ok := strings.Cut(line, "|")
			if !ok {
				d.Fatalf(t, "line %q is not TYPE | value", line)
			}
			vs = strings.TrimPrefix(vs, " ")
			typ, err := ParseType(ts)
			require.NoError(t, err)
			v, err := valueFromText(typ, vs)
			require.NoError(t, err, "value %q of type %s", vs, typ)
			switch d.Cmd {
			case "format":
				out.WriteString(Format(v, typ))
			case "format-sql":
				out.WriteString(FormatSQL(v, typ))
			default:
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			out.WriteByte('\n')
		}
		return out.String()
	})
}

func TestFormatJavaDouble(t *testing.T) {
	tenth, fifth := 0.1, 0.2
	point3 := tenth + fifth
	tests := []struct {
		f    float64
		want string
	}{
		{120, "120.0"},
		{95.5, "95.5"},
		{1e-5, "1.0E-5"},
		{1e20, "1.0E20"},
		{1e7, "1.0E7"},
		{9999999, "9999999.0"},
		{0.001, "0.001"},
		{0.0001, "1.0E-4"},
		{123456789, "1.23456789E8"},
		{-1.5e-7, "-1.5E-7"},
		{point3, "0.30000000000000004"},
		{100, "100.0"},
		{1234567.125, "1234567.125"},
		{math.MaxFloat64, "1.7976931348623157E308"},
		{math.SmallestNonzeroFloat64, "4.9E-324"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Format(NewFloat(tt.f), Double), "%g", tt.f)
	}
	floats := []struct {
		f    float32
		want string
	}{
		{1.1, "1.1"},
		{0.1, "0.1"},
		{1e10, "1.0E10"},
		{3.4028235e38, "3.4028235E38"},
		{1.4e-45, "1.4E-45"},
		{16777216, "1.6777216E7"},
	}
	for _, tt := range floats {
		require.Equal(t, tt.want, Format(NewFloat(float64(tt.f)), Float), "%g", tt.f)
	}
}

func TestFormatComposite(t *testing.T) {
	rowType := MustParseType("ROW<id INT, name STRING, price DECIMAL(10, 2), tags ARRAY<STRING>>")
	row := NewRow([]Value{
		NewInt(1), NewString("it's"), NewDecimal(mustDecimal(t, "9.5")),
		NewArray([]Value{NewString("a"), Null}),
	})
	mapType := MapOf(String, Double)
	m := NewMap([]MapEntry{{NewString("a"), NewFloat(1)}, {NewString("b"), Null}})
	tests := []struct {
		v         Value
		t         Type
		want, sql string
	}{
		{NewArray([]Value{NewInt(1), NewInt(2)}), ArrayOf(Int), "[1, 2]", "ARRAY[1, 2]"},
		{NewArray(nil), ArrayOf(Int), "[]", "CAST(ARRAY[] AS ARRAY<INT>)"},
		{NewArray([]Value{NewInt(1), Null}), ArrayOf(BigInt), "[1, NULL]", "ARRAY[CAST(1 AS BIGINT), CAST(NULL AS BIGINT)]"},
		{m, mapType, "{a=1.0, b=NULL}", "MAP['a', 1.0E0, 'b', CAST(NULL AS DOUBLE)]"},
		{NewMap(nil), mapType, "{}", "CAST(MAP[] AS MAP<STRING, DOUBLE>)"},
		{row, rowType, "(1, it's, 9.50, [a, NULL])", "ROW(1, 'it''s', CAST(9.50 AS DECIMAL(10, 2)), ARRAY['a', CAST(NULL AS STRING)])"},
		{NewRow([]Value{NewInt(1)}), NullType, "(1)", "ROW(1)"},
		{Null, rowType, "<NULL>", "CAST(NULL AS ROW<`id` INT, `name` STRING, `price` DECIMAL(10, 2), `tags` ARRAY<STRING>>)"},
		// Values formatted without a matching type use their kind.
		{NewTimestamp(1_500_000), NullType, "1970-01-01 00:00:00.001500", "TIMESTAMP '1970-01-01 00:00:00.001500'"},
		{NewDecimal(mustDecimal(t, "1.50")), NullType, "1.50", "1.50"},
		{NewInt(1 << 40), NullType, "1099511627776", "1099511627776"},
		{NewFloat(2.5), NullType, "2.5", "2.5E0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, Format(tt.v, tt.t))
			require.Equal(t, tt.sql, FormatSQL(tt.v, tt.t))
		})
	}
}

func TestAppendFormatAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	vals := []struct {
		v Value
		t Type
	}{
		{NewInt(42), Int},
		{NewFloat(95.5), Double},
		{NewTimestampMillis(1785574800123), Timestamp(3)},
		{NewString("hello"), String},
		{NewDate(20666), Date},
	}
	for _, tt := range vals {
		allocs := testing.AllocsPerRun(100, func() { buf = AppendFormat(buf[:0], tt.v, tt.t) })
		require.Zero(t, allocs, "AppendFormat(%s) allocates", tt.t)
	}
}

// TestFormatParsesBack checks that the date and time text Format and
// FormatSQL write is read back by ParseDate, ParseTime, ParseTimestamp and
// ParseDecimal as the same value.
func TestFormatParsesBack(t *testing.T) {
	parse := map[TypeID]func(string) (Value, error){
		TypeDate:      ParseDate,
		TypeTime:      ParseTime,
		TypeTimestamp: ParseTimestamp,
		TypeDecimal: func(s string) (Value, error) {
			d, err := ParseDecimal(s)
			return NewDecimal(d), err
		},
	}
	tests := []struct {
		v Value
		t Type
	}{
		{NewDate(20666), Date},
		{NewDate(-719162), Date},
		{NewTime(0), Time(0)},
		{NewTime(86399999999999), Time(9)},
		{NewTimestamp(math.MinInt64), Timestamp(9)},
		{NewTimestamp(math.MaxInt64), Timestamp(9)},
		{NewTimestampMillis(-1), Timestamp(3)},
		{NewTimestampMillis(1785574800123), Timestamp(3)},
		{dec(t, "-1.0850"), Decimal(10, 4)},
		{dec(t, "12345678901234567890.123456789012345678"), Decimal(38, 18)},
	}
	for _, tt := range tests {
		s := Format(tt.v, tt.t)
		got, err := parse[tt.t.ID](s)
		require.NoError(t, err, s)
		require.True(t, Equal(tt.v, got), "%s parsed as %s", s, Format(got, tt.t))

		sql := FormatSQL(tt.v, tt.t)
		require.Contains(t, sql, s)
	}
}
