package engine

import (
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func TestCommittedMessagesSurviveLeaderKill(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	data := e.DataAddrs()

	auto := openSession(t, data[0], wire.ModeAutoCommit)
	for i := 1; i <= 3; i++ {
		auto.put("Q", i, fmt.Sprint("a", i))
	}
	tx := openSession(t, data[0], wire.ModeTransacted)
	tx.put("Q", 10, "t1")
	tx.put("Q", 11, "t2")
	tx.commit()
	tx.put("Q", 12, "uncommitted") // open transaction at the kill
	locker := openSession(t, data[0], wire.ModeTransacted)
	locker.wantGet("Q", "a1", "locking GET")
	auto.get("Q", 0) // a committed get of a2 must stay removed

	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	addr := leaderAddr(t, e)
	if addr != data[1] {
		t.Fatalf("new leader %s, want node 2", addr)
	}
	wantDepth(t, e, "Q", 4, "on the new leader")
	c := openSession(t, addr, wire.ModeAutoCommit)
	m := c.get("Q", 0)
	if m == nil || string(m.Payload) != "a1" {
		t.Fatalf("first message on the new leader %+v, want a1 (its get was uncommitted)", m)
	}
	if got := c.drain("Q"); !slices.Equal(got, []string{"a3", "t1", "t2"}) {
		t.Fatalf("new leader holds %v after a1, want [a3 t1 t2]", got)
	}
}

func TestRestartedNodeResyncs(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	data := e.DataAddrs()
	if err := e.KillNode(3); err != nil {
		t.Fatal(err)
	}
	if err := e.KillNode(3); err == nil {
		t.Fatal("killing a dead node succeeded")
	}
	c := openSession(t, data[0], wire.ModeAutoCommit)
	c.put("Q", 1, "m1") // node 3 misses these
	c.put("Q", 2, "m2")
	c.put("Q", 3, "m3")
	c.get("Q", 0) // and this removal
	mustCreate(t, e, "Q2")
	if st := e.Nodes()[2]; st.Up || st.Running || st.InSync {
		t.Fatalf("killed node status %+v", st)
	}
	if err := e.RestartNode(3); err != nil {
		t.Fatal(err)
	}
	if st := e.Nodes()[2]; !st.Up || !st.Running || !st.InSync || st.Leader {
		t.Fatalf("restarted node status %+v", st)
	}
	c.put("Q", 4, "m4") // replicated live to the restarted node
	assertReplicasEqual(t, e)

	// Leave node 3 alone: it must lead with everything committed.
	if err := e.KillNode(1); err != nil {
		t.Fatal(err)
	}
	if err := e.KillNode(2); err != nil {
		t.Fatal(err)
	}
	addr := leaderAddr(t, e)
	if addr != data[2] {
		t.Fatalf("leader %s, want node 3", addr)
	}
	c = openSession(t, addr, wire.ModeAutoCommit)
	if got := c.drain("Q"); !slices.Equal(got, []string{"m2", "m3", "m4"}) {
		t.Fatalf("node 3 holds %v, want [m2 m3 m4]", got)
	}
	c.mustCall(wire.CodeOpenQueue, 0, &wire.QueueRequest{Queue: "Q2"}, nil)
	// Sequence numbers continue: a new put goes to the tail.
	c.put("Q", 5, "m5")
	c.put("Q", 6, "m6")
	if got := c.drain("Q"); !slices.Equal(got, []string{"m5", "m6"}) {
		t.Fatalf("after new puts %v", got)
	}
}

func TestStopAndStartNode(t *testing.T) {
	t.Parallel()
	const delay = 150 * time.Millisecond
	e := startEngine(t, Config{ElectionDelay: delay})
	mustCreate(t, e, "Q")
	data, admin := e.DataAddrs(), e.AdminAddrs()

	prod := openSession(t, data[1], wire.ModeProducer)
	if err := e.StopNode(2); err != nil {
		t.Fatal(err)
	}
	prod.expectClosed() // data connections of a stopped node are closed
	if nc, err := dialTimeout(data[1]); err == nil {
		nc.Close()
		t.Fatal("stopped node's data listener accepted a connection")
	}
	a := openSession(t, admin[1], wire.ModeAdmin) // the admin listener stays
	a.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
	if st := e.Nodes()[1]; !st.Up || st.Running || st.InSync {
		t.Fatalf("stopped node status %+v", st)
	}
	c := openSession(t, data[0], wire.ModeAutoCommit)
	c.put("Q", 1, "while-stopped")
	if err := e.StartNode(2); err != nil {
		t.Fatal(err)
	}
	if err := e.StartNode(2); err == nil {
		t.Fatal("starting a running node succeeded")
	}
	if st := e.Nodes()[1]; !st.Running || !st.InSync {
		t.Fatalf("started node status %+v", st)
	}
	openSession(t, data[1], wire.ModeConsumer)

	// Stopping the leader's queue manager starts an election.
	start := time.Now()
	if err := e.StopNode(1); err != nil {
		t.Fatal(err)
	}
	if l := e.Leader(); l != 0 && time.Since(start) < delay {
		t.Fatalf("leader %d right after stopping the leader", l)
	}
	c.expectClosed()
	openSession(t, admin[0], wire.ModeAdmin)
	addr := leaderAddr(t, e)
	if addr != data[1] {
		t.Fatalf("leader %s, want node 2", addr)
	}
	c = openSession(t, addr, wire.ModeAutoCommit)
	if got := c.drain("Q"); !slices.Equal(got, []string{"while-stopped"}) {
		t.Fatalf("node 2 holds %v", got)
	}
	// Node 1 comes back as a follower with the leader's state.
	if err := e.StartNode(1); err != nil {
		t.Fatal(err)
	}
	rc := dialRaw(t, data[0])
	if _, eb := rc.hello(wire.ModeAutoCommit); eb == nil || eb.Name != wire.ErrNotLeader || eb.Hint != data[1] {
		t.Fatalf("restarted queue manager: %s", errText(eb))
	}
	assertReplicasEqual(t, e)
}

func TestSeverConnectionsRollsBack(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	data := e.DataAddrs()
	c := openSession(t, data[0], wire.ModeAutoCommit)
	c.put("Q", 1, "x")
	tx := openSession(t, data[0], wire.ModeTransacted)
	tx.get("Q", 0)
	ad := openSession(t, e.AdminAddrs()[2], wire.ModeAdmin)

	e.SeverConnections()
	for id := 1; id <= 3; id++ {
		if n := e.SessionCount(id); n != 0 {
			t.Fatalf("node %d has %d sessions after SeverConnections", id, n)
		}
	}
	c.expectClosed()
	tx.expectClosed()
	ad.expectClosed()
	c = openSession(t, data[0], wire.ModeAutoCommit) // listeners stay
	if m := c.get("Q", 0); m == nil || !m.Redelivered {
		t.Fatalf("locked message after sever: %+v", m)
	}
}

func TestKillWhileGetWaits(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	c := localSession(t, e, wire.ModeTransacted)
	c.send(wire.CodeGet, 5000, &wire.GetRequest{Queue: "Q"})
	eventually(t, "the GET waiting at the leader", func() bool { return e.WaitingGets("Q") == 1 })
	start := time.Now()
	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("KillLeader took %v with a waiting GET", el)
	}
	c.expectClosed()
}

// TestNoAcknowledgedPutLostAcrossFailovers runs producers that reconnect
// through leader hints while leaders are killed and restarted, then checks
// that every acknowledged put is on the final leader (duplicates from
// retries are allowed: at-least-once) and that followers match it.
func TestNoAcknowledgedPutLostAcrossFailovers(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{ElectionDelay: 80 * time.Millisecond, Logf: func(string, ...any) {}})
	mustCreate(t, e, "Q")
	addrs := e.DataAddrs()

	var mu sync.Mutex
	acked := map[int]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for p := 0; p < 3; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mode := wire.ModeAutoCommit
			if p == 2 {
				mode = wire.ModeTransacted
			}
			var c *rawClient
			for i := 0; ; i++ {
				select {
				case <-stop:
					if c != nil {
						c.close()
					}
					return
				default:
				}
				if c == nil {
					if c = dialLeader(addrs, mode); c == nil {
						time.Sleep(10 * time.Millisecond) // pacing the redials of the load until stop, not a wait for a condition
						continue
					}
				}
				n := p*100000 + i
				eb, err := c.tryCall(wire.CodePut, 0, &wire.PutRequest{Queue: "Q", MsgID: msgID(n), Payload: []byte("x")}, nil)
				if err == nil && eb == nil && mode == wire.ModeTransacted {
					eb, err = c.tryCall(wire.CodeCommit, 0, &wire.Empty{}, nil)
				}
				if err != nil || eb != nil {
					c.close()
					c = nil
					continue
				}
				mu.Lock()
				acked[n] = true
				mu.Unlock()
			}
		}()
	}
	// progress waits until the producers have had 20 more puts
	// acknowledged: before each kill, while the old leader is down (so
	// they failed over to the new one), and after the last restart.
	progress := func(what string) {
		mu.Lock()
		from := len(acked)
		mu.Unlock()
		eventually(t, what, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(acked) >= from+20
		})
	}
	for round := 0; round < 2; round++ {
		progress("puts acknowledged before the kill")
		old, err := e.KillLeader()
		if err != nil {
			t.Fatal(err)
		}
		progress("puts acknowledged by the new leader")
		if err := e.RestartNode(old); err != nil {
			t.Fatal(err)
		}
		leaderAddr(t, e)
	}
	progress("puts acknowledged after the last restart")
	close(stop)
	wg.Wait()

	c := openSession(t, leaderAddr(t, e), wire.ModeAutoCommit)
	stored := map[int]bool{}
	for {
		var m wire.GetReply
		eb := c.call(wire.CodeGet, 0, &wire.GetRequest{Queue: "Q"}, &m)
		if eb != nil {
			break
		}
		stored[int(binary.BigEndian.Uint64(m.MsgID[8:]))] = true
	}
	if len(acked) == 0 {
		t.Fatal("no put was acknowledged")
	}
	for n := range acked {
		if !stored[n] {
			t.Fatalf("acknowledged put %d lost (%d acked, %d stored)", n, len(acked), len(stored))
		}
	}
	t.Logf("%d acknowledged puts, %d distinct stored", len(acked), len(stored))
	assertReplicasEqual(t, e)
}

// TestCloseLeavesNoGoroutines runs alone (not parallel): after Close, with
// sessions open, a GET waiting and an election pending, every engine
// goroutine is gone.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	e, err := Start(Config{ElectionDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CreateQueue("Q"); err != nil {
		t.Fatal(err)
	}
	c := localSession(t, e, wire.ModeTransacted)
	c.send(wire.CodeGet, 60000, &wire.GetRequest{Queue: "Q"})
	openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	if err := e.KillNode(1); err != nil { // election pending for an hour
		t.Fatal(err)
	}
	openSession(t, e.DataAddrs()[2], wire.ModeConsumer)
	e.Close()
	if err := e.KillNode(2); err == nil {
		t.Fatal("KillNode after Close succeeded")
	}
	eventually(t, "engine goroutines to exit", func() bool { return runtime.NumGoroutine() <= before })
}

// A restarted node's old port may be held for a moment by another socket
// (while the node was down a connection's ephemeral end could take it):
// the restart waits for it rather than failing on "address already in use".
func TestRestartWaitsForItsPort(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	addr := e.DataAddrs()[2]
	if err := e.KillNode(3); err != nil {
		t.Fatal(err)
	}
	squatter, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("taking node 3's port %s: %v", addr, err)
	}
	released := time.AfterFunc(300*time.Millisecond, func() { squatter.Close() })
	defer released.Stop()
	if err := e.RestartNode(3); err != nil {
		t.Fatalf("restart while the port was held for 300ms: %v", err)
	}
	if st := e.Nodes()[2]; !st.Up {
		t.Fatalf("node 3 after the restart: %+v", st)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("node 3 does not listen on its old port: %v", err)
	}
	c.Close()
}
