package wire

import "math/bits"

// Zigzag varints used inside record batches (docs/PROTOCOL.md, "Record
// batches"). A signed value is zigzag-mapped to an unsigned one, so small
// magnitudes of either sign stay short, and written as LEB128: 7 bits per
// byte, least significant group first, high bit set on every byte but the
// last. Decoders accept at most 5 bytes for a 32-bit varint and 10 bytes for a
// 64-bit varlong, and refuse bits beyond the value's width.
//
// The helpers are named varint* so they do not clash with the message-body
// codec in codec.go, which uses plain unsigned varints of its own.

// varintZig32 maps a signed 32-bit value onto an unsigned one.
func varintZig32(v int32) uint32 { return uint32(v<<1) ^ uint32(v>>31) }

// varintZig64 maps a signed 64-bit value onto an unsigned one.
func varintZig64(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// varintUnzig32 is the inverse of varintZig32.
func varintUnzig32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }

// varintUnzig64 is the inverse of varintZig64.
func varintUnzig64(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// varintSize32 is the encoded size of v as a zigzag varint (1..5 bytes).
func varintSize32(v int32) int {
	u := varintZig32(v)
	if u < 1<<7 {
		return 1 // the common case: small deltas and lengths
	}
	return (bits.Len32(u) + 6) / 7
}

// varintSize64 is the encoded size of v as a zigzag varlong (1..10 bytes).
func varintSize64(v int64) int { return (bits.Len64(varintZig64(v)|1) + 6) / 7 }

// varintSizeLen is the encoded size of a length field holding n, or -1 when
// nilValue is set.
func varintSizeLen(n int, nilValue bool) int {
	if nilValue {
		return 1
	}
	return varintSize32(int32(n))
}

// varintPutU writes u as LEB128 at the start of dst and returns the number of
// bytes written. dst must have room (10 bytes at most).
func varintPutU(dst []byte, u uint64) int {
	i := 0
	for u >= 0x80 {
		dst[i] = byte(u) | 0x80
		u >>= 7
		i++
	}
	dst[i] = byte(u)
	return i + 1
}

// varintPut32 writes v as a zigzag varint at the start of dst.
func varintPut32(dst []byte, v int32) int {
	u := varintZig32(v)
	if u < 0x80 {
		dst[0] = byte(u)
		return 1
	}
	return varintPutU(dst, uint64(u))
}

// varintPut64 writes v as a zigzag varlong at the start of dst.
func varintPut64(dst []byte, v int64) int {
	u := varintZig64(v)
	if u < 0x80 {
		dst[0] = byte(u)
		return 1
	}
	return varintPutU(dst, u)
}

// varintAppend32 appends v as a zigzag varint.
func varintAppend32(dst []byte, v int32) []byte {
	var tmp [5]byte
	n := varintPut32(tmp[:], v)
	return append(dst, tmp[:n]...)
}

// varintAppend64 appends v as a zigzag varlong.
func varintAppend64(dst []byte, v int64) []byte {
	var tmp [10]byte
	n := varintPut64(tmp[:], v)
	return append(dst, tmp[:n]...)
}

// varintRead32 decodes a zigzag varint from the start of b. It returns the
// value and the number of bytes read; n == 0 means b ended inside the varint,
// n < 0 means the varint is longer than 5 bytes or overflows 32 bits.
func varintRead32(b []byte) (v int32, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return varintUnzig32(uint32(b[0])), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		// Two bytes: a record's length, a 100-byte value's length and
		// offsetDeltas up to 8191 (most records of a batch).
		return varintUnzig32(uint32(b[0]&0x7f) | uint32(b[1])<<7), 2
	}
	// The 5th byte carries bits 28..31: more is more than 32 bits, or a
	// 6th byte follows.
	u, n := uvarintRead(b, 5, 0x0f)
	return varintUnzig32(uint32(u)), n
}

// varintRead64 decodes a zigzag varlong from the start of b, with the same
// conventions as varintRead32 and a 10-byte limit.
func varintRead64(b []byte) (v int64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return varintUnzig64(uint64(b[0])), 1
	}
	// The 10th byte carries bit 63: more is more than 64 bits, or an
	// 11th byte follows.
	u, n := uvarintRead(b, 10, 0x01)
	return varintUnzig64(u), n
}

// uvarintRead decodes an unsigned LEB128 value of at most max bytes whose
// last byte may be at most last; n as for varintRead32 (u is 0 when n <= 0).
func uvarintRead(b []byte, max int, last byte) (u uint64, n int) {
	for i := 0; i < max; i++ {
		if i >= len(b) {
			return 0, 0
		}
		c := b[i]
		if i == max-1 && c > last {
			return 0, -1
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, i + 1
		}
	}
	return 0, -1 // unreachable: the last byte either ends or fails above
}
