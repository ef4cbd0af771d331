package tail

import (
	"testing"
)

// The ring drops the oldest at whichever of its bounds a push would
// cross: 300 records of 900 KB in a 2,000-record, 16 MiB ring keep what
// fits in 16 MiB (a count bound alone would hold 270 MB), in order,
// newest last.
func TestTailRingByteBound(t *testing.T) {
	const maxBytes = 16 << 20
	r := newTailRing(2000, maxBytes)
	val := make([]byte, 900_000)
	dropped := 0
	for i := 0; i < 300; i++ {
		dropped += r.push(tailEntry{off: int64(i), v: val})
		if r.bytes > maxBytes {
			t.Fatalf("after %d pushes the ring holds %d bytes, over its %d", i+1, r.bytes, maxBytes)
		}
	}
	fit := maxBytes / (900_000 + entryOverhead)
	if r.n != fit || dropped != 300-fit {
		t.Fatalf("ring holds %d records (%d dropped), want %d (%d)", r.n, dropped, fit, 300-fit)
	}
	// Small records after large ones: the ring grows again, in order,
	// up to its count bound.
	for i := 300; i < 3300; i++ {
		dropped += r.push(tailEntry{off: int64(i), v: []byte("small")})
	}
	if r.n != 2000 || r.at(r.next-1).off != 3299 || r.at(r.first()).off != 1300 {
		t.Fatalf("after small records: n %d, newest %d, oldest %d; want 2000, 3299, 1300", r.n, r.at(r.next-1).off, r.at(r.first()).off)
	}
	for seq := r.first(); seq+1 < r.next; seq++ {
		if r.at(seq+1).off != r.at(seq).off+1 {
			t.Fatalf("out of order at seq %d: %d then %d", seq, r.at(seq).off, r.at(seq+1).off)
		}
	}
	var sum int64
	for seq := r.first(); seq < r.next; seq++ {
		sum += r.at(seq).size()
	}
	if sum != r.bytes {
		t.Fatalf("ring counts %d bytes, its entries sum to %d", r.bytes, sum)
	}
	// One record over the whole bound is kept, alone.
	r.push(tailEntry{off: 9999, v: make([]byte, maxBytes+1)})
	if r.n != 1 || r.at(r.first()).off != 9999 {
		t.Fatalf("an oversize record: n %d", r.n)
	}
}
