package admin

import (
	"context"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// queries lists every per-queue-manager query; each must fail on a stopped
// queue manager.
func queries(q *Qmgr) map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"Nodes":             func(ctx context.Context) error { _, err := q.Nodes(ctx); return err },
		"Topics":            func(ctx context.Context) error { _, err := q.Topics(ctx); return err },
		"DescribeTopic":     func(ctx context.Context) error { _, err := q.DescribeTopic(ctx, "T"); return err },
		"Queues":            func(ctx context.Context) error { _, err := q.Queues(ctx); return err },
		"QueueProperty":     func(ctx context.Context) error { _, err := q.QueueProperty(ctx, "Q"); return err },
		"ReplicationStatus": func(ctx context.Context) error { _, err := q.ReplicationStatus(ctx); return err },
		"StatSeries":        func(ctx context.Context) error { _, err := q.StatSeries(ctx, ""); return err },
		"LoadInfo":          func(ctx context.Context) error { _, err := q.LoadInfo(ctx, 1); return err },
		"SubGroupTimeout":   func(ctx context.Context) error { _, err := q.SubGroupTimeout(ctx); return err },
		"QuarantineList":    func(ctx context.Context) error { _, err := q.QuarantineList(ctx); return err },
		"ScanQuarantine":    func(ctx context.Context) error { _, err := q.ScanQuarantine(ctx, "", "", time.Time{}); return err },
	}
}

func TestStoppedQmgrNotRunning(t *testing.T) {
	t.Parallel()
	e, s, q, ctx := startAdmin(t, engine.Config{}, 2)
	noErr(t, e.CreateQueue("Q"))
	noErr(t, q.CreateTopic(ctx, "T", "partitions=1"))
	noErr(t, q.StopNode(ctx, 2)) // the node this service is connected to
	qm := e.Config().QueueManager
	for name, call := range queries(q) {
		err := call(ctx)
		e := wantErr(t, err, wire.ErrQmgrNotRunning, qm)                    // spec: A-21
		if e.Tail != qm || e.Error() != "MIMQE_QMGR_NOT_RUNNING ("+qm+")" { // spec: E-01, E-03
			t.Fatalf("%s: %q", name, e.Error())
		}
		if !ilink.IsRejected(err) || ilink.IsSessionError(err) { // spec: E-05, E-08
			t.Fatalf("%s: %v is not a rejection only", name, err)
		}
	}
	qs := must[[]QmgrInfo](t)(s.QmgrList(ctx))
	if qs[0].Running {
		t.Fatalf("QmgrList says running: %+v", qs)
	}
	// The admin listener stays up: the queue manager can be started again.
	noErr(t, q.StartNode(ctx, 2))
	if _, err := q.ReplicationStatus(ctx); err != nil {
		t.Fatalf("after StartNode: %v", err)
	}
	// Another node's admin listener answers while node 3 is stopped.
	noErr(t, e.StopNode(3))
	rs := must[ReplicationStatus](t)(q.ReplicationStatus(ctx))
	if rs.Nodes[2].State != NodeStopped || rs.Leader != 1 {
		t.Fatalf("replication with node 3 stopped: %+v", rs.Nodes)
	}
}

func TestNodeControlOverAdmin(t *testing.T) {
	t.Parallel()
	e, s, q, ctx := startAdmin(t, engine.Config{}, 1)
	cc := countCodes(t, e)
	noErr(t, q.StopNode(ctx, 3))
	if st := e.Nodes()[2]; st.Running || !st.Up {
		t.Fatalf("after StopNode: %+v", st)
	}
	wantErr(t, q.StopNode(ctx, 3), wire.ErrNodeState, "already stopped")
	noErr(t, q.StartNode(ctx, 3))
	noErr(t, q.KillNode(ctx, 2))
	if st := e.Nodes()[1]; st.Up {
		t.Fatalf("after KillNode: %+v", st)
	}
	noErr(t, q.StartNode(ctx, 2)) // a killed node restarts
	if st := e.Nodes()[1]; !st.Up || !st.Running {
		t.Fatalf("after StartNode of a killed node: %+v", st)
	}
	wantErr(t, q.StopNode(ctx, 9), wire.ErrUnknownNode, "node 9")
	if cc.n(wire.CodeNodeControl) != 6 {
		t.Fatalf("NODE CONTROL sent %d times", cc.n(wire.CodeNodeControl))
	}
	// Killing the node this service is connected to: answered, then the
	// connection closes with the node and the next call reconnects to
	// another node's admin listener.
	noErr(t, q.KillNode(ctx, 1))
	ilinktest.WaitFor(t, waitTimeout, "node 1 to die", func() bool { return !e.Nodes()[0].Up })
	ns := must[[]NodeInfo](t)(q.Nodes(ctx))
	if ns[0].State != NodeDown || s.NodeID() == 1 {
		t.Fatalf("after killing our node: %+v (connected to node %d)", ns[0], s.NodeID())
	}
}

func TestShutdownService(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)

	// A node shutdown answers (true), then the node goes down.
	e := startEngine(t, engine.Config{})
	cc := countCodes(t, e)
	s := connect(t, e, 2, Options{})
	ok, err := s.ShutdownService(ctx, false) // spec: A-23 (clusterWide false)
	if err != nil || !ok || cc.n(wire.CodeShutdown) != 1 {
		t.Fatalf("ShutdownService(false) = %v, %v; SHUTDOWN sent %d times", ok, err, cc.n(wire.CodeShutdown))
	}
	ilinktest.WaitFor(t, waitTimeout, "node 2 down", func() bool { return !e.Nodes()[1].Up })

	// The engine closes without an answer: false, no error.
	e2 := startEngine(t, engine.Config{Nodes: 1})
	s2 := connect(t, e2, 1, Options{})
	ok, err = s2.ShutdownService(ctx, true)
	if err != nil || ok { // spec: A-24
		t.Fatalf("cluster-wide ShutdownService = %v, %v; want false, nil", ok, err)
	}
	ilinktest.WaitFor(t, waitTimeout, "the engine to go down", func() bool {
		c, err := Connect(ctx, e2.AdminAddrs()[0], Options{DialTimeout: 200 * time.Millisecond})
		if err == nil {
			c.Close()
		}
		return err != nil
	})

	// No answer before the timeout, connection open: an error, not false.
	e3 := startEngine(t, engine.Config{Nodes: 1})
	e3.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeShutdown {
			return engine.ControlAction{Delay: time.Hour}
		}
		return engine.ControlAction{}
	})
	s3 := connect(t, e3, 1, Options{})
	tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	ok, err = s3.ShutdownService(tctx, false)
	if ok || err == nil || !isCtx(err) { // spec: A-25
		t.Fatalf("ShutdownService without an answer = %v, %v; want an error", ok, err)
	}
	// A dropped answer (the engine went away while answering) is false.
	e4 := startEngine(t, engine.Config{Nodes: 1})
	e4.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeShutdown {
			return engine.ControlAction{DropReply: true}
		}
		return engine.ControlAction{}
	})
	s4 := connect(t, e4, 1, Options{})
	if ok, err := s4.ShutdownService(ctx, false); ok || err != nil { // spec: A-24
		t.Fatalf("ShutdownService with the answer dropped = %v, %v", ok, err)
	}
}

func TestPatchService(t *testing.T) {
	t.Parallel()
	e, s, _, ctx := startAdmin(t, engine.Config{}, 3)
	cc := countCodes(t, e)
	wantErr(t, s.PatchService(ctx, "../x.so", []byte("x")), wire.ErrInvalidArgument, "plain file name")
	noErr(t, s.PatchService(ctx, "ilengine-7.0.1.3553.bin", []byte("patch")))
	if cc.n(wire.CodePatch) != 2 { // spec: A-26 — PATCH 3335
		t.Fatalf("PATCH sent %d times", cc.n(wire.CodePatch))
	}
	// spec: A-26 — on success the service restarts and the connection is closed.
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection still open after a successful patch")
	}
	if ps := e.Patches(); len(ps) != 1 || !strings.Contains(ps[0], "node 3 ilengine-7.0.1.3553.bin 5 bytes") {
		t.Fatalf("patches %v", ps)
	}
	ilinktest.WaitFor(t, waitTimeout, "node 3 back", func() bool { st := e.Nodes()[2]; return st.Up && st.Running })
	if _, err := s.QmgrList(ctx); err != nil { // the next call reconnects
		t.Fatalf("after the patch restart: %v", err)
	}
}

func TestDiagnoseClusterDefinition(t *testing.T) {
	t.Parallel()
	e, s, _, ctx := startAdmin(t, engine.Config{}, 1)
	cc := countCodes(t, e)
	text := must[string](t)(s.DiagnoseClusterDefinition(ctx, ""))
	if !strings.HasPrefix(text, "DIAG CLUSTER "+e.Config().Cluster+"\n") || !strings.Contains(text, "check REPLICAS 3 <= 3 data nodes: ok") ||
		!strings.Contains(text, "running leader") || cc.n(wire.CodeDiagCluster) != 1 { // spec: A-27
		t.Fatalf("diag:\n%s", text)
	}
	wantErr(t, errOf(s.DiagnoseClusterDefinition(ctx, "NOPE")), wire.ErrUnknownCluster, "NOPE")
}

func TestLeadTableFromEngine(t *testing.T) {
	t.Parallel()
	e, s, q, ctx := startAdmin(t, engine.Config{}, 2)
	noErr(t, q.CreateTopic(ctx, "L.T", "partitions=2"))
	cc := countCodes(t, e)
	raw := must[string](t)(s.ClusterLeadTable(ctx, ""))
	if !strings.HasPrefix(raw, "ILLT1|"+e.Config().Cluster+"|") || cc.n(wire.CodeViewClusterLeaders) != 1 { // spec: A-28
		t.Fatalf("raw table:\n%s", raw)
	}
	// Forced election of a partition, then the cluster leader dies.
	p0 := e.PartitionLeader("L.T", 0)
	noErr(t, q.ForceElection(ctx, "L.T", 0, 0))
	if e.PartitionLeader("L.T", 0) == p0 {
		t.Fatal("forced election kept the leader")
	}
	noErr(t, e.KillNode(1))
	ilinktest.WaitFor(t, waitTimeout, "a new cluster leader", func() bool { return e.Leader() != 0 })
	lt := must[ClusterLeadTable](t)(s.ClusterLeadTableParsed(ctx, ""))
	kinds := map[string]int{}
	var forced, auto, offNode bool
	for _, r := range lt.Rows {
		kinds[r.Kind]++
		switch {
		case r.Kind == "election" && r.Forced && r.Scope == "partition" && r.Topic == "L.T" && r.Partition == 0 && r.From == p0:
			forced = true
		case r.Kind == "election" && !r.Forced && r.Scope == "cluster" && r.From == 1 && r.Node == e.Leader():
			auto = true
		case r.Kind == "offline" && r.Scope == "node" && r.Node == 1 && !r.Time.IsZero():
			offNode = true
		case r.Kind == "node" && r.Node == e.Leader() && (r.Role != RoleLeader || r.Epoch != 2):
			t.Fatalf("leader row %+v", r)
		case r.Kind == "partition" && r.Topic == "L.T" && len(r.Replicas) != 3:
			t.Fatalf("partition row %+v", r)
		}
		if r.Kind == "partition" && r.Topic == "L.T" {
			kinds["L.T"]++
		}
	}
	// spec: A-29 — node, partition and bundle rows, election records, offline rows.
	if lt.Format != "ILLT1" || kinds["node"] != 3 || kinds["L.T"] != 2 || kinds["bundle"] != 1 || !forced || !auto || !offNode {
		t.Fatalf("parsed rows %v forced %v auto %v offline %v\n%s", kinds, forced, auto, offNode, must[string](t)(s.ClusterLeadTable(ctx, "")))
	}
	wantErr(t, errOf(s.ClusterLeadTable(ctx, "NOPE")), wire.ErrUnknownCluster, "NOPE")
}

func TestReplicationStatusLag(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	noErr(t, q.CreateTopic(ctx, "R.T", "partitions=1"))
	leader := e.PartitionLeader("R.T", 0)
	lagger := leader%3 + 1
	noErr(t, e.SetReplicaDelay(lagger, time.Hour))
	for i := 0; i < 5; i++ {
		must[PublishResult](t)(q.Publish(ctx, "R.T", nil, []byte("x")))
	}
	// The status shows the lagging follower once its lag has a duration.
	var rs ReplicationStatus
	ilinktest.WaitFor(t, waitTimeout, "the lagging follower's lag", func() bool {
		rs = must[ReplicationStatus](t)(q.ReplicationStatus(ctx))
		for _, p := range rs.Partitions {
			for _, f := range p.Followers {
				if p.Topic == "R.T" && f.Node == lagger && f.LagRecords == 5 && f.Lag > 0 {
					return true
				}
			}
		}
		return false
	})
	if rs.Cluster != e.Config().Cluster || rs.Leader != 1 || len(rs.Nodes) != 3 || len(rs.Partitions) == 0 {
		t.Fatalf("status %+v", rs)
	}
	p := rs.Partitions[0] // R.T sorts before SYSTEM.GROUPS
	if p.Topic != "R.T" || p.Leader != leader || len(p.Followers) != 2 {
		t.Fatalf("partition %+v", p)
	}
	var lf FollowerLag
	for _, f := range p.Followers {
		if f.Node == lagger {
			lf = f
		}
	}
	if lf.LagRecords != 5 || lf.Lag <= 0 {
		t.Fatalf("lagging follower %+v (followers %+v)", lf, p.Followers)
	}
	n := rs.Nodes[lagger-1]
	if n.LagRecords != 5 || n.Lag <= 0 || n.Role != RoleFollower && n.Role != RoleLeader {
		t.Fatalf("lagging node %+v", n)
	}
	if txt := rs.Text(); !strings.Contains(txt, "partition|R.T|0|leader=") {
		t.Fatalf("text:\n%s", txt)
	}
	noErr(t, e.SetReplicaDelay(lagger, 0))
	ilinktest.WaitFor(t, waitTimeout, "the follower to catch up", func() bool {
		rs := must[ReplicationStatus](t)(q.ReplicationStatus(ctx))
		for _, f := range rs.Partitions[0].Followers { // R.T
			if f.LagRecords != 0 || !f.InSync {
				return false
			}
		}
		return true
	})
}

func TestReconnectAfterSever(t *testing.T) {
	t.Parallel()
	e, s, _, ctx := startAdmin(t, engine.Config{}, 1)
	e.SeverConnections()
	if _, err := s.QmgrList(ctx); err != nil { // a read is retried on a new connection
		t.Fatalf("QmgrList after a severed connection: %v", err)
	}
	s.Close()
	wantErr(t, errOf(s.QmgrList(ctx)), ilink.NameSessionClosed, "")
}
