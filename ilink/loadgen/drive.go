package loadgen

import (
	"context"
	"sync/atomic"
	"time"
)

// Spec is a run of the publish driver: how many records, how fast, and
// which failure ends it early.
type Spec struct {
	// Count is how many records to send; 0 = no limit (until the sender
	// has no more, a failure StopOn names, or ctx ends).
	Count int64
	// Rate is records a second (0 = as fast as the sender accepts).
	Rate float64
	// StopOn, when set, says whether a failure ends the run: no record is
	// sent after it (the dashboard stops at the first MIMQE_UNKNOWN_TOPIC
	// instead of failing every record at the set rate).
	StopOn func(err error) bool
}

// Sender is what a Run sends through: the caller's record source and
// producer, so that the client's record and error types stay on the
// caller's side. Next and Send are called from Drive's goroutine, in
// record order; Close once, at the end.
type Sender interface {
	// Next prepares record n (0, 1, 2, …); false: there is none (the
	// source ended, or failed with an error the sender keeps) and the run
	// ends.
	Next(n int64) bool
	// Send hands the prepared record to the producer and returns without
	// waiting for its outcome (it may block while the producer's buffer is
	// full: that is the run's back-pressure). The sender reports the
	// outcome exactly once, from any goroutine, with Run.Done.
	Send()
	// Close waits for the outcomes still to come, as long as the sender
	// sees fit (stopped: the run was cancelled or stopped by a failure),
	// and closes the producer. Outcomes that never came are the Result's
	// Unfinished.
	Close(stopped bool) error
}

// Run is one run of the publish driver: the paced loop (Drive) and what
// it counts — records sent, acknowledged and failed, and the latency of
// every acknowledgement. `ilinkdash publish` and the dashboard's
// publish.Drive both run through it. Its counts are safe to read from any
// goroutine while it runs.
type Run struct {
	spec  Spec
	start time.Time

	sent, acked, failed atomic.Int64
	lat                 Histogram
	stop                atomic.Bool // a failure StopOn names came back
}

// Result is how a run ended.
type Result struct {
	Sent, Acked, Failed int64
	// Unfinished records were sent but had no outcome when the sender
	// closed.
	Unfinished int64
	// Cancelled: ctx ended before the run did. Stopped: cancelled, or
	// stopped by a failure StopOn names.
	Cancelled, Stopped bool
	// Err is the sender's Close error.
	Err error
}

// NewRun returns a run of spec whose schedule starts now.
func NewRun(spec Spec) *Run {
	return &Run{spec: spec, start: time.Now()}
}

// Drive sends the run's records through s, each when it is due (Pacer),
// until Count are sent, s has no more, a failure StopOn names comes back
// or ctx ends; then it closes s and returns. Call it once.
func (r *Run) Drive(ctx context.Context, s Sender) Result {
	n := NewPacer(r.spec.Rate, r.start).Run(ctx, func(n int64) bool {
		if (r.spec.Count > 0 && n >= r.spec.Count) || r.stop.Load() || !s.Next(n) {
			return false
		}
		r.sent.Add(1) // before Send: an outcome never precedes its record
		s.Send()
		return true
	})
	res := Result{Sent: n, Cancelled: ctx.Err() != nil}
	res.Stopped = res.Cancelled || r.stop.Load()
	res.Err = s.Close(res.Stopped)
	res.Acked, res.Failed = r.acked.Load(), r.failed.Load()
	res.Unfinished = max(res.Sent-res.Acked-res.Failed, 0)
	return res
}

// Done records the outcome of a record handed to the producer at sentAt
// and returns its latency (from sentAt to now). The sender calls it once
// per record sent, from any goroutine.
func (r *Run) Done(sentAt time.Time, err error) time.Duration {
	lat := time.Since(sentAt)
	if err != nil {
		r.failed.Add(1)
		if r.spec.StopOn != nil && r.spec.StopOn(err) {
			r.stop.Store(true)
		}
		return lat
	}
	r.acked.Add(1)
	r.lat.Record(lat)
	return lat
}

// Start is when the run's schedule began.
func (r *Run) Start() time.Time { return r.start }

// Sent is how many records went to the producer so far.
func (r *Run) Sent() int64 { return r.sent.Load() }

// Acked is how many records were acknowledged so far.
func (r *Run) Acked() int64 { return r.acked.Load() }

// Failed is how many records failed so far.
func (r *Run) Failed() int64 { return r.failed.Load() }

// Latency is the histogram of every acknowledgement's latency.
func (r *Run) Latency() *Histogram { return &r.lat }
