package ilink

import "ilinkdash/ilink/wire"

// Client-side partitioning (ilink-spec §3.5): keyed records go to
// toPositive(murmur2(key)) % n, exactly as Kafka's default partitioner, so
// Python, Java and Go producers agree; unkeyed records are uniform-sticky.

// KeyPartition returns the partition of a keyed record among n partitions.
func KeyPartition(key []byte, n int) int { return wire.KeyPartition(key, n) }

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
