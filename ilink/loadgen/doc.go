// Package loadgen is the one publish driver: Run.Drive, the loop that
// sends a run's records through a caller's Sender, each when an
// open-loop Pacer says it is due, and counts what comes back (records
// acknowledged and failed, and every acknowledgement's latency in a
// Histogram; a sliding Window of it serves the dashboard's meter).
// `ilinkdash publish` and the dashboard's publish view both run through
// Run.Drive; the benchmarks under bench/ pace and measure with its parts.
//
// It has no dependency on the client or the UI: callers send, it paces
// and counts.
package loadgen
