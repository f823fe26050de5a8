// Package nexmark is the 'nexmark' connector: a table whose rows are the
// events of the Nexmark benchmark, generated exactly as Flink's Nexmark
// source (github.com/nexmark/nexmark, nexmark-flink) generates them: the
// same fields, id sequences, 1 : 3 : 46 person : auction : bid
// proportions, event times, hot auctions, bidders and sellers, string and
// price generators, and Java's java.util.SplittableRandom reimplemented
// bit for bit.
//
// Unlike Flink's, the events are deterministic: event i draws its random
// values from a SplittableRandom seeded with its event id, and the static
// tables (channel URLs, the padding string) from fixed seeds, so event i
// is a pure function of the options and i and a reader can resume at any
// event. The table has Flink's one-table shape (event_type INT and one
// ROW column per event type, see Schema); the person, auction and bid
// views are defined in SQL over it.
//
// The package knows nothing about SQL parsing or the runtime: the planner
// validates a table's options with NewTable and hands the Table (a
// jobgraph.Generator) to the runtime's source task.
package nexmark
