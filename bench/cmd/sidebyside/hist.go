package main

import "ilinkdash/ilink/loadgen"

// histogram is the publish driver's latency histogram (ilink/loadgen):
// values below 256 ns exact, then 128 buckets per power of two (at most
// 0.8% above the true value), a fixed 58 KiB whatever the record count.
type histogram = loadgen.Histogram

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

func histStats(h *histogram) latStats {
	ms := func(q float64) float64 { return float64(h.Quantile(q)) / 1e6 }
	return latStats{
		N: h.Count(), Mean: float64(h.Mean()) / 1e6, P50: ms(0.50), P90: ms(0.90), P99: ms(0.99),
		P999: ms(0.999), P9999: ms(0.9999), Max: float64(h.Max()) / 1e6,
	}
}
