package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// spec is one measurement: one stack, one fresh engine. The orchestrator
// hands it to a child process as JSON.
type spec struct {
	Role        string        `json:"role"` // inproc | client | server
	Impl        string        `json:"impl"` // franz | ilink
	Label       string        `json:"label"`
	Run         int           `json:"run"`
	Replicas    int           `json:"replicas"` // ilink only; kfake does not replicate
	Nodes       int           `json:"nodes"`
	Partitions  int           `json:"partitions"`
	Count       int           `json:"count"`
	Warmup      int           `json:"warmup"`
	Size        int           `json:"size"`
	Compression string        `json:"compression"`
	Linger      time.Duration `json:"linger_ns"`
	BatchBytes  int           `json:"batch_bytes"`
	BufferBytes int           `json:"buffer_bytes"`
	Acks        string        `json:"acks"` // all | leader
	Consume     bool          `json:"consume"`
	Timeout     time.Duration `json:"timeout_ns"`
	Addrs       []string      `json:"addrs,omitempty"` // client role: the server child's addresses

	// e2e mode (e2e.go).
	E2E       bool          `json:"e2e,omitempty"`
	Rate      int           `json:"rate,omitempty"`
	Duration  time.Duration `json:"duration_ns,omitempty"`
	E2EWarmup time.Duration `json:"e2e_warmup_ns,omitempty"`
	Drain     time.Duration `json:"drain_ns,omitempty"`
	Pacer     string        `json:"pacer,omitempty"` // ticker | sleep
}

func (s *spec) idempotent() bool { return s.Acks == "all" }

const (
	benchTopic  = "bench"
	warmupTopic = "warmup"
)

// server is an engine running in this process with the topics "bench" and
// "warmup" created.
type server interface {
	Addrs() []string
	// Verify checks on the engine side that topic holds want records.
	// ok=false when the engine has no API for it.
	Verify(topic string, want int) (msg string, ok bool, err error)
	Close() error
}

// producer is one stack's client producer. send must be asynchronous and
// call a.ack exactly once per record; it may block for back-pressure.
type producer interface {
	send(topic string, v []byte, a *acker)
	// sendTimed sends v with record timestamp ts (the scheduled send time)
	// and calls a.ack with that time (unix nanos) when the record completes.
	// v must not be reused by the caller.
	sendTimed(topic string, v []byte, ts time.Time, a *e2eAcker)
	flush(ctx context.Context) error
	// endOffsets sums the end offsets of topic through the client
	// (ok=false when the client has no API for it).
	endOffsets(ctx context.Context, topic string) (total int64, ok bool, err error)
	close() error
}

// consumer is one stack's direct (non-group) consumer reading topic from
// offset 0 of every partition.
type consumer interface {
	poll(ctx context.Context, fn func(partition int32, offset int64, v []byte)) error
	close() error
}

type stackImpl struct {
	name        string
	notes       func(s *spec) []string
	serve       func(s *spec) (server, error)
	newProducer func(ctx context.Context, s *spec, addrs []string) (producer, error)
	// newConsumer is nil while the stack has no consumer built in.
	newConsumer func(ctx context.Context, s *spec, addrs []string, topic string) (consumer, error)
}

// stacks is filled by the init functions of franz.go and ilink.go.
var stacks = map[string]*stackImpl{}

func register(s *stackImpl) { stacks[s.name] = s }

// acker counts completions of one phase. The callbacks of both stacks call
// ack; the last one records the time of the last ack.
type acker struct {
	target   int64
	acked    atomic.Int64
	errs     atomic.Int64
	firstErr atomic.Pointer[string]
	lastAck  atomic.Int64 // unix nanos
	done     chan struct{}
}

func newAcker(n int) *acker { return &acker{target: int64(n), done: make(chan struct{})} }

func (a *acker) ack(err error) {
	if err != nil {
		a.errs.Add(1)
		msg := err.Error()
		a.firstErr.CompareAndSwap(nil, &msg)
	}
	if a.acked.Add(1) == a.target {
		a.lastAck.Store(time.Now().UnixNano())
		close(a.done)
	}
}

// produceN sends n records to topic and waits for every ack. It returns the
// time from the first send to the last ack.
func produceN(ctx context.Context, p producer, pool *valuePool, topic string, n int) (time.Duration, *acker, error) {
	a := newAcker(n)
	if n == 0 {
		return 0, a, nil
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		p.send(topic, pool.get(i), a)
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		return 0, a, fmt.Errorf("waiting for acks: %d of %d acked: %w", a.acked.Load(), n, ctx.Err())
	}
	end := time.Unix(0, a.lastAck.Load())
	if err := p.flush(ctx); err != nil {
		return 0, a, fmt.Errorf("flush: %w", err)
	}
	return end.Sub(start), a, nil
}

// marker tells a server process that a phase begins or ends (2-process
// mode); a no-op in-process.
type marker func(phase string, records int) error

// measure runs the produce phase (and the consume phase when asked) of one
// stack against addrs and returns the phase results. srv is the in-process
// engine (nil in 2-process mode).
func measure(ctx context.Context, st *stackImpl, s *spec, addrs []string, srv server, mark marker) ([]phaseResult, error) {
	pool, err := newValuePool(s.Size)
	if err != nil {
		return nil, err
	}
	p, err := st.newProducer(ctx, s, addrs)
	if err != nil {
		return nil, fmt.Errorf("%s producer: %w", st.name, err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = p.close()
		}
	}()
	if s.Warmup > 0 {
		if _, a, err := produceN(ctx, p, pool, warmupTopic, s.Warmup); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		} else if a.errs.Load() > 0 {
			return nil, fmt.Errorf("warm-up: %d errors, first: %s", a.errs.Load(), *a.firstErr.Load())
		}
	}

	var out []phaseResult
	b := beginPhase()
	if err := mark("produce", 0); err != nil {
		return nil, err
	}
	stopProfile := profilePhase(s, "produce")
	elapsed, a, err := produceN(ctx, p, pool, benchTopic, s.Count)
	stopProfile()
	if err != nil {
		return nil, err
	}
	if err := mark("idle", s.Count); err != nil {
		return nil, err
	}
	pr := phaseResult{Phase: "produce", Records: s.Count64(), Errors: a.errs.Load()}
	pr.Client = endPhase(b, pr.Records)
	pr.finish(elapsed, s.Size)
	if e := a.firstErr.Load(); e != nil {
		pr.FirstError = *e
	}
	if total, ok, err := p.endOffsets(ctx, benchTopic); err != nil {
		return nil, fmt.Errorf("end offsets: %w", err)
	} else if ok {
		if total != int64(s.Count) {
			return nil, fmt.Errorf("end offsets of %q sum to %d, want %d", benchTopic, total, s.Count)
		}
		pr.Verified = fmt.Sprintf("client: end offsets sum to %d", total)
	}
	if srv != nil {
		if msg, ok, err := srv.Verify(benchTopic, s.Count); err != nil {
			return nil, err
		} else if ok {
			pr.Verified = joinNonEmpty(pr.Verified, "engine: "+msg)
		}
	}
	out = append(out, pr)
	closed = true
	if err := p.close(); err != nil {
		return out, fmt.Errorf("close producer: %w", err)
	}
	if pr.Errors > 0 {
		return out, fmt.Errorf("produce: %d errors, first: %s", pr.Errors, pr.FirstError)
	}

	if !s.Consume {
		return out, nil
	}
	if st.newConsumer == nil {
		return out, nil // reported as "not built" by the orchestrator
	}
	cr, err := consumeAll(ctx, st, s, addrs, pool, mark)
	if err != nil {
		return out, err
	}
	return append(out, cr), nil
}

func (s *spec) Count64() int64 { return int64(s.Count) }

func consumeAll(ctx context.Context, st *stackImpl, s *spec, addrs []string, pool *valuePool, mark marker) (phaseResult, error) {
	check := newConsumeCheck(pool)
	b := beginPhase()
	if err := mark("consume", 0); err != nil {
		return phaseResult{}, err
	}
	stopProfile := profilePhase(s, "consume")
	start := time.Now()
	c, err := st.newConsumer(ctx, s, addrs, benchTopic)
	if err != nil {
		stopProfile()
		return phaseResult{}, fmt.Errorf("%s consumer: %w", st.name, err)
	}
	defer func() { _ = c.close() }()
	want := int64(s.Count)
	for check.n < want {
		if err := c.poll(ctx, check.record); err != nil {
			stopProfile()
			return phaseResult{}, fmt.Errorf("poll after %d records: %w", check.n, err)
		}
	}
	elapsed := time.Since(start)
	stopProfile()
	if err := mark("idle", s.Count); err != nil {
		return phaseResult{}, err
	}
	cr := phaseResult{Phase: "consume", Records: check.n}
	cr.Client = endPhase(b, cr.Records)
	cr.finish(elapsed, s.Size)
	msg, err := check.verdict(s.Count)
	if err != nil {
		return cr, err
	}
	cr.Verified = msg
	return cr, nil
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
