package wire

import "testing"

func TestFrameBufClasses(t *testing.T) {
	for _, c := range []struct{ n, cap int }{
		{1, 128 << 10}, {128 << 10, 128 << 10}, {128<<10 + 1, 256 << 10}, {1 << 20, 1 << 20}, {8 << 20, 8 << 20}, {8<<20 + 1, 8<<20 + 1},
	} {
		b := GetFrameBuf(c.n)
		if len(b) != 0 || cap(b) != c.cap {
			t.Errorf("GetFrameBuf(%d): len %d cap %d, want 0 and %d", c.n, len(b), cap(b), c.cap)
		}
	}
	// A buffer not of a class's exact size is not kept, so a class never
	// hands out less than it promises.
	PutFrameBuf(make([]byte, 10, 300<<10))
	for range 100 {
		if b := GetFrameBuf(400 << 10); cap(b) < 400<<10 {
			t.Fatalf("class of 400 KiB gave cap %d", cap(b))
		}
	}
	b := append(GetFrameBuf(1000), "frame"...)
	PutFrameBuf(b)
	if g := GetFrameBuf(10); len(g) != 0 {
		t.Fatalf("a recycled buffer comes back with length %d", len(g))
	}
}
