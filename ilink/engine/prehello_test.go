package engine

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// The tests of this file are the engine side of docs/SECURITY.md's
// "Engine listeners": what a client that has not said HELLO (or says an
// oversized one) can make the engine hold, and for how long.

// logLines collects an engine's log lines, for the tests that check a
// refusal is logged.
type logLines struct {
	mu    sync.Mutex
	lines []string
	tb    testing.TB
}

func (l *logLines) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.tb.Log(line)
}

// count is the number of lines holding every one of subs.
func (l *logLines) count(subs ...string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
next:
	for _, line := range l.lines {
		for _, s := range subs {
			if !strings.Contains(line, s) {
				continue next
			}
		}
		n++
	}
	return n
}

// A HELLO string over wire.MaxHelloString (256 bytes) is refused with
// MIMQE_INVALID_ARGUMENT naming the field and both sizes, and the
// connection is closed after the reply; strings at the bound are accepted.
func TestHelloStringsBounded(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1})
	at, over := strings.Repeat("a", wire.MaxHelloString), strings.Repeat("a", wire.MaxHelloString+1)
	for _, tc := range []struct {
		addr string
		req  wire.HelloRequest
		tail string
	}{
		{e.DataAddrs()[0], wire.HelloRequest{ClientName: over, Mode: wire.ModeProducer}, "client_name is 257 bytes; at most 256"},
		{e.AdminAddrs()[0], wire.HelloRequest{ClientName: "x", ClientVersion: over + over, Mode: wire.ModeAdmin}, "client_version is 514 bytes; at most 256"},
		{e.DataAddrs()[0], wire.HelloRequest{ClientName: "x", Mode: wire.ModeConsumer, QueueManager: over}, "queue_manager is 257 bytes; at most 256"},
		// Checked before the mode: a wrong mode with a long name is refused for the name.
		{e.AdminAddrs()[0], wire.HelloRequest{ClientName: strings.Repeat("n", 3000), Mode: wire.ModeProducer}, "client_name is 3000 bytes; at most 256"},
	} {
		c := dialRaw(t, tc.addr)
		eb := c.call(wire.CodeHello, 0, &tc.req, nil)
		if eb == nil || eb.Name != wire.ErrInvalidArgument || eb.Tail != tc.tail {
			t.Fatalf("HELLO on %s: %s, want %s (%s)", tc.addr, errText(eb), wire.ErrInvalidArgument, tc.tail)
		}
		c.expectClosed()
	}
	// Every string at the bound: the session opens.
	c := dialRaw(t, e.DataAddrs()[0])
	var rep wire.HelloReply
	if eb := c.call(wire.CodeHello, 0, &wire.HelloRequest{ClientName: at, ClientVersion: at, Mode: wire.ModeProducer, QueueManager: "QM1"}, &rep); eb != nil {
		t.Fatalf("HELLO with 256-byte strings: %s", errText(eb))
	}
	c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
}

// Before HELLO the engine reads no frame over wire.MaxHandshakeFrame: a
// header claiming more closes the connection without a reply as soon as
// the header is read (FrameTimeout is a minute here: waiting for the body
// would outlast expectClosed), on both listeners. So does a HELLO or PING
// over it after HELLO, while other requests keep MaxFrame.
func TestPreHelloFrameRefusedFromHeader(t *testing.T) {
	t.Parallel()
	logs := &logLines{tb: t}
	e := startEngine(t, Config{Nodes: 1, FrameTimeout: time.Minute, Logf: logs.logf})
	for _, addr := range []string{e.DataAddrs()[0], e.AdminAddrs()[0]} {
		// The 32 MiB client name of the report, by its header alone.
		c := dialRaw(t, addr)
		c.writeRaw(header(wire.CodeHello, 1, 32<<20+64))
		c.expectClosed()
		// Any code: one byte over the bound.
		c = dialRaw(t, addr)
		c.writeRaw(header(wire.CodeGet, 1, wire.MaxHandshakeFrame+1))
		c.expectClosed()
		// At the bound, a request before HELLO is answered as before.
		c = dialRaw(t, addr)
		c.writeRaw(append(header(wire.CodeMetadata, 1, wire.MaxHandshakeFrame), make([]byte, wire.MaxHandshakeFrame-wire.HeaderSize)...))
		if f, err := c.next(); err != nil || !f.hdr.IsError() || f.hdr.Corr != 1 {
			t.Fatalf("%s: a frame at the bound before HELLO: %+v %v", addr, f.hdr, err)
		}
	}
	if n := logs.count("HELLO(1000)", "exceeds the cap of 4096 bytes (before HELLO); closing without reply"); n != 2 {
		t.Errorf("%d log lines for the oversized HELLO headers, want 2", n)
	}
	// In a session: a PING over the bound is closed from its header...
	c := localSession(t, e, wire.ModeAutoCommit)
	c.writeRaw(header(wire.CodePing, 9, wire.MaxHandshakeFrame+1))
	c.expectClosed()
	// ...a PUT of the same size is an ordinary request.
	mustCreate(t, e, "Q.BIG")
	c = localSession(t, e, wire.ModeAutoCommit)
	var rep wire.PutReply
	c.mustCall(wire.CodePut, 0, &wire.PutRequest{Queue: "Q.BIG", MsgID: msgID(1), Payload: make([]byte, 64<<10)}, &rep)
}

// A client that claims a large frame before HELLO and streams its body
// makes the engine read none of it: the engine closes the connection after
// the header, so the client's write of 32 MiB (more than the socket buffers
// hold) fails instead of completing, and the heap does not grow by what
// was sent. Not parallel: the heap is measured with no other test running.
func TestPreHelloBodyNotRead(t *testing.T) {
	e := startEngine(t, Config{Nodes: 1, FrameTimeout: time.Minute, Logf: func(string, ...any) {}})
	const conns, body = 4, 32 << 20
	frame := append(header(wire.CodeHello, 1, wire.HeaderSize+body+1), make([]byte, body)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range conns {
		addr := e.DataAddrs()[0]
		if i%2 == 1 {
			addr = e.AdminAddrs()[0]
		}
		nc, err := net.DialTimeout("tcp", addr, ioTimeout)
		if err != nil {
			t.Fatal(err)
		}
		nc.SetWriteDeadline(time.Now().Add(ioTimeout))
		n, err := nc.Write(frame)
		nc.Close()
		switch {
		case err == nil:
			t.Fatalf("%s: the engine read all %d bytes of a body it should have refused from its header", addr, n)
		case errors.Is(err, os.ErrDeadlineExceeded):
			t.Fatalf("%s: the engine neither read the body nor closed the connection (%d bytes written)", addr, n)
		}
	}
	eventually(t, "the connections gone", func() bool { return e.SessionCount(1) == 0 })
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Fatalf("heap grew by %d bytes after %d refused frames of %d bytes", grew, conns, body)
	}
	runtime.KeepAlive(frame)
}

// A connection that has not opened a session HelloTimeout after it was
// accepted is closed, idle or not (PINGs before HELLO do not keep it), and
// logged; one that said HELLO in time stays.
func TestHelloTimeout(t *testing.T) {
	t.Parallel()
	logs := &logLines{tb: t}
	e := startEngine(t, Config{Nodes: 1, HelloTimeout: 300 * time.Millisecond, Logf: logs.logf})
	for _, tc := range []struct {
		addr string
		mode wire.SessionMode
	}{{e.DataAddrs()[0], wire.ModeProducer}, {e.AdminAddrs()[0], wire.ModeAdmin}} {
		sess := openSession(t, tc.addr, tc.mode)
		idle := dialRaw(t, tc.addr)
		pinger := dialRaw(t, tc.addr)
		pinger.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
		idle.expectClosed()
		pinger.expectClosed()
		// sess was accepted before both: its HelloTimeout has passed too.
		sess.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
	}
	if n := logs.count("(HelloTimeout); closing"); n != 4 {
		t.Errorf("%d HelloTimeout log lines, want 4", n)
	}
}

// Over MaxPreHello connections without a session, a new connection closes
// the oldest of them; over MaxConnections, a new connection closes the
// oldest one without a session rather than being refused. So idle sockets
// hold at most MaxPreHello slots, and a client that says HELLO at once
// gets in while they are open. Each closing is logged.
func TestPreHelloCap(t *testing.T) {
	t.Parallel()
	// dial opens a socket that says nothing and waits until the engine
	// holds it, so the engine's order of acceptance is the test's.
	dial := func(e *Engine, want int) *rawClient {
		c := dialRaw(t, e.DataAddrs()[0])
		eventually(t, fmt.Sprintf("%d connections", want), func() bool { return e.nodes[0].data.count() == want })
		return c
	}

	// MaxPreHello: two idle sockets; a third connection, a real client,
	// closes the oldest and opens its session.
	logs := &logLines{tb: t}
	e := startEngine(t, Config{Nodes: 1, MaxPreHello: 2, Logf: logs.logf})
	idle1, idle2 := dial(e, 1), dial(e, 2)
	s := localSession(t, e, wire.ModeProducer)
	idle1.expectClosed()
	idle2.mustCall(wire.CodePing, 0, &wire.Empty{}, nil) // still open
	s.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
	if n := logs.count("node 1 data: 2 connections without a session (MaxPreHello): closing the oldest, accepted"); n != 1 {
		t.Fatalf("%d MaxPreHello log lines, want 1", n)
	}

	// MaxConnections: a listener full of one session and two idle sockets
	// lets a real client in, closing the oldest idle socket.
	logs = &logLines{tb: t}
	e = startEngine(t, Config{Nodes: 1, MaxConnections: 3, MaxPreHello: 10, Logf: logs.logf})
	s1 := localSession(t, e, wire.ModeProducer)
	idle1, idle2 = dial(e, 2), dial(e, 3)
	s2 := localSession(t, e, wire.ModeProducer)
	idle1.expectClosed()
	if n := logs.count("node 1 data: 3 connections open (MaxConnections), 2 of them without a session: closing the oldest of those"); n != 1 {
		t.Fatalf("%d MaxConnections eviction log lines, want 1", n)
	}
	eventually(t, "idle1 forgotten", func() bool { return e.nodes[0].data.count() == 3 })
	// idle2 may still say HELLO; then the listener is full of sessions,
	// and only then is a new connection refused.
	if _, eb := idle2.hello(wire.ModeProducer); eb != nil {
		t.Fatalf("idle2's HELLO: %s", errText(eb))
	}
	over := dialRaw(t, e.DataAddrs()[0])
	if _, eb := over.hello(wire.ModeProducer); eb == nil || eb.Name != wire.ErrTooManyConnections {
		t.Fatalf("HELLO over a listener full of sessions: %s", errText(eb))
	}
	over.expectClosed()
	for _, c := range []*rawClient{s1, s2, idle2} {
		c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
	}
}

// The hub's spoke listener reads nothing large from a connection that has
// not registered: a first frame over wire.MaxHandshakeFrame (here a
// REGISTER with an 8 KiB key) closes it without a reply and registers
// nothing, while a REGISTER within the bound is answered. LinkToHub
// refuses a name or key that would not fit, before it dials.
func TestSpokeListenerFirstFrameBounded(t *testing.T) {
	t.Parallel()
	e, addr := spokeHub(t, 1)
	c := dialRaw(t, addr)
	c.send(wire.CodeSpokeRegister, 0, &wire.SpokeRegisterRequest{Name: "BIG", Key: strings.Repeat("k", 8<<10), Qmgrs: []string{"QM_BIG"}})
	c.expectClosed()
	c = dialRaw(t, addr)
	if eb := c.call(wire.CodeSpokeRegister, 0, &wire.SpokeRegisterRequest{Name: "S2", Key: "K2", Qmgrs: []string{"QM_S2"}}, nil); eb != nil {
		t.Fatalf("REGISTER within the bound: %s", errText(eb))
	}
	if got := e.Spokes(); len(got) != 1 || got[0].Name != "S2" {
		t.Fatalf("spokes %+v, want S2 alone", got)
	}
	se := startEngine(t, Config{Nodes: 1, QueueManager: "QM_SE"})
	for _, tc := range []struct{ name, key, want string }{
		{strings.Repeat("s", 257), "", "engine: spoke name is 257 bytes; at most 256"},
		{"SE", strings.Repeat("k", 300), "engine: spoke key is 300 bytes; at most 256"},
	} {
		if err := se.LinkToHub(addr, tc.name, tc.key); err == nil || err.Error() != tc.want {
			t.Errorf("LinkToHub: %v, want %q", err, tc.want)
		}
	}
}
