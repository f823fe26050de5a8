package engine_test

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// kafkaMurmur2 is org.apache.kafka.common.utils.Utils.murmur2, written
// here independently of package logstore.
func kafkaMurmur2(data []byte) int32 {
	const m, r = 0x5bd1e995, 24
	h := uint32(0x9747b28c) ^ uint32(len(data))
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		k *= m
		k ^= k >> r
		k *= m
		h = h*m ^ k
	}
	switch rest := data[n:]; len(rest) {
	case 3:
		h ^= uint32(rest[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(rest[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(rest[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// kafkaPartition is Kafka's default partitioner for a keyed record.
func kafkaPartition(key []byte, n int) int {
	return int(kafkaMurmur2(key)&0x7fffffff) % n
}

func TestKafkaMurmur2(t *testing.T) {
	// The cases of Kafka's UtilsTest.testMurmur2.
	for in, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		require.Equal(t, want, kafkaMurmur2([]byte(in)), in)
	}
}

// TestKafkaPartitions checks that DISTRIBUTED BY places every row in the
// partition Kafka's default partitioner picks for its key, serialized as
// Kafka's StringSerializer (UTF-8), IntegerSerializer and LongSerializer
// (big-endian) do, and that a SELECT reads every partition.
func TestKafkaPartitions(t *testing.T) {
	for _, tc := range []struct {
		typ string
		key func(s string) []byte
	}{
		{"STRING", func(s string) []byte { return []byte(s) }},
		{"INT", func(s string) []byte {
			n, err := strconv.ParseInt(s, 10, 32)
			require.NoError(t, err)
			return binary.BigEndian.AppendUint32(nil, uint32(n))
		}},
		{"BIGINT", func(s string) []byte {
			n, err := strconv.ParseInt(s, 10, 64)
			require.NoError(t, err)
			return binary.BigEndian.AppendUint64(nil, uint64(n))
		}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			h := newHarness(t, true)
			const buckets, rows = 6, 200
			mustExec(t, h, fmt.Sprintf("CREATE TABLE t (k %s, `partition` INT METADATA VIRTUAL) DISTRIBUTED BY (k) INTO %d BUCKETS", tc.typ, buckets))
			var vals []string
			for i := range rows {
				v := strconv.Itoa(i*7919 - 100000)
				if tc.typ == "STRING" {
					v = "'user-" + v + "'"
				}
				vals = append(vals, "("+v+")")
			}
			mustExec(t, h, "INSERT INTO t VALUES "+strings.Join(vals, ", "))

			got := selectAll(t, h, "SELECT k, `partition` FROM t")
			require.Len(t, got, rows, "a SELECT reads every partition")
			used := map[string]bool{}
			for _, r := range got {
				require.Equal(t, strconv.Itoa(kafkaPartition(tc.key(r[0]), buckets)), r[1], "key %s", r[0])
				used[r[1]] = true
			}
			require.Len(t, used, buckets, "the keys spread over all partitions")
		})
	}
}

func mustExec(t *testing.T, h *harness, sql string) {
	t.Helper()
	res, err := h.execute(t, cli.Statement{Text: sql})
	require.NoError(t, err, sql)
	closeResult(res)
}

// selectAll runs a query and returns its rows formatted, in arrival order.
func selectAll(t *testing.T, h *harness, sql string) [][]string {
	t.Helper()
	res, err := h.execute(t, cli.Statement{Text: sql})
	require.NoError(t, err, sql)
	require.NotNil(t, res.Rows, sql)
	defer closeStream(res.Rows)
	var out [][]string
	for {
		r, ok, err := res.Rows.Next(t.Context())
		require.NoError(t, err)
		if !ok {
			return out
		}
		require.Equal(t, types.Insert, r.Kind)
		out = append(out, formatCells(res.Rows.Schema, r.Values))
	}
}
