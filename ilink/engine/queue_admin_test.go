package engine

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func wantEngineErr(t *testing.T, err error, name, tail string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Name != name || !strings.Contains(e.Tail, tail) {
		t.Fatalf("error %v, want %s (…%s…)", err, name, tail)
	}
}

func TestDefineQueueValidatesAndCreatesTheDLQ(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	for _, c := range []struct {
		cfg  QueueConfig
		tail string
	}{
		{QueueConfig{MaxDepth: -1}, "maxDepth -1 out of range"},
		{QueueConfig{DeadLetterQueue: "D"}, "dlq=D needs maxRedeliveries"},
		{QueueConfig{MaxRedeliveries: 2}, "maxRedeliveries=2 needs dlq"},
		{QueueConfig{DeadLetterQueue: "Q", MaxRedeliveries: 1}, "cannot be its own dead-letter queue"},
		{QueueConfig{DeadLetterQueue: "bad\x01", MaxRedeliveries: 1}, "control byte"},
	} {
		wantEngineErr(t, e.DefineQueue("Q", c.cfg), wire.ErrInvalidProperty, c.tail)
	}
	if _, err := e.QueueDepth("Q"); err == nil {
		t.Fatal("a refused definition created the queue")
	}
	cfg := QueueConfig{MaxDepth: 2, DeadLetterQueue: "Q.DLQ", MaxRedeliveries: 1, Description: "orders"}
	if err := e.DefineQueue("Q", cfg); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.queues.configOf("Q"); got != cfg {
		t.Fatalf("config %+v, want %+v", got, cfg)
	}
	if _, err := e.QueueDepth("Q.DLQ"); err != nil {
		t.Fatalf("the dead-letter queue was not created: %v", err)
	}
	assertReplicasEqual(t, e)

	// A redefinition keeps the messages.
	c := localSession(t, e, wire.ModeAutoCommit)
	c.put("Q", 1, "a")
	if err := e.DefineQueue("Q", QueueConfig{MaxDepth: 5}); err != nil {
		t.Fatal(err)
	}
	wantDepth(t, e, "Q", 1, "after redefinition")
}

func TestMaxDepthRefusesPutAndCommit(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	if err := e.DefineQueue("Q", QueueConfig{MaxDepth: 2}); err != nil {
		t.Fatal(err)
	}
	c := localSession(t, e, wire.ModeAutoCommit)
	c.put("Q", 1, "a")
	c.put("Q", 2, "b")
	eb := c.call(wire.CodePut, 0, &wire.PutRequest{Queue: "Q", MsgID: msgID(3), Payload: []byte("c")}, nil)
	if eb == nil || eb.Name != wire.ErrQueueFull || eb.Tail != "Q max depth 2" {
		t.Fatalf("third put: %s, want MIMQE_QUEUE_FULL (Q max depth 2)", errText(eb))
	}
	c.get("Q", 0)
	// A transaction counts its own pending puts.
	tx := localSession(t, e, wire.ModeTransacted)
	tx.put("Q", 4, "d")
	eb = tx.call(wire.CodePut, 0, &wire.PutRequest{Queue: "Q", MsgID: msgID(5), Payload: []byte("e")}, nil)
	if eb == nil || eb.Name != wire.ErrQueueFull {
		t.Fatalf("transacted put beyond max depth: %s", errText(eb))
	}
	// Another session fills the queue meanwhile: the commit is refused and
	// applies nothing.
	c.put("Q", 6, "f")
	eb = tx.call(wire.CodeCommit, 0, &wire.Empty{}, nil)
	if eb == nil || eb.Name != wire.ErrQueueFull {
		t.Fatalf("commit beyond max depth: %s", errText(eb))
	}
	wantDepth(t, e, "Q", 2, "after the refused commit")
	tx.rollback()
}

// getAndRollback takes the head of q in a transacted session and rolls it
// back: one redelivery.
func getAndRollback(t *testing.T, tx *rawClient, q string) *wire.GetReply {
	t.Helper()
	m := tx.get(q, 0)
	if m == nil {
		t.Fatalf("no message in %s", q)
	}
	tx.rollback()
	return m
}

func TestRedeliveryLimitMovesToTheDLQ(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	if err := e.DefineQueue("ORDERS", QueueConfig{DeadLetterQueue: "ORDERS.DLQ", MaxRedeliveries: 2}); err != nil {
		t.Fatal(err)
	}
	obs := localSession(t, e, wire.ModeAutoCommit)
	obs.put("ORDERS", 1, "poison")
	obs.put("ORDERS", 2, "good")
	tx := localSession(t, e, wire.ModeTransacted)
	for i := 0; i < 2; i++ { // two returns: still within the limit
		if m := getAndRollback(t, tx, "ORDERS"); string(m.Payload) != "poison" {
			t.Fatalf("round %d took %q", i, m.Payload)
		}
	}
	msgs, _, _, err := e.BrowseQueue("ORDERS", 0, 10, 1<<20)
	if err != nil || len(msgs) != 2 || msgs[0].Redeliveries != 2 {
		t.Fatalf("after 2 rollbacks: %+v, %v", msgs, err)
	}
	getAndRollback(t, tx, "ORDERS") // the third return exceeds 2
	wantDepth(t, e, "ORDERS", 1, "after the poison message moved")
	dead, depthDLQ, _, err := e.BrowseQueue("ORDERS.DLQ", 0, 10, 1<<20)
	if err != nil || depthDLQ != 1 || len(dead) != 1 {
		t.Fatalf("DLQ: %+v depth %d, %v", dead, depthDLQ, err)
	}
	d := dead[0]
	if !bytes.Equal(d.ID, msgID(1)) || string(d.Payload) != "poison" || d.Redeliveries != 3 {
		t.Fatalf("dead letter %+v", d)
	}
	hs := map[string]string{}
	for _, h := range d.Headers {
		hs[h.Key] = string(h.Value)
	}
	if hs["dlq.source"] != "ORDERS" || hs["dlq.reason"] != "redelivered 3 times (max 2)" || hs["dlq.time"] == "" {
		t.Fatalf("dead-letter headers %v", hs)
	}
	assertReplicasEqual(t, e)
	obs.wantGet("ORDERS", "good", "the rest of the queue")

	// The move was replicated: it survives the loss of the leader.
	if err := e.KillNode(1); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a new leader", func() bool { _, err := e.QueueDepth("ORDERS.DLQ"); return err == nil })
	if dead, _, _, err := e.BrowseQueue("ORDERS.DLQ", 0, 10, 1<<20); err != nil || len(dead) != 1 || len(dead[0].Headers) != 3 {
		t.Fatalf("DLQ on the new leader: %+v, %v", dead, err)
	}
}

func TestBrowseDoesNotConsume(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "Q")
	c := localSession(t, e, wire.ModeAutoCommit)
	for i := 0; i < 5; i++ {
		c.put("Q", i, strings.Repeat("x", 100))
	}
	tx := localSession(t, e, wire.ModeTransacted)
	tx.get("Q", 0) // locks the head
	before := time.Now()
	page, depthNow, more, err := e.BrowseQueue("Q", 0, 2, 1<<20)
	if err != nil || len(page) != 2 || !more || depthNow != 5 {
		t.Fatalf("first page %d messages more=%v depth %d: %v", len(page), more, depthNow, err)
	}
	if !page[0].InFlight || page[1].InFlight || page[0].PutTime.After(before) {
		t.Fatalf("first page %+v", page)
	}
	rest, _, more, err := e.BrowseQueue("Q", page[1].Seq+1, 10, 1<<20)
	if err != nil || len(rest) != 3 || more {
		t.Fatalf("second page %d more=%v: %v", len(rest), more, err)
	}
	// The byte bound cuts a page, but a page has at least one message.
	small, _, more, _ := e.BrowseQueue("Q", 0, 10, 150)
	if len(small) != 1 || !more {
		t.Fatalf("byte-bounded page: %d messages more=%v", len(small), more)
	}
	wantDepth(t, e, "Q", 5, "after browsing")
	tx.rollback()
	if got := c.drain("Q"); len(got) != 5 {
		t.Fatalf("after browsing the queue gives %d messages, want 5", len(got))
	}
	if _, _, _, err := e.BrowseQueue("NOPE", 0, 1, 1); err == nil {
		t.Fatal("browse of an unknown queue succeeded")
	}
}

func TestMoveDeadLettersBack(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	if err := e.DefineQueue("A", QueueConfig{DeadLetterQueue: "DLQ", MaxRedeliveries: 1, MaxDepth: 3}); err != nil {
		t.Fatal(err)
	}
	obs := localSession(t, e, wire.ModeAutoCommit)
	tx := localSession(t, e, wire.ModeTransacted)
	for i := 1; i <= 3; i++ {
		obs.put("A", i, "m")
		getAndRollback(t, tx, "A")
		getAndRollback(t, tx, "A")
	}
	wantDepth(t, e, "DLQ", 3, "after three messages went over their redeliveries")
	obs.put("DLQ", 9, "no source") // put directly: no source recorded
	obs.put("A", 7, "x")
	obs.put("A", 8, "y") // A holds 2 of 3

	// One by one: the plan changes nothing.
	plan, n, stop, err := e.MoveMessages("DLQ", "", [][]byte{msgID(2), msgID(42)}, true)
	if err != nil || n != 1 || stop != "" || len(plan) != 2 || plan[0].To != "A" || plan[1].Skipped != "not in DLQ" {
		t.Fatalf("plan %+v n=%d stop=%q: %v", plan, n, stop, err)
	}
	wantDepth(t, e, "DLQ", 4, "after a plan (a plan moves nothing)")
	if _, n, _, err := e.MoveMessages("DLQ", "", [][]byte{msgID(2)}, false); err != nil || n != 1 {
		t.Fatalf("move one: n=%d %v", n, err)
	}
	wantDepth(t, e, "A", 3, "after one moved back")
	// All: A is full, so the move stops at once with the reason.
	moves, n, stop, err := e.MoveMessages("DLQ", "", nil, false)
	if err != nil || n != 0 || stop != "queue A is full (max depth 3)" || len(moves) != 0 {
		t.Fatalf("move all into a full queue: %+v n=%d stop=%q %v", moves, n, stop, err)
	}
	obs.drain("A")
	moves, n, stop, err = e.MoveMessages("DLQ", "", nil, false)
	if err != nil || n != 2 || stop != "" || len(moves) != 3 || moves[2].Skipped == "" {
		t.Fatalf("move all: %+v n=%d stop=%q %v", moves, n, stop, err)
	}
	got := obs.drain("A")
	if len(got) != 2 {
		t.Fatalf("A after the move: %v", got)
	}
	m, _, _, _ := e.BrowseQueue("DLQ", 0, 10, 1<<20)
	if len(m) != 1 || string(m[0].Payload) != "no source" {
		t.Fatalf("DLQ keeps %+v, want the message without a source", m)
	}
	// With a target, the message without a source moves too.
	if _, n, _, err := e.MoveMessages("DLQ", "A", nil, false); err != nil || n != 1 {
		t.Fatalf("move to A: n=%d %v", n, err)
	}
	assertReplicasEqual(t, e)
}

func TestDeleteQueue(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	if err := e.DefineQueue("A", QueueConfig{DeadLetterQueue: "A.DLQ", MaxRedeliveries: 1}); err != nil {
		t.Fatal(err)
	}
	wantEngineErr(t, e.DeleteQueue("A.DLQ"), wire.ErrInvalidArgument, "A.DLQ is the dead-letter queue of A")
	c := localSession(t, e, wire.ModeAutoCommit)
	c.put("A", 1, "a")
	waiter := localSession(t, e, wire.ModeAutoCommit)
	corr := waiter.send(wire.CodeGet, 30_000, &wire.GetRequest{Queue: "A.DLQ"})
	eventually(t, "the GET to wait", func() bool {
		e.queues.mu.Lock()
		defer e.queues.mu.Unlock()
		return len(e.queues.leaderLocked().queues["A.DLQ"].waiters) == 1
	})
	if err := e.DefineQueue("A", QueueConfig{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := e.DeleteQueue("A.DLQ"); err != nil {
		t.Fatal(err)
	}
	if eb := waiter.read(corr, &wire.GetReply{}); eb == nil || eb.Name != wire.ErrNoMessage || time.Since(start) > 10*time.Second {
		t.Fatalf("waiting GET on a deleted queue: %s", errText(eb))
	}
	if err := e.DeleteQueue("A"); err != nil {
		t.Fatal(err)
	}
	wantEngineErr(t, e.DeleteQueue("A"), wire.ErrUnknownQueue, "A")
	eb := c.call(wire.CodePut, 0, &wire.PutRequest{Queue: "A", MsgID: msgID(2)}, nil)
	if eb == nil || eb.Name != wire.ErrUnknownQueue {
		t.Fatalf("put to a deleted queue: %s", errText(eb))
	}
	assertReplicasEqual(t, e)
}

// Queue churn leaves no admin state behind: the rate history and the
// creation time of a deleted queue go with it (queueRates), so listing
// queues created and deleted one after another keeps one history per
// existing queue, not one per queue name ever listed.
func TestDeletedQueuesLeaveNoAdminState(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	if err := e.CreateQueue("KEEP"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i := 0; i < 200; i++ {
		name := "CHURN." + strconv.Itoa(i)
		if err := e.CreateQueue(name); err != nil {
			t.Fatal(err)
		}
		if n := len(e.queueSnapshot(now)); n != 2 {
			t.Fatalf("%d queues listed, want 2", n)
		}
		if err := e.DeleteQueue(name); err != nil {
			t.Fatal(err)
		}
	}
	e.adm.rates.mu.Lock()
	rates := len(e.adm.rates.m)
	e.adm.rates.mu.Unlock()
	e.adm.qprops.mu.Lock()
	created := len(e.adm.qprops.created)
	e.adm.qprops.mu.Unlock()
	if rates != 1 || created != 1 {
		t.Errorf("after 200 queues created, listed and deleted: %d rate histories and %d creation times, want 1 each (KEEP)", rates, created)
	}
}
