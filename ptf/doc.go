// Package ptf is the SDK for writing process table functions (PTFs) in Go.
//
// A PTF is a stateful, per-key function that Eddy calls from SQL:
//
//	SELECT * FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)
//
// A function is described by a Definition: its arguments (tables with
// traits such as SetSemantic or PassColumnsThrough, and typed scalars), its
// output type, its state entries, the changelog it produces, and the Eval
// and OnTimer callbacks. Definitions are plain values; nothing is discovered
// by reflection. They are registered under an id in a Registry, and SQL binds
// a name to an id with CREATE FUNCTION Name AS 'id'.
//
// State is declared with typed handles (NewValue, NewList, NewMap) and read
// through the Context of a call; the engine loads it before the call and
// writes it back after, with the semantics of Apache Flink 2.3 PTFs.
//
// Package ptf imports nothing internal to Eddy. Engines and test harnesses
// implement Host to drive a function; users never need to.
package ptf
