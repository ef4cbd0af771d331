package ilink

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// A producer whose engine stopped answering (replies held, the connection
// alive: a hung or paused node) closes at once with an ended context: the
// records not acknowledged fail, a Send blocked on full buffer memory
// returns, and nothing waits for the delivery timeout. This is what lets
// `ilinkdash publish` stop within 2 s of SIGINT whatever the cluster does.
func TestProducerCloseContextDoesNotWaitForAHungEngine(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=2"})
	var hang atomic.Bool
	release := make(chan struct{})
	defer close(release)
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeProduce && hang.Load() {
			return engine.ControlAction{Delay: time.Hour}
		}
		return engine.ControlAction{}
	})
	const bufMem = 16 << 10
	p, err := NewProducer(testCtx(t), joinAddrs(e.DataAddrs()), ProducerConfig{BufferMemory: bufMem, BatchSize: 2048, LingerMs: 1, Logf: testLogf(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Value: []byte("warm")}); err != nil {
		t.Fatal(err)
	}
	hang.Store(true)
	var sent, done atomic.Int64
	cb := func(RecordMetadata, error) { done.Add(1) }
	senderDone := make(chan struct{})
	go func() {
		defer close(senderDone)
		v := make([]byte, 200)
		for p.Stats().BufferedBytes >= 0 {
			sent.Add(1)
			p.Send(&ProducerRecord{Topic: "T", Value: v}, cb) // blocks once the buffer is full
			if p.closing.Load() {
				return
			}
		}
	}()
	// Wait until the sender is blocked on buffer memory.
	if !ilinktest.Poll(10*time.Second, p.memFreed.waiting) {
		t.Fatal("the sender never blocked on buffer memory")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	closed := make(chan error, 1)
	go func() { closed <- p.CloseContext(ctx) }()
	select {
	case err := <-closed:
		if err == nil {
			t.Fatal("CloseContext with records pending = nil, want the context's error")
		}
	case <-time.After(10 * time.Second): // the delivery timeout is 120 s
		t.Fatal("CloseContext waited for the hung engine")
	}
	select {
	case <-senderDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked Send did not return")
	}
	if s, d := sent.Load(), done.Load(); s != d {
		t.Fatalf("%d records sent, %d completed: every pending record must fail at close", s, d)
	}
}

// A connection dialled while the producer shuts down is closed, not
// installed: shutdown closes the sinks' connections once, so one installed
// after it would stay open, and a batch sent on it to an engine that holds
// its replies would never complete (CloseContext then waited 5 s for it,
// and its records' callbacks never ran).
func TestSinkInstallsNoConnectionAfterShutdown(t *testing.T) {
	t.Parallel()
	p, s := oneSinkProducer(t)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	late := dialSinkNode(t, s) // a dial that ended after the shutdown began
	got := s.install(late)
	s.mu.Lock()
	installed := s.conn == late
	s.mu.Unlock()
	if installed || got.Err() == nil {
		t.Fatalf("after Close: installed %v, the connection returned alive %v; want it closed and not installed", installed, got.Err() == nil)
	}
}

// Shutdown closes every connection a request is still out on, not only
// each sink's current one: a connection replaced while it drained (a
// follower rejection poisoned it) holds requests that an engine holding
// its replies would never complete.
func TestShutdownClosesDrainingConnections(t *testing.T) {
	t.Parallel()
	p, s := oneSinkProducer(t)
	draining := dialSinkNode(t, s)
	s.mu.Lock()
	s.reqs = append(s.reqs, &produceReq{s: s, conn: draining}) // out on it, unanswered
	s.mu.Unlock()
	p.shutdown()
	if draining.Err() == nil {
		t.Fatal("shutdown left open a connection a request is still out on")
	}
}

// oneSinkProducer is a producer that has sent one record to topic T (one
// partition) of an engine of its own, and the sink of T's leader.
func oneSinkProducer(t *testing.T) (*Producer, *sink) {
	t.Helper()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	p, err := NewProducer(testCtx(t), joinAddrs(e.DataAddrs()), ProducerConfig{Logf: testLogf(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Value: []byte("warm")}); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.sinks {
		return p, s
	}
	t.Fatal("no sink after a record was acknowledged")
	return nil, nil
}

// dialSinkNode is a connection, as s's producer makes them, to s's node,
// closed when the test ends.
func dialSinkNode(t *testing.T, s *sink) *Conn {
	t.Helper()
	s.p.mu.Lock()
	cfg := s.p.connCfg
	s.p.mu.Unlock()
	c, err := DialConn(testCtx(t), s.addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
