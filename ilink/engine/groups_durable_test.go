package engine

import (
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// A commit the coordinator has appended but not yet replicated is not
// shown by OFFSET FETCH: the fetch waits for the replication, so no reader
// sees a commit that the coordinator's death then undoes (a commit that
// would seem to go backwards).
func TestOffsetFetchShowsOnlyDurableCommits(t *testing.T) {
	t.Parallel()
	cfg := groupConfig()
	cfg.ReplicaLagMax = time.Minute // the delayed followers stay in sync
	e := topicEngine(t, cfg, "T", "")
	g := groupOn(t, e, 1, "durable")
	a := coordSession(t, e, g)
	wantOK(t, a.commitFailure(g, nil, off("T", 0, 5)), "OFFSET COMMIT")
	for _, n := range []int{2, 3} {
		if err := e.SetReplicaDelay(n, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	// The commit of 9 is appended on node 1 only; its reply waits.
	gp := groupPartition(g, e.Config().GroupPartitions)
	end := partitionInfo(t, e, wire.GroupsTopic, gp).EndOffset
	a.send(wire.CodeOffsetCommit, 0, &wire.OffsetCommitRequest{Group: g, Generation: -1, Offsets: []wire.OffsetEntry{off("T", 0, 9)}})
	eventually(t, "the commit appended", func() bool { return partitionInfo(t, e, wire.GroupsTopic, gp).EndOffset > end })
	b := coordSession(t, e, g)
	b.send(wire.CodeOffsetFetch, 0, &wire.OffsetFetchRequest{Group: g, Topics: []wire.TopicPartitions{{Topic: "T", Partitions: []int32{0}}}})
	b.nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var one [1]byte
	if n, _ := b.nc.Read(one[:]); n > 0 {
		t.Fatal("OFFSET FETCH answered before the commit was replicated")
	}
	if err := e.KillNode(1); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 3} {
		if err := e.SetReplicaDelay(n, 0); err != nil {
			t.Fatal(err)
		}
	}
	var got int64 = -2
	eventually(t, "a new coordinator", func() bool {
		n := e.CoordinatorOf(g)
		if n == 0 {
			return false
		}
		c := openSession(t, e.DataAddrs()[n-1], wire.ModeConsumer)
		defer c.close()
		var rep wire.OffsetsReply
		if c.call(wire.CodeOffsetFetch, 0, &wire.OffsetFetchRequest{Group: g, Topics: []wire.TopicPartitions{{Topic: "T", Partitions: []int32{0}}}}, &rep) != nil {
			return false // loading
		}
		got = rep.Offsets[0].Offset
		return true
	})
	if got != 5 {
		t.Fatalf("after the coordinator died: commit %d, want the durable 5", got)
	}
}
