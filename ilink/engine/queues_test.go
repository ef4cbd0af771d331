package engine

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func TestPutGetRoundTrip(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q1")
	c := localSession(t, e, wire.ModeAutoCommit)

	var dep wire.DepthReply
	c.mustCall(wire.CodeOpenQueue, 0, &wire.QueueRequest{Queue: "Q1"}, &dep)
	if dep.Depth != 0 {
		t.Fatalf("OPEN QUEUE depth %d", dep.Depth)
	}
	before := time.Now().UnixMilli()
	rep := c.put("Q1", 7, "hello")
	if !bytes.Equal(rep.MsgID, msgID(7)) || rep.Depth != 1 {
		t.Fatalf("PUT reply %+v", rep)
	}
	m := c.get("Q1", 0)
	after := time.Now().UnixMilli()
	// spec: Q-01
	if m == nil || string(m.Payload) != "hello" {
		t.Fatalf("GET = %+v, want payload hello", m)
	}
	// spec: Q-02
	if !bytes.Equal(m.MsgID, msgID(7)) {
		t.Fatalf("GET id %x, want %x", m.MsgID, msgID(7))
	}
	if m.PutTimeMs < before || m.PutTimeMs > after || m.Redelivered {
		t.Fatalf("GET put time %d not in [%d,%d] or redelivered %v", m.PutTimeMs, before, after, m.Redelivered)
	}
	// spec: Q-03
	c.wantNoMessage("Q1", "a message may be delivered once")

	// A retried put keeps its id: the engine stores ids as given.
	c.put("Q1", 1, "a")
	c.put("Q1", 1, "a")
	a, b := c.get("Q1", 0), c.get("Q1", 0)
	if a == nil || b == nil || !bytes.Equal(a.MsgID, b.MsgID) {
		t.Fatalf("duplicate put: %+v %+v", a, b)
	}

	for _, code := range []wire.Code{wire.CodeOpenQueue, wire.CodeQueueDepth} {
		eb := c.call(code, 0, &wire.QueueRequest{Queue: "NOPE"}, nil)
		if eb == nil || eb.Name != wire.ErrUnknownQueue || eb.Tail != "NOPE" {
			t.Fatalf("%v on unknown queue: %s", code, errText(eb))
		}
	}
	wantErrName(t, c.call(wire.CodePut, 0, &wire.PutRequest{Queue: "NOPE", MsgID: msgID(1)}, nil), wire.ErrUnknownQueue, "PUT on unknown queue")
	wantErrName(t, c.call(wire.CodeGet, 100, &wire.GetRequest{Queue: "NOPE"}, nil), wire.ErrUnknownQueue, "GET on unknown queue")
}

func TestGetWaitsForPutFromAnotherSession(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	cons := localSession(t, e, wire.ModeAutoCommit)
	prod := localSession(t, e, wire.ModeAutoCommit)

	start := time.Now()
	corr := cons.send(wire.CodeGet, 5000, &wire.GetRequest{Queue: "Q"})
	// The put comes once the GET waits at the leader.
	eventually(t, "the GET waiting", func() bool { return e.WaitingGets("Q") == 1 })
	waited := time.Since(start)
	prod.put("Q", 1, "late")
	var m wire.GetReply
	if eb := cons.read(corr, &m); eb != nil {
		t.Fatalf("waiting GET: %s", errText(eb))
	}
	el := time.Since(start)
	// spec: Q-04 — answered by the put made while it waited.
	if string(m.Payload) != "late" || el < waited || el > 4*time.Second {
		t.Fatalf("GET got %q after %v; want the put made during the wait", m.Payload, el)
	}
	wantDepth(t, e, "Q", 0, "after the woken auto-commit GET")
}

func TestGetTimeoutIsNoMsg(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	c := localSession(t, e, wire.ModeTransacted)

	start := time.Now()
	eb := c.call(wire.CodeGet, 150, &wire.GetRequest{Queue: "Q"}, nil)
	el := time.Since(start)
	// spec: Q-05
	if eb == nil || eb.Name != wire.ErrNoMessage || eb.Tail != "" {
		t.Fatalf("GET on empty queue: %s, want bare %s", errText(eb), wire.ErrNoMessage)
	}
	if el < 150*time.Millisecond || el > 3*time.Second {
		t.Fatalf("GET waited %v, want about 150ms", el)
	}
	start = time.Now()
	wantErrName(t, c.call(wire.CodeGet, 0, &wire.GetRequest{Queue: "Q"}, nil), wire.ErrNoMessage, "GET without wait")
	if el := time.Since(start); el > time.Second {
		t.Fatalf("GET with TimeoutMs 0 took %v", el)
	}
	// The expired waiter is gone: a later put is not swallowed by it.
	p := localSession(t, e, wire.ModeAutoCommit)
	p.put("Q", 1, "x")
	wantDepth(t, e, "Q", 1, "after a put behind the expired waiter")
}

func TestMatchID(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	c := localSession(t, e, wire.ModeAutoCommit)
	for i := 1; i <= 3; i++ {
		c.put("Q", i, fmt.Sprint("m", i))
	}
	var m wire.GetReply
	c.mustCall(wire.CodeGet, 0, &wire.GetRequest{Queue: "Q", MatchID: msgID(2)}, &m)
	if string(m.Payload) != "m2" {
		t.Fatalf("match 2 gave %q", m.Payload)
	}
	wantErrName(t, c.call(wire.CodeGet, 50, &wire.GetRequest{Queue: "Q", MatchID: msgID(9)}, nil), wire.ErrNoMessage, "match 9")
	// A waiting match is woken only by its own message.
	corr := c.send(wire.CodeGet, 3000, &wire.GetRequest{Queue: "Q", MatchID: msgID(5)})
	p := localSession(t, e, wire.ModeAutoCommit)
	p.put("Q", 4, "m4")
	p.put("Q", 5, "m5")
	if eb := c.read(corr, &m); eb != nil || string(m.Payload) != "m5" {
		t.Fatalf("waiting match 5: %s %q", errText(eb), m.Payload)
	}
	if got := c.drain("Q"); !slices.Equal(got, []string{"m1", "m3", "m4"}) {
		t.Fatalf("rest %v", got)
	}
}

func TestAutoCommitVisibility(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	a := localSession(t, e, wire.ModeAutoCommit)
	b := localSession(t, e, wire.ModeAutoCommit)
	a.put("Q", 1, "x")
	// spec: Q-07
	wantDepth(t, e, "Q", 1, "right after an auto-commit put")
	// spec: Q-07
	b.wantGet("Q", "x", "the other session's get")
	// spec: Q-07
	wantDepth(t, e, "Q", 0, "right after an auto-commit get")
	wantErrName(t, a.call(wire.CodeCommit, 0, &wire.Empty{}, nil), wire.ErrNotInTransaction, "COMMIT in auto-commit")
	wantErrName(t, a.call(wire.CodeRollback, 0, &wire.Empty{}, nil), wire.ErrNotInTransaction, "ROLLBACK in auto-commit")
}

func TestTransactedVisibleOnlyAfterCommit(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	tx := localSession(t, e, wire.ModeTransacted)
	obs := localSession(t, e, wire.ModeAutoCommit)

	tx.commit() // nothing pending: succeeds
	if rep := tx.put("Q", 1, "t1"); rep.Depth != 0 {
		t.Fatalf("transacted PUT reports committed depth %d", rep.Depth)
	}
	// spec: Q-08
	obs.wantNoMessage("Q", "an uncommitted put is invisible")
	// spec: Q-08
	wantDepth(t, e, "Q", 0, "before COMMIT")
	tx.commit()
	// spec: Q-08
	wantDepth(t, e, "Q", 1, "after COMMIT")

	// A transacted get locks the message until COMMIT removes it.
	tx2 := localSession(t, e, wire.ModeTransacted)
	tx2.wantGet("Q", "t1", "transacted GET")
	obs.wantNoMessage("Q", "a locked message is invisible to another session")
	wantDepth(t, e, "Q", 1, "while the get is uncommitted")
	tx2.commit()
	wantDepth(t, e, "Q", 0, "after the get's COMMIT")
}

func TestRollbackReturnsGetsAndDropsPuts(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	obs := localSession(t, e, wire.ModeAutoCommit)
	for i, p := range []string{"a", "b", "c"} {
		obs.put("Q", i, p)
	}
	tx := localSession(t, e, wire.ModeTransacted)
	tx.wantGet("Q", "a", "transacted GET")
	tx.put("Q", 9, "x")
	tx.rollback()

	var got []string
	var redelivered []bool
	for {
		m := obs.get("Q", 0)
		if m == nil {
			break
		}
		got = append(got, string(m.Payload))
		redelivered = append(redelivered, m.Redelivered)
	}
	// spec: Q-09
	if !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("after ROLLBACK the queue holds %v, want [a b c] (a back at its place, x dropped)", got)
	}
	if !slices.Equal(redelivered, []bool{true, false, false}) {
		t.Fatalf("redelivered flags %v", redelivered)
	}
	tx.commit() // the rolled-back put must not come back
	wantDepth(t, e, "Q", 0, "after the rolled-back session commits")
}

func TestConnectionLossRollsBack(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	obs := localSession(t, e, wire.ModeAutoCommit)
	obs.put("Q", 1, "a")

	tx := localSession(t, e, wire.ModeTransacted)
	tx.get("Q", 0)
	tx.put("Q", 2, "lost")
	tx.close()
	eventually(t, "the lost session to be cleaned up", func() bool { return e.SessionCount(1) == 1 })

	m := obs.get("Q", 0)
	// spec: Q-10
	if m == nil || string(m.Payload) != "a" || !m.Redelivered {
		t.Fatalf("after connection loss GET = %+v, want a redelivered", m)
	}
	// spec: Q-10
	obs.wantNoMessage("Q", "an uncommitted put must not survive the connection loss")
	// Redoing the transaction gives the expected depth.
	tx = localSession(t, e, wire.ModeTransacted)
	tx.put("Q", 2, "x")
	tx.put("Q", 3, "y")
	tx.commit()
	// spec: Q-10
	wantDepth(t, e, "Q", 2, "after the redo")
}

func TestPipelinedCommitAndGetAnsweredInOrder(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q", "EMPTY")
	tx := localSession(t, e, wire.ModeTransacted)
	tx.put("Q", 1, "m1")

	// COMMIT and GET back to back: the GET sees what the COMMIT committed,
	// because the engine handles one connection's requests in order.
	c1 := tx.send(wire.CodeCommit, 0, &wire.Empty{})
	c2 := tx.send(wire.CodeGet, 0, &wire.GetRequest{Queue: "Q"})
	// spec: Q-12
	if eb := tx.read(c1, nil); eb != nil {
		t.Fatalf("COMMIT: %s", errText(eb))
	}
	var m wire.GetReply
	// spec: Q-12
	if eb := tx.read(c2, &m); eb != nil || string(m.Payload) != "m1" {
		t.Fatalf("pipelined GET: %s %q", errText(eb), m.Payload)
	}

	// A waiting GET does not stop the reader: the PING behind it is
	// handled at once, yet its reply waits for the GET's.
	var pingHandled sync.WaitGroup
	pingHandled.Add(1)
	var once sync.Once
	remove := e.Control(func(ev *ControlEvent) ControlAction {
		if ev.Code == wire.CodePing {
			once.Do(pingHandled.Done)
		}
		return ControlAction{}
	})
	defer remove()
	c3 := tx.send(wire.CodeCommit, 0, &wire.Empty{})
	c4 := tx.send(wire.CodeGet, 3000, &wire.GetRequest{Queue: "EMPTY"})
	c5 := tx.send(wire.CodePing, 0, &wire.Empty{})
	pingHandled.Wait() // the reader got past the waiting GET
	p := localSession(t, e, wire.ModeAutoCommit)
	p.put("EMPTY", 2, "woke")
	for _, want := range []uint32{c3, c4, c5} {
		f, err := tx.next()
		if err != nil {
			t.Fatal(err)
		}
		// spec: Q-12
		if f.hdr.Corr != want {
			t.Fatalf("reply corr %d (%v), want %d: replies out of order", f.hdr.Corr, f.hdr.Code, want)
		}
		if f.hdr.IsError() {
			t.Fatalf("reply to %v is an error", f.hdr.Code)
		}
	}
}

func TestNoReplyFlag(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	c := localSession(t, e, wire.ModeAutoCommit)
	c.sendFlags(wire.CodePut, wire.FlagNoReply, 0, &wire.PutRequest{Queue: "Q", MsgID: msgID(1), Payload: []byte("x")})
	corr := c.send(wire.CodePing, 0, &wire.Empty{})
	if eb := c.read(corr, nil); eb != nil { // the next frame is the PING's
		t.Fatal(errText(eb))
	}
	wantDepth(t, e, "Q", 1, "after the no-reply PUT (it must be handled)")
}

// TestConcurrentSessions runs producers and consumers (auto-commit and
// transacted, with rollbacks) at once and checks that every message is
// delivered exactly once and that the followers end identical to the leader.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Logf: func(string, ...any) {}})
	mustCreate(t, e, "Q")
	addr := e.DataAddrs()[0]
	const producers, perProducer = 4, 40
	total := producers * perProducer

	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for p := 0; p < producers; p++ {
		c := openSession(t, addr, wire.ModeAutoCommit)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perProducer; i++ {
				var rep wire.PutReply
				if eb := c.call(wire.CodePut, 0, &wire.PutRequest{Queue: "Q", MsgID: msgID(p*1000 + i), Payload: []byte(fmt.Sprintf("%d-%d", p, i))}, &rep); eb != nil {
					t.Errorf("put: %s", errText(eb))
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	for k := 0; k < 4; k++ {
		mode := wire.ModeAutoCommit
		if k%2 == 1 {
			mode = wire.ModeTransacted
		}
		c := openSession(t, addr, mode)
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				var m wire.GetReply
				eb := c.call(wire.CodeGet, 50, &wire.GetRequest{Queue: "Q"}, &m)
				if eb != nil {
					if eb.Name != wire.ErrNoMessage {
						t.Errorf("get: %s", errText(eb))
						return
					}
					continue
				}
				n++
				if mode == wire.ModeTransacted {
					code := wire.CodeCommit
					if n%5 == 0 {
						code = wire.CodeRollback
					}
					if eb := c.call(code, 0, &wire.Empty{}, nil); eb != nil {
						t.Errorf("%v: %s", code, errText(eb))
						return
					}
					if code == wire.CodeRollback {
						continue
					}
				}
				mu.Lock()
				seen[string(m.Payload)]++
				mu.Unlock()
			}
		}()
	}
	eventually(t, "every message consumed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == total
	})
	close(done)
	wg.Wait()
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%s delivered %d times", k, n)
		}
	}
	wantDepth(t, e, "Q", 0, "once every message was consumed")
	assertReplicasEqual(t, e)
}

// assertReplicasEqual compares every online in-sync replica with the
// leader's committed state.
func assertReplicasEqual(t testing.TB, e *Engine) {
	t.Helper()
	s := e.queues
	s.mu.Lock()
	defer s.mu.Unlock()
	var leader *replica
	for _, r := range s.reps {
		if r.leading {
			leader = r
		}
	}
	if leader == nil {
		t.Fatal("no leading replica")
	}
	for id, r := range s.reps {
		if r == leader || !r.online || !r.current {
			continue
		}
		if r.lsn != leader.lsn || len(r.queues) != len(leader.queues) {
			t.Fatalf("replica %d: lsn %d queues %d; leader lsn %d queues %d", id, r.lsn, len(r.queues), leader.lsn, len(leader.queues))
		}
		for name, lq := range leader.queues {
			q := r.queues[name]
			if q == nil || len(q.msgs) != len(lq.msgs) || q.cfg != lq.cfg {
				t.Fatalf("replica %d queue %s differs from the leader", id, name)
			}
			for i, m := range lq.msgs {
				f := q.msgs[i]
				if f.seq != m.seq || !bytes.Equal(f.id, m.id) || f.redeliveries != m.redeliveries || (f.dead == nil) != (m.dead == nil) {
					t.Fatalf("replica %d queue %s message %d: %+v, leader %+v", id, name, i, f, m)
				}
			}
		}
	}
}
