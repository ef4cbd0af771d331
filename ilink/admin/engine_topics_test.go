package admin

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func TestQmgrListAndAccess(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	s := connect(t, e, 2, Options{ClientName: "admin-app"}) // spec: A-01 — an admin listener
	ctx := testCtx(t)
	qs := must[[]QmgrInfo](t)(s.QmgrList(ctx))
	qm := e.Config().QueueManager
	if len(qs) != 1 || qs[0].Name != qm || !qs[0].Running || qs[0].Cluster != e.Config().Cluster || !qs[0].Clustered {
		t.Fatalf("QmgrList = %+v", qs) // spec: A-03
	}
	// spec: A-02 — the queue manager's data port is its own, not the admin port.
	if qs[0].DataAddr != e.DataAddrs()[1] || qs[0].DataAddr == e.AdminAddrs()[1] {
		t.Fatalf("data addr %s (node 2 data %s, admin %s)", qs[0].DataAddr, e.DataAddrs()[1], e.AdminAddrs()[1])
	}
	q := s.AccessAdminQmgr(qm)
	if q.Name() != qm || s.AccessAdminQmgr("").Name() != qm { // spec: A-04
		t.Fatalf("AccessAdminQmgr names %q / %q", q.Name(), s.AccessAdminQmgr("").Name())
	}
	if s.EngineVersion() == "" || s.Cluster() != e.Config().Cluster || s.NodeID() != 2 {
		t.Fatalf("handshake: version %q cluster %q node %d", s.EngineVersion(), s.Cluster(), s.NodeID())
	}
	wantErr(t, errOf(s.AccessAdminQmgr("NOPE").Topics(ctx)), wire.ErrUnknownQmgr, "NOPE")
}

func TestNodes(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	noErr(t, q.CreateTopic(ctx, "N.T", "partitions=3"))
	ns := must[[]NodeInfo](t)(q.Nodes(ctx))
	if len(ns) != 3 {
		t.Fatalf("%d nodes", len(ns))
	}
	led := 0
	for i, n := range ns {
		if n.ID != i+1 || n.DataAddr != e.DataAddrs()[i] || n.AdminAddr != e.AdminAddrs()[i] || n.State != NodeRunning {
			t.Fatalf("node %d: %+v", i+1, n)
		}
		led += n.Partitions
	}
	parts := 0
	for _, ti := range e.Topics() {
		parts += ti.Partitions
	}
	if ns[0].Role != RoleLeader || ns[1].Role != RoleFollower || led != parts {
		t.Fatalf("roles %s %s, partitions led %d", ns[0].Role, ns[1].Role, led)
	}
	noErr(t, e.StopNode(3))
	ns = must[[]NodeInfo](t)(q.Nodes(ctx))
	if ns[2].State != NodeStopped || ns[2].Role != RoleNone {
		t.Fatalf("stopped node: %+v", ns[2])
	}
	noErr(t, e.KillNode(2))
	ns = must[[]NodeInfo](t)(q.Nodes(ctx))
	if ns[1].State != NodeDown {
		t.Fatalf("killed node: %+v", ns[1])
	}
}

func TestTopicLifecycleAndPublish(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	// spec: T-01, W-13 — properties as key=value text.
	noErr(t, q.CreateTopic(ctx, "ORDER.EVENT", "partitions=3,retention.ms=60000"))
	noErr(t, q.CreateTopic(ctx, "AUDIT.LOG", "partitions=1,replicas=2"))
	wantErr(t, q.CreateTopic(ctx, "ORDER.EVENT", "partitions=1"), wire.ErrTopicExists, "ORDER.EVENT")
	wantErr(t, q.CreateTopic(ctx, "BAD", "partitions=x"), wire.ErrInvalidArgument, "")

	// spec: — (offset, timestamp, partition), round-robin.
	cc := countCodes(t, e)
	before := time.Now().Add(-time.Second)
	var parts []int32
	for i := 0; i < 6; i++ {
		r := must[PublishResult](t)(q.Publish(ctx, "ORDER.EVENT", []byte("k"), []byte("v")))
		if r.Timestamp.Before(before) || r.Offset != int64(i/3) {
			t.Fatalf("publish %d: %+v", i, r)
		}
		parts = append(parts, r.Partition)
	}
	for i := 3; i < 6; i++ {
		if parts[i] != parts[i-3] || parts[i] == parts[i-1] {
			t.Fatalf("partitions %v are not round-robin", parts)
		}
	}
	if n := cc.n(wire.CodeAdminPublish); n != 6 { // spec: A-07 — one request per record
		t.Fatalf("%d PUBLISH requests for 6 records", n)
	}

	all := must[[]TopicInfo](t)(q.Topics(ctx))
	ts := userTopics(all) // spec: T-02
	for _, x := range all {
		if strings.HasPrefix(x.Name, "SYSTEM.") != x.Internal {
			t.Fatalf("internal flag of %s: %v", x.Name, x.Internal)
		}
	}
	if len(ts) != 2 || ts[0].Name != "AUDIT.LOG" || ts[1].Name != "ORDER.EVENT" {
		t.Fatalf("topics %+v", ts)
	}
	oe := ts[1]
	if oe.Partitions != 3 || oe.Replicas != 3 || oe.RetentionMs != 60000 || oe.EndOffsetSum != 6 || oe.StartOffsetSum != 0 || oe.Epoch != 1 {
		t.Fatalf("ORDER.EVENT %+v", oe)
	}
	if ts[0].Replicas != 2 || ts[0].UnderReplicated != 0 || ts[0].Offline != 0 {
		t.Fatalf("AUDIT.LOG %+v", ts[0])
	}

	var d TopicDescription
	ilinktest.WaitFor(t, waitTimeout, "the followers to replicate", func() bool { // the high watermark follows the pulls
		d = must[TopicDescription](t)(q.DescribeTopic(ctx, "ORDER.EVENT"))
		for _, p := range d.PartitionList {
			if p.HighWatermark != p.EndOffset {
				return false
			}
		}
		return true
	})
	if len(d.PartitionList) != 3 || d.Name != "ORDER.EVENT" {
		t.Fatalf("describe %+v", d)
	}
	for _, p := range d.PartitionList {
		if p.Leader == 0 || len(p.Replicas) != 3 || len(p.InSync) != 3 || p.EndOffset != 2 || p.HighWatermark != 2 || p.LeaderEpoch != 1 {
			t.Fatalf("partition %+v", p)
		}
	}
	wantErr(t, errOf(q.DescribeTopic(ctx, "NOPE")), wire.ErrUnknownTopic, "NOPE")

	// Alter: the topic side's AlterTopic when it exists, else NOT_SUPPORTED.
	if err := q.AlterTopic(ctx, "ORDER.EVENT", "retention.ms=1000"); err != nil && !ilink.HasName(err, wire.ErrNotSupported) {
		t.Fatalf("AlterTopic: %v", err)
	}
	wantErr(t, q.AlterTopic(ctx, "NOPE", "retention.ms=1"), wire.ErrUnknownTopic, "NOPE")

	noErr(t, q.FlushTopic(ctx, "ORDER.EVENT"))
	d = must[TopicDescription](t)(q.DescribeTopic(ctx, "ORDER.EVENT"))
	if d.Epoch != 2 || d.PartitionList[0].StartOffset != d.PartitionList[0].EndOffset {
		t.Fatalf("after flush: epoch %d partition %+v", d.Epoch, d.PartitionList[0])
	}
	noErr(t, q.DeleteTopic(ctx, "ORDER.EVENT"))
	wantErr(t, q.DeleteTopic(ctx, "ORDER.EVENT"), wire.ErrUnknownTopic, "ORDER.EVENT")
	ts = userTopics(must[[]TopicInfo](t)(q.Topics(ctx)))
	if len(ts) != 1 {
		t.Fatalf("after delete: %+v", ts)
	}
}

func TestStatSeries(t *testing.T) {
	t.Parallel()
	_, _, q, ctx := startAdmin(t, engine.Config{Nodes: 1}, 1)
	noErr(t, q.CreateTopic(ctx, "S.T", "partitions=1"))
	for i := 0; i < 10; i++ {
		must[PublishResult](t)(q.Publish(ctx, "S.T", nil, []byte("0123456789")))
	}
	for _, scope := range []string{"S.T", ""} {
		ss := must[StatSeries](t)(q.StatSeries(ctx, scope))
		if ss.Scope != scope || ss.Resolution != time.Second || len(ss.Points) != engine.StatSeconds {
			t.Fatalf("series %q: scope %q res %v, %d points", scope, ss.Scope, ss.Resolution, len(ss.Points))
		}
		var in float64
		for i, p := range ss.Points {
			in += p.RecordsIn
			if i > 0 && !p.Time.Equal(ss.Points[i-1].Time.Add(time.Second)) {
				t.Fatalf("points %d and %d not 1 s apart", i-1, i)
			}
		}
		last := ss.Points[len(ss.Points)-1].Time
		if in != 10 || time.Since(last) > 3*time.Second {
			t.Fatalf("series %q: %v records in, last point %v", scope, in, last)
		}
	}
	wantErr(t, errOf(q.StatSeries(ctx, "NOPE")), wire.ErrUnknownTopic, "NOPE")
}

func TestQueuesAndReload(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 2)
	for _, name := range []string{"Q.B", "Q.A"} {
		noErr(t, e.CreateQueue(name))
	}
	sess, qa := dialQueue(t, ctx, e, false, "Q.A")
	for i := 0; i < 3; i++ {
		must[ilink.MsgID](t)(qa.Put(ctx, []byte("m")))
	}
	noErr(t, sess.Commit(ctx))
	must[*ilink.Message](t)(qa.Get(ctx, time.Second)) // locked by the open transaction

	qs := must[[]QueueInfo](t)(q.Queues(ctx))
	if len(qs) != 2 || qs[0].Name != "Q.A" || qs[1].Name != "Q.B" {
		t.Fatalf("queues %+v", qs)
	}
	if qs[0].Depth != 3 || qs[0].InFlight != 1 || qs[1].Depth != 0 {
		t.Fatalf("Q.A %+v, Q.B %+v", qs[0], qs[1])
	}
	p := qs[0].Property
	if p.Name != "Q.A" || !p.PutEnabled || !p.GetEnabled || !p.Persistent || p.Created.IsZero() || p.MaxMsgSize <= 0 {
		t.Fatalf("property %+v", p)
	}
	p2 := must[QueueProperty](t)(q.QueueProperty(ctx, "Q.A"))
	if p2 != p {
		t.Fatalf("QueueProperty %+v, list said %+v", p2, p)
	}
	wantErr(t, errOf(q.QueueProperty(ctx, "NOPE")), wire.ErrUnknownQueue, "NOPE")

	cc := countCodes(t, e)
	d := must[int64](t)(q.ReloadQueue(ctx, "Q.A"))
	if d != 3 || cc.n(wire.CodeReloadQueue) != 1 { // spec: Q-19
		t.Fatalf("ReloadQueue depth %d, RELOAD QUEUE sent %d times", d, cc.n(wire.CodeReloadQueue))
	}
	wantErr(t, errOf(q.ReloadQueue(ctx, "NOPE")), wire.ErrUnknownQueue, "NOPE")

	// Rates: counters are sampled when asked, against a sample >= 1 s old.
	noErr(t, sess.Commit(ctx))
	time.Sleep(1100 * time.Millisecond) // under test: a rate needs a sample >= 1 s old
	for i := 0; i < 4; i++ {
		must[ilink.MsgID](t)(qa.Put(ctx, []byte("m")))
	}
	noErr(t, sess.Commit(ctx))
	qs = must[[]QueueInfo](t)(q.Queues(ctx))
	if qs[0].PutRate <= 0 || qs[0].Depth != 6 || qs[0].InFlight != 0 {
		t.Fatalf("after puts: %+v", qs[0])
	}
}

func TestQuarantine(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	noErr(t, e.CreateQueue("Q"))
	_, qq := dialQueue(t, ctx, e, true, "Q")
	for _, m := range []string{"a", "b"} {
		must[ilink.MsgID](t)(qq.Put(ctx, []byte(m)))
	}
	t0 := time.Now().Add(-time.Minute)
	oldID := bytes.Repeat([]byte{7}, wire.MsgIDLen)
	if err := e.AddQuarantine(
		engine.QuarantineEntry{Dir: "d1", Queue: "Q", Payload: []byte("q1"), At: t0},
		engine.QuarantineEntry{Dir: "d1", Queue: "Q", Payload: []byte("q2"), At: t0.Add(time.Second)},
		engine.QuarantineEntry{Dir: "d1", Queue: "Q", Payload: []byte("old"), MsgID: oldID, At: t0.Add(2 * time.Second), Old: true},
		engine.QuarantineEntry{Dir: "d2", Queue: "OTHER", Payload: []byte("x"), At: t0},
	); err != nil {
		t.Fatal(err)
	}
	cc := countCodes(t, e)

	list := must[string](t)(q.QuarantineList(ctx))
	want := "dir|d1|Q|3|2|1|"
	if !strings.HasPrefix(list, "QUARANTINE|"+q.Name()+"|") || !strings.Contains(list, want) || !strings.Contains(list, "dir|d2|OTHER|1|1|0|") {
		t.Fatalf("quarantine list:\n%s", list)
	}
	scan := must[string](t)(q.ScanQuarantine(ctx, "d1", "Q", t0.Add(time.Second)))
	if strings.Count(scan, "entry|") != 2 || !strings.Contains(scan, "|OLD|"+strings.Repeat("07", wire.MsgIDLen)+"|3|d1|Q") || !strings.HasSuffix(scan, "total|2\n") {
		t.Fatalf("scan:\n%s", scan)
	}
	if cc.n(wire.CodeViewQuarantine) != 1 || cc.n(wire.CodeScanQuarantine) != 1 { // spec: Q-20 (text returned as is)
		t.Fatalf("codes 3425/3426 sent %d/%d times", cc.n(wire.CodeViewQuarantine), cc.n(wire.CodeScanQuarantine))
	}

	// New entries only: q1, q2 go to the tail; the OLD one stays.
	res := must[QuarantineReinjectResult](t)(q.ReinjectQuarantine(ctx, "d1", "Q", time.Time{}, false))
	if res.Count != 2 || res.Leader != 1 || res.StopReason != "" || cc.n(wire.CodeReinject) != 1 { // spec: Q-21
		t.Fatalf("reinject %+v", res)
	}
	// Including OLD entries: the already delivered message comes back (a duplicate).
	res = must[QuarantineReinjectResult](t)(q.ReinjectQuarantine(ctx, "d1", "Q", time.Time{}, true))
	if res.Count != 1 {
		t.Fatalf("reinject old %+v", res)
	}
	var got []string
	var ids [][]byte
	for {
		m, err := qq.Get(ctx, 50*time.Millisecond)
		if ilink.IsNoMessage(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(m.Payload))
		ids = append(ids, m.ID[:])
	}
	if strings.Join(got, ",") != "a,b,q1,q2,old" { // spec: Q-22 — after every message already queued
		t.Fatalf("queue order %v", got)
	}
	if !bytes.Equal(ids[4], oldID) { // spec: Q-23 — an OLD entry reinjected with its id: a duplicate
		t.Fatalf("old entry id %x", ids[4])
	}
	res = must[QuarantineReinjectResult](t)(q.ReinjectQuarantine(ctx, "", "NOQ", time.Time{}, true))
	if res.Count != 0 || !strings.Contains(res.StopReason, "not defined") {
		t.Fatalf("reinject into an unknown queue: %+v", res)
	}
	if e.QuarantineLen() != 1 {
		t.Fatalf("%d entries left, want the other directory's", e.QuarantineLen())
	}
}

func TestLoadInfo(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	noErr(t, e.CreateQueue("Q"))
	noErr(t, q.CreateTopic(ctx, "L.T", "partitions=2"))
	cc := countCodes(t, e)
	topics, parts := 0, 0
	for _, ti := range e.Topics() {
		topics, parts = topics+1, parts+ti.Partitions
	}
	for level, want := range []struct{ nodes, queues int }{{0, 0}, {3, 0}, {3, 1}} {
		li := must[LoadInfo](t)(q.LoadInfo(ctx, level))
		if li.Level != level || li.Topics != topics || li.Partitions != parts || li.Queues != 1 || li.Sessions < 1 || li.Requests < 2 ||
			len(li.Nodes) != want.nodes || len(li.QueueLoad) != want.queues {
			t.Fatalf("level %d: %+v", level, li)
		}
		text := li.Text()
		if !strings.HasPrefix(text, "VIEW LOAD|") || !strings.Contains(text, "service|sessions=") {
			t.Fatalf("text:\n%s", text)
		}
	}
	if cc.n(wire.CodeViewLoad) != 3 { // spec: A-22
		t.Fatalf("VIEW LOAD sent %d times", cc.n(wire.CodeViewLoad))
	}
}

func userTopics(ts []TopicInfo) []TopicInfo {
	var out []TopicInfo
	for _, x := range ts {
		if !x.Internal {
			out = append(out, x)
		}
	}
	return out
}
