package wire

// KeyPartition is Kafka's default partitioner: toPositive(murmur2(key)) % n.
// It is part of the protocol, not only of the producer: the engine places
// a group in SYSTEM.GROUPS partition KeyPartition(group, n), and producers
// in any language must agree on where a key goes (spec P-17).
func KeyPartition(key []byte, n int) int {
	return int(uint32(Murmur2(key))&0x7fffffff) % n
}

// Murmur2 is Kafka's 32-bit murmur2 with seed 0x9747b28c.
func Murmur2(data []byte) int32 {
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
