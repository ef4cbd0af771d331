package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func TestInSyncSetShrinksAndGrowsBack(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=1,replicas=3")
	p := localSession(t, e, wire.ModeProducer)
	p.mustProduce("T", 1, 0, plainBatch(t, "a"))
	eventually(t, "all replicas hold a", func() bool {
		return slices.Equal(partitionInfo(t, e, "T", 0).ReplicaEnds, []int64{1, 1, 1})
	})
	if err := e.KillNode(2); err != nil {
		t.Fatal(err)
	}
	// A dead follower leaves the in-sync set at once.
	pi := partitionInfo(t, e, "T", 0)
	if !slices.Equal(pi.InSync, []int{1, 3}) || pi.ReplicaEnds[1] != -1 {
		t.Fatalf("after killing node 2: %+v", pi)
	}
	if md := p.metadata("T"); !slices.Equal(md.Topics[0].Partitions[0].InSync, []uint16{1, 3}) {
		t.Fatalf("METADATA in-sync %v", md.Topics[0].Partitions[0].InSync)
	}
	p.mustProduce("T", 1, 0, plainBatch(t, "b", "c"))
	if err := e.RestartNode(2); err != nil {
		t.Fatal(err)
	}
	// Back with an empty log, it pulls everything and rejoins.
	eventually(t, "node 2 back in sync", func() bool {
		pi := partitionInfo(t, e, "T", 0)
		return slices.Equal(pi.InSync, []int{1, 2, 3}) && slices.Equal(pi.ReplicaEnds, []int64{3, 3, 3})
	})
	// Its copy is real: lead from it and read everything back.
	if err := e.MovePartitionLeader("T", 0, 2); err != nil {
		t.Fatal(err)
	}
	wantValues(t, e, "T", 0, []string{"a", "b", "c"}, "on node 2's replica")
}

func TestLeaderDeathKeepsAckedRecords(t *testing.T) {
	t.Parallel()
	const delay = 300 * time.Millisecond
	e := topicEngine(t, Config{ElectionDelay: delay}, "T", "partitions=3,replicas=3,minSync=2")
	p := localSession(t, e, wire.ModeProducer) // node 1 leads partition 0
	pid := p.initProducer()
	now := time.Now().UnixMilli()
	var want []string
	var batches [][]byte
	for i := 0; i < 10; i++ {
		vals := []string{fmt.Sprint("r", i, "a"), fmt.Sprint("r", i, "b")}
		b := batchOf(t, pid, int32(2*i), wire.CodecLZ4, now, vals...)
		batches = append(batches, b)
		res := p.produceTo("T", 1, wire.AcksAll, 0, 5000, b)
		if res.Err.Name != "" || res.BaseOffset != int64(2*i) {
			t.Fatalf("acks=all batch %d: %+v", i, res)
		}
		want = append(want, vals...)
	}
	killed := time.Now()
	if err := e.KillNode(1); err != nil {
		t.Fatal(err)
	}
	if l := e.PartitionLeader("T", 0); l != 0 {
		t.Fatalf("partition 0 led by node %d right after its leader died", l)
	}
	var moved time.Duration
	eventually(t, "partition 0 has a new leader", func() bool {
		moved = time.Since(killed)
		return e.PartitionLeader("T", 0) != 0
	})
	if moved < delay {
		t.Fatalf("leader moved after %v, before ElectionDelay %v", moved, delay)
	}
	// Replicas of partition 0 are [1 2 3]: node 2 is the first live
	// in-sync one.
	pi := partitionInfo(t, e, "T", 0)
	if pi.Leader != 2 || pi.LeaderEpoch != 2 {
		t.Fatalf("after the election: %+v", pi)
	}
	// Every acked record is there.
	if got := readValues(t, e, "T", 0); !slices.Equal(got, want) {
		t.Fatalf("new leader holds %v, want %v", got, want)
	}
	// The old leader's address is gone; the producer goes to node 2 and
	// resends its last batch: the new leader knows the window (replicated)
	// and answers with the original offset; the next sequence follows.
	p2 := openSession(t, e.DataAddrs()[1], wire.ModeProducer)
	if off := p2.mustProduce("T", 1, 0, batches[9]); off != 18 {
		t.Fatalf("resend of the last batch on the new leader at %d, want 18", off)
	}
	res := p2.produceTo("T", 1, wire.AcksAll, 0, 5000, batchOf(t, pid, 20, wire.CodecNone, now, "after"))
	if res.Err.Name != "" || res.BaseOffset != 20 {
		t.Fatalf("next batch on the new leader: %+v", res)
	}
	if md := p2.metadata("T"); md.Topics[0].Partitions[0].Leader != 2 || md.Topics[0].Partitions[0].LeaderEpoch != 2 {
		t.Fatalf("METADATA after the move: %+v", md.Topics[0].Partitions[0])
	}
}

func TestMovePartitionLeader(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=1,replicas=3")
	old := localSession(t, e, wire.ModeProducer)
	old.mustProduce("T", 1, 0, plainBatch(t, "a", "b"))
	if err := e.MovePartitionLeader("T", 0, 3); err != nil {
		t.Fatal(err)
	}
	pi := partitionInfo(t, e, "T", 0)
	if pi.Leader != 3 || pi.LeaderEpoch != 2 || !slices.Equal(pi.InSync, []int{1, 2, 3}) {
		t.Fatalf("after the move: %+v", pi)
	}
	res := old.produceTo("T", 1, wire.AcksLeader, 0, 0, plainBatch(t, "x"))
	if res.Err.Name != wire.ErrFollowerNode || res.LeaderHint != 3 {
		t.Fatalf("produce to the old leader: %+v", res)
	}
	n3 := openSession(t, e.DataAddrs()[2], wire.ModeProducer)
	if off := n3.mustProduce("T", 1, 0, plainBatch(t, "c")); off != 2 {
		t.Fatalf("produce to the new leader at %d", off)
	}
	wantValues(t, e, "T", 0, []string{"a", "b", "c"}, "after the move")
	for _, tc := range []struct {
		topic      string
		part, node int
	}{{"NOPE", 0, 1}, {"T", 5, 1}, {"T", 0, 9}} {
		if err := e.MovePartitionLeader(tc.topic, tc.part, tc.node); err == nil {
			t.Fatalf("MovePartitionLeader(%s, %d, %d) succeeded", tc.topic, tc.part, tc.node)
		}
	}
}

// A leader that appended a batch no follower pulled, then stopped: the
// follower that takes over writes other records at those offsets, and the
// old leader, back as a follower, drops its divergent batch.
func TestOldLeaderTruncatesDivergentTail(t *testing.T) {
	t.Parallel()
	e := unpulledRecord(t, 10*time.Second, "lost")
	if err := e.StopNode(1); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node 2 leads", func() bool { return e.PartitionLeader("T", 0) == 2 })
	p2 := openSession(t, e.DataAddrs()[1], wire.ModeProducer)
	if off := p2.mustProduce("T", 1, 0, plainBatch(t, "kept1", "kept2")); off != 0 {
		t.Fatalf("first offset on the new leader %d", off)
	}
	if err := e.StartNode(1); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node 1 reconciled and in sync", func() bool {
		pi := partitionInfo(t, e, "T", 0)
		return slices.Equal(pi.InSync, []int{1, 2}) && slices.Equal(pi.ReplicaEnds, []int64{2, 2})
	})
	if err := e.MovePartitionLeader("T", 0, 1); err != nil {
		t.Fatal(err)
	}
	wantValues(t, e, "T", 0, []string{"kept1", "kept2"}, "on node 1 after reconciling")
}

// A partition whose only in-sync replica is stopped waits for it rather
// than electing a replica that may miss committed records.
func TestOfflinePartitionWaitsForItsInSyncReplica(t *testing.T) {
	t.Parallel()
	e := unpulledRecord(t, 50*time.Millisecond, "only on node 1")
	eventually(t, "node 2 out of sync", func() bool {
		return slices.Equal(partitionInfo(t, e, "T", 0).InSync, []int{1})
	})
	if err := e.StopNode(1); err != nil {
		t.Fatal(err)
	}
	// StopNode scheduled the election; once it has run (ElectionDelay on),
	// the partition must still be offline.
	eventually(t, "the election after the stop", func() bool { return electionsPending(e) == 0 })
	if l := e.PartitionLeader("T", 0); l != 0 {
		t.Fatalf("node %d was elected although only stopped node 1 holds the committed record", l)
	}
	if err := e.StartNode(1); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node 1 leads again", func() bool { return e.PartitionLeader("T", 0) == 1 })
	wantValues(t, e, "T", 0, []string{"only on node 1"}, "once node 1 leads again")
}
