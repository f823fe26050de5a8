package logstore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMurmur2KafkaVectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int32
	}{
		// Kafka clients UtilsTest.testMurmur2.
		{"21", -973932308},
		{"foobar", -790332482},
		{"a-little-bit-long-string", -985981536},
		{"a-little-bit-longer-string", -1486304829},
		{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
		{"abc", 479470107},
		// Akka's Murmur2Spec, checked against Kafka's implementation.
		{"1", -1993445489},
		{"12", 126087238},
		{"123", -267702483},
		{"1234", -1614185708},
		{"12345", -1188365604},
	} {
		require.Equal(t, tc.want, Murmur2([]byte(tc.in)), "murmur2(%q)", tc.in)
	}
}

func TestPartition(t *testing.T) {
	// toPositive(x) = x & 0x7fffffff; Kafka's partition is that modulo n.
	for _, tc := range []struct {
		key  string
		n    int
		want int
	}{
		{"21", 1, 0},
		// toPositive(-973932308) = 1173551340.
		{"21", 3, 1173551340 % 3},
		{"21", 6, 1173551340 % 6},
		// toPositive(-790332482) = 1357151166.
		{"foobar", 4, 1357151166 % 4},
		{"foobar", 7, 1357151166 % 7},
		{"abc", 10, 479470107 % 10},
	} {
		require.Equal(t, tc.want, Partition([]byte(tc.key), tc.n), "partition(%q, %d)", tc.key, tc.n)
	}
	require.Equal(t, 0, Partition(nil, 1))
	require.Panics(t, func() { Partition([]byte("x"), 0) })
}
