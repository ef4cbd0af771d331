package ilink

import (
	"net"
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// The client never sends a HELLO string the engine would refuse
// (wire.MaxHelloString, 256 bytes): a longer ClientName or QueueManager is
// a configuration error naming the option and both sizes, returned before
// anything is dialled; 256 bytes open a session.
func TestClientRefusesLongHelloStrings(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	ctx := testCtx(t)
	long := strings.Repeat("c", 257)
	const name = "MIMQE_BAD_CONFIG (ClientName is 257 bytes; at most 256, the bound of a HELLO string)"
	for _, tc := range []struct {
		what string
		err  error
		want string
	}{
		{"DialConn", func() error { _, err := DialConn(ctx, addr, ConnConfig{ClientName: long}); return err }(), name},
		{"DialConn queue manager", func() error { _, err := DialConn(ctx, addr, ConnConfig{QueueManager: long + "qq"}); return err }(),
			"MIMQE_BAD_CONFIG (QueueManager is 259 bytes; at most 256, the bound of a HELLO string)"},
		{"Dial", func() error { _, err := Dial(ctx, addr, Options{ClientName: long}); return err }(), name},
		{"NewProducer", func() error { _, err := NewProducer(ctx, addr, ProducerConfig{ClientName: long}); return err }(), name},
	} {
		if !IsConfigError(tc.err) || tc.err.Error() != tc.want {
			t.Errorf("%s: %v, want the config error %s", tc.what, tc.err, tc.want)
		}
	}
	// Nothing was dialled: the first connection the listener has queued
	// is this sentinel (the accept queue is in connection order).
	sentinel, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer sentinel.Close()
	got, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if got.RemoteAddr().String() != sentinel.LocalAddr().String() {
		t.Fatalf("the listener's first connection came from %v, not the sentinel %v: a refused configuration dialled", got.RemoteAddr(), sentinel.LocalAddr())
	}

	// At the bound: accepted, and the engine opens the session.
	e := startEngine(t, engine.Config{Nodes: 1})
	c, err := DialConn(ctx, e.DataAddrs()[0], ConnConfig{ClientName: strings.Repeat("c", 256)})
	if err != nil {
		t.Fatalf("DialConn with a 256-byte ClientName: %v", err)
	}
	c.Close()
}
