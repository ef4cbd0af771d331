package main

import (
	"math"
	"math/bits"
)

// histogram is a log-bucketed latency histogram in the style of
// HdrHistogram: values below 256 are exact, above that every power of two is
// split into 128 buckets, so a reported value is at most 1/128 (0.8%) above
// the true one. It covers all of uint64 in a fixed 7,424-bucket array
// (58 KiB), whatever the number of records. Not safe for concurrent use.
type histogram struct {
	counts [histBuckets]uint64
	n      uint64
	max    int64
	sum    float64
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

// record adds v (nanoseconds; negative counts as 0).
func (h *histogram) record(v int64) {
	if v < 0 {
		v = 0
	}
	h.counts[histIndex(uint64(v))]++
	h.n++
	h.sum += float64(v)
	if v > h.max {
		h.max = v
	}
}

// quantile returns the value at quantile q (0..1): the upper end of the
// bucket holding the ceil(q*n)-th smallest value, capped at the exact max.
func (h *histogram) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var cum uint64
	for i, c := range h.counts {
		cum += c
		if cum >= rank {
			return min(int64(histUpper(i)), h.max)
		}
	}
	return h.max
}

// latStats is a histogram's summary in milliseconds.
type latStats struct {
	N     uint64  `json:"n"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p99_9_ms"`
	P9999 float64 `json:"p99_99_ms"`
	Max   float64 `json:"max_ms"`
}

func (h *histogram) stats() latStats {
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	s := latStats{
		N: h.n, P50: ms(h.quantile(0.50)), P90: ms(h.quantile(0.90)), P99: ms(h.quantile(0.99)),
		P999: ms(h.quantile(0.999)), P9999: ms(h.quantile(0.9999)), Max: ms(h.max),
	}
	if h.n > 0 {
		s.Mean = h.sum / float64(h.n) / 1e6
	}
	return s
}
