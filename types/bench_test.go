package types

import "testing"

// benchRow is a typical three-column row: INT, STRING, TIMESTAMP(3).
var benchRow = Row{Kind: Insert, Values: []Value{
	NewInt(42), NewString("user-1234"), NewTimestampMillis(1785574800123),
}}

func BenchmarkAppendRow(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendRow(buf[:0], benchRow)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDecodeRowInto(b *testing.B) {
	enc := AppendRow(nil, benchRow)
	var r Row
	b.ReportAllocs()
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if err := DecodeRowInto(enc, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRowIntoScalars decodes a row without strings, the
// zero-allocation case.
func BenchmarkDecodeRowIntoScalars(b *testing.B) {
	enc := AppendRow(nil, Row{Values: []Value{NewInt(42), NewInt(7), NewTimestampMillis(1785574800123)}})
	var r Row
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeRowInto(enc, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKeyBytes(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.Run("INT", func(b *testing.B) {
		vals, ts := benchRow.Values[:1], []Type{Int}
		b.ReportAllocs()
		for b.Loop() {
			buf = KeyBytes(buf[:0], vals, ts)
		}
	})
	b.Run("STRING", func(b *testing.B) {
		vals, ts := benchRow.Values[1:2], []Type{String}
		b.ReportAllocs()
		for b.Loop() {
			buf = KeyBytes(buf[:0], vals, ts)
		}
	})
	b.Run("INT,STRING,TIMESTAMP", func(b *testing.B) {
		ts := []Type{Int, String, Timestamp(3)}
		b.ReportAllocs()
		for b.Loop() {
			buf = KeyBytes(buf[:0], benchRow.Values, ts)
		}
	})
}

func BenchmarkHash64(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Hash64(benchRow.Values)
	}
}

func BenchmarkCompareRows(b *testing.B) {
	other := Row{Kind: Insert, Values: []Value{NewInt(42), NewString("user-1234"), NewTimestampMillis(1785574800124)}}
	b.ReportAllocs()
	for b.Loop() {
		_ = CompareRows(benchRow, other)
	}
}

func BenchmarkParseType(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseType("ROW<`id` BIGINT NOT NULL, `status` STRING, `ts` TIMESTAMP_LTZ(3)>"); err != nil {
			b.Fatal(err)
		}
	}
}
