//go:build race

package nexmark

// testEvents is smaller under the race detector, which makes the engine
// about ten times slower.
const testEvents = 20_000
