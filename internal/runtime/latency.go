package runtime

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// latencySubBuckets is the number of buckets per power of two: latencies
// are recorded within 1/16 (about 6%).
const latencySubBuckets = 16

// latencyHist is a log-linear histogram of latencies in nanoseconds,
// safe for concurrent use: values below 16 ns have a bucket each; above,
// each power of two is split in 16.
type latencyHist struct {
	buckets [latencySubBuckets * 60]atomic.Int64
}

func latencyBucket(ns int64) int {
	if ns < latencySubBuckets {
		return int(max(ns, 0))
	}
	shift := bits.Len64(uint64(ns)) - 5 // ns>>shift is in [16, 32)
	return latencySubBuckets*(shift+1) + int(ns>>shift) - latencySubBuckets
}

// bucketTop is the largest latency of bucket i.
func bucketTop(i int) int64 {
	if i < latencySubBuckets {
		return int64(i)
	}
	shift := i/latencySubBuckets - 1
	sub := int64(i % latencySubBuckets)
	return (latencySubBuckets+sub+1)<<shift - 1
}

// add records n samples of latency ns.
func (h *latencyHist) add(ns, n int64) { h.buckets[latencyBucket(ns)].Add(n) }

// quantile returns the q-quantile (0 < q <= 1) of the samples (the top of
// its bucket) and the number of samples; zero without samples.
func (h *latencyHist) quantile(q float64) (time.Duration, int64) {
	var counts [len(latencyHist{}.buckets)]int64
	var total int64
	for i := range h.buckets {
		counts[i] = h.buckets[i].Load()
		total += counts[i]
	}
	if total == 0 {
		return 0, 0
	}
	rank := int64(q*float64(total) + 0.5)
	rank = min(max(rank, 1), total)
	var seen int64
	for i, c := range counts {
		seen += c
		if seen >= rank {
			return time.Duration(bucketTop(i)), total
		}
	}
	return time.Duration(bucketTop(len(counts) - 1)), total
}
