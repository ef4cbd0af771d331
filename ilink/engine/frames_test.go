package engine

import (
	"encoding/binary"
	"net"
	"strconv"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// header returns a valid 25-byte header announcing a frame of length bytes.
func header(code wire.Code, corr uint32, length uint32) []byte {
	b := make([]byte, wire.HeaderSize)
	wire.PutHeader(b, wire.Header{Length: length, Code: code, Corr: corr})
	return b
}

func TestOversizeFrameClosesWithoutReply(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{MaxFrame: wire.MinMaxFrame})
	addr := e.DataAddrs()[0]

	// Above the configured cap: dropped without a reply, even with a
	// reply pending ahead of it on a pipelined connection.
	c := openSession(t, addr, wire.ModeAutoCommit)
	c.writeRaw(header(wire.CodePing, 99, wire.MinMaxFrame+1))
	// spec: W-03
	c.expectClosed()

	// Exactly at the cap: accepted.
	mustCreate(t, e, "Q")
	c = openSession(t, addr, wire.ModeAutoCommit)
	put := func(n int) *wire.PutRequest {
		return &wire.PutRequest{Queue: "Q", MsgID: msgID(1), Payload: make([]byte, n)}
	}
	n := wire.MinMaxFrame - len(wire.AppendFrame(nil, wire.Header{}, put(0).Encode))
	for len(wire.AppendFrame(nil, wire.Header{}, put(n).Encode)) > wire.MinMaxFrame {
		n--
	}
	if got := len(wire.AppendFrame(nil, wire.Header{}, put(n).Encode)); got != wire.MinMaxFrame {
		t.Fatalf("test setup: frame of %d bytes", got)
	}
	var rep wire.PutReply
	c.mustCall(wire.CodePut, 0, put(n), &rep)

	// A PING with a body is malformed (trailing bytes): closed without a
	// reply too.
	c.writeRaw(append(header(wire.CodePing, 7, wire.HeaderSize+1), 0))
	c.expectClosed()

	// Above the hard wire limit on an engine with the default cap.
	e2 := startEngine(t, Config{Nodes: 1})
	c = dialRaw(t, e2.DataAddrs()[0])
	c.writeRaw(header(wire.CodeHello, 1, wire.HardMaxFrame+1))
	// spec: W-02
	c.expectClosed()

	// Malformed headers: bad magic, bad version, short length.
	for name, mut := range map[string]func([]byte){
		"magic":    func(b []byte) { b[4] = 'X' },
		"version":  func(b []byte) { b[6] = 9 },
		"length":   func(b []byte) { binary.BigEndian.PutUint32(b, 3) },
		"reserved": func(b []byte) { b[22] = 1 },
		"response": func(b []byte) { b[7] = byte(wire.FlagResponse) },
	} {
		c := dialRaw(t, addr)
		h := header(wire.CodePing, 1, wire.HeaderSize)
		mut(h)
		c.writeRaw(h)
		c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
		var b [1]byte
		if n, err := c.nc.Read(b[:]); n != 0 || err == nil {
			t.Fatalf("%s: read %d bytes, err %v; want closed without reply", name, n, err)
		}
	}

	// A body that does not decode (a PUT whose queue name announces 5
	// bytes and has 1).
	c = openSession(t, addr, wire.ModeAutoCommit)
	c.writeRaw(append(header(wire.CodePut, 5, wire.HeaderSize+2), 5, 'Q'))
	c.expectClosed()
}

func TestDefaultFrameCapIs128MiB(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1})
	// spec: W-04
	if got := e.Config().MaxFrame; got != 134_217_728 {
		t.Fatalf("default MaxFrame %d, want 134217728", got)
	}
	addr := e.DataAddrs()[0]

	// One byte above 128 MiB is dropped. (The exact-cap side is checked on
	// a 1 MiB cap in TestOversizeFrameClosesWithoutReply: announcing 128 MiB
	// makes wire.FrameReader allocate it all at once, seconds under -race.)
	c := dialRaw(t, addr)
	c.writeRaw(header(wire.CodePing, 1, 128<<20+1))
	// spec: W-04
	c.expectClosed()
	openSession(t, addr, wire.ModeProducer) // the engine is fine
}

func TestUnknownRequestCode(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	for _, addr := range []string{e.DataAddrs()[0], e.AdminAddrs()[1]} {
		c := dialRaw(t, addr)
		for _, code := range []wire.Code{4242, 65535} {
			eb := c.call(code, 0, nil, nil)
			// spec: W-12
			if eb == nil || eb.Name != wire.ErrInvalidReqCode || eb.Tail != "request code "+strconv.Itoa(int(code)) {
				t.Fatalf("%s code %d: %s, want %s", addr, code, errText(eb), wire.ErrInvalidReqCode)
			}
		}
		c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil) // still open
	}
	// The same after the handshake.
	c := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	wantErrName(t, c.call(wire.CodeShutdown+1000, 0, nil, nil), wire.ErrInvalidReqCode, "admin session")
}

func TestConfig(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	cfg := e.Config()
	if cfg.Nodes != 3 || cfg.Host != "127.0.0.1" || cfg.QueueManager != "QM1" || cfg.Cluster != "C1" ||
		cfg.MaxFrame != wire.DefaultMaxFrame || cfg.ElectionDelay != 200*time.Millisecond {
		t.Fatalf("effective config %+v", cfg)
	}
	if _, err := Start(Config{ElectionDelay: 0, MaxFrame: 10}); err == nil {
		t.Fatal("MaxFrame 10 accepted")
	}
	if _, err := Start(Config{ElectionDelay: -time.Second}); err == nil {
		t.Fatal("negative ElectionDelay accepted")
	}
	if _, err := Start(Config{Nodes: 2, DataPort: 65535}); err == nil {
		t.Fatal("ports beyond 65535 accepted")
	}
	e3, err := Start(Config{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := e3.Config().ElectionDelay; d != 3*time.Second {
		t.Fatalf("default ElectionDelay %v, want 3s", d)
	}
	e3.Close()
	e3.Close() // idempotent

	// Fixed ports: node i listens on port+i-1 and keeps it across restarts.
	port := freePort(t)
	e4 := startEngine(t, Config{Nodes: 1, DataPort: port})
	if got := e4.DataAddrs()[0]; got != net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) {
		t.Fatalf("data address %s, want port %d", got, port)
	}
	if err := e4.KillNode(1); err != nil {
		t.Fatal(err)
	}
	if err := e4.RestartNode(1); err != nil {
		t.Fatal(err)
	}
	openSession(t, e4.DataAddrs()[0], wire.ModeProducer)
	// A one-node cluster elects its only node again after the restart.
	leaderAddr(t, e4)
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
