// Package catalog holds Eddy's catalog objects (catalogs, databases, tables
// and functions) and persists them in the data directory.
//
// Objects are stored as JSON under the catalog area of the store, so a data
// directory opened by `eddy sql` and later by `eddy server` sees the same
// tables. Names are case-sensitive, as in Flink, except function names,
// which Flink normalizes: a function is found in any letter case and keeps
// the spelling it was created with. The catalog starts with
// default_catalog.default_database.
package catalog
