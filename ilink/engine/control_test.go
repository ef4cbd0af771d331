package engine

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func TestControlDropReply(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	var seen atomic.Pointer[ControlEvent]
	remove := e.Control(func(ev *ControlEvent) ControlAction {
		if ev.Code != wire.CodePut {
			return ControlAction{}
		}
		seen.Store(ev)
		return ControlAction{DropReply: true}
	})
	c := localSession(t, e, wire.ModeAutoCommit)
	corr := c.send(wire.CodePut, 0, &wire.PutRequest{Queue: "Q", MsgID: msgID(1), Payload: []byte("p")})
	c.expectClosed()
	// Handled before the close: the put is committed.
	wantDepth(t, e, "Q", 1, "after a dropped reply (the request is handled)")
	ev := seen.Load()
	var req wire.PutRequest
	if ev == nil || ev.Node != 1 || ev.Corr != corr || wire.Decode(ev.Body, &req) != nil || !bytes.Equal(req.Payload, []byte("p")) {
		t.Fatalf("control event %+v", ev)
	}
	remove()
	remove() // idempotent
	c = localSession(t, e, wire.ModeAutoCommit)
	c.put("Q", 2, "q")
}

func TestControlDelayKeepsOrder(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	const delay = 150 * time.Millisecond
	c := localSession(t, e, wire.ModeAutoCommit)
	first := c.corr + 1
	remove := e.Control(func(ev *ControlEvent) ControlAction {
		if ev.Code == wire.CodePing && ev.Corr == first {
			return ControlAction{Delay: delay}
		}
		return ControlAction{}
	})
	defer remove()
	start := time.Now()
	a := c.send(wire.CodePing, 0, &wire.Empty{})
	b := c.send(wire.CodePing, 0, &wire.Empty{})
	if a != first {
		t.Fatalf("test setup: corr %d, want %d", a, first)
	}
	if eb := c.read(a, nil); eb != nil {
		t.Fatal(errText(eb))
	}
	if el := time.Since(start); el < delay {
		t.Fatalf("delayed reply after %v, want at least %v", el, delay)
	}
	if eb := c.read(b, nil); eb != nil { // read fails the test if b overtook a
		t.Fatal(errText(eb))
	}
}

func TestControlRejectAndCloseNow(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	remove := e.Control(func(ev *ControlEvent) ControlAction {
		if ev.Code == wire.CodePut {
			return ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrLoading, Tail: "injected"}, RejectReport: wire.ReportLoading}
		}
		return ControlAction{}
	})
	c := localSession(t, e, wire.ModeAutoCommit)
	corr := c.send(wire.CodePut, 0, &wire.PutRequest{Queue: "Q", MsgID: msgID(1)})
	f, err := c.next()
	if err != nil {
		t.Fatal(err)
	}
	eb := c.check(f, corr, nil)
	if eb == nil || eb.Name != wire.ErrLoading || eb.Tail != "injected" || f.hdr.Status != wire.ReportLoading {
		t.Fatalf("rejected PUT: %s status %d", errText(eb), f.hdr.Status)
	}
	wantDepth(t, e, "Q", 0, "after a rejected request (it must not be handled)")
	c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil) // connection kept
	remove()
	c.put("Q", 1, "ok")

	// CloseNow: closed at once, the request is not handled.
	remove = e.Control(func(ev *ControlEvent) ControlAction {
		return ControlAction{CloseNow: ev.Code == wire.CodeGet}
	})
	defer remove()
	c.send(wire.CodeGet, 0, &wire.GetRequest{Queue: "Q"})
	c.expectClosed()
	wantDepth(t, e, "Q", 1, "after the closed-now GET (it must not be handled)")
}

func TestControlChainFirstActionWins(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	var calls [3]atomic.Int32
	r1 := e.Control(func(*ControlEvent) ControlAction { calls[0].Add(1); return ControlAction{} })
	r2 := e.Control(func(ev *ControlEvent) ControlAction {
		calls[1].Add(1)
		if ev.Code == wire.CodePing {
			return ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrInternal}}
		}
		return ControlAction{}
	})
	r3 := e.Control(func(*ControlEvent) ControlAction { calls[2].Add(1); return ControlAction{} })
	defer r1()
	defer r3()
	c := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin) // HELLO: all three see it
	wantErrName(t, c.call(wire.CodePing, 0, &wire.Empty{}, nil), wire.ErrInternal, "PING")
	if a, b, x := calls[0].Load(), calls[1].Load(), calls[2].Load(); a != 2 || b != 2 || x != 1 {
		t.Fatalf("calls %d %d %d, want 2 2 1", a, b, x)
	}
	r2()
	c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
}

// Outage closes every listener and connection and keeps the state; after
// EndOutage the nodes listen on the same ports, elect, and hold what they
// held.
func TestOutageKeepsState(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{ElectionDelay: 100 * time.Millisecond}, "T", "partitions=1,replicas=3")
	p := localSession(t, e, wire.ModeProducer)
	p.mustProduce("T", topicEpoch(t, e, "T"), 0, plainBatch(t, "a", "b"))
	if err := e.Outage(); err != nil {
		t.Fatal(err)
	}
	p.expectClosed()
	for _, a := range append(e.DataAddrs(), e.AdminAddrs()...) {
		if c, err := dialTimeout(a); err == nil {
			c.Close()
			t.Fatalf("%s accepts connections during the outage", a)
		}
	}
	if err := e.Outage(); err == nil {
		t.Fatal("a second Outage was accepted")
	}
	if err := e.EndOutage(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a leader", func() bool { return e.Leader() != 0 && e.PartitionLeader("T", 0) != 0 })
	openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	wantValues(t, e, "T", 0, []string{"a", "b"}, "after the outage")
}

// The fault bookkeeping holds only the controls in force: a chaos run adds
// and removes thousands (a delay or drop window each), and none stays.
func TestControlsRemovedLeaveNothing(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	keep := e.Control(func(*ControlEvent) ControlAction { return ControlAction{} })
	defer keep()
	for i := 0; i < 1000; i++ {
		remove := e.Control(func(*ControlEvent) ControlAction { return ControlAction{} })
		remove()
		remove() // a second call is a no-op
	}
	e.ctl.mu.Lock()
	n, count := len(e.ctl.list), e.ctl.count.Load()
	e.ctl.mu.Unlock()
	if n != 1 || count != 1 {
		t.Errorf("%d controls listed (count %d) after 1000 added and removed, want the 1 kept", n, count)
	}
}
