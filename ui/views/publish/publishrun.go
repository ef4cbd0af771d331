package publish

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/loadgen"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
)

// Sender is what Drive drives: a thin adapter over the
// multi-connection producer (ilink.Producer), created by the Publisher
// with the spec's compression and acks.
type Sender interface {
	// Send hands one record to the producer and returns without waiting
	// for its acknowledgement (it may block while the producer's buffer is
	// full: that is the run's back-pressure). done is called exactly once,
	// from any goroutine, with the partition and offset (offset -1 with
	// acks 0) or the error. r's slices are reused after Send returns.
	Send(topic string, r *Record, done func(partition int32, offset int64, err error))
	// Connections returns the producer's open connections per node id.
	Connections() map[int]int
	// Close flushes (every done called, or ctx ends) and closes.
	Close(ctx context.Context) error
}

// Drive runs spec through s in its own goroutine: Count records at
// Rate (0 = as fast as s accepts), each built by spec.Record, with the
// progress a Meter keeps. The loop is loadgen's (Run.Drive), the one the
// CLI's publish runs too. Stop, or cancelling ctx, stops sending; so does
// the first MIMQE_UNKNOWN_TOPIC (instead of failing every record at the
// set rate). The records in flight are then awaited for up to 10 s (30 s
// after a whole run). The Publisher's StartPublish can be: make a
// producer, wrap it, return Drive.
func Drive(ctx context.Context, spec Spec, s Sender) Run {
	ctx, stop := context.WithCancel(ctx)
	r := &publishRun{spec: spec, s: s, meter: NewMeter(spec.Count, nil), stop: stop,
		run: loadgen.NewRun(loadgen.Spec{Count: spec.Count, Rate: spec.Rate, StopOn: unknownTopic})}
	r.meter.SetConnections(s.Connections)
	go r.loop(ctx)
	return r
}

// unknownTopic is the failure that ends a run.
func unknownTopic(err error) bool { return ilink.HasName(err, wire.ErrUnknownTopic) }

type publishRun struct {
	spec  Spec
	s     Sender
	meter *Meter
	stop  context.CancelFunc
	run   *loadgen.Run
	rec   Record // the record being sent (Spec.Record reuses its slices)
}

func (r *publishRun) Progress() Progress { return r.meter.Snapshot() }

func (r *publishRun) Stop() { r.stop() }

func (r *publishRun) loop(ctx context.Context) {
	defer r.stop()
	res := r.run.Drive(ctx, (*runSender)(r))
	// Records the producer never completed count as failed.
	text := "not acknowledged before the producer closed"
	if res.Err != nil {
		text += ": " + res.Err.Error()
	}
	r.meter.abandon(text)
	r.meter.Finish(res.Stopped, nil)
}

// runSender is a publishRun as the driver's loadgen.Sender: the spec's
// records, sent through the Sender, their outcomes fed to the Meter.
type runSender publishRun

func (r *runSender) Next(seq int64) bool {
	if seq >= r.spec.Count { // Count 0 sends nothing (loadgen's 0 is no limit)
		return false
	}
	r.spec.Record(seq, &r.rec)
	return true
}

func (r *runSender) Send() {
	r.meter.Sent()
	t0 := time.Now()
	if err := r.rec.Err; err != nil { // it could not be encoded: nothing goes out
		r.meter.Done(-1, -1, err, r.run.Done(t0, err))
		return
	}
	r.s.Send(r.spec.Topic, &r.rec, func(p int32, o int64, err error) {
		r.meter.Done(p, o, err, r.run.Done(t0, err))
	})
}

func (r *runSender) Close(stopped bool) error {
	wait := 30 * time.Second
	if stopped {
		wait = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return r.s.Close(ctx)
}

// Meter keeps a run's progress: counts, distinct errors, recent
// latencies (p50/p99 over the last 8,192 acknowledgements), the rate over
// the last seconds and where the last records went. Safe for concurrent
// use; Snapshot is what Run.Progress returns.
type Meter struct {
	mu    sync.Mutex
	now   func() time.Time
	start time.Time
	end   time.Time

	count, sent, acked, failed int64
	lat                        *loadgen.Window
	last                       [8]Stored
	lastN                      int64
	errs                       map[string]int64
	rate                       common.RateWindow
	conns                      func() map[int]int

	done, stopped bool
	err           error
	missing       bool // a record failed with MIMQE_UNKNOWN_TOPIC
}

const latWindow = 8192

// maxDistinctErrors bounds the distinct error texts kept; the rest are
// counted under "other errors".
const maxDistinctErrors = 32

// NewMeter returns a meter for count records; now is the clock
// (time.Now when nil).
func NewMeter(count int64, now func() time.Time) *Meter {
	if now == nil {
		now = time.Now
	}
	return &Meter{now: now, start: now(), count: count, errs: map[string]int64{}, lat: loadgen.NewWindow(latWindow)}
}

// SetConnections sets where Snapshot reads the open connections.
func (m *Meter) SetConnections(f func() map[int]int) {
	m.mu.Lock()
	m.conns = f
	m.mu.Unlock()
}

// Sent counts a record handed to the producer.
func (m *Meter) Sent() {
	m.mu.Lock()
	m.sent++
	m.mu.Unlock()
}

// Done records a record's outcome and its send → acknowledgement latency.
func (m *Meter) Done(partition int32, offset int64, err error, latency time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.failed++
		if ilink.HasName(err, wire.ErrUnknownTopic) {
			m.missing = true
		}
		text := err.Error()
		if _, ok := m.errs[text]; !ok && len(m.errs) >= maxDistinctErrors {
			text = "(other errors)"
		}
		m.errs[text]++
		return
	}
	m.acked++
	m.lat.Record(latency)
	m.last[m.lastN%int64(len(m.last))] = Stored{Partition: partition, Offset: offset}
	m.lastN++
}

// abandon counts the records still in flight as failed with text.
func (m *Meter) abandon(text string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := m.sent - m.acked - m.failed; n > 0 {
		m.failed += n
		m.errs[text] += n
	}
}

// Finish marks the run over.
func (m *Meter) Finish(stopped bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done, m.stopped, m.err, m.end = true, stopped, err, m.now()
}

// Snapshot returns the progress so far.
func (m *Meter) Snapshot() Progress {
	m.mu.Lock()
	now := m.now()
	p := Progress{
		Count: m.count, Sent: m.sent, Acked: m.acked, Failed: m.failed,
		Done: m.done, Stopped: m.stopped, Err: m.err, MissingTopic: m.missing,
	}
	end := now
	if m.done {
		end = m.end
	}
	p.Elapsed = end.Sub(m.start)
	m.rate.Add(now, m.acked)
	if !m.done {
		p.Rate = m.rate.Rate(now, m.acked)
	} else if s := p.Elapsed.Seconds(); s > 0 {
		p.Rate = float64(m.acked) / s
	}
	p.LatencyP50, p.LatencyP99 = m.lat.Quantile(0.50), m.lat.Quantile(0.99)
	for i := int64(0); i < min(m.lastN, int64(len(m.last))); i++ {
		p.Last = append(p.Last, m.last[(m.lastN-1-i)%int64(len(m.last))])
	}
	for text, c := range m.errs {
		p.Errors = append(p.Errors, Error{Text: text, Count: c})
	}
	conns := m.conns
	m.mu.Unlock()

	slices.SortFunc(p.Errors, func(a, b Error) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Text, b.Text)
	})
	if conns != nil {
		p.Connections = conns()
	}
	return p
}
