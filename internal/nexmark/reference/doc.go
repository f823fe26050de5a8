// Package reference computes the results of the Nexmark queries q0 … q22
// with plain Go over the generated events: loops, maps and sorts written
// from the queries' SQL text (examples/nexmark) and Flink's semantics,
// without any of the engine. Tests run each query through Eddy and compare
// its final result with Compute's.
//
// Every query reads the events in generation order. Event times increase
// with the event number, so no event is late for the 4 s watermark delay
// and every window is complete when the input ends; the results are the
// final (materialized) tables, so they do not depend on how an engine
// plans a query (window operators or regular aggregates and joins).
package reference
