package engine

import (
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// A client that sends 3 header bytes and goes silent is dropped after
// FrameTimeout, and one that goes silent between frames after IdleTimeout,
// on data and admin listeners alike; the engine forgets their sessions.
func TestHalfOpenConnectionsTimedOut(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1, FrameTimeout: 200 * time.Millisecond, IdleTimeout: 400 * time.Millisecond})
	for _, addr := range []string{e.DataAddrs()[0], e.AdminAddrs()[0]} {
		stalled := dialRaw(t, addr)
		stalled.writeRaw(header(wire.CodePing, 1, wire.HeaderSize)[:3])
		start := time.Now()
		stalled.expectClosed()
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: a stalled frame was dropped after %v", addr, d)
		}
	}
	idle := localSession(t, e, wire.ModeProducer)
	idle.expectClosed()
	eventually(t, "the sessions forgotten", func() bool { return e.SessionCount(1) == 0 })
}

// A client that keeps talking is never cut, however long it stays.
func TestActiveConnectionKept(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1, FrameTimeout: 100 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	c := localSession(t, e, wire.ModeProducer)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
		time.Sleep(50 * time.Millisecond) // under test: gaps shorter than IdleTimeout, for longer than it
	}
}

// Over MaxConnections, a listener answers the first request (the HELLO)
// with MIMQE_TOO_MANY_CONNECTIONS and closes the connection; once one
// closes, a new one is accepted.
func TestListenerConnectionCap(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1, MaxConnections: 2})
	addr := e.DataAddrs()[0]
	a := openSession(t, addr, wire.ModeProducer)
	openSession(t, addr, wire.ModeProducer)
	over := dialRaw(t, addr)
	_, eb := over.hello(wire.ModeProducer)
	want := "MIMQE_TOO_MANY_CONNECTIONS (node 1 data listener: 2 connections open, the most it accepts (MaxConnections); try again later) hint \"\""
	if got := errText(eb); got != want {
		t.Fatalf("HELLO over the cap: %s", got)
	}
	over.expectClosed()
	// The admin listener has its own cap.
	openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	a.close()
	eventually(t, "a connection slot free", func() bool { return e.SessionCount(1) == 2 })
	openSession(t, addr, wire.ModeProducer).mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
}
