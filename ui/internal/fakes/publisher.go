package fakes

import (
	"context"
	"errors"
	"sync"
	"time"

	"ilinkdash/ui/views/publish"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// ErrNotLeader is the failure the fake publisher injects (FailEvery).
var ErrNotLeader = errors.New("MIMQE_NOT_LEADER: partition 2 is led by node 3")

// Publisher is a fake publish.Publisher.
//
// In automatic mode (the default) a run goes through publish.Drive
// with an in-memory sender that acknowledges every record at once (after
// Latency), so the driver, the rate limit and the meter are the real ones.
// In Manual mode nothing moves until the test calls Step on the run, and
// the run's clock is fake, so its progress is deterministic (golden
// screens).
type Publisher struct {
	// Manual makes runs advance only with FakeRun.Step.
	Manual bool
	// FailEvery fails every Nth record with ErrNotLeader (0: never).
	FailEvery int64
	// Latency delays each acknowledgement (automatic mode).
	Latency time.Duration
	// Err makes StartPublish fail.
	Err error
	// Keep is how many records per run are kept for inspection (default
	// 1,000).
	Keep int
	// Exists, when set, says whether a topic exists; records to one that
	// does not fail with MIMQE_UNKNOWN_TOPIC, as the producer's do.
	Exists func(topic string) bool

	mu   sync.Mutex
	runs []*FakeRun
}

// StartPublish implements publish.Publisher.
func (p *Publisher) StartPublish(ctx context.Context, spec publish.Spec) (publish.Run, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.Err != nil {
		return nil, p.Err
	}
	keep := p.Keep
	if keep == 0 {
		keep = 1000
	}
	r := &FakeRun{spec: spec, keep: keep, failEvery: p.FailEvery, offs: map[int32]int64{}}
	if p.Exists != nil && !p.Exists(spec.Topic) {
		r.missing = true
	}
	if p.Manual {
		r.clock = Epoch
		r.meter = publish.NewMeter(spec.Count, func() time.Time {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.clock
		})
		r.meter.SetConnections(connections)
	} else {
		r.run = publish.Drive(ctx, spec, &fakeSender{r: r, latency: p.Latency})
	}
	p.runs = append(p.runs, r)
	return r, nil
}

// Last returns the most recent run (nil before the first).
func (p *Publisher) Last() *FakeRun {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.runs) == 0 {
		return nil
	}
	return p.runs[len(p.runs)-1]
}

// Runs returns how many runs were started.
func (p *Publisher) Runs() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.runs)
}

func connections() map[int]int { return map[int]int{1: 1, 2: 1, 3: 1} }

// FakeRun is one run of the fake publisher.
type FakeRun struct {
	spec      publish.Spec
	keep      int
	failEvery int64
	run       publish.Run // automatic mode
	meter     *publish.Meter

	mu      sync.Mutex
	clock   time.Time
	seq     int64
	offs    map[int32]int64
	records []publish.Record
	stopped bool
	missing bool // the topic does not exist
}

// Spec returns the run's spec.
func (r *FakeRun) Spec() publish.Spec { return r.spec }

// Records returns copies of the first records the run sent.
func (r *FakeRun) Records() []publish.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]publish.Record(nil), r.records...)
}

// Progress implements publish.Run.
func (r *FakeRun) Progress() publish.Progress {
	if r.run != nil {
		return r.run.Progress()
	}
	return r.meter.Snapshot()
}

// Stop implements publish.Run.
func (r *FakeRun) Stop() {
	if r.run != nil {
		r.run.Stop()
		return
	}
	r.mu.Lock()
	already := r.stopped || r.seq >= r.spec.Count
	r.stopped = true
	r.mu.Unlock()
	if !already {
		r.meter.Finish(true, nil)
	}
}

// Wait waits (real time) until an automatic run is done.
func (r *FakeRun) Wait(timeout time.Duration) bool {
	end := time.Now().Add(timeout)
	for time.Now().Before(end) {
		if r.Progress().Done {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// Step sends and completes the next n records of a manual run, 10 ms of
// fake time each, with latencies of 1–5 ms.
func (r *FakeRun) Step(n int) {
	var rec publish.Record
	for i := 0; i < n; i++ {
		r.mu.Lock()
		if r.stopped || r.seq >= r.spec.Count {
			r.mu.Unlock()
			return
		}
		seq := r.seq
		r.seq++
		r.clock = r.clock.Add(10 * time.Millisecond)
		r.mu.Unlock()
		r.spec.Record(seq, &rec)
		r.meter.Sent()
		p, o, err := r.store(seq, &rec)
		r.meter.Done(p, o, err, time.Duration(1+seq%5)*time.Millisecond)
		r.mu.Lock()
		last := r.seq >= r.spec.Count
		r.mu.Unlock()
		if last {
			r.meter.Finish(false, nil)
		}
	}
}

// store keeps a copy of the record and assigns its partition and offset.
func (r *FakeRun) store(seq int64, rec *publish.Record) (int32, int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.records) < r.keep {
		c := publish.Record{Value: append([]byte{}, rec.Value...)}
		if rec.Key != nil {
			c.Key = append([]byte{}, rec.Key...)
		}
		for _, h := range rec.Headers {
			c.Headers = append(c.Headers, publish.Header{Key: h.Key, Value: append([]byte{}, h.Value...)})
		}
		r.records = append(r.records, c)
	}
	if r.missing {
		return -1, -1, &ilink.Error{Name: wire.ErrUnknownTopic, Tail: r.spec.Topic, Kind: ilink.KindRejected}
	}
	if r.failEvery > 0 && (seq+1)%r.failEvery == 0 {
		return -1, -1, ErrNotLeader
	}
	p := int32(seq % 3)
	o := r.offs[p]
	r.offs[p]++
	if r.spec.Acks == "0" {
		o = -1
	}
	return p, o, nil
}

// fakeSender is the in-memory publish.Sender of automatic runs.
type fakeSender struct {
	r       *FakeRun
	latency time.Duration
	wg      sync.WaitGroup
	seq     int64
}

func (s *fakeSender) Send(topic string, rec *publish.Record, done func(int32, int64, error)) {
	seq := s.seq
	s.seq++
	p, o, err := s.r.store(seq, rec)
	if s.latency <= 0 {
		done(p, o, err)
		return
	}
	s.wg.Add(1)
	time.AfterFunc(s.latency, func() {
		defer s.wg.Done()
		done(p, o, err)
	})
}

func (s *fakeSender) Connections() map[int]int { return connections() }

func (s *fakeSender) Close(ctx context.Context) error {
	ch := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(ch)
	}()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

var _ publish.Publisher = (*Publisher)(nil)
