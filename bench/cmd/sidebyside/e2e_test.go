package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"ilinkdash/ilink"
)

func TestHistIndexRoundTrip(t *testing.T) {
	var lower uint64 // smallest value of bucket i
	for i := 0; i < histBuckets; i++ {
		u := histUpper(i)
		if u < lower {
			t.Fatalf("bucket %d: upper %d below lower %d", i, u, lower)
		}
		if histIndex(lower) != i || histIndex(u) != i {
			t.Fatalf("bucket %d [%d, %d]: histIndex gives %d, %d", i, lower, u, histIndex(lower), histIndex(u))
		}
		if u == ^uint64(0) {
			if i != histBuckets-1 {
				t.Fatalf("uint64 ends in bucket %d of %d", i, histBuckets)
			}
			return
		}
		lower = u + 1
	}
	t.Fatalf("buckets end at %d, below max uint64", lower)
}

func TestHistQuantiles(t *testing.T) {
	var h histogram
	rnd := rand.New(rand.NewPCG(1, 2))
	vs := make([]int64, 100_000)
	for i := range vs {
		vs[i] = int64(rnd.ExpFloat64() * 1e6) // ~1 ms mean, ns
		h.record(vs[i])
	}
	slices.Sort(vs)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := vs[int(q*float64(len(vs)))-1]
		got := h.quantile(q)
		if got < exact || float64(got) > float64(exact)*(1+1.0/histSub)+1 {
			t.Errorf("q%.3f: got %d, exact %d", q, got, exact)
		}
	}
	if h.quantile(1) != vs[len(vs)-1] || h.max != vs[len(vs)-1] {
		t.Errorf("max: got %d/%d, want %d", h.quantile(1), h.max, vs[len(vs)-1])
	}
}

func TestIlinkLingerMapping(t *testing.T) {
	if got := ilinkLingerMs(0); got != ilink.NoLinger {
		t.Errorf("--linger 0 -> LingerMs %d, want NoLinger (%d); LingerMs 0 is the 5 ms default", got, ilink.NoLinger)
	}
	if got := ilinkLingerMs(5 * time.Millisecond); got != 5 {
		t.Errorf("--linger 5ms -> %d", got)
	}
}

func TestRecordsDue(t *testing.T) {
	// 1,500 rec/s: ticks alternate 1 and 2 records; 1,000 ticks = 1,500.
	if n := recordsDue(1000, 1500); n != 1500 {
		t.Fatalf("recordsDue(1000, 1500) = %d", n)
	}
	if a, b := recordsDue(1, 1500)-recordsDue(0, 1500), recordsDue(2, 1500)-recordsDue(1, 1500); a+b != 3 {
		t.Fatalf("ticks 1, 2: %d + %d records", a, b)
	}
}

func TestParseLingers(t *testing.T) {
	ls, err := parseLingers("0, 5ms")
	if err != nil || len(ls) != 2 || ls[0] != 0 || ls[1] != 5*time.Millisecond {
		t.Fatalf("parseLingers: %v %v", ls, err)
	}
	if _, err := parseLingers("-1ms"); err == nil {
		t.Fatal("negative linger accepted")
	}
}
