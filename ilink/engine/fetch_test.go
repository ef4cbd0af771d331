package engine

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func TestFetchLongPollWakesOnProduce(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "")
	c := localSession(t, e, wire.ModeConsumer)

	// Nothing arrives: the fetch answers empty after its wait.
	start := time.Now()
	res := c.fetchOne("T", 0, 0, 1, 1<<20, 150)
	if d := time.Since(start); res.Err.Name != "" || res.Batches != nil || d < 150*time.Millisecond {
		t.Fatalf("empty long-poll: %+v after %v", res, d)
	}

	// A produce during the wait wakes it at once.
	go func() {
		// Once the fetch waits at the partition (or after ioTimeout: the
		// fetch's answer then tells).
		ilinktest.Poll(ioTimeout, func() bool { return partWaiters(e, "T", 0) != 0 })
		p := dialLeader(e.DataAddrs()[:1], wire.ModeProducer)
		if p == nil {
			return
		}
		defer p.close()
		req := &wire.ProduceRequest{Acks: wire.AcksAll, Topics: []wire.ProduceTopic{{Topic: "T", Epoch: 1, Partitions: []wire.ProducePartition{{Partition: 0, Batches: plainBatch(t, "hello")}}}}}
		p.tryCall(wire.CodeProduce, 5000, req, nil)
	}()
	start = time.Now()
	res = c.fetchOne("T", 0, 0, 1, 1<<20, 10000)
	if _, vals := recordsOf(t, res.Batches, 0); res.Err.Name != "" || !slices.Equal(vals, []string{"hello"}) || res.HighWatermark != 1 || res.LogStart != 0 {
		t.Fatalf("woken fetch: %+v (%v)", res, vals)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("fetch answered after %v: not woken by the produce", d)
	}
}

func TestFetchOutOfRangeAndFollowerRefusal(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=2")
	p := localSession(t, e, wire.ModeProducer)
	p.mustProduce("T", 1, 0, plainBatch(t, "a", "b", "c"))
	c := localSession(t, e, wire.ModeConsumer)
	eventually(t, "high watermark 3", func() bool { return partitionInfo(t, e, "T", 0).HighWatermark == 3 })
	for _, off := range []int64{-1, 4, 1000} {
		res := c.fetchOne("T", 0, off, 0, 0, 0)
		if res.Err.Name != wire.ErrOffsetOutOfRange || res.LogStart != 0 || res.HighWatermark != 3 {
			t.Fatalf("fetch at %d: %+v", off, res)
		}
	}
	// A fetch in the middle of a batch gets the whole batch.
	res := c.fetchOne("T", 0, 1, 0, 0, 0)
	if offs, vals := recordsOf(t, res.Batches, 1); !slices.Equal(offs, []int64{1, 2}) || !slices.Equal(vals, []string{"b", "c"}) {
		t.Fatalf("fetch at 1: %v %v", offs, vals)
	}
	// Node 1 does not lead partition 1: refused with the leader's id.
	res = c.fetchOne("T", 1, 0, 0, 0, 0)
	if res.Err.Name != wire.ErrFollowerNode || res.LeaderHint != 2 {
		t.Fatalf("fetch from a non-leader: %+v", res)
	}
	// An admin connection is served from the leader wherever it is.
	adm := openSession(t, e.AdminAddrs()[2], wire.ModeAdmin)
	res = adm.fetchOne("T", 0, 0, 0, 0, 0)
	if _, vals := recordsOf(t, res.Batches, 0); res.Err.Name != "" || len(vals) != 3 {
		t.Fatalf("admin fetch: %+v", res)
	}
	if res := c.fetchOne("NOPE", 0, 0, 0, 0, 0); res.Err.Name != wire.ErrUnknownTopic {
		t.Fatalf("fetch of an unknown topic: %+v", res)
	}
}

func TestFetchMaxBytesKeepsWholeBatches(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{Nodes: 1}, "T", "partitions=2")
	p := localSession(t, e, wire.ModeProducer)
	var sizes []int
	for i := 0; i < 4; i++ {
		b := plainBatch(t, string(bytes.Repeat([]byte{'a' + byte(i)}, 100)))
		sizes = append(sizes, len(b))
		p.mustProduce("T", 1, 0, b)
		p.mustProduce("T", 1, 1, b)
	}
	c := localSession(t, e, wire.ModeConsumer)
	count := func(b []byte) int {
		bs, err := wire.SplitBatches(b)
		if err != nil {
			t.Fatal(err)
		}
		return len(bs)
	}
	for _, tc := range []struct {
		max  int32
		want int
	}{{1, 1}, {int32(sizes[0]), 1}, {int32(sizes[0] + sizes[1] + sizes[2]/2), 2}, {0, 4}, {1 << 20, 4}} {
		res := c.fetchOne("T", 0, 0, 0, tc.max, 0)
		if res.Err.Name != "" || count(res.Batches) != tc.want {
			t.Fatalf("MaxBytes %d: %d batches, want %d", tc.max, count(res.Batches), tc.want)
		}
	}
	// Two partitions under one total: the first partition's first batch
	// always comes; the second gets what fits in the rest.
	req := &wire.FetchRequest{MaxBytes: int32(sizes[0] + sizes[1]), Topics: []wire.FetchTopic{{Topic: "T", Partitions: []wire.FetchPartition{
		{Partition: 0, Offset: 0, MaxBytes: 1}, {Partition: 1, Offset: 0, MaxBytes: 1 << 20},
	}}}}
	var rep wire.FetchReply
	c.mustCall(wire.CodeFetch, 0, req, &rep)
	if got := []int{count(rep.Topics[0].Partitions[0].Batches), count(rep.Topics[0].Partitions[1].Batches)}; !slices.Equal(got, []int{1, 1}) {
		t.Fatalf("batches per partition %v, want [1 1]", got)
	}
}

func TestFetchReturnsOnlyCommittedRecords(t *testing.T) {
	t.Parallel()
	e := unpulledRecord(t, 300*time.Millisecond, "uncommitted")
	c := localSession(t, e, wire.ModeConsumer)
	// Node 2 is still in sync (lagging less than ReplicaLagMax) but has
	// not pulled: the high watermark stays at 0 and nothing is returned.
	res := c.fetchOne("T", 0, 0, 0, 0, 0)
	if res.Err.Name != "" || res.Batches != nil || res.HighWatermark != 0 {
		t.Fatalf("fetch before the follower pulled: %+v", res)
	}
	// After ReplicaLagMax node 2 leaves the in-sync set; the high
	// watermark moves to the leader's end and a waiting fetch gets the
	// record.
	res = c.fetchOne("T", 0, 0, 1, 1<<20, 5000)
	if _, vals := recordsOf(t, res.Batches, 0); !slices.Equal(vals, []string{"uncommitted"}) || res.HighWatermark != 1 {
		t.Fatalf("fetch after the follower left the in-sync set: %+v", res)
	}
	if pi := partitionInfo(t, e, "T", 0); !slices.Equal(pi.InSync, []int{1}) || !slices.Equal(pi.ReplicaEnds, []int64{1, 0}) {
		t.Fatalf("partition %+v", pi)
	}
	// Without the delay it catches up and rejoins.
	e.SetReplicaDelay(2, 0)
	eventually(t, "node 2 back in sync", func() bool {
		return slices.Equal(partitionInfo(t, e, "T", 0).InSync, []int{1, 2})
	})
}

func TestConsumerProtocolV1Refused(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "")
	c := dialRaw(t, e.DataAddrs()[0])
	var hr wire.HelloReply
	c.mustCall(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "old", Mode: wire.ModeConsumer, ConsumerProtocol: 1}, &hr)
	corr := c.send(wire.CodeFetch, 0, &wire.FetchRequest{Topics: []wire.FetchTopic{{Topic: "T", Partitions: []wire.FetchPartition{{}}}}})
	f, err := c.next()
	if err != nil {
		t.Fatal(err)
	}
	eb := c.check(f, corr, nil)
	// spec: C-43
	if eb == nil || f.hdr.Status != wire.ReportUnsupported || eb.Name != wire.ErrUnsupported || eb.Tail != "consumer protocol v2 - upgrade client" {
		t.Fatalf("FETCH by a v1 consumer: %s status %d", errText(eb), f.hdr.Status)
	}
}

func TestListOffsetsByTime(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{Nodes: 1}, "T", "")
	p := localSession(t, e, wire.ModeProducer)
	t0 := time.Now().Add(-time.Hour).UnixMilli()
	// Records at t0, t0+1 (batch 1, lz4), t0+1000, t0+1001 (batch 2).
	p.mustProduce("T", 1, 0, batchOf(t, -1, -1, wire.CodecLZ4, t0, "a", "b"))
	p.mustProduce("T", 1, 0, batchOf(t, -1, -1, wire.CodecNone, t0+1000, "c", "d"))
	c := localSession(t, e, wire.ModeConsumer)
	for _, tc := range []struct {
		ts, off, recTS int64
	}{
		{t0 - 5, 0, t0},
		{t0 + 1, 1, t0 + 1},
		{t0 + 2, 2, t0 + 1000},
		{t0 + 1001, 3, t0 + 1001},
		{t0 + 5000, 4, -1}, // nothing at or after: the end
		{wire.ListEarliest, 0, -1},
		{wire.ListLatest, 4, -1},
	} {
		var rep wire.ListOffsetsReply
		c.mustCall(wire.CodeListOffsets, 0, &wire.ListOffsetsRequest{Topics: []wire.ListOffsetsTopic{{Topic: "T", Partitions: []wire.ListOffsetsPartition{{Partition: 0, Timestamp: tc.ts}}}}}, &rep)
		r := rep.Topics[0].Partitions[0]
		if r.Err.Name != "" || r.Offset != tc.off || r.Timestamp != tc.recTS {
			t.Fatalf("LIST_OFFSETS at %d: %+v, want offset %d timestamp %d", tc.ts-t0, r, tc.off, tc.recTS)
		}
	}
}
