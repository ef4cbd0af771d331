package loadgen

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
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

// histLower is the smallest value of bucket i.
func histLower(i int) uint64 {
	if i == 0 {
		return 0
	}
	return histUpper(i-1) + 1
}

func TestHistQuantiles(t *testing.T) {
	var h Histogram
	rnd := rand.New(rand.NewPCG(1, 2))
	vs := make([]int64, 100_000)
	for i := range vs {
		vs[i] = int64(rnd.ExpFloat64() * 1e6) // ~1 ms mean, ns
		h.Record(time.Duration(vs[i]))
	}
	slices.Sort(vs)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		exact := vs[int(q*float64(len(vs)))-1]
		got := int64(h.Quantile(q))
		if got < exact || float64(got) > float64(exact)*(1+1.0/histSub)+1 {
			t.Errorf("q%.3f: got %d, exact %d", q, got, exact)
		}
	}
	if int64(h.Quantile(1)) != vs[len(vs)-1] || int64(h.Max()) != vs[len(vs)-1] {
		t.Errorf("max: got %d/%d, want %d", h.Quantile(1), h.Max(), vs[len(vs)-1])
	}
	var sum int64
	for _, v := range vs {
		sum += v
	}
	if h.Count() != uint64(len(vs)) || h.Mean() != time.Duration(float64(sum)/float64(len(vs))) {
		t.Errorf("count %d, mean %v; want %d, %v", h.Count(), h.Mean(), len(vs), time.Duration(sum/int64(len(vs))))
	}
}

// The publish command's figures: 1..1000 ms, p50 about 500 ms, p99 about
// 990 ms, the max exact; every value lands in a bucket that holds it.
func TestLatencyHistogram(t *testing.T) {
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	p50, p99 := h.Quantile(0.5), h.Quantile(0.99)
	if p50 < 470*time.Millisecond || p50 > 530*time.Millisecond {
		t.Errorf("p50 = %v", p50)
	}
	if p99 < 930*time.Millisecond || p99 > 1050*time.Millisecond {
		t.Errorf("p99 = %v", p99)
	}
	if h.Max() != time.Second {
		t.Errorf("max = %v", h.Max())
	}
	for _, v := range []uint64{1, 15, 16, 17, 31, 32, 1000, 1 << 40} {
		i := histIndex(v)
		if lo, hi := histLower(i), histUpper(i); v < lo || v > hi {
			t.Errorf("value %d in bucket %d [%d, %d]", v, i, lo, hi)
		}
	}
	var empty Histogram
	if empty.Quantile(0.5) != 0 || empty.Mean() != 0 || empty.Max() != 0 {
		t.Errorf("empty histogram: p50 %v, mean %v, max %v", empty.Quantile(0.5), empty.Mean(), empty.Max())
	}
	empty.Record(-time.Second)
	if empty.Count() != 1 || empty.Max() != 0 {
		t.Errorf("a negative value: count %d, max %v; want 1, 0", empty.Count(), empty.Max())
	}
}

// Record is safe from many goroutines (the producer's callbacks).
func TestHistogramConcurrent(t *testing.T) {
	var h Histogram
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 1; i <= 1000; i++ {
				h.Record(time.Duration(g*1000+i) * time.Microsecond)
			}
		})
	}
	wg.Wait()
	if h.Count() != 4000 || h.Max() != 4*time.Millisecond {
		t.Fatalf("count %d, max %v; want 4000, 4ms", h.Count(), h.Max())
	}
}

// A window forgets what falls out of it: after 1,000 slow values, 100 fast
// ones fill a window of 100 and its p99 is fast again.
func TestWindowForgetsTheOldest(t *testing.T) {
	w := NewWindow(100)
	if w.Quantile(0.5) != 0 {
		t.Fatal("an empty window has a p50")
	}
	for range 1000 {
		w.Record(time.Second)
	}
	if p := w.Quantile(0.5); p < time.Second || p > time.Second*129/128 {
		t.Fatalf("p50 of slow values = %v", p)
	}
	for i := range 100 {
		w.Record(time.Duration(i+1) * time.Millisecond)
	}
	if w.Count() != 100 {
		t.Fatalf("window holds %d values, want 100", w.Count())
	}
	p50, p99 := w.Quantile(0.5), w.Quantile(0.99)
	if p50 < 50*time.Millisecond || p50 > 51*time.Millisecond || p99 < 99*time.Millisecond || p99 > 100*time.Millisecond {
		t.Fatalf("after 100 fast values: p50 %v, p99 %v; want about 50 ms and 99 ms", p50, p99)
	}
}
