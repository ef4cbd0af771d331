package ilink

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/wire"
)

// Integration tests run against the in-process engine over loopback TCP,
// with a short election delay.
const testElectionDelay = 300 * time.Millisecond

var engineSeq atomic.Int64

func startEngine(t *testing.T, cfg engine.Config, queues ...string) *engine.Engine {
	t.Helper()
	if cfg.ElectionDelay == 0 {
		cfg.ElectionDelay = testElectionDelay
	}
	// Ports of killed nodes are freed and may be taken by another engine on
	// the machine (parallel test runs): unique names make such a foreign
	// listener refuse our sessions instead of accepting them.
	id := NewMsgID().String()[8:16] + fmt.Sprint(engineSeq.Add(1))
	cfg.QueueManager, cfg.Cluster = "QM"+id, "C"+id
	cfg.Logf = testLogf(t)
	e := enginetest.Start(t, cfg)
	for _, q := range queues {
		if err := e.CreateQueue(q); err != nil {
			t.Fatalf("CreateQueue(%s): %v", q, err)
		}
	}
	return e
}

// testLogf logs to t in verbose mode, and stops once the test is over so
// that goroutines finishing late never log to a completed test.
func testLogf(t *testing.T) func(string, ...any) {
	if !testing.Verbose() {
		return nil
	}
	var over atomic.Bool
	t.Cleanup(func() { over.Store(true) })
	return func(format string, args ...any) {
		if !over.Load() {
			t.Logf(format, args...)
		}
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testOptions returns opt with the engine's queue manager filled in.
func testOptions(e *engine.Engine, opt Options) Options {
	if opt.QueueManager == "" {
		opt.QueueManager = e.Config().QueueManager
	}
	return opt
}

func dialT(t *testing.T, e *engine.Engine, addrs string, opt Options) *Session {
	t.Helper()
	opt = testOptions(e, opt)
	if opt.Logf == nil {
		opt.Logf = testLogf(t)
	}
	s, err := Dial(testCtx(t), addrs, opt)
	if err != nil {
		t.Fatalf("Dial(%s): %v", addrs, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func accessT(t *testing.T, s *Session, name string) *Queue {
	t.Helper()
	q, err := s.AccessQueue(testCtx(t), name)
	if err != nil {
		t.Fatalf("AccessQueue(%s): %v", name, err)
	}
	return q
}

// sampleUntilStopped calls sample every interval in a goroutine until
// stop is called (or the test ends); stop waits for the last sample.
func sampleUntilStopped(t *testing.T, interval time.Duration, sample func()) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-quit:
				return
			case <-time.After(interval):
				sample()
			}
		}
	})
	stop = sync.OnceFunc(func() {
		close(quit)
		wg.Wait()
	})
	t.Cleanup(stop)
	return stop
}

// queueT dials node 1 with opt and opens queue name on that session.
func queueT(t *testing.T, e *engine.Engine, opt Options, name string) (*Session, *Queue) {
	t.Helper()
	s := dialT(t, e, e.DataAddrs()[0], opt)
	return s, accessT(t, s, name)
}

func putT(t *testing.T, q *Queue, payload string) MsgID {
	t.Helper()
	id, err := q.Put(testCtx(t), []byte(payload))
	if err != nil {
		t.Fatalf("Put(%q): %v", payload, err)
	}
	return id
}

// drain takes every message of a queue through a fresh auto-commit session
// on the current leader.
func drain(t *testing.T, e *engine.Engine, name string) []*Message {
	t.Helper()
	ctx := testCtx(t)
	if _, err := e.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	s := dialT(t, e, joinAddrs(e.DataAddrs()), Options{AutoCommit: true})
	defer s.Close()
	q := accessT(t, s, name)
	var out []*Message
	for {
		m, err := q.Get(ctx, 0)
		if IsNoMessage(err) {
			return out
		}
		if err != nil {
			t.Fatalf("drain %s: %v", name, err)
		}
		out = append(out, m)
	}
}

func payloads(ms []*Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.Payload)
	}
	return out
}

func joinAddrs(a []string) string {
	s := ""
	for i, x := range a {
		if i > 0 {
			s += ","
		}
		s += x
	}
	return s
}

// nodeOf is the id of the node the session is connected to (0 if none).
func nodeOf(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil || s.conn.Err() != nil {
		return 0
	}
	return int(s.conn.Hello().NodeID)
}

// requestLog records the requests the engine sees, per code.
type requestLog struct {
	mu     sync.Mutex
	events []engine.ControlEvent
}

func watchRequests(e *engine.Engine) *requestLog {
	l := &requestLog{}
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		l.mu.Lock()
		l.events = append(l.events, *ev)
		l.mu.Unlock()
		return engine.ControlAction{}
	})
	return l
}

func (l *requestLog) count(code wire.Code) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, ev := range l.events {
		if ev.Code == code {
			n++
		}
	}
	return n
}

func (l *requestLog) reset() {
	l.mu.Lock()
	l.events = nil
	l.mu.Unlock()
}

// once returns a ControlFunc that applies act to the first request with
// the given code and leaves every other request alone.
func once(code wire.Code, act engine.ControlAction) engine.ControlFunc {
	var done atomic.Bool
	return func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == code && done.CompareAndSwap(false, true) {
			return act
		}
		return engine.ControlAction{}
	}
}
