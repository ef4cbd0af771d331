package admin

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func TestHubAndSpokes(t *testing.T) {
	t.Parallel()
	hub := startEngine(t, engine.Config{Nodes: 1, Spokes: []engine.SpokeConfig{{Name: "SP1"}, {Name: "SP2", Key: "key-2"}}})
	ctx := testCtx(t)
	sp1 := hub.SpokeEngine("SP1")
	if sp1 == nil {
		t.Fatal("spoke SP1 not started")
	}
	// The spoke dials the hub on its own: linked soon after the start,
	// not necessarily by the time Start returns.
	ilinktest.WaitFor(t, waitTimeout, "spoke SP1 linked to the hub", sp1.HubLinked)
	ilinktest.WaitFor(t, waitTimeout, "spoke SP2 linked to the hub", func() bool { return hub.SpokeEngine("SP2") != nil && hub.SpokeEngine("SP2").HubLinked() })
	hubAddr := hub.AdminAddrs()[0]

	// The hub lists its spokes.
	hs, err := Connect(ctx, hubAddr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sl := must[[]SpokeProperty](t)(hs.SpokeList(ctx))
	if len(sl) != 2 || sl[0].Name != "SP1" || sl[0].Key != engine.SpokeKey("SP1") || !sl[0].Running ||
		sl[1].Key != "key-2" || !reflect.DeepEqual(sl[1].QueueManagers, []string{"QM_SP2"}) {
		t.Fatalf("spokes %+v", sl)
	}
	hs.Close()

	// spec: A-32 — after the switch the connection behaves like a direct one.
	s, err := ConnectToSpoke(ctx, hubAddr, "SP1", Options{ClientName: "ADMIN"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	direct := connect(t, sp1, 1, Options{})
	viaHub := must[[]QmgrInfo](t)(s.QmgrList(ctx))
	if !reflect.DeepEqual(viaHub, must[[]QmgrInfo](t)(direct.QmgrList(ctx))) || viaHub[0].Name != "QM_SP1" || s.QueueManager() != "QM_SP1" {
		t.Fatalf("QmgrList through the hub %+v, direct %+v", viaHub, must[[]QmgrInfo](t)(direct.QmgrList(ctx)))
	}
	q := s.AccessAdminQmgr("")
	noErr(t, q.CreateTopic(ctx, "SPOKE.T", "partitions=2"))
	if err := q.CreateTopic(ctx, "SPOKE.T", "partitions=2"); !ilink.HasName(err, wire.ErrTopicExists) {
		t.Fatalf("errors cross the relay unchanged: %v", err)
	}
	// Pipelined calls are answered in order through the relay.
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := q.DescribeTopic(ctx, "SPOKE.T"); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	found := false
	for _, ti := range sp1.Topics() {
		found = found || ti.Name == "SPOKE.T"
	}
	if !found {
		t.Fatal("the topic was not created on the spoke")
	}

	// spec: A-33 — a connection switches only once: refused locally ...
	wantErr(t, s.SwitchToSpoke(ctx, "SP2"), wire.ErrSpokeSwitched, "")
	// ... and by the spoke when a second SPOKE SWITCH arrives.
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	wantErr(t, c.Do(ctx, wire.CodeSpokeSwitch, 0, &wire.SpokeSwitchRequest{Name: "SP2"}, nil), wire.ErrSpokeSwitched, "SP1")

	// spec: A-35 — by key, no lookup by name.
	sk, err := ConnectToSpokeByKey(ctx, hubAddr, "key-2", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sk.QueueManager() != "QM_SP2" {
		t.Fatalf("by key reached %s", sk.QueueManager())
	}
	sk.Close()

	// The refused switch closed the connection (the spoke closed the
	// tunnel, the hub the client side).
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection open after the spoke refused a second switch")
	}
	// spec: A-34 — a failed switch closes the connection; nothing stays open.
	ilinktest.WaitFor(t, waitTimeout, "the hub's sessions to close", func() bool { return hub.SessionCount(1) == 0 })
	wantErr(t, errOf(ConnectToSpoke(ctx, hubAddr, "NOPE", Options{})), wire.ErrUnknownSpoke, "NOPE")
	wantErr(t, errOf(ConnectToSpokeByKey(ctx, hubAddr, "no-such-key", Options{})), wire.ErrUnknownSpoke, "no-such-key")
	ilinktest.WaitFor(t, waitTimeout, "the failed switches' connections to close", func() bool { return hub.SessionCount(1) == 0 })

	// The service reconnects through the hub (switching again); closing it
	// closes the tunnel at the spoke too.
	if qs := must[[]QmgrInfo](t)(s.QmgrList(ctx)); qs[0].Name != "QM_SP1" {
		t.Fatalf("reconnected to %+v", qs)
	}
	spokeSessions := sp1.SessionCount(1) // the direct one + the tunnel
	s.Close()
	ilinktest.WaitFor(t, waitTimeout, "the tunnel to close at the spoke", func() bool { return sp1.SessionCount(1) == spokeSessions-1 })
}

func TestSpokeKeySurvivesRestart(t *testing.T) {
	t.Parallel()
	hub := startEngine(t, engine.Config{Nodes: 1, Spokes: []engine.SpokeConfig{{Name: "EDGE"}}})
	ilinktest.WaitFor(t, waitTimeout, "spoke EDGE linked to the hub", func() bool { return hub.SpokeEngine("EDGE") != nil && hub.SpokeEngine("EDGE").HubLinked() })
	ctx := testCtx(t)
	key := engine.SpokeKey("EDGE")
	if key != engine.SpokeKey("EDGE") || len(key) != 18 {
		t.Fatalf("key %q is not stable", key)
	}
	s, err := ConnectToSpokeByKey(ctx, hub.AdminAddrs()[0], key, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.QueueManager() != "QM_EDGE" {
		t.Fatalf("reached %s", s.QueueManager())
	}
	s.Close()

	// The spoke restarts (a new engine, same name and configured key).
	hub.SpokeEngine("EDGE").Close()
	ilinktest.WaitFor(t, waitTimeout, "the hub to see the link down", func() bool { return !hub.Spokes()[0].Running })
	spoke2 := startEngine(t, engine.Config{Nodes: 1, QueueManager: "QM_EDGE2"})
	noErr(t, spoke2.LinkToHub(hub.SpokeAddr(), "EDGE", ""))
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	noErr(t, hub.WaitSpoke(wctx, "EDGE"))
	s, err = ConnectToSpokeByKey(ctx, hub.AdminAddrs()[0], key, Options{})
	if err != nil { // spec: A-35 — the key still works after a restart
		t.Fatal(err)
	}
	defer s.Close()
	if s.QueueManager() != "QM_EDGE2" {
		t.Fatalf("after the restart reached %s", s.QueueManager())
	}
	// A spoke service reconnects through the hub when its connection dies.
	hub.SeverConnections()
	qs, err := s.QmgrList(ctx)
	if err != nil || qs[0].Name != "QM_EDGE2" {
		t.Fatalf("after a severed relay: %+v, %v", qs, err)
	}
}
