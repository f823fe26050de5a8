// Package blackhole is the 'blackhole' connector, a sink that discards
// every row (for benchmarks and for running a query only for its side
// effects), as Flink's BlackHole connector.
package blackhole
