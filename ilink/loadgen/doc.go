// Package loadgen is the one publish driver: an open-loop Pacer that says
// when each record of a run is due (and sends them through a caller's
// function), and the latency Histogram (plus a sliding Window of it) that
// measures what came back. `ilinkdash publish`, the dashboard's publish
// view and the benchmarks under bench/ all pace and measure with it.
//
// It has no dependency on the client or the UI: callers send, it paces
// and counts.
package loadgen
