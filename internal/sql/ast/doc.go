// Package ast defines the syntax tree of Eddy's SQL dialect (the Apache
// Flink SQL dialect) as produced by package parser, and prints it back to
// canonical SQL.
//
// # Node families
//
// Every node implements Node and reports the position of its first
// character with Pos. Nodes fall into four closed families, each marked by
// an unexported method:
//
//   - Statement: DDL (CreateTable, CreateFunction, ...), DML (Insert),
//     session statements (Set, Use..., Show, ...) and queries.
//   - Query: a Statement that returns rows: *Select, *Values, *SetOp.
//   - TableExpr: a FROM source: *TableName, *Subquery, *TableFunc, *Join.
//   - Expr: scalar expressions. Three Expr types, *TableArg, *Descriptor
//     and *Default, only ever appear as the Value of a table-function
//     argument (Arg).
//
// Helper nodes (Ident, ObjectName, ColumnDef, SelectItem, Arg, ...) are
// plain Nodes.
//
// # Positions
//
// Positions are 1-based line:column pairs (sqlerr.Pos) in the parsed text;
// columns count characters, not bytes. Binary-style nodes start at their
// left operand and carry the operator position separately (OpPos, ...), so
// errors can point at either.
//
// # Names
//
// Identifiers keep their case as written, quoted or not (Flink identifiers
// are case-sensitive); Ident.Name holds the unquoted text. Keywords are
// case-insensitive.
//
// # Printing and walking
//
// Format prints any node as canonical, single-line SQL: keywords in upper
// case, identifiers backticked only when needed (QuoteIdent), the minimum
// of parentheses, and optional noise words dropped (EXPLAIN PLAN FOR prints
// as EXPLAIN). Parsing the output of Format yields a tree that formats to
// the same text. Walk and Inspect traverse a tree in source order.
package ast
