package engine

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// Engine-level checks of the admin surface; the calls themselves are
// tested over TCP by package ilink/admin.

// TestHubCloseLeavesNoGoroutines runs alone (not parallel): a hub with two
// spokes, a relayed connection and a pending definition change; after
// Close every goroutine of the hub and its spokes is gone.
func TestHubCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	e, err := Start(Config{Nodes: 2, ElectionDelay: time.Hour, Spokes: []SpokeConfig{{Name: "A"}, {Name: "B", Key: "kb"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	c.mustCall(wire.CodeSpokeSwitch, 0, &wire.SpokeSwitchRequest{Key: "kb"}, nil)
	if _, eb := c.hello(wire.ModeAdmin); eb != nil {
		t.Fatalf("HELLO through the hub: %s", eb.Name)
	}
	var ql wire.QmgrListReply
	c.mustCall(wire.CodeQmgrList, 0, &wire.Empty{}, &ql)
	if len(ql.Qmgrs) != 1 || ql.Qmgrs[0].Name != "QM_B" {
		t.Fatalf("QMGR LIST through the hub: %+v", ql)
	}
	e.SetDefinitionFaults(DefinitionFaults{Hold: true, ReplyWait: time.Millisecond})
	var cp wire.ClusterPropertyReply
	d := openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	d.mustCall(wire.CodeClusterProperty, 0, &wire.ClusterRequest{}, &cp)
	if eb := d.call(wire.CodeSetClusterProperty, 0, &wire.SetClusterPropertyRequest{BaseVersion: cp.Version, Replicas: 1, MinSync: wire.IntBlank}, &cp); eb == nil || eb.Tail != wire.TailNotCommittedRetry {
		t.Fatalf("held change answered %+v", eb)
	}
	e.Close()
	if e.SpokeEngine("A") != nil && e.SpokeEngine("A").HubLinked() {
		t.Fatal("spoke still linked after the hub closed")
	}
	eventually(t, "hub and spoke goroutines to exit", func() bool { return runtime.NumGoroutine() <= before })
}

func TestLinkToHubValidation(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1})
	if err := e.LinkToHub("127.0.0.1:1", "bad|name", ""); err == nil {
		t.Fatal("a spoke name with '|' was accepted")
	}
	if err := e.LinkToHub("127.0.0.1:1", "S", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.LinkToHub("127.0.0.1:1", "S2", ""); err == nil || !strings.Contains(err.Error(), "already linked") {
		t.Fatalf("second link: %v", err)
	}
	if e.HubLinked() {
		t.Fatal("linked to a hub that does not exist")
	}
	// A connection that is not a hub's cannot switch.
	c := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	if eb := c.call(wire.CodeSpokeSwitch, 0, &wire.SpokeSwitchRequest{Name: "X"}, nil); eb == nil || eb.Name != wire.ErrUnknownSpoke {
		t.Fatalf("switch on a non-hub: %+v", eb)
	}
	c.expectClosed() // spec: A-34
}

func TestAdminRequestsNeedAnAdminSession(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1})
	c := localSession(t, e, wire.ModeConsumer)
	if eb := c.call(wire.CodeQmgrList, 0, &wire.Empty{}, nil); eb == nil || eb.Name != wire.ErrSessionMode {
		t.Fatalf("QMGR LIST on a consumer session: %+v", eb)
	}
}

// A connection waiting for a spoke's attach never holds up the fault API
// (which waits for connections to finish).
func TestSwitchWaitDoesNotBlockFaults(t *testing.T) {
	t.Parallel()
	e, addr := spokeHub(t, 2)
	// A spoke that registers and never attaches.
	nc, err := dialTimeout(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fr := wire.NewFrameReader(nc, wire.MinMaxFrame)
	if err := linkCall(nc, fr, wire.CodeSpokeRegister, 1, &wire.SpokeRegisterRequest{Name: "MUTE"}, nil, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := linkFrame(nc, wire.Header{Code: wire.CodeSpokeWait, Corr: 2}, &wire.Empty{}); err != nil {
		t.Fatal(err)
	}
	c := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	c.send(wire.CodeSpokeSwitch, 0, &wire.SpokeSwitchRequest{Name: "MUTE"})
	eventually(t, "the switch waiting for the attach", func() bool {
		h := e.adm.hub.Load()
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.tunnels) == 1
	})
	done := make(chan error, 1)
	go func() { done <- e.KillNode(1) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("KillNode blocked by a connection waiting for a spoke")
	}
	if s := e.Spokes(); len(s) != 1 || s[0].Name != "MUTE" {
		t.Fatalf("spokes %+v", s)
	}
}

// TestRequestCounts: every dispatched request is counted under its code,
// on whichever node it reached; codes never sent are absent.
func TestRequestCounts(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 2})
	before := e.RequestCounts()
	a := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	b := openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	var tl wire.TopicListReply
	for range 3 {
		a.mustCall(wire.CodeTopicList, 0, &wire.TopicListRequest{}, &tl)
	}
	b.mustCall(wire.CodeTopicList, 0, &wire.TopicListRequest{}, &tl)
	got := e.RequestCounts()
	if n := got[wire.CodeTopicList] - before[wire.CodeTopicList]; n != 4 {
		t.Fatalf("TOPIC LIST counted %d times, want 4 (counts %v)", n, got)
	}
	if n := got[wire.CodeHello] - before[wire.CodeHello]; n < 2 {
		t.Fatalf("HELLO counted %d times, want at least the 2 sessions'", n)
	}
	if _, ok := got[wire.CodeDeleteTopic]; ok {
		t.Fatalf("DELETE TOPIC counted without being sent: %v", got)
	}
}
