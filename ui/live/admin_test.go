package live

import (
	"context"
	"testing"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/topicrules"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/views/tab"
)

// sources are the adapters over e, closed at the end of the test.
func sources(t *testing.T, e *engine.Engine, readOnly bool) *Sources {
	t.Helper()
	src, err := New(Config{AdminAddrs: e.AdminAddrs(), DataAddrs: e.DataAddrs(), ClientName: "live-test", ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

func topicNamed(ts []admin.TopicInfo, name string) (admin.TopicInfo, bool) {
	for _, ti := range ts {
		if ti.Name == name {
			return ti, true
		}
	}
	return admin.TopicInfo{}, false
}

// The admin adapters read and change a real engine: the summary, a topic
// created from the dialog's spec (its properties rendered by topicProps),
// described, listed, flushed and deleted, an unknown group as Dead, the
// queues and the cluster's tables.
func TestSourcesAdminCalls(t *testing.T) {
	t.Parallel()
	e := startEngine(t)
	src := sources(t, e, false)
	ctx := callCtx(t)

	sum, err := src.ClusterSummary(ctx)
	if err != nil || len(sum.Nodes) != 1 || sum.Leader != 1 {
		t.Fatalf("summary %+v, %v: want the one node, leading", sum, err)
	}
	forever := topicrules.Forever
	spec := tab.TopicSpec{Name: "LIVE.ADMIN", Partitions: 3, RetentionMs: &forever, RetentionBytes: 1 << 20}
	if err := src.CreateTopic(ctx, spec); err != nil {
		t.Fatalf("create: %v", err)
	}
	ts, err := src.ListTopics(ctx)
	ti, ok := topicNamed(ts, spec.Name)
	if err != nil || !ok || ti.Partitions != 3 || ti.RetentionMs != 0 || ti.RetentionBytes != 1<<20 {
		t.Fatalf("listed %+v (%v): want 3 partitions, kept forever (retention.ms=0), 1 MiB per partition", ti, err)
	}
	produce(t, e, spec.Name, 0, 6)
	d, err := src.DescribeTopic(ctx, spec.Name)
	if err != nil || len(d.PartitionList) != 3 {
		t.Fatalf("describe %+v, %v", d, err)
	}
	var end int64
	for _, p := range d.PartitionList {
		end += p.EndOffset
	}
	if end != 6 {
		t.Fatalf("describe: end offsets sum %d, want the 6 records produced", end)
	}
	if subs, err := src.SubscriptionList(ctx, spec.Name); err != nil || subs == nil || len(subs) != 0 {
		t.Fatalf("subscription list %v (%v): want empty, not nil (no group consumes it)", subs, err)
	}
	if err := src.FlushTopic(ctx, spec.Name); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if err := src.DeleteTopic(ctx, spec.Name); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if ts, err := src.ListTopics(ctx); err != nil {
		t.Fatal(err)
	} else if _, ok := topicNamed(ts, spec.Name); ok {
		t.Fatal("the deleted topic is still listed")
	}

	if g, err := src.DescribeGroup(ctx, "nobody"); err != nil || g.State != admin.GroupDead {
		t.Fatalf("unknown group: %+v, %v; want state Dead, no error", g, err)
	}
	if err := e.CreateQueue("LIVE.Q"); err != nil {
		t.Fatal(err)
	}
	qs, err := src.ListQueues(ctx)
	if err != nil || len(qs) != 1 || qs[0].Name != "LIVE.Q" {
		t.Fatalf("queues %+v, %v", qs, err)
	}
	if cp, err := src.ClusterProperty(ctx); err != nil || len(cp.Nodes) != 1 {
		t.Fatalf("cluster property %+v, %v", cp, err)
	}
	if rs, err := src.ReplicationStatus(ctx); err != nil || rs.Leader != 1 {
		t.Fatalf("replication %+v, %v", rs, err)
	}
	if _, err := src.ClusterLeadTable(ctx); err != nil {
		t.Fatalf("lead table: %v", err)
	}
}

// A read-only context refuses every change with MIMQE_READ_ONLY and
// sends none of them to the engine (the reads still work).
func TestSourcesReadOnlyRefusesChanges(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "RO.T", "partitions=1")
	src := sources(t, e, true)
	ctx := callCtx(t)
	if _, err := src.ListTopics(ctx); err != nil {
		t.Fatalf("a read in read-only mode: %v", err)
	}
	for name, call := range map[string]func() error{
		"CreateTopic": func() error { return src.CreateTopic(ctx, tab.TopicSpec{Name: "RO.NEW", Partitions: 1}) },
		"DeleteTopic": func() error { return src.DeleteTopic(ctx, "RO.T") },
		"FlushTopic":  func() error { return src.FlushTopic(ctx, "RO.T") },
		"DeleteGroup": func() error { return src.DeleteGroup(ctx, "g") },
		"RemoveNode":  func() error { return src.RemoveNode(ctx, 1) },
	} {
		if err := call(); !ilink.HasName(err, wire.ErrReadOnly) {
			t.Errorf("%s in read-only mode: %v, want MIMQE_READ_ONLY", name, err)
		}
	}
	counts := e.RequestCounts()
	for _, c := range []wire.Code{wire.CodeCreateTopic, wire.CodeDeleteTopic, wire.CodeFlushTopic, wire.CodeDeleteGroup} {
		if counts[c] != 0 {
			t.Errorf("%v reached the engine %d times in read-only mode", c, counts[c])
		}
	}
	if ts := e.Topics(); len(ts) == 0 {
		t.Fatal("no topics")
	}
	if _, end := e.TopicOffsets("RO.NEW"); end != nil {
		t.Fatal("read-only mode created a topic")
	}
}
