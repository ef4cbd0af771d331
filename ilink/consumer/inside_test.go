package consumer

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// awaitCallback fails the test when the callback's call through its
// Inside does not return in time: it waits for itself.
func awaitCallback(t *testing.T, what string, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return: the callback waits for itself", what)
	}
}

// awaitClosed checks that the consumer ended: reads fail as closed and
// the group goroutine is over.
func awaitClosed(t *testing.T, c *Consumer) {
	t.Helper()
	if _, err := c.Read(context.Background(), 0); !ilink.HasName(err, ilink.NameSessionClosed) {
		t.Fatalf("Read after the close from inside: %v, want %s", err, ilink.NameSessionClosed)
	}
	c.g.runMu.Lock()
	running, done := c.g.cancel != nil, c.g.done
	c.g.runMu.Unlock()
	if running {
		t.Fatal("the group loop is still on")
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the group goroutine did not end")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
}

func TestCloseFromInsideListener(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 5)
	c := mustSubscribe(t, fc.addr(), "T", testOptions(t, "in-l"))
	closed := make(chan error, 1)
	// The listener, from its callback's Inside: c.listen may already be
	// cleared by the close when the test looks.
	running := make(chan *listener, 1)
	var calls atomic.Int64
	c.Listen(func(in Inside, r *Record) {
		switch calls.Add(1) {
		case 1:
			running <- in.l
		case 2:
			closed <- in.Close()
		}
	}, nil)
	awaitCallback(t, "Inside.Close from a listener callback", closed)
	l := <-running
	select {
	case <-l.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the listener did not end")
	}
	// The callback that closed is the last one; Close committed the two
	// records handed over and left.
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d callbacks, want 2", n)
	}
	if got, _ := fc.commit("in-l", "T", 0); got != 2 {
		t.Fatalf("commit at close: %d, want 2", got)
	}
	if n := fc.memberCount("in-l"); n != 0 {
		t.Fatalf("%d members after the close", n)
	}
	awaitClosed(t, c)
}

func TestCloseFromInsideRebalance(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 10)
	o := testOptions(t, "in-rb")
	o.Expiry = 200 * time.Millisecond
	o.AutoCommitInterval = time.Hour
	closed := make(chan error, 1)
	var revokes atomic.Int64
	o.OnRebalance = func(in Inside, a, r []wire.TopicPartitions) {
		// The first call is Subscribe's assignment; the expiry revokes
		// from the group goroutine.
		if len(r) > 0 && revokes.Add(1) == 1 {
			closed <- in.Close()
		}
	}
	c := mustSubscribe(t, fc.addr(), "T", o)
	readN(t, c, 3, 5*time.Second)
	awaitCallback(t, "Inside.Close from OnRebalance", closed)
	if n := fc.memberCount("in-rb"); n != 0 {
		t.Fatalf("%d members after the close", n)
	}
	awaitClosed(t, c)
	if n := revokes.Load(); n != 1 {
		t.Fatalf("%d revoking rebalances, want 1", n)
	}
}

func TestUnsubscribeFromInsideRebalance(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 10)
	o := testOptions(t, "in-u")
	o.Expiry = 200 * time.Millisecond
	done := make(chan error, 1)
	var revokes atomic.Int64
	o.OnRebalance = func(in Inside, a, r []wire.TopicPartitions) {
		if len(r) > 0 && revokes.Add(1) == 1 {
			done <- in.Unsubscribe(context.Background())
		}
	}
	c := mustSubscribe(t, fc.addr(), "T", o)
	readN(t, c, 3, 5*time.Second)
	awaitCallback(t, "Inside.Unsubscribe from OnRebalance", done)
	if fc.groupExists("in-u") {
		t.Fatal("group still exists")
	}
	awaitClosed(t, c)
}

// An Inside kept after its callback is no longer inside anything: used
// from elsewhere it stops the listener that runs now and waits for it, as
// Consumer.StopListening does.
func TestInsideKeptWaitsLikeOutside(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 1)
	c := mustSubscribe(t, fc.addr(), "T", testOptions(t, "in-k"))
	kept := make(chan Inside, 1)
	c.Listen(func(in Inside, r *Record) {
		select {
		case kept <- in:
		default:
		}
	}, nil)
	var in Inside
	select {
	case in = <-kept:
	case <-time.After(10 * time.Second):
		t.Fatal("no callback")
	}
	var started, ended, late atomic.Int64
	var stopped atomic.Bool
	c.Listen(func(_ Inside, r *Record) {
		if stopped.Load() {
			late.Add(1)
		}
		started.Add(1)
		time.Sleep(20 * time.Millisecond) // likely in a callback when the stop comes
		ended.Add(1)
	}, nil)
	fc.produce("T", 0, 50, wire.CodecNone)
	ilinktest.WaitFor(t, 5*time.Second, "the second listener runs", func() bool { return started.Load() > 0 })
	in.StopListening()
	stopped.Store(true)
	if s, e := started.Load(), ended.Load(); s != e {
		t.Fatalf("the kept Inside's StopListening returned during a callback (%d started, %d ended)", s, e)
	}
	n := started.Load()
	time.Sleep(100 * time.Millisecond) // letting time pass: no callback may start within it
	if late.Load() != 0 || started.Load() != n {
		t.Fatalf("%d callbacks after the kept Inside's StopListening returned", started.Load()-n)
	}
}
