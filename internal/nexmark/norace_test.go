//go:build !race

package nexmark

// testEvents is the number of events TestQueries runs each query over.
const testEvents = 100_000
