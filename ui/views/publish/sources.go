// Package publish is the dashboard's publish tab (tab 7): a form (topic,
// key, value or file, headers, count, rate, compression, acks, templates
// included) validated before sending, and the progress of the run it
// starts. The Publisher it starts runs through is defined here; Drive is
// a complete run (the loadgen pacer, latency p50/p99, distinct errors,
// where the last records went) over a small Sender, which is how ui/live
// implements Publisher over the producer. The root model (ui) and the SSH
// server (ui/serve) build it.
package publish

import (
	"context"
	"time"

	"ilinkdash/ui/jsonl"
)

// Header is one record header (an iLink record property).
type Header = jsonl.Header

// Record is one record the publish form produced.
type Record struct {
	Key     []byte // nil = null key (uniform sticky partitioning)
	Value   []byte
	Headers []Header
	// Err, set by Spec.Record, is why this record could not be made (its
	// JSON, templates expanded, does not fit the topic's schema): nothing
	// is sent for it, and it counts as failed with Err's text.
	Err error
}

// Spec is what the publish form sends.
type Spec struct {
	Topic string
	// Count is the number of records, 1..MaxPublishCount.
	Count int64
	// Rate is the target records per second; 0 = as fast as the producer
	// accepts.
	Rate float64
	// Compression is "none", "lz4" or "zstd"; Acks is "0", "1" or "all".
	Compression string
	Acks        string
	// Record fills r with record seq (0 .. Count-1), templates expanded.
	// It reuses r's slices between calls, so the sender must copy them
	// before the next call (ilink.Producer.Send does). It is called from
	// one goroutine, in seq order.
	Record func(seq int64, r *Record)
}

// MaxCount bounds Spec.Count.
const MaxCount = 100_000_000

// Error is one distinct error text of a run, with how many records
// failed with it.
type Error struct {
	Text  string // raw (the view sanitizes it)
	Count int64
}

// Stored is where an acknowledged record was stored (Offset -1 with
// acks 0).
type Stored struct {
	Partition int32
	Offset    int64
}

// Progress is a snapshot of a run.
type Progress struct {
	Count   int64 // records the run will send
	Sent    int64 // handed to the producer
	Acked   int64 // acknowledged
	Failed  int64 // failed (Errors says why)
	Elapsed time.Duration
	// Rate is acknowledged records per second over the last seconds.
	Rate float64
	// LatencyP50 and LatencyP99 are send → acknowledgement, over the most
	// recent records.
	LatencyP50, LatencyP99 time.Duration
	// Last is where the most recent acknowledged records went, newest
	// first (up to 8).
	Last []Stored
	// Connections is the producer's open connections per leader node id.
	Connections map[int]int
	// Errors are the distinct failure texts (MIMQE_* names), most frequent
	// first.
	Errors []Error
	// Done: nothing is in flight any more and nothing more will be sent.
	Done bool
	// Stopped: the run was stopped (Stop or its context) before Count.
	Stopped bool
	// Err is a fatal error that ended the run early (the producer failed).
	Err error
	// MissingTopic: a record failed with MIMQE_UNKNOWN_TOPIC, and the run
	// stopped there instead of failing every record at the set rate.
	MissingTopic bool
}

// Run is one running publish. The view reads Progress every 250 ms
// (never per record).
type Run interface {
	// Progress returns a snapshot; cheap, safe from any goroutine.
	Progress() Progress
	// Stop stops sending; records in flight are still awaited (bounded)
	// before Progress reports Done. Idempotent, non-blocking.
	Stop()
}

// Publisher starts publish runs through the multi-connection producer
// (compression and acks from the spec). It is called in a command; ctx
// bounds the run's whole life. A read-only context must refuse (the view
// does not offer publishing there, and the producer layer refuses too).
type Publisher interface {
	StartPublish(ctx context.Context, spec Spec) (Run, error)
}

// FileReader is a Publisher that says whether the form's File field may
// read a file where the dashboard runs (ui/serve: the dashboard runs on a
// jump host, whose files are not the remote user's). A non-nil error
// refuses the field with that error before anything is read.
type FileReader interface {
	ReadsFiles() error
}
