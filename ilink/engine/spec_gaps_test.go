package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// Engine-side checks of rules no other test cites.

// TestSpecReportCodesOnTheWire provokes each documented REPORT and checks
// the header status and name the engine answers with. The expected values
// are the spec's numbers, not the wire constants.
func TestSpecReportCodesOnTheWire(t *testing.T) {
	t.Parallel()
	cfg := groupConfig()
	cfg.CoordinatorLoadTime = 2 * time.Second // the 4176 check runs well inside it
	e := topicEngine(t, cfg, "T", "partitions=2")

	// 4157: a consumer older than protocol v2 joins.
	old := dialRaw(t, e.DataAddrs()[e.CoordinatorOf("old")-1])
	var hr wire.HelloReply
	old.mustCall(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "old", Mode: wire.ModeConsumer, ConsumerProtocol: 1}, &hr)
	if _, f := old.join("old", "", true, "T"); f == nil || f.report != 4157 || !strings.HasPrefix(f.text, "MIMQE_UNSUPPORTED") { // spec: E-04
		t.Fatalf("JOIN by a protocol-1 consumer: %v, want REPORT 4157 MIMQE_UNSUPPORTED", f)
	}

	// 4175: a group request at a node that does not coordinate the group.
	g := groupOn(t, e, 2, "e04")
	follower := localSession(t, e, wire.ModeConsumer)
	if _, f := follower.join(g, "", true, "T"); f == nil || f.report != 4175 || !strings.HasPrefix(f.text, "MIMQE_NOT_COORDINATOR") { // spec: E-04
		t.Fatalf("JOIN at a non-coordinator: %v, want REPORT 4175 MIMQE_NOT_COORDINATOR", f)
	}

	// 4161: a member's heartbeat while the group rebalances.
	a, b := coordSession(t, e, g), coordSession(t, e, g)
	ja := a.mustJoin(g, "", true, "T")
	b.mustJoin(g, "", true, "T")
	if f := a.heartbeat(g, ja); f == nil || f.report != 4161 { // spec: E-04
		t.Fatalf("heartbeat during a rebalance: %v, want REPORT 4161", f)
	}

	// 4178: a commit at a generation that is no longer current.
	ja2 := a.mustJoin(g, ja.MemberID, true, "T")
	if ja2.Generation == ja.Generation {
		t.Fatalf("rejoin kept generation %d", ja.Generation)
	}
	if _, f := a.commitAs(g, ja, off("T", 0, 1)); f == nil || f.report != 4178 { // spec: E-04
		t.Fatalf("commit at stale generation %d (current %d): %v, want REPORT 4178", ja.Generation, ja2.Generation, f)
	}

	// 4176: the new coordinator of a moved group is still loading it.
	to, err := e.MoveCoordinator(g)
	if err != nil {
		t.Fatal(err)
	}
	moved := time.Now()
	nc := openSession(t, e.DataAddrs()[to-1], wire.ModeConsumer)
	f := nc.heartbeat(g, ja2)
	if time.Since(moved) >= cfg.CoordinatorLoadTime {
		t.Fatalf("the heartbeat took %v, longer than the %v load: cannot observe LOADING", time.Since(moved), cfg.CoordinatorLoadTime)
	}
	if f == nil || f.report != 4176 || !strings.Contains(f.text, "LOADING") { // spec: E-04
		t.Fatalf("request during the coordinator load: %v, want REPORT 4176 ...LOADING", f)
	}
}

func topicNames(e *Engine) []string {
	var out []string
	for _, ti := range e.Topics() {
		out = append(out, ti.Name)
	}
	return out
}

// TestSpecNoImplicitTopicCreation sends every producer and subscriber
// request that names a topic, for a topic that does not exist, and checks
// that the engine's topic list never changes.
func TestSpecNoImplicitTopicCreation(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "")
	before := topicNames(e)
	if !slices.Contains(before, "T") || slices.Contains(before, "GHOST") {
		t.Fatalf("topics %v", before)
	}
	unchanged := func(after string) {
		t.Helper()
		if got := topicNames(e); !slices.Equal(got, before) { // spec: T-03
			t.Fatalf("topics after %s: %v, was %v", after, got, before)
		}
		if _, err := e.TopicPartitions("GHOST"); err == nil { // spec: T-03
			t.Fatalf("GHOST has partitions after %s", after)
		}
	}

	p := localSession(t, e, wire.ModeProducer)
	var md wire.MetadataReply
	p.mustCall(wire.CodeMetadata, 0, &wire.MetadataRequest{Topics: []string{"GHOST"}}, &md)
	if len(md.Topics) != 1 || md.Topics[0].Err.Name != wire.ErrUnknownTopic {
		t.Fatalf("METADATA GHOST: %+v", md)
	}
	unchanged("METADATA")

	var pr wire.ProduceReply
	req := &wire.ProduceRequest{Acks: wire.AcksLeader, Topics: []wire.ProduceTopic{{Topic: "GHOST", Epoch: 1,
		Partitions: []wire.ProducePartition{{Partition: 0, Batches: plainBatch(t, "x")}}}}}
	if eb := p.call(wire.CodeProduce, 0, req, &pr); eb == nil {
		if len(pr.Topics) != 1 || len(pr.Topics[0].Partitions) != 1 || pr.Topics[0].Partitions[0].Err.Name == "" { // spec: T-03
			t.Fatalf("PRODUCE to GHOST accepted: %+v", pr)
		}
	}
	unchanged("PRODUCE")

	c := localSession(t, e, wire.ModeConsumer)
	var fr wire.FetchReply
	c.call(wire.CodeFetch, 0, &wire.FetchRequest{MaxBytes: 1 << 20, Topics: []wire.FetchTopic{{Topic: "GHOST",
		Partitions: []wire.FetchPartition{{Partition: 0, MaxBytes: 1 << 20}}}}}, &fr)
	unchanged("FETCH")
	var lr wire.ListOffsetsReply
	c.call(wire.CodeListOffsets, 0, &wire.ListOffsetsRequest{Topics: []wire.ListOffsetsTopic{{Topic: "GHOST",
		Partitions: []wire.ListOffsetsPartition{{Partition: 0, Timestamp: -2}}}}}, &lr)
	unchanged("LIST OFFSETS")

	g := "ghost-readers"
	gc := coordSession(t, e, g)
	j, _ := gc.join(g, "", true, "GHOST")
	unchanged("JOIN")
	if j != nil {
		gc.commitAs(g, j, off("GHOST", 0, 1))
		gc.heartbeat(g, j)
	} else {
		gc.commitAs(g, nil, off("GHOST", 0, 1))
	}
	unchanged("OFFSET COMMIT")
	var of wire.OffsetsReply
	gc.call(wire.CodeOffsetFetch, 0, &wire.OffsetFetchRequest{Group: g, Topics: []wire.TopicPartitions{{Topic: "GHOST", Partitions: []int32{0}}}}, &of)
	unchanged("OFFSET FETCH")
}
