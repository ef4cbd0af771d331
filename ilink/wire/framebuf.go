package wire

import (
	"math/bits"
	"sync"
)

// Large frame buffers (a produce request: up to the request cap) are
// recycled by power-of-two size class once written. A fresh megabyte per
// frame cost more than building the frame: the copy into it page-faulted
// new memory (a quarter of the producer's CPU in BenchmarkProducer100BNone).
const (
	frameClassMin = 17 // 128 KiB, the smallest class (log2)
	frameClassMax = 23 // 8 MiB, past the default frame cap
)

var framePools [frameClassMax - frameClassMin + 1]sync.Pool

// GetFrameBuf returns an empty buffer of at least n bytes' capacity: a
// recycled one of n's size class, or a new one of the class's size (n
// itself past the largest class).
func GetFrameBuf(n int) []byte {
	c := frameClass(n)
	if c < 0 {
		return make([]byte, 0, n)
	}
	if p, ok := framePools[c].Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, 1<<(c+frameClassMin))
}

// PutFrameBuf recycles b, which nothing may use any more. Only a buffer
// of exactly a class's size is kept (GetFrameBuf made it, or one like it),
// so every buffer of a class holds what the class promises.
func PutFrameBuf(b []byte) {
	if c := frameClass(cap(b)); c >= 0 && cap(b) == 1<<(c+frameClassMin) {
		b = b[:0]
		framePools[c].Put(&b)
	}
}

// frameClass is the smallest class holding n bytes, -1 past the largest.
func frameClass(n int) int {
	c := max(bits.Len(uint(max(n, 1)-1)), frameClassMin) - frameClassMin
	if c >= len(framePools) {
		return -1
	}
	return c
}
