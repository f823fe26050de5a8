// Package types holds Eddy's SQL data model: logical types (Type), values
// (Value), rows (Row) and change kinds (RowKind).
//
// It is public and imports nothing internal, so that PTF authors (package ptf)
// and the engine share one representation. Values are small structs designed
// to be passed by value on the hot path without allocation for scalar kinds.
//
// The package also provides the parser for type strings such as
// "ROW<status STRING>" or "DECIMAL(10, 4)" (ParseType, Type.String),
// Flink-SQL-client style printing and SQL literals (Format, FormatSQL),
// literal parsing (ParseTimestamp, ParseDate, ParseTime, ParseDecimal,
// RoundDecimal), total ordering and stable hashing (Compare, Equal,
// Hash64, KeyBytes) and a compact binary encoding for storage
// (AppendValue, DecodeValue, AppendRow, DecodeRow, DecodeRowInto).
package types
