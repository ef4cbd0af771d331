package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// The tests talk to the engine over real loopback TCP with this tiny raw
// client: a frame writer and a wire.FrameReader, nothing from package ilink.

const ioTimeout = 5 * time.Second

type rawClient struct {
	t    testing.TB
	nc   net.Conn
	fr   *wire.FrameReader
	corr uint32
}

type frame struct {
	hdr  wire.Header
	body []byte
}

func dialRaw(t testing.TB, addr string) *rawClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, ioTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, fr: wire.NewFrameReader(nc, wire.HardMaxFrame)}
}

func (c *rawClient) close() { c.nc.Close() }

func dialTimeout(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, time.Second) }

// send writes one request frame and returns its correlation id.
func (c *rawClient) send(code wire.Code, timeoutMs uint32, m wire.Message) uint32 {
	return c.sendFlags(code, 0, timeoutMs, m)
}

func (c *rawClient) sendFlags(code wire.Code, flags wire.Flags, timeoutMs uint32, m wire.Message) uint32 {
	c.t.Helper()
	c.corr++
	h := wire.Header{Flags: flags, Code: code, Corr: c.corr, TimeoutMs: timeoutMs}
	var enc func(*wire.Writer)
	if m != nil {
		enc = m.Encode
	}
	c.writeRaw(wire.AppendFrame(nil, h, enc))
	return c.corr
}

func (c *rawClient) writeRaw(b []byte) {
	c.t.Helper()
	c.nc.SetWriteDeadline(time.Now().Add(ioTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next reads one frame (body copied).
func (c *rawClient) next() (frame, error) {
	c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	h, body, err := c.fr.Next()
	if err != nil {
		return frame{}, err
	}
	return frame{h, append([]byte{}, body...)}, nil
}

// read reads the reply to corr and decodes it into resp (nil = ignore the
// body). It returns the error body of an error reply.
func (c *rawClient) read(corr uint32, resp wire.Message) *wire.ErrorBody {
	c.t.Helper()
	f, err := c.next()
	if err != nil {
		c.t.Fatalf("read reply to corr %d: %v", corr, err)
	}
	return c.check(f, corr, resp)
}

func (c *rawClient) check(f frame, corr uint32, resp wire.Message) *wire.ErrorBody {
	c.t.Helper()
	if !f.hdr.IsResponse() {
		c.t.Fatalf("frame for corr %d is not a response (flags %b)", f.hdr.Corr, f.hdr.Flags)
	}
	if f.hdr.Corr != corr {
		c.t.Fatalf("reply corr %d (%v), want %d", f.hdr.Corr, f.hdr.Code, corr)
	}
	if f.hdr.IsError() {
		var eb wire.ErrorBody
		if err := wire.Decode(f.body, &eb); err != nil {
			c.t.Fatalf("decode error body: %v", err)
		}
		return &eb
	}
	if resp != nil {
		if err := wire.Decode(f.body, resp); err != nil {
			c.t.Fatalf("decode %T: %v", resp, err)
		}
	}
	return nil
}

// call sends one request and reads its reply.
func (c *rawClient) call(code wire.Code, timeoutMs uint32, req, resp wire.Message) *wire.ErrorBody {
	c.t.Helper()
	return c.read(c.send(code, timeoutMs, req), resp)
}

// mustCall is call that fails the test on an error reply.
func (c *rawClient) mustCall(code wire.Code, timeoutMs uint32, req, resp wire.Message) {
	c.t.Helper()
	if eb := c.call(code, timeoutMs, req, resp); eb != nil {
		c.t.Fatalf("%v: unexpected error %s (%s)", code, eb.Name, eb.Tail)
	}
}

func (c *rawClient) hello(mode wire.SessionMode) (*wire.HelloReply, *wire.ErrorBody) {
	c.t.Helper()
	var rep wire.HelloReply
	eb := c.call(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "rawtest", ClientVersion: "0", Mode: mode, ConsumerProtocol: wire.ConsumerProtocolV2}, &rep)
	if eb != nil {
		return nil, eb
	}
	return &rep, nil
}

// expectClosed asserts that the engine closes the connection without
// sending a single byte.
func (c *rawClient) expectClosed() {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	var b [1]byte
	n, err := c.nc.Read(b[:])
	if n != 0 || err == nil {
		c.t.Fatalf("expected the connection closed without a reply, read %d bytes (err %v)", n, err)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.t.Fatalf("connection still open after %v", ioTimeout)
	}
	if !errors.Is(err, io.EOF) && !isReset(err) {
		c.t.Fatalf("expected EOF, got %v", err)
	}
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe)
}

// ---- engine helpers ----

func startEngine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	if cfg.ElectionDelay == 0 {
		cfg.ElectionDelay = 200 * time.Millisecond
	}
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	e, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// session dials addr and opens a session in mode, failing on refusal.
func openSession(t testing.TB, addr string, mode wire.SessionMode) *rawClient {
	t.Helper()
	c := dialRaw(t, addr)
	if _, eb := c.hello(mode); eb != nil {
		t.Fatalf("HELLO %s on %s refused: %s (%s)", modeName(mode), addr, eb.Name, eb.Tail)
	}
	return c
}

func leaderAddr(t testing.TB, e *Engine) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	l, err := e.WaitLeader(ctx)
	if err != nil {
		t.Fatalf("WaitLeader: %v", err)
	}
	return e.DataAddrs()[l-1]
}

func msgID(n int) []byte {
	id := make([]byte, wire.MsgIDLen)
	copy(id, "msg-")
	binary.BigEndian.PutUint64(id[8:], uint64(n))
	return id
}

func (c *rawClient) put(q string, n int, payload string) *wire.PutReply {
	c.t.Helper()
	var rep wire.PutReply
	c.mustCall(wire.CodePut, 0, &wire.PutRequest{Queue: q, MsgID: msgID(n), Payload: []byte(payload)}, &rep)
	return &rep
}

// get returns the next message, or nil on MIMQE_NO_MSG.
func (c *rawClient) get(q string, wait time.Duration) *wire.GetReply {
	c.t.Helper()
	var rep wire.GetReply
	eb := c.call(wire.CodeGet, uint32(wait/time.Millisecond), &wire.GetRequest{Queue: q}, &rep)
	if eb != nil {
		if eb.Name == wire.ErrNoMessage {
			return nil
		}
		c.t.Fatalf("GET %s: %s (%s)", q, eb.Name, eb.Tail)
	}
	return &rep
}

func (c *rawClient) commit() {
	c.t.Helper()
	c.mustCall(wire.CodeCommit, 0, &wire.Empty{}, nil)
}

func (c *rawClient) rollback() {
	c.t.Helper()
	c.mustCall(wire.CodeRollback, 0, &wire.Empty{}, nil)
}

// drain gets every message with no wait and returns the payloads.
func (c *rawClient) drain(q string) []string {
	c.t.Helper()
	var out []string
	for {
		m := c.get(q, 0)
		if m == nil {
			return out
		}
		out = append(out, string(m.Payload))
	}
}

func mustCreate(t testing.TB, e *Engine, q string) {
	t.Helper()
	if err := e.CreateQueue(q); err != nil {
		t.Fatal(err)
	}
}

func depth(t testing.TB, e *Engine, q string) int {
	t.Helper()
	d, err := e.QueueDepth(q)
	if err != nil {
		t.Fatalf("QueueDepth(%s): %v", q, err)
	}
	return d
}

// eventually polls cond for up to 5s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(ioTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("timed out waiting for %s; goroutines:\n%s", what, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func errText(eb *wire.ErrorBody) string {
	if eb == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%s (%s) hint %q", eb.Name, eb.Tail, eb.Hint)
}

// tryCall is call without test failures on I/O errors, for clients that
// live through failovers.
func (c *rawClient) tryCall(code wire.Code, timeoutMs uint32, req, resp wire.Message) (*wire.ErrorBody, error) {
	c.corr++
	h := wire.Header{Code: code, Corr: c.corr, TimeoutMs: timeoutMs}
	c.nc.SetWriteDeadline(time.Now().Add(ioTimeout))
	if _, err := c.nc.Write(wire.AppendFrame(nil, h, req.Encode)); err != nil {
		return nil, err
	}
	f, err := c.next()
	if err != nil {
		return nil, err
	}
	if f.hdr.Corr != c.corr {
		return nil, fmt.Errorf("corr %d, want %d", f.hdr.Corr, c.corr)
	}
	if f.hdr.IsError() {
		var eb wire.ErrorBody
		if err := wire.Decode(f.body, &eb); err != nil {
			return nil, err
		}
		return &eb, nil
	}
	if resp != nil {
		if err := wire.Decode(f.body, resp); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// dialLeader connects a queue session to the leader, following hints, or
// returns nil.
func dialLeader(addrs []string, mode wire.SessionMode) *rawClient {
	for _, a := range addrs {
		for hop := 0; hop < 2 && a != ""; hop++ {
			nc, err := net.DialTimeout("tcp", a, time.Second)
			if err != nil {
				break
			}
			c := &rawClient{t: nopTB{}, nc: nc, fr: wire.NewFrameReader(nc, wire.HardMaxFrame)}
			var rep wire.HelloReply
			eb, err := c.tryCall(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "failover", Mode: mode}, &rep)
			if err == nil && eb == nil {
				return c
			}
			nc.Close()
			a = ""
			if eb != nil {
				a = eb.Hint
			}
		}
	}
	return nil
}

// nopTB satisfies testing.TB for clients used only through tryCall.
type nopTB struct{ testing.TB }

func (nopTB) Helper() {}
