package engine

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func TestFollowerNodeLeadsAndAcceptsProduce(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=3")
	if e.Leader() != 1 || e.PartitionLeader("T", 1) != 2 {
		t.Fatalf("setup: cluster leader %d, partition 1 leader %d", e.Leader(), e.PartitionLeader("T", 1))
	}
	// spec: K-23 — node 2 follows the cluster leader but leads partition 1:
	// it takes produce and fetch for it.
	p := openSession(t, e.DataAddrs()[1], wire.ModeProducer)
	if off := p.mustProduce("T", 1, 1, plainBatch(t, "x", "y")); off != 0 {
		t.Fatalf("base offset %d", off)
	}
	c := openSession(t, e.DataAddrs()[1], wire.ModeConsumer)
	res := c.fetchOne("T", 1, 0, 1, 1<<20, 1000)
	if _, vals := recordsOf(t, res.Batches, 0); res.Err.Name != "" || !slices.Equal(vals, []string{"x", "y"}) || res.HighWatermark != 2 {
		t.Fatalf("fetch from the partition leader: %+v (%v)", res.Err, vals)
	}
}

func TestProduceToNonLeaderFencesConnection(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=3")
	c := openSession(t, e.DataAddrs()[1], wire.ModeProducer) // node 2 leads only partition 1
	res := c.produceTo("T", 1, wire.AcksLeader, 0, 0, plainBatch(t, "a"))
	// spec: P-35
	if res.Err.Name != wire.ErrFollowerNode || res.LeaderHint != 1 || res.BaseOffset != -1 {
		t.Fatalf("produce to a partition node 2 does not lead: %+v", res)
	}
	// spec: P-35 — from then on every produce on this connection is
	// refused, even for the partition node 2 leads, and acks=0 too.
	res = c.produceTo("T", 1, wire.AcksLeader, 1, 0, plainBatch(t, "b"))
	if res.Err.Name != wire.ErrFollowerNode || res.LeaderHint != 2 {
		t.Fatalf("later produce on the fenced connection: %+v", res)
	}
	c.sendFlags(wire.CodeProduce, wire.FlagNoReply, 0, &wire.ProduceRequest{Acks: wire.AcksNone, Topics: []wire.ProduceTopic{{Topic: "T", Epoch: 1, Partitions: []wire.ProducePartition{{Partition: 1, Batches: plainBatch(t, "c")}}}}})
	c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil)
	if _, end := e.TopicOffsets("T"); end[1] != 0 {
		t.Fatalf("a fenced connection stored %d records", end[1])
	}
	// A new connection to the same node works.
	c2 := openSession(t, e.DataAddrs()[1], wire.ModeProducer)
	if off := c2.mustProduce("T", 1, 1, plainBatch(t, "d")); off != 0 {
		t.Fatalf("base offset %d on a new connection", off)
	}
}

func TestOffsetsIncreaseInAppendOrder(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{Nodes: 1}, "T", "partitions=2")
	c := localSession(t, e, wire.ModeProducer)
	type step struct {
		part int32
		vals []string
		want int64
	}
	steps := []step{
		{0, []string{"a0", "a1", "a2"}, 0},
		{1, []string{"b0"}, 0},
		{0, []string{"a3"}, 3},
		{1, []string{"b1", "b2"}, 1},
		{0, []string{"a4", "a5"}, 4},
	}
	for _, s := range steps {
		// spec: T-04, P-23 — offsets per partition, in append order,
		// independent of the other partition.
		if off := c.mustProduce("T", 1, s.part, plainBatch(t, s.vals...)); off != s.want {
			t.Fatalf("partition %d %v: base offset %d, want %d", s.part, s.vals, off, s.want)
		}
	}
	// Two batches in one request get consecutive offsets.
	if off := c.mustProduce("T", 1, 1, plainBatch(t, "b3"), plainBatch(t, "b4", "b5")); off != 3 {
		t.Fatalf("two batches: base offset %d, want 3", off)
	}
	recs, err := e.ReadPartition("T", 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.Offset != int64(i) || string(r.Value) != "a"+string(rune('0'+i)) {
			t.Fatalf("partition 0 record %d: offset %d value %s", i, r.Offset, r.Value)
		}
	}
	wantValues(t, e, "T", 1, []string{"b0", "b1", "b2", "b3", "b4", "b5"}, "after the two-batch produce")
	if recs, _ := e.ReadPartition("T", 1, 2, 2); len(recs) != 2 || recs[0].Offset != 2 || recs[1].Offset != 3 {
		t.Fatalf("ReadPartition from 2 max 2: %+v", recs)
	}
}

func TestDuplicateBatchGetsOriginalOffset(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{Nodes: 1}, "T", "")
	c, pid := idempotentProducer(t, e)
	now := time.Now().UnixMilli()
	first := batchOf(t, pid, 0, wire.CodecLZ4, now, "r0", "r1", "r2")
	if off := c.mustProduce("T", 1, 0, first); off != 0 {
		t.Fatalf("first batch at %d", off)
	}
	// spec: P-25 — the resend is answered with the original offset and
	// not stored again.
	if off := c.mustProduce("T", 1, 0, first); off != 0 {
		t.Fatalf("resent batch at %d, want 0", off)
	}
	var batches [][]byte
	seq := int32(3)
	for i := 0; i < 6; i++ {
		b := batchOf(t, pid, seq, wire.CodecNone, now, "x")
		batches = append(batches, b)
		if off := c.mustProduce("T", 1, 0, b); off != int64(seq) {
			t.Fatalf("batch seq %d at %d", seq, off)
		}
		seq++
	}
	// The window holds the last five batches: the second one of the six
	// is still a duplicate, the first one is not and is out of order.
	if off := c.mustProduce("T", 1, 0, batches[1]); off != 4 {
		t.Fatalf("duplicate inside the window at %d, want 4", off)
	}
	res := c.produceTo("T", 1, wire.AcksLeader, 0, 0, batches[0])
	if res.Err.Name != wire.ErrOutOfOrderSequence {
		t.Fatalf("resend outside the window: %+v", res)
	}
	if _, end := e.TopicOffsets("T"); end[0] != 9 {
		t.Fatalf("log end %d, want 9 (3 + 6 records, no duplicates)", end[0])
	}
	// Idempotence does not filter application resends: a new sequence with
	// the same value is a new record (spec P-26 is the client's side).
	if off := c.mustProduce("T", 1, 0, batchOf(t, pid, seq, wire.CodecNone, now, "x")); off != 9 {
		t.Fatalf("next batch at %d", off)
	}
}

func TestAppendThenDroppedReplyIsStoredOnce(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "")
	var armed atomic.Bool // drop the reply of the next PRODUCE, once
	remove := e.Control(func(ev *ControlEvent) ControlAction {
		if ev.Code == wire.CodeProduce && armed.CompareAndSwap(true, false) {
			return ControlAction{DropReply: true}
		}
		return ControlAction{}
	})
	defer remove()
	c, pid := idempotentProducer(t, e)
	c.mustProduce("T", 1, 0, batchOf(t, pid, 0, wire.CodecNone, time.Now().UnixMilli(), "before"))
	b := batchOf(t, pid, 1, wire.CodecLZ4, time.Now().UnixMilli(), "p1", "p2")
	armed.Store(true)
	c.send(wire.CodeProduce, 0, &wire.ProduceRequest{Acks: wire.AcksLeader, Topics: []wire.ProduceTopic{{Topic: "T", Epoch: 1, Partitions: []wire.ProducePartition{{Partition: 0, Batches: b}}}}})
	c.expectClosed() // appended, then the connection closed without a reply
	c2 := localSession(t, e, wire.ModeProducer)
	// spec: P-25 — the producer resends with the same id and sequence.
	if off := c2.mustProduce("T", 1, 0, b); off != 1 {
		t.Fatalf("resend after a lost reply at %d, want the original 1", off)
	}
	wantValues(t, e, "T", 0, []string{"before", "p1", "p2"}, "after the resend")
}

func TestOutOfOrderSequenceRefused(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{Nodes: 1}, "T", "")
	c, pid := idempotentProducer(t, e)
	now := time.Now().UnixMilli()
	for _, tc := range []struct {
		seq  int32
		vals []string
		err  string
	}{
		{5, []string{"a"}, wire.ErrUnknownProducerID}, // a new producer starts at 0: no state of it
		{0, []string{"a", "b"}, ""},
		{3, []string{"c"}, wire.ErrOutOfOrderSequence}, // gap: 2 expected
		{1, []string{"c"}, wire.ErrOutOfOrderSequence}, // overlaps, not a window batch
		{2, []string{"c"}, ""},
	} {
		res := c.produceTo("T", 1, wire.AcksLeader, 0, 0, batchOf(t, pid, tc.seq, wire.CodecNone, now, tc.vals...))
		if res.Err.Name != tc.err {
			t.Fatalf("seq %d: %+v, want %q", tc.seq, res, tc.err)
		}
	}
	wantValues(t, e, "T", 0, []string{"a", "b", "c"}, "after the refused sequences")
}

func TestBadBatchesRefused(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{Nodes: 1}, "T", "")
	c := localSession(t, e, wire.ModeProducer)
	good := plainBatch(t, "v")
	corrupt := append([]byte{}, good...)
	corrupt[len(corrupt)-1] ^= 0xff
	empty, err := wire.NewBatchBuilder(-1, -1, -1).Finish(wire.CodecNone)
	if err != nil {
		t.Fatal(err)
	}
	for name, blob := range map[string][]byte{
		"crc":       corrupt,
		"truncated": good[:len(good)-1],
		"empty":     empty,
		"nothing":   nil,
		"trailing":  append(append([]byte{}, good...), 1, 2, 3),
	} {
		res := c.produceTo("T", 1, wire.AcksLeader, 0, 0, blob)
		if res.Err.Name != wire.ErrInvalidArgument {
			t.Errorf("%s batch: %+v", name, res)
		}
	}
	res := c.produceTo("T", 1, wire.AcksLeader, 7, 0, good)
	if res.Err.Name != wire.ErrUnknownTopic {
		t.Errorf("unknown partition: %+v", res)
	}
	res = c.produceTo("NOPE", 1, wire.AcksLeader, 0, 0, good)
	if res.Err.Name != wire.ErrUnknownTopic {
		t.Errorf("unknown topic: %+v", res)
	}
	if eb := c.call(wire.CodeProduce, 0, &wire.ProduceRequest{Acks: 2}, nil); eb == nil || eb.Name != wire.ErrInvalidArgument {
		t.Errorf("acks 2: %s", errText(eb))
	}
	if _, end := e.TopicOffsets("T"); end[0] != 0 {
		t.Fatalf("refused batches stored %d records", end[0])
	}
	// acks=0 (no reply) stores the batch.
	c.sendFlags(wire.CodeProduce, wire.FlagNoReply, 0, &wire.ProduceRequest{Acks: wire.AcksNone, Topics: []wire.ProduceTopic{{Topic: "T", Epoch: 1, Partitions: []wire.ProducePartition{{Partition: 0, Batches: good}}}}})
	c.mustCall(wire.CodePing, 0, &wire.Empty{}, nil) // the next reply is the PING's
	if _, end := e.TopicOffsets("T"); end[0] != 1 {
		t.Fatalf("acks=0 stored %d records", end[0])
	}
}

func TestFlushTopic(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=2")
	p := localSession(t, e, wire.ModeProducer)
	pid := p.initProducer()
	now := time.Now().UnixMilli()
	p.mustProduce("T", 1, 0, batchOf(t, pid, 0, wire.CodecNone, now, "old1", "old2"))
	if err := e.FlushTopic("T"); err != nil {
		t.Fatal(err)
	}
	if ep := topicEpoch(t, e, "T"); ep != 2 {
		t.Fatalf("epoch after flush %d, want 2", ep)
	}
	if md := p.metadata("T"); md.Topics[0].Epoch != 2 {
		t.Fatalf("METADATA epoch %d", md.Topics[0].Epoch)
	}
	// spec: T-07 — nothing written before the flush can be read.
	start, end := e.TopicOffsets("T")
	if start[0] != 2 || end[0] != 2 || start[1] != 0 || end[1] != 0 {
		t.Fatalf("offsets after flush %v..%v", start, end)
	}
	c := localSession(t, e, wire.ModeConsumer)
	if res := c.fetchOne("T", 0, 0, 0, 0, 0); res.Err.Name != wire.ErrOffsetOutOfRange || res.LogStart != 2 || res.HighWatermark != 2 {
		t.Fatalf("fetch of a flushed offset: %+v", res)
	}
	if res := c.fetchOne("T", 0, 2, 0, 0, 0); res.Err.Name != "" || len(res.Batches) != 0 {
		t.Fatalf("fetch at the new start: %+v", res)
	}
	// Engine half of spec P-28: a batch at the older epoch is refused
	// with MIMQE_TOPIC_FLUSHED.
	res := p.produceTo("T", 1, wire.AcksLeader, 0, 0, batchOf(t, pid, 2, wire.CodecNone, now, "late"))
	if res.Err.Name != wire.ErrTopicFlushed {
		t.Fatalf("produce at the flushed epoch: %+v", res)
	}
	// At the new epoch the producer's sequences start again at 0.
	if off := p.mustProduce("T", 2, 0, batchOf(t, pid, 0, wire.CodecNone, now, "new")); off != 2 {
		t.Fatalf("first offset after the flush %d, want 2 (offsets are not reused)", off)
	}
	eventually(t, "followers flushed and caught up", func() bool {
		pi := partitionInfo(t, e, "T", 0)
		return slices.Equal(pi.ReplicaEnds, []int64{3, 3, 3}) && pi.HighWatermark == 3
	})
	wantValues(t, e, "T", 0, []string{"new"}, "after flush")
}

func TestTopicEpochMismatch(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "")
	p := localSession(t, e, wire.ModeProducer)
	p.mustProduce("T", 1, 0, plainBatch(t, "kept"))
	if err := e.BumpTopicEpoch("T"); err != nil {
		t.Fatal(err)
	}
	// Engine half of spec P-29.
	if res := p.produceTo("T", 1, wire.AcksLeader, 0, 0, plainBatch(t, "x")); res.Err.Name != wire.ErrTopicEpochMismatch {
		t.Fatalf("produce at the older epoch: %+v", res)
	}
	if res := p.produceTo("T", 3, wire.AcksLeader, 0, 0, plainBatch(t, "x")); res.Err.Name != wire.ErrTopicEpochMismatch {
		t.Fatalf("produce at a future epoch: %+v", res)
	}
	wantValues(t, e, "T", 0, []string{"kept"}, "after an epoch bump (it must not change the data)")
	p.mustProduce("T", 2, 0, plainBatch(t, "at 2"))
	// Delete and recreate bumps the epoch too (no flush happened in the
	// new topic, so it is a mismatch).
	if err := e.DeleteTopic("T"); err != nil {
		t.Fatal(err)
	}
	if res := p.produceTo("T", 2, wire.AcksLeader, 0, 0, plainBatch(t, "x")); res.Err.Name != wire.ErrUnknownTopic {
		t.Fatalf("produce to a deleted topic: %+v", res)
	}
	mustCreateTopic(t, e, "T", "")
	if ep := topicEpoch(t, e, "T"); ep != 3 {
		t.Fatalf("epoch after recreate %d, want 3", ep)
	}
	if res := p.produceTo("T", 2, wire.AcksLeader, 0, 0, plainBatch(t, "x")); res.Err.Name != wire.ErrTopicEpochMismatch {
		t.Fatalf("produce at the epoch before the recreate: %+v", res)
	}
	if off := p.mustProduce("T", 3, 0, plainBatch(t, "fresh")); off != 0 {
		t.Fatalf("recreated topic starts at %d", off)
	}
}

func TestAcksAllWaitsForInSyncReplicas(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=1,replicas=3,minSync=3")
	p := localSession(t, e, wire.ModeProducer)
	res := p.produceTo("T", 1, wire.AcksAll, 0, 5000, plainBatch(t, "a", "b"))
	if res.Err.Name != "" || res.BaseOffset != 0 {
		t.Fatalf("acks=all: %+v", res)
	}
	// Answered only once every in-sync replica holds it.
	if pi := partitionInfo(t, e, "T", 0); pi.HighWatermark != 2 || !slices.Equal(pi.ReplicaEnds, []int64{2, 2, 2}) {
		t.Fatalf("after acks=all: %+v", pi)
	}
	if err := e.KillNode(3); err != nil {
		t.Fatal(err)
	}
	if pi := partitionInfo(t, e, "T", 0); !slices.Equal(pi.InSync, []int{1, 2}) {
		t.Fatalf("in-sync set after the kill: %v", pi.InSync)
	}
	start := time.Now()
	res = p.produceTo("T", 1, wire.AcksAll, 0, 300, plainBatch(t, "c"))
	if res.Err.Name != wire.ErrNotEnoughReplicas || res.Err.Tail != "T/0: 2 of 3 replicas in sync, minSync 3" {
		t.Fatalf("acks=all below minSync: %+v", res)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("NOT_ENOUGH_REPLICAS after %v, before the 300ms timeout", d)
	}
	// acks=1 is not affected.
	if off := p.mustProduce("T", 1, 0, plainBatch(t, "d")); off != 3 {
		t.Fatalf("acks=1 at %d", off)
	}
	// A waiting acks=all completes as soon as the in-sync set is back.
	done := make(chan wire.ProducePartitionResult, 1)
	last := plainBatch(t, "e")
	go func() {
		var rep wire.ProduceReply
		req := &wire.ProduceRequest{Acks: wire.AcksAll, Topics: []wire.ProduceTopic{{Topic: "T", Epoch: 1, Partitions: []wire.ProducePartition{{Partition: 0, Batches: last}}}}}
		eb, err := p.tryCall(wire.CodeProduce, 10000, req, &rep)
		if eb != nil || err != nil || len(rep.Topics) != 1 {
			done <- wire.ProducePartitionResult{Err: wire.PartError{Name: "call failed", Tail: fmt.Sprint(eb, err)}}
			return
		}
		done <- rep.Topics[0].Partitions[0]
	}()
	eventually(t, "the acks=all produce waiting", func() bool { return partWaiters(e, "T", 0) > 0 })
	if err := e.RestartNode(3); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Err.Name != "" || res.BaseOffset != 4 {
			t.Fatalf("acks=all after the restart: %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("acks=all did not complete after the in-sync set grew back")
	}
	if pi := partitionInfo(t, e, "T", 0); !slices.Equal(pi.InSync, []int{1, 2, 3}) || !slices.Equal(pi.ReplicaEnds, []int64{5, 5, 5}) {
		t.Fatalf("after the restart: %+v", pi)
	}
}

// SYSTEM.GROUPS takes no record from a client: a PRODUCE to it is refused
// per partition and a PUBLISH as a whole, and its log does not move (a
// client record would be read as group state at the next load).
func TestProduceToInternalTopicRefused(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	_, before := e.TopicOffsets(wire.GroupsTopic)
	want := "topic " + wire.GroupsTopic + " is internal: only the engine writes it"
	for part := range e.Config().GroupPartitions {
		leader := e.PartitionLeader(wire.GroupsTopic, part)
		p := openSession(t, e.DataAddrs()[leader-1], wire.ModeProducer)
		res := p.produceTo(wire.GroupsTopic, 1, wire.AcksLeader, int32(part), 0, plainBatch(t, "forged"))
		if res.Err.Name != wire.ErrInvalidArgument || res.Err.Tail != want || res.BaseOffset != -1 {
			t.Fatalf("PRODUCE to %s/%d: %+v", wire.GroupsTopic, part, res)
		}
	}
	adm := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	eb := adm.call(wire.CodeAdminPublish, 0, &wire.AdminPublishRequest{Topic: wire.GroupsTopic, Key: []byte("g"), Value: []byte("forged")}, nil)
	if eb == nil || eb.Name != wire.ErrInvalidArgument || eb.Tail != want {
		t.Fatalf("PUBLISH to %s: %s", wire.GroupsTopic, errText(eb))
	}
	if _, after := e.TopicOffsets(wire.GroupsTopic); !slices.Equal(before, after) {
		t.Fatalf("%s ends %v after the refusals, were %v", wire.GroupsTopic, after, before)
	}
}
