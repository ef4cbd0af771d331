package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestValuePool(t *testing.T) {
	for _, size := range []int{minSize, 100, 1024} {
		p, err := newValuePool(size)
		if err != nil {
			t.Fatal(err)
		}
		for i := range poolSize {
			v := p.get(i)
			if len(v) != size {
				t.Fatalf("size %d: value %d has %d bytes", size, i, len(v))
			}
			if j, ok := p.index(v); !ok || j != i {
				t.Fatalf("size %d: index(value %d) = %d, %v", size, i, j, ok)
			}
		}
		bad := append([]byte(nil), p.get(7)...)
		bad[len(bad)-2] ^= 1
		if _, ok := p.index(bad); ok {
			t.Fatalf("size %d: a changed value was accepted", size)
		}
	}
	if _, err := newValuePool(minSize - 1); err == nil {
		t.Fatal("too small a size was accepted")
	}
}

func TestConsumeCheck(t *testing.T) {
	p, _ := newValuePool(100)
	const n = 3*poolSize + 5
	c := newConsumeCheck(p)
	off := map[int32]int64{}
	for i := 0; i < n; i++ {
		part := int32(i % 6)
		c.record(part, off[part], p.get(i))
		off[part]++
	}
	msg, err := c.verdict(n)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%d records in 6 partitions,", n); !strings.HasPrefix(msg, want) {
		t.Fatalf("verdict %q, want it to start with %q", msg, want)
	}
	c.record(-1, 0, p.get(n))
	if c.bad != 1 {
		t.Fatalf("a negative partition counted %d bad records, want 1", c.bad)
	}
	c.bad = 0
	c.n--
	c.record(0, off[0]+1, p.get(0)) // a gap
	if _, err := c.verdict(n + 1); err == nil {
		t.Fatal("a gap was accepted")
	}
}

func TestStatOf(t *testing.T) {
	if s := statOf([]float64{3, 1, 2}); s.Median != 2 || s.Min != 1 || s.Max != 3 || s.N != 3 {
		t.Fatalf("%+v", s)
	}
	if s := statOf([]float64{4, 1, 2, 3}); s.Median != 2.5 {
		t.Fatalf("%+v", s)
	}
}
