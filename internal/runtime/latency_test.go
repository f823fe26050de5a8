package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLatencyBuckets(t *testing.T) {
	prev := -1
	for _, ns := range []int64{0, 1, 15, 16, 17, 31, 32, 33, 1000, 1 << 20, 1<<40 + 12345, 1<<62 + 1} {
		b := latencyBucket(ns)
		require.GreaterOrEqual(t, b, prev, "buckets grow with the latency (%d)", ns)
		prev = b
		top := bucketTop(b)
		require.GreaterOrEqual(t, top, ns, "%d is at most its bucket's top", ns)
		require.LessOrEqual(t, float64(top-ns), float64(ns)/16+1, "%d within 1/16", ns)
		require.Less(t, latencyBucket(top+1), len(latencyHist{}.buckets))
		require.Equal(t, b+1, latencyBucket(top+1), "the next value starts the next bucket")
	}
}

func TestLatencyQuantile(t *testing.T) {
	var h latencyHist
	d, n := h.quantile(0.99)
	require.Zero(t, d)
	require.Zero(t, n)
	h.add(int64(time.Millisecond), 98)
	h.add(int64(50*time.Millisecond), 2)
	d, n = h.quantile(0.5)
	require.Equal(t, int64(100), n)
	require.InDelta(t, float64(time.Millisecond), float64(d), float64(time.Millisecond)/16)
	d, _ = h.quantile(0.99)
	require.InDelta(t, float64(50*time.Millisecond), float64(d), float64(50*time.Millisecond)/16)
	d, _ = h.quantile(0.98)
	require.InDelta(t, float64(time.Millisecond), float64(d), float64(time.Millisecond)/16)
}
