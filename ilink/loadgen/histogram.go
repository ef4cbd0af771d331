package loadgen

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram is a log-bucketed latency histogram in the style of
// HdrHistogram: values below 256 ns are exact, above that every power of
// two is split into 128 buckets, so a reported value is at most 1/128
// (0.8%) above the true one. It covers all of uint64 nanoseconds in a
// fixed 7,424-bucket array (58 KiB), whatever the number of records. Safe
// for concurrent use: Record is a few atomic adds (the producer's
// callbacks record from many goroutines); a quantile read while records
// arrive sees some of them.
type Histogram struct {
	counts [histBuckets]atomic.Uint64
	n      atomic.Uint64
	max    atomic.Int64
	sum    atomic.Int64 // nanoseconds (292 years before it overflows)
}

const (
	histSubBits = 7
	histSub     = 1 << histSubBits // buckets per power of two
	histBuckets = (64-histSubBits-1)*histSub + 2*histSub
)

// histIndex maps v to its bucket.
func histIndex(v uint64) int {
	if v < 2*histSub {
		return int(v)
	}
	shift := bits.Len64(v) - (histSubBits + 1) // v>>shift is in [histSub, 2*histSub)
	return shift*histSub + int(v>>shift)
}

// histUpper returns the largest value that falls into bucket i.
func histUpper(i int) uint64 {
	if i < 2*histSub {
		return uint64(i)
	}
	shift := i/histSub - 1
	sub := uint64(i - shift*histSub)
	return (sub+1)<<shift - 1
}

// Record adds d (a negative d counts as 0).
func (h *Histogram) Record(d time.Duration) {
	v := max(int64(d), 0)
	h.counts[histIndex(uint64(v))].Add(1)
	h.n.Add(1)
	h.sum.Add(v)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

// Count is the number of values recorded.
func (h *Histogram) Count() uint64 { return h.n.Load() }

// Max is the largest value recorded, exact.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max.Load()) }

// Mean is the average value (0 with none).
func (h *Histogram) Mean() time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	return time.Duration(float64(h.sum.Load()) / float64(n))
}

// Quantile returns the value at quantile q (0..1): the upper end of the
// bucket holding the ceil(q*n)-th smallest value, capped at the exact max.
func (h *Histogram) Quantile(q float64) time.Duration {
	i, ok := quantileBucket(h.n.Load(), q, func(i int) uint64 { return h.counts[i].Load() })
	m := h.Max()
	if !ok {
		return m
	}
	return min(time.Duration(histUpper(i)), m)
}

// quantileBucket is the bucket of the ceil(q*n)-th smallest of n values;
// false when there are none or the buckets hold fewer (read while being
// written).
func quantileBucket(n uint64, q float64, count func(i int) uint64) (int, bool) {
	if n == 0 {
		return 0, false
	}
	rank := max(uint64(math.Ceil(q*float64(n))), 1)
	var cum uint64
	for i := range histBuckets {
		cum += count(i)
		if cum >= rank {
			return i, true
		}
	}
	return 0, false
}

// Window is the histogram of the most recent values only (a ring of their
// buckets): each Record beyond its size forgets the oldest value, so its
// quantiles follow a run as it changes. Not safe for concurrent use.
type Window struct {
	counts [histBuckets]uint32
	ring   []uint16 // the bucket of each value kept, the oldest at next
	next   int
	n      int
}

// NewWindow returns a window of the last size values.
func NewWindow(size int) *Window {
	return &Window{ring: make([]uint16, max(size, 1))}
}

// Record adds d, forgetting the oldest value when the window is full.
func (w *Window) Record(d time.Duration) {
	i := uint16(histIndex(uint64(max(int64(d), 0))))
	if w.n == len(w.ring) {
		w.counts[w.ring[w.next]]--
	} else {
		w.n++
	}
	w.ring[w.next] = i
	w.counts[i]++
	w.next = (w.next + 1) % len(w.ring)
}

// Count is the number of values in the window.
func (w *Window) Count() int { return w.n }

// Quantile returns the value at quantile q (0..1) of the window: the upper
// end of the bucket holding the ceil(q*n)-th smallest value (0 when
// empty).
func (w *Window) Quantile(q float64) time.Duration {
	i, ok := quantileBucket(uint64(w.n), q, func(i int) uint64 { return uint64(w.counts[i]) })
	if !ok {
		return 0
	}
	return time.Duration(histUpper(i))
}
