package engine

import (
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func TestHelloToLeaderListsEveryNode(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	data, admin := e.DataAddrs(), e.AdminAddrs()
	for _, mode := range []wire.SessionMode{wire.ModeAutoCommit, wire.ModeTransacted} {
		c := dialRaw(t, data[0])
		rep, eb := c.hello(mode)
		if eb != nil {
			t.Fatalf("%s HELLO to leader refused: %s", modeName(mode), errText(eb))
		}
		if rep.NodeID != 1 || rep.QueueManager != "QM1" || rep.Cluster != "C1" || rep.SessionID == 0 || rep.EngineVersion == "" {
			t.Fatalf("reply header fields: %+v", rep)
		}
		// spec: S-03
		if len(rep.Nodes) != 3 {
			t.Fatalf("node list has %d nodes, want 3: %+v", len(rep.Nodes), rep.Nodes)
		}
		for i, n := range rep.Nodes {
			if int(n.ID) != i+1 || n.Addr != data[i] || n.Admin != admin[i] || !n.Up || n.Leader != (i == 0) {
				t.Fatalf("node %d: %+v (data %s admin %s)", i+1, n, data[i], admin[i])
			}
		}
		c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
	}
}

func TestFollowerRefusesQueueSessionWithLeaderHint(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	data := e.DataAddrs()
	for _, tc := range []struct {
		node int
		mode wire.SessionMode
	}{{2, wire.ModeAutoCommit}, {3, wire.ModeTransacted}} {
		c := dialRaw(t, data[tc.node-1])
		_, eb := c.hello(tc.mode)
		// spec: K-21
		if eb == nil || eb.Name != wire.ErrNotLeader || eb.Hint != data[0] || eb.Tail != "leader is node 1 at "+data[0] {
			t.Fatalf("node %d: refusal %s, want %s with hint %s", tc.node, errText(eb), wire.ErrNotLeader, data[0])
		}
		c.expectClosed()
	}
}

func TestNonQueueModesOnAnyNode(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	data, admin := e.DataAddrs(), e.AdminAddrs()
	for _, mode := range []wire.SessionMode{wire.ModeProducer, wire.ModeConsumer} {
		c := openSession(t, data[1], mode) // a follower
		c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
		// Queue requests need a queue session.
		eb := c.call(wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: "Q"}, nil)
		if eb == nil || eb.Name != wire.ErrSessionMode {
			t.Fatalf("%s session QUEUE DEPTH: %s, want %s", modeName(mode), errText(eb), wire.ErrSessionMode)
		}
	}
	a := openSession(t, admin[2], wire.ModeAdmin)
	a.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)

	// Wrong listener for the mode: refused, then closed.
	c := dialRaw(t, admin[0])
	if _, eb := c.hello(wire.ModeAutoCommit); eb == nil || eb.Name != wire.ErrSessionMode {
		t.Fatalf("queue session on admin listener: %s", errText(eb))
	}
	c.expectClosed()
	c = dialRaw(t, data[0])
	if _, eb := c.hello(wire.ModeAdmin); eb == nil || eb.Name != wire.ErrSessionMode {
		t.Fatalf("admin session on data listener: %s", errText(eb))
	}
	c.expectClosed()
	c = dialRaw(t, data[0])
	if _, eb := c.hello(wire.SessionMode(9)); eb == nil || eb.Name != wire.ErrInvalidArgument {
		t.Fatalf("unknown mode: %s", errText(eb))
	}
	c.expectClosed()
}

func TestHelloRules(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{QueueManager: "QMA"})
	addr := e.DataAddrs()[0]

	c := dialRaw(t, addr)
	var rep wire.HelloReply
	eb := c.call(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "x", Mode: wire.ModeAutoCommit, QueueManager: "QMB"}, &rep)
	if eb == nil || eb.Name != wire.ErrInvalidArgument || eb.Tail != "queue manager QMB not hosted here" {
		t.Fatalf("wrong queue manager: %s", errText(eb))
	}
	c.expectClosed()

	c = dialRaw(t, addr)
	c.mustCall(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "x", Mode: wire.ModeAutoCommit, QueueManager: "QMA"}, &rep)
	if rep.QueueManager != "QMA" {
		t.Fatalf("queue manager %q", rep.QueueManager)
	}
	// spec: Q-06
	eb = c.call(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "x", Mode: wire.ModeTransacted}, &rep)
	if eb == nil || eb.Name != wire.ErrSessionMode {
		t.Fatalf("second HELLO: %s, want %s", errText(eb), wire.ErrSessionMode)
	}
	wantErrName(t, c.call(wire.CodeCommit, 0, &wire.Empty{}, nil), wire.ErrNotInTransaction, "COMMIT (the session must not change mode)")

	// Requests before HELLO.
	c = dialRaw(t, addr)
	c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
	wantErrName(t, c.call(wire.CodeGet, 0, &wire.GetRequest{Queue: "Q"}, nil), wire.ErrSessionMode, "GET before HELLO")
}

func TestNoLeaderWindowAndElection(t *testing.T) {
	t.Parallel()
	const delay = 200 * time.Millisecond
	e := startEngine(t, Config{ElectionDelay: delay})
	data := e.DataAddrs()

	// The election waits for the gate as well as for the delay: the window
	// checks below cannot race the timer, however loaded the machine.
	gate := make(chan struct{})
	e.cl.mu.Lock()
	e.cl.electGate = gate
	e.cl.mu.Unlock()
	released := false
	release := func() {
		if !released {
			released = true
			close(gate)
		}
	}
	t.Cleanup(release)
	start := time.Now() // the election timer starts inside KillLeader
	killed, err := e.KillLeader()
	if err != nil || killed != 1 {
		t.Fatalf("KillLeader = %d, %v", killed, err)
	}
	if l := e.Leader(); l != 0 {
		t.Fatalf("leader %d right after the kill", l)
	}
	for _, node := range []int{2, 3} {
		c := dialRaw(t, data[node-1])
		_, eb := c.hello(wire.ModeAutoCommit)
		// spec: K-20
		if eb == nil || eb.Name != wire.ErrNoLeader || eb.Tail != "election in progress" || eb.Hint != "" {
			t.Fatalf("node %d during the election: %s, want %s", node, errText(eb), wire.ErrNoLeader)
		}
		c.expectClosed()
	}
	// Non-queue modes are still accepted by running nodes.
	openSession(t, data[1], wire.ModeProducer)

	release()
	newLeader := leaderAddr(t, e)
	// spec: K-20
	if el := time.Since(start); el < delay {
		t.Fatalf("new leader after %v, before the election delay %v", el, delay)
	}
	if newLeader != data[1] || e.Leader() != 2 {
		t.Fatalf("new leader %s (node %d), want node 2", newLeader, e.Leader())
	}
	openSession(t, data[1], wire.ModeTransacted)
	c := dialRaw(t, data[2])
	// spec: K-21
	if _, eb := c.hello(wire.ModeAutoCommit); eb == nil || eb.Name != wire.ErrNotLeader || eb.Hint != data[1] {
		t.Fatalf("node 3 after the election: %s, want hint %s", errText(eb), data[1])
	}

	// The killed node's port is closed ...
	if nc, err := dialTimeout(data[0]); err == nil {
		nc.Close()
		t.Fatalf("dial to killed node 1 succeeded")
	}
	// ... and after a restart it is a follower that points at the leader.
	if err := e.RestartNode(1); err != nil {
		t.Fatal(err)
	}
	c = dialRaw(t, data[0])
	rep, eb := c.hello(wire.ModeAutoCommit)
	// spec: K-21
	if eb == nil || eb.Name != wire.ErrNotLeader || eb.Hint != data[1] {
		t.Fatalf("restarted old leader: %s %+v, want %s hint %s", errText(eb), rep, wire.ErrNotLeader, data[1])
	}
	st := e.Nodes()
	if !st[0].Up || !st[0].Running || st[0].Leader || !st[0].InSync || !st[1].Leader {
		t.Fatalf("statuses after restart: %+v", st)
	}
}

func TestRestartDuringElectionComesBackAsFollower(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{ElectionDelay: 200 * time.Millisecond})
	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	// Node 1 is back before the election; it lost its state, so node 2
	// (in sync) wins even though node 1 has the lower id.
	if err := e.RestartNode(1); err != nil {
		t.Fatal(err)
	}
	leaderAddr(t, e)
	if l := e.Leader(); l != 2 {
		t.Fatalf("leader %d, want 2", l)
	}
}

func TestSessionCount(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	if n := e.SessionCount(2); n != 0 {
		t.Fatalf("SessionCount(2) = %d at start", n)
	}
	a := openSession(t, e.DataAddrs()[1], wire.ModeProducer)
	openSession(t, e.DataAddrs()[1], wire.ModeConsumer)
	openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	eventually(t, "3 sessions on node 2", func() bool { return e.SessionCount(2) == 3 })
	a.close()
	eventually(t, "2 sessions on node 2", func() bool { return e.SessionCount(2) == 2 })
	if n := e.SessionCount(1); n != 0 {
		t.Fatalf("SessionCount(1) = %d", n)
	}
	e.SeverConnections()
	if n := e.SessionCount(2); n != 0 {
		t.Fatalf("SessionCount(2) = %d after SeverConnections", n)
	}
	if n := e.SessionCount(99); n != 0 {
		t.Fatalf("SessionCount(99) = %d", n)
	}
}
