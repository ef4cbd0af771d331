package engine

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"ilinkdash/ilink/wire"
)

// sendRaw writes one request frame with body as its bytes.
func (c *rawClient) sendRaw(code wire.Code, body []byte) uint32 {
	c.t.Helper()
	c.corr++
	c.writeRaw(wire.AppendFrame(nil, wire.Header{Code: code, Corr: c.corr}, func(w *wire.Writer) { w.B = append(w.B, body...) }))
	return c.corr
}

// helloStating is a HELLO body whose layout list (docs/PROTOCOL.md §6)
// states the given bodies at the given versions, written byte by byte.
func helloStating(mode wire.SessionMode, ls ...wire.BodyLayout) []byte {
	w := wire.Writer{B: wire.Encode(nil, &wire.HelloRequest{ClientName: "rawtest", ClientVersion: "0", Mode: mode, ConsumerProtocol: wire.ConsumerProtocolV2})}
	w.ArrayLen(len(ls))
	for _, l := range ls {
		w.String(l.Body)
		w.U8(l.Version)
	}
	return w.B
}

// wantUnsupported requires the error reply of a layout the engine does
// not speak: REPORT 4157 MIMQE_UNSUPPORTED with the version tail.
func wantUnsupported(t *testing.T, c *rawClient, what string, eb *wire.ErrorBody, tail string) {
	t.Helper()
	if eb == nil || eb.Name != wire.ErrUnsupported || eb.Tail != tail || c.report != wire.ReportUnsupported {
		t.Fatalf("%s: %s (REPORT %d), want REPORT 4157 MIMQE_UNSUPPORTED (%s)", what, errText(eb), c.report, tail)
	}
}

// A client that says in HELLO it speaks version 2 of PutRequest gets its
// PUT refused with MIMQE_UNSUPPORTED naming the body and both versions,
// whatever its bytes, instead of the close of a body that does not decode;
// nothing is stored and the session goes on. A client stating a reply
// body's version 2 gets the request refused the same way, and a bad list
// is refused at HELLO.
func TestUnsupportedLayoutVersion(t *testing.T) {
	t.Parallel()
	var logMu sync.Mutex
	var logs []string
	e := startEngine(t, Config{Logf: func(f string, a ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		logs = append(logs, fmt.Sprintf(f, a...))
	}})
	mustCreate(t, e, "Q1")
	addr := e.DataAddrs()[0]
	// A PUT body that does not decode in version 1: "Q1", then 0x31 where
	// the msg_id bytes' length belongs, running past the body.
	badPut := []byte{2, 'Q', '1', 0x31}

	c := dialRaw(t, addr)
	var rep wire.HelloReply
	if eb := c.check(mustNext(t, c, c.sendRaw(wire.CodeHello, helloStating(wire.ModeAutoCommit, wire.BodyLayout{Body: "PutRequest", Version: 2}))), c.corr, &rep); eb != nil {
		t.Fatalf("HELLO stating PutRequest v2: %s", errText(eb))
	}
	var dep wire.DepthReply
	c.mustCall(wire.CodeOpenQueue, 0, &wire.QueueRequest{Queue: "Q1"}, &dep)
	eb := c.read(c.sendRaw(wire.CodePut, badPut), nil)
	wantUnsupported(t, c, "PUT in layout v2", eb, "PutRequest layout v2 - engine speaks v1")
	eb = c.call(wire.CodePut, 0, &wire.PutRequest{Queue: "Q1", MsgID: msgID(1), Payload: []byte("x")}, nil)
	wantUnsupported(t, c, "PUT of version-1 bytes", eb, "PutRequest layout v2 - engine speaks v1")
	c.mustCall(wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: "Q1"}, &dep)
	if dep.Depth != 0 {
		t.Fatalf("depth %d after two refused PUTs, want 0", dep.Depth)
	}

	// A reply layout: the request is refused, not answered in bytes the
	// client would misread.
	c2 := dialRaw(t, addr)
	if eb := c2.check(mustNext(t, c2, c2.sendRaw(wire.CodeHello, helloStating(wire.ModeAutoCommit, wire.BodyLayout{Body: "DepthReply", Version: 2}))), c2.corr, &rep); eb != nil {
		t.Fatalf("HELLO stating DepthReply v2: %s", errText(eb))
	}
	eb = c2.call(wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: "Q1"}, nil)
	wantUnsupported(t, c2, "QUEUE DEPTH answered in DepthReply", eb, "DepthReply layout v2 - engine speaks v1")
	c2.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)

	// Without a list the same bytes are a body that does not decode: the
	// connection is closed without a reply (docs/PROTOCOL.md §1).
	c3 := openSession(t, addr, wire.ModeAutoCommit)
	c3.sendRaw(wire.CodePut, badPut)
	c3.expectClosed()
	// The engine's log names the request and the body that failed.
	logMu.Lock()
	joined := strings.Join(logs, "\n")
	logMu.Unlock()
	if !strings.Contains(joined, "PUT(1101): decode *wire.PutRequest: ") {
		t.Fatalf("no log line names PUT and PutRequest:\n%s", joined)
	}

	// A bad list is a refusal of the HELLO, then the close; a list cut
	// short is a body that does not decode.
	for _, bad := range []struct {
		l    wire.BodyLayout
		tail string
	}{
		{wire.BodyLayout{Body: "PutRequest", Version: 0}, "layout version 0 of PutRequest (versions start at 1)"},
		{wire.BodyLayout{Body: "HelloReply", Version: 2}, "layout version 2 of HelloReply (it has no versions)"},
	} {
		c4 := dialRaw(t, addr)
		eb := c4.read(c4.sendRaw(wire.CodeHello, helloStating(wire.ModeAutoCommit, bad.l)), nil)
		if eb == nil || eb.Name != wire.ErrInvalidArgument || eb.Tail != bad.tail {
			t.Fatalf("HELLO stating %+v: %s, want MIMQE_INVALID_ARGUMENT (%s)", bad.l, errText(eb), bad.tail)
		}
		c4.expectClosed()
	}
	cut := helloStating(wire.ModeAutoCommit, wire.BodyLayout{Body: "PutRequest", Version: 2})
	c5 := dialRaw(t, addr)
	c5.sendRaw(wire.CodeHello, cut[:len(cut)-1])
	c5.expectClosed()
}

// An engine whose PutRequest is at version 2 refuses the PUT of a client
// that stated no list (every body at version 1), and a HELLO of the same
// build states the table by itself, so that client's PUT goes through.
// Not parallel: it swaps wire.LayoutVersions for the engine and the client.
func TestUnsupportedLayoutOfOlderClient(t *testing.T) {
	oldHello := wire.Encode(nil, &wire.HelloRequest{ClientName: "old", ClientVersion: "0", Mode: wire.ModeAutoCommit})
	saved := wire.LayoutVersions
	t.Cleanup(func() { wire.LayoutVersions = saved }) // after the engine's close
	wire.LayoutVersions = map[string]uint8{"PutRequest": 2}
	e := queueEngine(t, "Q1")
	addr := e.DataAddrs()[0]
	put := &wire.PutRequest{Queue: "Q1", MsgID: msgID(1), Payload: []byte("x")}

	old := dialRaw(t, addr)
	if eb := old.read(old.sendRaw(wire.CodeHello, oldHello), &wire.HelloReply{}); eb != nil {
		t.Fatalf("HELLO without a list: %s", errText(eb))
	}
	wantUnsupported(t, old, "PUT of a client at v1", old.call(wire.CodePut, 0, put, nil), "PutRequest layout v1 - engine speaks v2")

	same := openSession(t, addr, wire.ModeAutoCommit)
	var pr wire.PutReply
	same.mustCall(wire.CodePut, 0, put, &pr)
	if pr.Depth != 1 {
		t.Fatalf("depth %d after the PUT of a client at v2, want 1", pr.Depth)
	}
}

func mustNext(t *testing.T, c *rawClient, corr uint32) frame {
	t.Helper()
	f, err := c.next()
	if err != nil {
		t.Fatalf("read reply to corr %d: %v", corr, err)
	}
	return f
}
