package ilink

// Client-side partitioning (ilink-spec §3.5): keyed records go to
// toPositive(murmur2(key)) % n, exactly as Kafka's default partitioner, so
// Python, Java and Go producers agree; unkeyed records are uniform-sticky.

// murmur2 is Kafka's 32-bit murmur2 with seed 0x9747b28c.
func murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	n := len(data)
	h := seed ^ uint32(n)
	i := 0
	for ; n-i >= 4; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch n - i {
	case 3:
		h ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// KeyPartition returns the partition of a keyed record among n partitions.
func KeyPartition(key []byte, n int) int {
	return int(uint32(murmur2(key))&0x7fffffff) % n
}

// stickyPartitioner implements Kafka 3.3+'s uniform sticky partitioning for
// records without a key: stay on one partition until about batchSize bytes
// went to it, then move to the next. Not safe for concurrent use; the
// producer calls it under its own lock.
type stickyPartitioner struct {
	batchSize int
	current   int
	filled    int
	started   bool
}

// next returns the partition for a record of size bytes among n partitions.
func (s *stickyPartitioner) next(size, n int, rnd func(int) int) int {
	if !s.started || s.current >= n {
		s.current = rnd(n)
		s.started = true
		s.filled = 0
	}
	if s.filled >= s.batchSize {
		s.current = (s.current + 1) % n
		s.filled = 0
	}
	s.filled += size
	return s.current
}
