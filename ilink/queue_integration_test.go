package ilink

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func TestIntegrationClientFrameCap(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	log := watchRequests(e)
	_, q := queueT(t, e, Options{AutoCommit: true, MaxFrame: wire.MinMaxFrame}, "Q1")
	ctx := testCtx(t)
	log.reset()
	// Payload + header fits the cap; the encoded frame (queue name, id, length prefixes) does not.
	for _, n := range []int{wire.MinMaxFrame - wire.HeaderSize, 2 * wire.MinMaxFrame} {
		_, err := q.Put(ctx, make([]byte, n))
		if !IsRejected(err) || !HasName(err, wire.ErrMsgSizeOver) { // spec: W-08, E-10
			t.Fatalf("put of %d bytes over a %d cap: got %v", n, wire.MinMaxFrame, err)
		}
	}
	if n := log.count(wire.CodePut); n != 0 { // spec: W-08 (nothing sent)
		t.Fatalf("engine saw %d PUTs of oversize messages", n)
	}
	putT(t, q, "small") // spec: W-09
	if got := payloads(drain(t, e, "Q1")); !reflect.DeepEqual(got, []string{"small"}) {
		t.Fatalf("queue: %v", got)
	}
}

func TestIntegrationClientCapAboveEngineCap(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{Nodes: 1, MaxFrame: wire.MinMaxFrame}, "Q1")
	_, q := queueT(t, e, Options{AutoCommit: true}, "Q1") // client cap 128 MiB
	_, err := q.Put(testCtx(t), make([]byte, 2*wire.MinMaxFrame))
	if !IsSessionError(err) { // spec: W-10, W-03
		t.Fatalf("frame over the engine's cap: got %v, want a session error (connection dropped)", err)
	}
	if d, _ := e.QueueDepth("Q1"); d != 0 {
		t.Fatalf("depth %d", d)
	}
}

func TestIntegrationGetWaits(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	_, q := queueT(t, e, Options{AutoCommit: true}, "Q1")
	ctx := testCtx(t)

	const wait = 300 * time.Millisecond
	start := time.Now()
	_, err := q.Get(ctx, wait)
	el := time.Since(start)
	if !IsNoMessage(err) || !HasName(err, wire.ErrNoMessage) { // spec: Q-05, E-07
		t.Fatalf("get on empty queue: got %v", err)
	}
	if el < wait-10*time.Millisecond || el > wait+2*time.Second { // spec: Q-05 (after the wait)
		t.Fatalf("no-message after %v, want about %v", el, wait)
	}

	// A put by another session during the wait ends it early.
	_, oq := queueT(t, e, Options{AutoCommit: true}, "Q1")
	go func() {
		// Once the Get waits at the leader (or after 5 s: the Get's
		// answer then tells).
		ilinktest.Poll(5*time.Second, func() bool { return e.WaitingGets("Q1") != 0 })
		oq.Put(ctx, []byte("late"))
	}()
	start = time.Now()
	m, err := q.Get(ctx, 5*time.Second)
	if err != nil || string(m.Payload) != "late" || time.Since(start) > 2*time.Second { // spec: Q-04
		t.Fatalf("get during a put: %v %v after %v", m, err, time.Since(start))
	}

	id := putT(t, oq, "match-me")
	putT(t, oq, "other")
	m, err = q.GetMatch(ctx, id, 0)
	if err != nil || m.ID != id || string(m.Payload) != "match-me" {
		t.Fatalf("GetMatch: %v %v", m, err)
	}
}

func TestIntegrationCommitAndGet(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	log := watchRequests(e)
	ctx := testCtx(t)
	_, aq := queueT(t, e, Options{AutoCommit: true}, "Q1")
	tx, tq := queueT(t, e, Options{}, "Q1")

	// Happy path: the commit publishes t1, the get returns m0.
	putT(t, aq, "m0")
	putT(t, tq, "t1")
	m, err := tq.CommitAndGet(ctx, time.Second)
	if err != nil || string(m.Payload) != "m0" { // spec: Q-11
		t.Fatalf("CommitAndGet: %v %v", m, err)
	}
	if m2, err := aq.Get(ctx, 0); err != nil || string(m2.Payload) != "t1" { // spec: Q-11 (commit took effect)
		t.Fatalf("t1 not committed: %v %v", m2, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// No message, but the commit happened.
	putT(t, aq, "x")
	if m, err := tq.Get(ctx, 0); err != nil || string(m.Payload) != "x" {
		t.Fatalf("get x: %v %v", m, err)
	}
	_, err = tq.CommitAndGet(ctx, 100*time.Millisecond)
	if !IsNoMessage(err) { // spec: Q-13
		t.Fatalf("CommitAndGet on empty queue: got %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := aq.Get(ctx, 0); !IsNoMessage(err) { // spec: Q-13 (commit already took effect)
		t.Fatalf("x came back after rollback: %v", err)
	}

	// Auto-commit: only the GET is sent.
	putT(t, aq, "y")
	log.reset()
	if m, err := aq.CommitAndGet(ctx, 0); err != nil || string(m.Payload) != "y" {
		t.Fatalf("auto-commit CommitAndGet: %v %v", m, err)
	}
	if log.count(wire.CodeCommit) != 0 || log.count(wire.CodeGet) != 1 { // spec: Q-18
		t.Fatalf("auto-commit CommitAndGet sent %d COMMIT, %d GET", log.count(wire.CodeCommit), log.count(wire.CodeGet))
	}
}

func TestIntegrationCommitAndGetFailures(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	ctx := testCtx(t)
	_, aq := queueT(t, e, Options{AutoCommit: true}, "Q1")
	tx, tq := queueT(t, e, Options{}, "Q1")

	// Commit rejected: the message the pipelined get took goes back.
	putT(t, aq, "y")
	putT(t, tq, "p")
	remove := e.Control(once(wire.CodeCommit, engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrInternal, Tail: "injected"}}))
	_, err := tq.CommitAndGet(ctx, time.Second)
	remove()
	if !IsRejected(err) || !HasName(err, wire.ErrInternal) { // spec: Q-14
		t.Fatalf("rejected commit: got %v", err)
	}
	if got := payloads(drain(t, e, "Q1")); !reflect.DeepEqual(got, []string{"y"}) { // spec: Q-14 (y back in the queue)
		t.Fatalf("after rejected commit the queue holds %v, want [y]", got)
	}

	// Commit ok, get rejected: the get's error, the commit stands.
	putT(t, tq, "p2")
	remove = e.Control(once(wire.CodeGet, engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrInternal, Tail: "get refused"}}))
	_, err = tq.CommitAndGet(ctx, 0)
	remove()
	if !IsRejected(err) || AsError(err).Tail != "get refused" { // spec: Q-15
		t.Fatalf("rejected get: got %v", err)
	}
	if got := payloads(drain(t, e, "Q1")); !reflect.DeepEqual(got, []string{"p2"}) { // spec: Q-15
		t.Fatalf("after rejected get the queue holds %v, want [p2]", got)
	}

	// Commit ok, get lost: reconnect and one retry, like Get. The engine
	// hands the lost get's message back when it notices the connection
	// loss, which may come after the retried get: that one then takes the
	// next message. Either way nothing is lost or duplicated.
	putT(t, aq, "z")
	putT(t, tq, "p3")
	remove = e.Control(once(wire.CodeGet, engine.ControlAction{DropReply: true}))
	m, err := tq.CommitAndGet(ctx, time.Second)
	remove()
	if err != nil { // spec: Q-17
		t.Fatalf("get lost after commit: %v, want a message after the retry", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// The other message is in the queue, or comes back once the engine has
	// cleaned up the lost connection: a waiting get sees it either way.
	m2, err := aq.Get(ctx, 5*time.Second)
	if err != nil {
		t.Fatalf("second message: %v", err)
	}
	got := []string{string(m.Payload), string(m2.Payload)}
	if slices.Sort(got); !reflect.DeepEqual(got, []string{"p3", "z"}) { // spec: Q-17 (p3 committed, z kept)
		t.Fatalf("retried get + queue = %v, want p3 and z once each", got)
	}
	if rest := drain(t, e, "Q1"); len(rest) != 0 {
		t.Fatalf("queue still holds %v", payloads(rest))
	}

	// Connection lost before the commit's reply: session error, no retry.
	putT(t, tq, "p4")
	remove = e.Control(once(wire.CodeCommit, engine.ControlAction{DropReply: true}))
	_, err = tq.CommitAndGet(ctx, time.Second)
	remove()
	if !IsSessionError(err) { // spec: Q-16
		t.Fatalf("commit reply lost: got %v, want session error", err)
	}
	if _, cerr := tx.current(); cerr == nil { // spec: Q-16 (not reconnected)
		t.Fatal("session reconnected after a lost commit reply")
	}
	if err := tx.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	putT(t, tq, "p5")
	remove = e.Control(once(wire.CodeCommit, engine.ControlAction{DropReply: true}))
	err = tx.Commit(ctx)
	remove()
	if !IsSessionError(err) { // spec: Q-16 (plain commit)
		t.Fatalf("plain commit reply lost: got %v", err)
	}
}

func TestIntegrationRetriedPutReusesMsgID(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	_, q := queueT(t, e, Options{AutoCommit: true}, "Q1")
	remove := e.Control(once(wire.CodePut, engine.ControlAction{DropReply: true}))
	defer remove()
	id, err := q.Put(testCtx(t), []byte("dup"))
	if err != nil { // spec: S-11
		t.Fatalf("put with a lost reply: %v", err)
	}
	ms := drain(t, e, "Q1")
	if len(ms) != 2 || ms[0].ID != id || ms[1].ID != id { // spec: S-14
		ids := []MsgID{}
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		t.Fatalf("queue holds %v with ids %v, want the message twice with id %v", payloads(ms), ids, id)
	}
}

func TestIntegrationReadOnlyQueueSession(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	log := watchRequests(e)
	_, q := queueT(t, e, Options{AutoCommit: false, ReadOnly: true}, "Q1")
	ctx := testCtx(t)
	log.reset()
	_, perr := q.Put(ctx, []byte("x"))
	_, gerr := q.Get(ctx, 0)
	_, cerr := q.CommitAndGet(ctx, 0)
	for call, err := range map[string]error{"Put": perr, "Get": gerr, "CommitAndGet": cerr} {
		if e := AsError(err); e == nil || e.Name != wire.ErrReadOnly || e.Tail != call+" refused: read-only mode" {
			t.Fatalf("%s in read-only mode: %v", call, err)
		}
	}
	if n := log.count(wire.CodePut) + log.count(wire.CodeGet) + log.count(wire.CodeCommit); n != 0 {
		t.Fatalf("%d requests reached the engine in read-only mode", n)
	}
	if d, err := q.Depth(ctx); err != nil || d != 0 {
		t.Fatalf("Depth in read-only mode: %d, %v", d, err)
	}
}
