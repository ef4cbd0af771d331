package ilink

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// deadAddr is a loopback address nobody listens on.
func deadAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	ln.Close()
	return a
}

func TestIntegrationDialFollowerLandsOnLeader(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	addrs := e.DataAddrs()

	s := dialT(t, e, addrs[1], Options{AutoCommit: true})
	if n := nodeOf(s); n != 1 { // spec: S-05 (one address, a follower's)
		t.Fatalf("connected to node %d, want leader 1", n)
	}
	if got := s.ClusterAddresses(); !reflect.DeepEqual(got, addrs) { // spec: S-03, S-04
		t.Fatalf("ClusterAddresses = %v, want %v", got, addrs)
	}
	if c := s.eps.candidates(""); !slices.Contains(c, addrs[0]) { // spec: S-06
		t.Fatalf("leader from the hint is not a candidate: %v", c)
	}
	putT(t, accessT(t, s, "Q1"), "via follower")

	// List form: a dead entry is skipped, a follower entry redirects.
	s2 := dialT(t, e, deadAddr(t)+","+addrs[2], Options{AutoCommit: true})
	if n := nodeOf(s2); n != 1 { // spec: S-02, S-05 (list form)
		t.Fatalf("list form connected to node %d, want 1", n)
	}
}

// Both connect forms open a working session with the application name
// and the session mode given: one "host:port", and the list form.
func TestIntegrationConnectBothForms(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	var mu sync.Mutex
	hellos := map[string]wire.SessionMode{} // client name -> mode, as the engine received them
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		var h wire.HelloRequest
		if ev.Code == wire.CodeHello && wire.Decode(ev.Body, &h) == nil {
			mu.Lock()
			hellos[h.ClientName] = h.Mode
			mu.Unlock()
		}
		return engine.ControlAction{}
	})
	one := dialT(t, e, e.DataAddrs()[0], Options{ClientName: "app-one", AutoCommit: true})
	list := dialT(t, e, deadAddr(t)+","+e.DataAddrs()[0], Options{ClientName: "app-list", AutoCommit: false})
	putT(t, accessT(t, one, "Q1"), "one")
	q := accessT(t, list, "Q1")
	putT(t, q, "list")
	if err := list.Commit(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// spec: S-01 — connect(host, port, appName, autoCommit) and the list
	// form both connect, with the name and mode they were given.
	if !one.AutoCommit() || list.AutoCommit() || hellos["app-one"] != wire.ModeAutoCommit || hellos["app-list"] != wire.ModeTransacted {
		t.Fatalf("sessions: one auto %v, list auto %v; HELLOs %v", one.AutoCommit(), list.AutoCommit(), hellos)
	}
	if d, err := e.QueueDepth("Q1"); err != nil || d != 2 { // spec: S-01 (both sessions work)
		t.Fatalf("depth %d, %v after a put on each session", d, err)
	}
}

func TestIntegrationAutoCommitSurvivesLeaderKill(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	s, q := queueT(t, e, Options{AutoCommit: true}, "Q1")
	ctx := testCtx(t)
	id1 := putT(t, q, "m1")

	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	id2, err := q.Put(ctx, []byte("m2")) // no Reconnect by the caller
	if err != nil {                      // spec: S-11, S-17 (old handle, internal reconnect)
		t.Fatalf("put after leader kill: %v", err)
	}
	t.Logf("put recovered after %v", time.Since(start))
	if n := nodeOf(s); n != 2 {
		t.Fatalf("session on node %d after failover, want 2", n)
	}

	// A get is retried the same way.
	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	m, err := q.Get(ctx, time.Second)
	if err != nil { // spec: S-11 (get), S-17
		t.Fatalf("get after second leader kill: %v", err)
	}
	if string(m.Payload) != "m1" || m.ID != id1 { // spec
		t.Fatalf("got %q %v, want m1 %v", m.Payload, m.ID, id1)
	}
	rest := drain(t, e, "Q1")
	if len(rest) != 1 || string(rest[0].Payload) != "m2" || rest[0].ID != id2 { // spec: S-11 (readable once)
		t.Fatalf("after failovers the queue holds %v, want exactly m2 once", payloads(rest))
	}
}

func TestIntegrationTransactedLeaderKill(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{ElectionDelay: 600 * time.Millisecond}, "Q1")
	log := watchRequests(e)
	s, q := queueT(t, e, Options{}, "Q1")
	ctx := testCtx(t)
	putT(t, q, "c1")
	putT(t, q, "c2")
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	putT(t, q, "u1")
	if !s.InTransaction() {
		t.Fatal("InTransaction false with an uncommitted put")
	}

	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	<-s.conn.Done() // the loss has reached the client
	log.reset()
	start := time.Now()
	_, err := q.Put(ctx, []byte("u2"))
	if !IsSessionError(err) { // spec: S-12, E-06
		t.Fatalf("put in an open transaction after leader kill: got %v, want session error", err)
	}
	if el := time.Since(start); el > 200*time.Millisecond || log.count(wire.CodePut) != 0 { // spec: S-12 (not retried)
		t.Fatalf("put took %v and sent %d PUTs: it was retried", el, log.count(wire.CodePut))
	}
	if _, err := s.AccessQueue(ctx, "Q1"); !IsSessionError(err) { // spec: S-16 (not auto-reconnected)
		t.Fatalf("AccessQueue on a dead session: got %v", err)
	}
	if err := s.Reconnect(ctx); !IsSessionError(err) { // spec: S-18 (no leader yet)
		t.Fatalf("Reconnect during the election: got %v, want session error", err)
	} else {
		t.Logf("reconnect during election: %v", err)
	}
	var reconnectErr error
	if !ilinktest.Poll(20*time.Second, func() bool {
		reconnectErr = s.Reconnect(ctx)
		if reconnectErr == nil {
			return true
		}
		if !IsSessionError(reconnectErr) || ctx.Err() != nil {
			t.Fatalf("Reconnect: %v", reconnectErr)
		}
		return false
	}) {
		t.Fatalf("Reconnect: %v", reconnectErr)
	}
	if n := nodeOf(s); n != 2 { // spec: S-18 (new leader)
		t.Fatalf("reconnected to node %d, want 2", n)
	}
	q2, err := s.AccessQueue(ctx, "Q1")
	if err != nil { // spec: S-16 (works after reconnect)
		t.Fatalf("AccessQueue after Reconnect: %v", err)
	}
	if d, err := q2.Depth(ctx); err != nil || d != 2 { // spec: Q-10 (u1 lost, c1 c2 kept)
		t.Fatalf("depth after failover = %d, %v; want 2", d, err)
	}
	putT(t, q2, "u1")
	putT(t, q2, "u2")
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := payloads(drain(t, e, "Q1")); !reflect.DeepEqual(got, []string{"c1", "c2", "u1", "u2"}) { // spec: Q-10
		t.Fatalf("queue after redo: %v", got)
	}
}

func TestIntegrationEndpointCacheFile(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	addrs := e.DataAddrs()
	file := filepath.Join(t.TempDir(), "endpoints")

	s := dialT(t, e, addrs[0], Options{AutoCommit: true, EndpointCacheFile: file})
	s.Close()
	cached, err := readCacheFile(file)
	if err != nil || !reflect.DeepEqual(cached, addrs) { // spec: S-07
		t.Fatalf("cache file holds %v (%v), want %v", cached, err, addrs)
	}

	if err := e.KillNode(1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.WaitLeader(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	// A "restarted app": a new session whose only configured address is dead.
	s2 := dialT(t, e, addrs[0], Options{AutoCommit: true, EndpointCacheFile: file})
	if n := nodeOf(s2); n != 2 { // spec: S-08
		t.Fatalf("with the cache file: connected to node %d, want 2", n)
	}
	putT(t, accessT(t, s2, "Q1"), "x")
	data, _ := os.ReadFile(file)
	if got, _ := parseCacheData(data); !reflect.DeepEqual(got, addrs) { // spec: S-07 (no duplicates)
		t.Fatalf("cache file after second session: %q", data)
	}

	_, err = Dial(testCtx(t), addrs[0], testOptions(e, Options{AutoCommit: true}))
	switch {
	case IsSessionError(err): // spec: S-09
	case HasName(err, wire.ErrInvalidArgument):
		t.Logf("the dead node's port was taken by another listener: %v", err)
	default:
		t.Fatalf("without the cache file: got %v, want session error", err) // spec: S-09
	}

	// The old leader back as a follower answers with a leader hint.
	if err := e.RestartNode(1); err != nil {
		t.Fatal(err)
	}
	s3 := dialT(t, e, addrs[0], Options{AutoCommit: true})
	if n := nodeOf(s3); n != 2 { // spec: S-10
		t.Fatalf("via the restarted old leader: node %d, want 2", n)
	}
}

func TestIntegrationNoEndpointListNoRetry(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{Nodes: 1}, "Q1")
	log := watchRequests(e)
	s, q := queueT(t, e, Options{AutoCommit: true}, "Q1")
	putT(t, q, "a")
	e.SeverConnections()
	<-s.conn.Done()
	log.reset()
	_, err := q.Put(testCtx(t), []byte("b"))
	if !IsSessionError(err) || log.count(wire.CodePut) != 0 || log.count(wire.CodeHello) != 0 { // spec: S-13
		t.Fatalf("single-node session: got %v with %d PUT / %d HELLO sent, want a session error and no retry",
			err, log.count(wire.CodePut), log.count(wire.CodeHello))
	}
	if err := s.Reconnect(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	putT(t, q, "c")
	if got := payloads(drain(t, e, "Q1")); !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Fatalf("queue: %v", got)
	}
}

func TestIntegrationRejectionNotRetried(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	log := watchRequests(e)
	s := dialT(t, e, e.DataAddrs()[0], Options{AutoCommit: true})
	ctx := testCtx(t)
	_, err := s.AccessQueue(ctx, "NOPE")
	if !IsRejected(err) || !HasName(err, wire.ErrUnknownQueue) { // spec: E-05
		t.Fatalf("unknown queue: got %v", err)
	}
	q := &Queue{s: s, name: "NOPE"} // a handle whose queue does not exist
	log.reset()
	_, err = q.Put(ctx, []byte("x"))
	if !IsRejected(err) || log.count(wire.CodePut) != 1 { // spec: S-15
		t.Fatalf("put to unknown queue: %v after %d PUTs, want one rejected PUT", err, log.count(wire.CodePut))
	}
	if err := s.Commit(ctx); !IsRejected(err) || !HasName(err, wire.ErrNotInTransaction) {
		t.Fatalf("commit on auto-commit session: %v", err)
	}
	if _, err := Dial(ctx, e.DataAddrs()[0], Options{QueueManager: "QX"}); !IsRejected(err) {
		t.Fatalf("wrong queue manager: got %v, want rejection", err)
	}
}

func TestIntegrationConcurrentPutsShareOneFailover(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{}, "Q1")
	_, q := queueT(t, e, Options{AutoCommit: true}, "Q1")
	ctx := testCtx(t)
	const workers, each = 6, 15
	ids := make(chan MsgID, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id, err := q.Put(ctx, []byte(fmt.Sprintf("w%d-%d", w, i)))
				if err != nil { // spec: S-11
					t.Errorf("put w%d-%d: %v", w, i, err)
					return
				}
				ids <- id
				time.Sleep(5 * time.Millisecond) // pacing the puts: they still flow when the leader is killed
			}
		})
	}
	// Kill the leader while the puts flow: once one per worker is acknowledged.
	if !ilinktest.Poll(10*time.Second, func() bool { return len(ids) >= workers }) {
		t.Fatalf("only %d puts acknowledged before the kill", len(ids))
	}
	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(ids)
	seen := map[MsgID]int{}
	for _, m := range drain(t, e, "Q1") {
		seen[m.ID]++
	}
	n := 0
	for id := range ids {
		n++
		if seen[id] == 0 { // spec: S-11 (at-least-once)
			t.Errorf("acknowledged put %v missing", id)
		}
	}
	if n != workers*each {
		t.Fatalf("%d puts acknowledged, want %d", n, workers*each)
	}
}
