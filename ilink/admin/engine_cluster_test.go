package admin

import (
	"strconv"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func ptr[T any](v T) *T { return &v }

func TestClusterPropertyRules(t *testing.T) {
	t.Parallel()
	e, s, _, ctx := startAdmin(t, engine.Config{}, 1)
	p := must[ClusterProperty](t)(s.ClusterProperty(ctx, ""))
	// spec: K-01 — replicas, minSync, PLACEMENT and numbered nodes with qmgr and address.
	if p.Name != e.Config().Cluster || p.Version != 1 || p.Replicas != 0 || p.MinSync != 0 || !p.Placement || len(p.Nodes) != 3 {
		t.Fatalf("initial definition %+v", p)
	}
	for i, n := range p.Nodes {
		// spec: K-02 — (qmgr, host, listener port, ilcc port); the cluster is (name, ilcc port).
		if n.Number != i+1 || n.QueueManager != e.Config().QueueManager || n.Host == "" || n.Port == 0 || n.IlccPort == 0 || p.IlccPort == 0 {
			t.Fatalf("node %+v", n)
		}
		if addr := e.DataAddrs()[i]; addr != n.Host+":"+strconv.Itoa(n.Port) {
			t.Fatalf("node %d listener %s:%d, data listener %s", n.Number, n.Host, n.Port, addr)
		}
	}

	// spec: K-03 — the documented text, e.g. REPLICAS 4 exceeds 3 data nodes.
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, Replicas: ptr(4)})), wire.ErrInvalidProperty, "REPLICAS 4 exceeds 3 data nodes")

	p = must[ClusterProperty](t)(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, Replicas: ptr(2), MinSync: ptr(2)}))
	if p.Version != 2 || p.Replicas != 2 || p.MinSync != 2 || !p.Placement {
		t.Fatalf("after set: %+v", p)
	}
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, MinSync: ptr(3)})), wire.ErrInvalidProperty, "MINSYNC 3 exceeds REPLICAS 2")

	// spec: K-06 — blank fields leave the values as they are.
	p = must[ClusterProperty](t)(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, Placement: ptr(false)}))
	if p.Replicas != 2 || p.MinSync != 2 || p.Placement || p.Version != 3 {
		t.Fatalf("after a placement-only change: %+v", p)
	}
	// spec: K-05 — minSync=0 clears it.
	p = must[ClusterProperty](t)(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, MinSync: ptr(0)}))
	if p.MinSync != 0 || p.Replicas != 2 {
		t.Fatalf("after minSync=0: %+v", p)
	}
	// spec: K-04 — replicas=0 clears it.
	p = must[ClusterProperty](t)(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, Replicas: ptr(0)}))
	if p.Replicas != 0 {
		t.Fatalf("after replicas=0: %+v", p)
	}
	// spec: K-15 — a change read at an older version fails.
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version - 1, Replicas: ptr(1)})), wire.ErrClusterDefMoved, "")
	if got := must[ClusterProperty](t)(s.ClusterProperty(ctx, "")); got.Version != p.Version || got.Replicas != 0 {
		t.Fatalf("a refused change changed the definition: %+v", got)
	}
	wantErr(t, errOf(s.ClusterProperty(ctx, "NOPE")), wire.ErrUnknownCluster, "NOPE")
	if e.ClusterDefinition().Version != p.Version {
		t.Fatalf("Go API version %d, admin %d", e.ClusterDefinition().Version, p.Version)
	}
}

func TestAddRemoveNodePlacement(t *testing.T) {
	t.Parallel()
	_, s, _, ctx := startAdmin(t, engine.Config{}, 1)
	p := must[ClusterProperty](t)(s.ClusterProperty(ctx, ""))
	p = must[ClusterProperty](t)(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, Replicas: ptr(3)}))

	n4 := ClusterNode{QueueManager: "QM9", Host: "ilink-12.example", Port: 21001, IlccPort: 27091}
	p = must[ClusterProperty](t)(s.AddNode(ctx, "", n4))
	if len(p.Nodes) != 4 || p.Nodes[3].Number != 4 || p.Nodes[3].Host != "ilink-12.example" {
		t.Fatalf("after AddNode: %+v", p)
	}
	if p.Replicas != 3 { // spec: K-07
		t.Fatalf("PLACEMENT on: replicas %d after AddNode, want 3", p.Replicas)
	}
	// spec: K-17 — re-running the helper after it committed is refused, no duplicate.
	wantErr(t, errOf(s.AddNode(ctx, "", n4)), wire.ErrInvalidProperty, "qmgr or address is node 4's")
	wantErr(t, errOf(s.AddNode(ctx, "", ClusterNode{QueueManager: "OTHER", Host: "ilink-12.example", Port: 21001})), wire.ErrInvalidProperty, "qmgr or address is node 4's")
	if got := must[ClusterProperty](t)(s.ClusterProperty(ctx, "")); len(got.Nodes) != 4 {
		t.Fatalf("duplicate added: %+v", got.Nodes)
	}

	// spec: K-08 — PLACEMENT on: kept unless it exceeds the remaining nodes.
	p = must[ClusterProperty](t)(s.RemoveNode(ctx, "", 4))
	if p.Replicas != 3 || len(p.Nodes) != 3 {
		t.Fatalf("after RemoveNode 4: %+v", p)
	}
	p = must[ClusterProperty](t)(s.RemoveNode(ctx, "", 3))
	if p.Replicas != 2 || len(p.Nodes) != 2 {
		t.Fatalf("PLACEMENT on, replicas 3 with 2 nodes left: %+v", p)
	}
	wantErr(t, errOf(s.RemoveNode(ctx, "", 3)), wire.ErrInvalidProperty, "no node 3")

	// PLACEMENT off: replicas follows the node count by ±1.
	p = must[ClusterProperty](t)(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, Placement: ptr(false), Replicas: ptr(1)}))
	p = must[ClusterProperty](t)(s.AddNode(ctx, "", ClusterNode{QueueManager: "QM5", Host: "ilink-13.example", Port: 21001, IlccPort: 27091}))
	if p.Replicas != 2 { // spec: K-09
		t.Fatalf("PLACEMENT off: replicas %d after AddNode, want 2", p.Replicas)
	}
	p = must[ClusterProperty](t)(s.RemoveNode(ctx, "", p.Nodes[len(p.Nodes)-1].Number))
	if p.Replicas != 1 { // spec: K-10
		t.Fatalf("PLACEMENT off: replicas %d after RemoveNode, want 1", p.Replicas)
	}
}

func TestNotCommittedTails(t *testing.T) {
	t.Parallel()
	e, s, _, ctx := startAdmin(t, engine.Config{}, 1)
	p := must[ClusterProperty](t)(s.ClusterProperty(ctx, ""))

	// (not committed - retry): the controller is slower than the reply wait.
	e.SetDefinitionFaults(engine.DefinitionFaults{CommitDelay: 300 * time.Millisecond, ReplyWait: 20 * time.Millisecond})
	change := ClusterPropertyChange{BaseVersion: p.Version, Replicas: ptr(2)}
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", change)), wire.ErrClusterNotCommitted, wire.TailNotCommittedRetry)
	if got := must[ClusterProperty](t)(s.ClusterProperty(ctx, "")); got.Version != p.Version {
		t.Fatalf("committed at once: %+v", got)
	}
	// spec: K-12 — not committed yet, but it commits later.
	ilinktest.WaitFor(t, waitTimeout, "the pending change to commit", func() bool { return !e.DefinitionPending("") })
	got := must[ClusterProperty](t)(s.ClusterProperty(ctx, ""))
	if got.Version != p.Version+1 || got.Replicas != 2 {
		t.Fatalf("after the late commit: %+v", got) // spec: K-11 (asynchronous commit)
	}
	// spec: K-16 — resending exactly the version read: DEF_MOVED, applied once.
	e.SetDefinitionFaults(engine.DefinitionFaults{})
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", change)), wire.ErrClusterDefMoved, "")
	p = got

	// (outcome unknown - check VIEW CLUSTER): the controller's answer is lost.
	e.SetDefinitionFaults(engine.DefinitionFaults{LoseReplies: 1})
	change = ClusterPropertyChange{BaseVersion: p.Version, MinSync: ptr(1)}
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", change)), wire.ErrClusterNotCommitted, wire.TailOutcomeUnknown) // spec: K-13
	got = must[ClusterProperty](t)(s.ClusterProperty(ctx, ""))
	if got.Version != p.Version+1 || got.MinSync != 1 {
		t.Fatalf("re-read after the lost answer: %+v", got)
	}
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", change)), wire.ErrClusterDefMoved, "") // spec: K-16
	p = got

	// (earlier change still pending - retry): not submitted; resending later works.
	e.SetDefinitionFaults(engine.DefinitionFaults{Hold: true, ReplyWait: 10 * time.Millisecond})
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", ClusterPropertyChange{BaseVersion: p.Version, Placement: ptr(false)})), wire.ErrClusterNotCommitted, wire.TailNotCommittedRetry)
	second := ClusterPropertyChange{BaseVersion: p.Version + 1, Replicas: ptr(3)}
	wantErr(t, errOf(s.SetClusterProperty(ctx, "", second)), wire.ErrClusterNotCommitted, wire.TailEarlierPending)
	wantErr(t, errOf(s.AddNode(ctx, "", ClusterNode{QueueManager: "QMX", Host: "h", Port: 1})), wire.ErrClusterNotCommitted, wire.TailEarlierPending)
	e.SetDefinitionFaults(engine.DefinitionFaults{})
	e.ReleaseDefinitionChanges()
	got = must[ClusterProperty](t)(s.ClusterProperty(ctx, ""))
	if got.Version != p.Version+1 || got.Placement || got.Replicas != 2 || len(got.Nodes) != 3 {
		t.Fatalf("the refused changes were applied: %+v", got) // spec: K-14 (not submitted)
	}
	got = must[ClusterProperty](t)(s.SetClusterProperty(ctx, "", second)) // spec: K-14 — resent unchanged
	if got.Replicas != 3 || got.Version != p.Version+2 {
		t.Fatalf("resent change: %+v", got)
	}
}

func TestCreateAndJoinCluster(t *testing.T) {
	t.Parallel()
	e, s, _, ctx := startAdmin(t, engine.Config{Nodes: 1}, 1)
	def := ClusterProperty{Name: "C2", IlccPort: 27091, Placement: true,
		Nodes: []ClusterNode{{QueueManager: "QM1", Host: "ilink-1.example", Port: 21001, IlccPort: 27091}}}
	// The controller commits slowly: the creation answers NOT_COMMITTED and
	// the join, sent right away, waits for it.
	e.SetDefinitionFaults(engine.DefinitionFaults{CommitDelay: 200 * time.Millisecond, ReplyWait: 10 * time.Millisecond})
	wantErr(t, errOf(s.CreateCluster(ctx, def)), wire.ErrClusterNotCommitted, wire.TailNotCommittedRetry)
	p, err := s.JoinCluster(ctx, "C2", ClusterNode{QueueManager: "QM2", Host: "ilink-2.example", Port: 21001, IlccPort: 27091})
	if err != nil { // spec: K-18
		t.Fatalf("JoinCluster right after CreateCluster: %v", err)
	}
	if p.Name != "C2" || len(p.Nodes) != 2 || p.Nodes[1].Number != 2 || p.Version != 2 {
		t.Fatalf("joined definition %+v", p)
	}
	e.SetDefinitionFaults(engine.DefinitionFaults{})
	wantErr(t, errOf(s.CreateCluster(ctx, def)), wire.ErrInvalidArgument, "already defined")
	wantErr(t, errOf(s.CreateCluster(ctx, ClusterProperty{Name: "C3", Replicas: 2, Nodes: def.Nodes})), wire.ErrInvalidProperty, "REPLICAS 2 exceeds 1 data nodes")

	// spec: K-19 — unreachable controller: retried (shortened here), then UNREACHABLE.
	e.SetDefinitionFaults(engine.DefinitionFaults{Unreachable: true, JoinRetry: 300 * time.Millisecond})
	start := time.Now()
	wantErr(t, errOf(s.JoinCluster(ctx, "C2", ClusterNode{QueueManager: "QM3", Host: "ilink-3.example", Port: 21001})), wire.ErrClusterUnreachable, "")
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Fatalf("gave up after %v, before the retry period", el)
	}
}

func TestSubGroupTimeout(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{Nodes: 1}, 1)
	if v := must[int](t)(q.SubGroupTimeout(ctx)); v != 30 || e.SubGroupTimeout() != 30*time.Second { // spec: C-44
		t.Fatalf("default %d / %v", v, e.SubGroupTimeout())
	}
	for _, bad := range []int{0, 301, -1} { // spec: C-45
		wantErr(t, q.SetSubGroupTimeout(ctx, bad), wire.ErrInvalidProperty, "SUBGROUPTIMEOUT")
	}
	for _, ok := range []int{1, 300, 45} {
		if err := q.SetSubGroupTimeout(ctx, ok); err != nil {
			t.Fatalf("SetSubGroupTimeout(%d): %v", ok, err)
		}
		if v := must[int](t)(q.SubGroupTimeout(ctx)); v != ok || e.SubGroupTimeout() != time.Duration(ok)*time.Second {
			t.Fatalf("after %d: %d / %v", ok, v, e.SubGroupTimeout())
		}
	}
	if v := must[string](t)(q.Property(ctx, "subgrouptimeout")); v != "45" {
		t.Fatalf("by engine key: %q", v)
	}
	wantErr(t, errOf(q.Property(ctx, "NOPE")), wire.ErrInvalidProperty, "NOPE")
}
