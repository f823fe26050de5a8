package logstore

import "encoding/binary"

// Partition returns the partition of key among n partitions exactly as
// Kafka's default partitioner does for a non-null key:
// toPositive(murmur2(key)) % n. Keys therefore land in the partition Kafka
// would put them in. n must be positive.
func Partition(key []byte, n int) int {
	if n <= 0 {
		panic("logstore: Partition with n <= 0")
	}
	return int(uint32(Murmur2(key))&0x7fffffff) % n
}

// Murmur2 is Kafka's 32-bit murmur2 hash (org.apache.kafka.common.utils.
// Utils.murmur2), seed 0x9747b28c, returned as Java's signed int.
func Murmur2(data []byte) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	length := len(data)
	h := uint32(seed) ^ uint32(length)
	n4 := length / 4
	for i := range n4 {
		k := binary.LittleEndian.Uint32(data[i*4:])
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := data[n4*4:]
	switch len(tail) {
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}
