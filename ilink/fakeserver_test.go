package ilink

import (
	"net"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// fakeServer is a scripted iLink peer for unit tests of the connection
// layer: each accepted connection is handed to handle.
type fakeServer struct {
	t  testing.TB
	ln net.Listener
	wg sync.WaitGroup
}

func newFakeServer(t testing.TB, handle func(fc *fakeConn)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := &fakeServer{t: t, ln: ln}
	fs.wg.Add(1)
	go func() {
		defer fs.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			fs.wg.Add(1)
			go func() {
				defer fs.wg.Done()
				defer nc.Close()
				handle(&fakeConn{t: t, nc: nc, fr: wire.NewFrameReader(nc, wire.HardMaxFrame)})
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); fs.wg.Wait() })
	return fs
}

// newSessionServer is newFakeServer for a script that starts once the
// connection's HELLO has been answered (a connection that sends none is
// dropped).
func newSessionServer(t testing.TB, script func(fc *fakeConn)) *fakeServer {
	t.Helper()
	return newFakeServer(t, func(fc *fakeConn) {
		if fc.hello() {
			script(fc)
		}
	})
}

func (fs *fakeServer) addr() string { return fs.ln.Addr().String() }

type fakeConn struct {
	t  testing.TB
	nc net.Conn
	fr *wire.FrameReader
}

// read returns the next request with a copy of its body; ok is false on
// EOF or after the deadline.
func (fc *fakeConn) read(timeout time.Duration) (wire.Header, []byte, bool) {
	_ = fc.nc.SetReadDeadline(time.Now().Add(timeout))
	h, body, err := fc.fr.Next()
	if err != nil {
		return h, nil, false
	}
	return h, append([]byte(nil), body...), true
}

func (fc *fakeConn) write(h wire.Header, m wire.Message) {
	var enc func(*wire.Writer)
	if m != nil {
		enc = m.Encode
	}
	_, _ = fc.nc.Write(wire.AppendFrame(nil, h, enc))
}

// reply answers req with m.
func (fc *fakeConn) reply(req wire.Header, m wire.Message) {
	fc.write(wire.Header{Flags: wire.FlagResponse, Code: req.Code, Corr: req.Corr}, m)
}

// replyErr answers req with an error body.
func (fc *fakeConn) replyErr(req wire.Header, report uint16, eb *wire.ErrorBody) {
	fc.write(wire.Header{Flags: wire.FlagResponse | wire.FlagError, Code: req.Code, Corr: req.Corr, Status: report}, eb)
}

// hello answers the HELLO that opens the connection; nodes are data addresses.
func (fc *fakeConn) hello(nodes ...string) bool {
	h, _, ok := fc.read(5 * time.Second)
	if !ok || h.Code != wire.CodeHello {
		return false
	}
	rep := &wire.HelloReply{NodeID: 1, QueueManager: "QM1", Cluster: "C1", EngineVersion: "fake"}
	for i, a := range nodes {
		rep.Nodes = append(rep.Nodes, wire.NodeInfo{ID: uint16(i + 1), Addr: a, Leader: i == 0, Up: true})
	}
	fc.reply(h, rep)
	return true
}

// serve answers the HELLO, then hands each request read within 5s to
// handle until the client goes or handle returns false (which drops the
// connection).
func (fc *fakeConn) serve(handle func(h wire.Header, body []byte) bool) {
	if !fc.hello() {
		return
	}
	for {
		h, body, ok := fc.read(5 * time.Second)
		if !ok || !handle(h, body) {
			return
		}
	}
}
