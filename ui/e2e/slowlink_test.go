package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// newProducer connects a real producer to e's data addresses; the caller
// closes it.
func newProducer(ctx context.Context, t testing.TB, e *engine.Engine, cfg ilink.ProducerConfig) *ilink.Producer {
	t.Helper()
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), cfg)
	if err != nil {
		t.Fatalf("producer: %v", err)
	}
	return p
}

// produce sends n records keyed "k-<from+i>" with a real producer and
// waits for every acknowledgement.
func produce(t testing.TB, e *engine.Engine, topic string, from, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	p := newProducer(ctx, t, e, ilink.ProducerConfig{ClientName: "e2e-producer"})
	defer p.Close()
	var failed atomic.Value
	for i := from; i < from+n; i++ {
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: fmt.Appendf(nil, "k-%d", i), Value: fmt.Appendf(nil, `{"n":%d}`, i)}, func(_ ilink.RecordMetadata, err error) {
			if err != nil {
				failed.Store(err)
			}
		})
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

// countFetches counts the FETCH requests the engine receives.
func countFetches(t testing.TB, e *engine.Engine) *atomic.Int64 {
	var n atomic.Int64
	t.Cleanup(e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeFetch {
			n.Add(1)
		}
		return engine.ControlAction{}
	}))
	return &n
}

// tailing starts an engine with topic (one partition), counting the
// FETCH requests it gets, and a dashboard tailing topic live, which n
// records produced have reached.
func tailing(t *testing.T, topic string, n int) (*engine.Engine, *dash, *atomic.Int64) {
	t.Helper()
	e := engineWithTopic(t, topic, "partitions=1,replicas=1")
	fetches := countFetches(t, e)
	d := startDash(t, e, dashOpts{})
	d.tailLive(topic)
	produce(t, e, topic, 0, n)
	d.waitText(fmt.Sprintf("%d total", n))
	return e, d, fetches
}

// TestTailPauseIsBackPressure: space pauses the tail's consumer itself. The
// engine gets no FETCH while paused, the header counts the records
// waiting from end offsets, and resume continues from where the tail
// stopped: every record received once, so "N total" equals what was
// published since the tail opened.
func TestTailPauseIsBackPressure(t *testing.T) {
	t.Parallel()
	const topic = "E2E.PAUSE"
	e, d, fetches := tailing(t, topic, 200) // one partition: a duplicate would come before the marker
	d.keys("space")
	d.waitFor("the pause in effect (waiting counted)", func(s string) bool {
		return strings.Contains(s, "⏸ PAUSED · 0 newer waiting") && !strings.Contains(s, "counting")
	})
	before := fetches.Load()
	produce(t, e, topic, 200, 500)
	d.waitText("⏸ PAUSED · 500 newer waiting", "200 total")
	if n := fetches.Load() - before; n != 0 {
		t.Fatalf("%d FETCH requests reached the engine while the tail was paused", n)
	}
	d.keys("space")
	d.waitText("700 total", "● live")
	// A marker after everything: in one partition, a duplicate or a
	// re-read would arrive before it and make the total overshoot.
	produce(t, e, topic, 700, 1)
	s := d.waitText("701 total", "k-700")
	if strings.Contains(s, "dropped") {
		t.Fatalf("records dropped by the pause:\n%s", s)
	}
}

// TestTailJumpWhileCatchingUp: o during the catch-up of a backlog larger
// than the stream's channel jumps (it used to stay on "jumping…"), and the
// header then says where the tail reads from.
func TestTailJumpWhileCatchingUp(t *testing.T) {
	t.Parallel()
	const topic = "E2E.BACKLOG"
	e := engineWithTopic(t, topic, "partitions=2,replicas=1")
	produce(t, e, topic, 0, 60000)
	d := startDash(t, e, dashOpts{})
	d.openTail(topic, "earliest")
	d.keys("o")
	d.waitText("Jump to an offset or a time", "Times: 2026-11-30 10:00 · 10:00 (today)")
	d.keys("enter") // the dialog opens navigating: enter edits
	d.typeText("latest")
	d.keys("enter")
	d.waitText("temporary group · jumped to the latest records", "● live")
	d.markNow()
	produce(t, e, topic, 60000, 3)
	s := d.waitText("k-60000", "k-60001", "k-60002")
	if strings.Contains(s, "k-59999") {
		t.Fatalf("a record from before the jump is shown:\n%s", s)
	}
}
