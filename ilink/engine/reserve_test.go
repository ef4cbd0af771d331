package engine

import (
	"errors"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// A killed node keeps its ports: a dial to them is refused, as to a dead
// node, but no outgoing connection can take one as its ephemeral end
// (which had a restart wait for it, or fail, under parallel tests); the
// restart listens on them again, and a closed engine lets them go.
func TestKilledNodeKeepsItsPorts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no port reservation on windows: the restart waits for its port (rebindWait)")
	}
	t.Parallel()
	e, err := Start(Config{Nodes: 2, ElectionDelay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	data, admin := e.DataAddrs()[1], e.AdminAddrs()[1]
	if err := e.KillNode(2); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{data, admin} {
		if nc, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			nc.Close()
			t.Fatalf("%s of the killed node accepts a connection", a)
		} else if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("a dial to %s of the killed node: %v, want connection refused", a, err)
		}
		local, _ := net.ResolveTCPAddr("tcp", a)
		d := net.Dialer{LocalAddr: local, Timeout: time.Second}
		if nc, err := d.Dial("tcp", e.DataAddrs()[0]); err == nil {
			nc.Close()
			t.Fatalf("an outgoing connection took %s, the killed node's port", a)
		} else if !errors.Is(err, syscall.EADDRINUSE) {
			t.Fatalf("an outgoing connection from %s: %v, want address in use", a, err)
		}
	}
	if err := e.RestartNode(2); err != nil {
		t.Fatal(err)
	}
	if got := e.DataAddrs()[1]; got != data {
		t.Fatalf("restarted on %s, want %s", got, data)
	}
	openSession(t, data, wire.ModeProducer)
	if err := e.KillNode(2); err != nil {
		t.Fatal(err)
	}
	e.Close()
	for _, ep := range []*endpoint{e.nodes[1].data, e.nodes[1].admin} {
		ep.mu.Lock()
		held := ep.reserved != nil
		ep.mu.Unlock()
		if held {
			t.Fatalf("%s is still reserved after the engine closed", ep.addr)
		}
		ln, err := net.Listen("tcp", ep.addr)
		if err != nil {
			t.Fatalf("%s after the engine closed: %v", ep.addr, err)
		}
		ln.Close()
	}
}
