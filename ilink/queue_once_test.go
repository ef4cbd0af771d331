package ilink

import (
	"sync/atomic"
	"testing"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

func TestPutOnceGetOnce(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, nil)
	if err := e.CreateQueue("Q.ONCE"); err != nil {
		t.Fatal(err)
	}
	addrs := joinAddrs(e.DataAddrs())
	opt := Options{ClientName: "once-test", AutoCommit: true}
	if err := PutOnce(testCtx(t), addrs, opt, "Q.ONCE", [][]byte{[]byte("a"), []byte("b")}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a", "b"} {
		m, err := GetOnce(testCtx(t), addrs, opt, "Q.ONCE")
		if err != nil || m == nil || string(m.Payload) != want {
			t.Fatalf("GetOnce: %v %v, want %q", m, err, want)
		}
	}
	if m, err := GetOnce(testCtx(t), addrs, opt, "Q.ONCE"); m != nil || err != nil {
		t.Fatalf("GetOnce on an empty queue: %v %v, want nil, nil", m, err)
	}
	// Read-only: both refused with nothing sent, and the queue unchanged.
	var reqs atomic.Int32
	e.Control(func(*engine.ControlEvent) engine.ControlAction {
		reqs.Add(1)
		return engine.ControlAction{}
	})
	ro := opt
	ro.ReadOnly = true
	err := PutOnce(testCtx(t), addrs, ro, "Q.ONCE", [][]byte{[]byte("c")})
	if ae := AsError(err); ae == nil || ae.Name != wire.ErrReadOnly || ae.Tail != "Put refused: read-only mode" {
		t.Fatalf("read-only PutOnce: %v", err)
	}
	if _, err := GetOnce(testCtx(t), addrs, ro, "Q.ONCE"); !HasName(err, wire.ErrReadOnly) {
		t.Fatalf("read-only GetOnce: %v", err)
	}
	if n := reqs.Load(); n != 0 {
		t.Fatalf("read-only put and get sent %d requests", n)
	}
}
