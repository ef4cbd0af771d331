package ilink

import (
	"context"
	"fmt"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// Client-side checks of rules no other test cites.

// keyFor returns a key that KeyPartition maps to partition p of n.
func keyFor(t *testing.T, p, n int) []byte {
	t.Helper()
	for i := 0; i < 100000; i++ {
		k := []byte(fmt.Sprintf("key-%d", i))
		if KeyPartition(k, n) == p {
			return k
		}
	}
	t.Fatalf("no key for partition %d of %d", p, n)
	return nil
}

// TestSpecProducerConnectsPerLeader: with a leader table in which every
// node leads (node 2 two partitions), the producer keeps one connection
// per leader node, and every partition's batches go to its leader.
func TestSpecProducerConnectsPerLeader(t *testing.T) {
	t.Parallel()
	const parts = 4
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": fmt.Sprintf("partitions=%d,replicas=3", parts)})
	leaders := map[int]int{0: 2, 1: 3, 2: 1, 3: 2}
	for p, n := range leaders {
		if err := e.MovePartitionLeader("T", p, n); err != nil {
			t.Fatalf("MovePartitionLeader(T, %d, %d): %v", p, n, err)
		}
	}
	for p, n := range leaders {
		if got := e.PartitionLeader("T", p); got != n {
			t.Fatalf("partition %d led by %d, want %d", p, got, n)
		}
	}
	log := watchProduce(e)
	p := newProducerT(t, e, ProducerConfig{LingerMs: NoLinger})
	ctx := testCtx(t)
	const perPart = 5
	for i := range perPart {
		for part := range parts {
			md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: keyFor(t, part, parts), Value: []byte(fmt.Sprintf("%d-%d", part, i))})
			if err != nil {
				t.Fatalf("SendSync to partition %d: %v", part, err)
			}
			if int(md.Partition) != part {
				t.Fatalf("record for partition %d stored in %d", part, md.Partition)
			}
		}
	}
	// One connection per leader node: nodes 1, 2 and 3 once each, although
	// node 2 leads two partitions.
	want := map[int]int{1: 1, 2: 1, 3: 1}
	ilinktest.WaitFor(t, 3*time.Second, "one connection per leader node", func() bool { // spec: P-33
		return maps.Equal(p.Stats().Connections, want)
	})
	// Every PRODUCE carried only partitions led by the node it reached,
	// and every partition's batches reached its leader.
	reached := map[int32]int{}
	for _, r := range log.all() {
		for _, tp := range r.req.Topics {
			for _, pp := range tp.Partitions {
				if l := leaders[int(pp.Partition)]; r.node != l { // spec: P-33
					t.Fatalf("batch of partition %d sent to node %d, its leader is node %d", pp.Partition, r.node, l)
				}
				reached[pp.Partition]++
			}
		}
	}
	stored := readAll(t, e, "T", parts)
	for part := range parts {
		if reached[int32(part)] == 0 || len(stored[part]) != perPart { // spec: P-33
			t.Fatalf("partition %d: %d PRODUCE entries at its leader, %d records stored, want %d", part, reached[int32(part)], len(stored[part]), perPart)
		}
	}
}

// TestSpecPublishV2NotSupported: an engine that answers PRODUCE (the
// publish-v2 request) with MIMQE_NOT_SUPPORTED makes the record fail with
// a rejection of that name, not a session error.
func TestSpecPublishV2NotSupported(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	var produces atomic.Int32
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code != wire.CodeProduce {
			return engine.ControlAction{}
		}
		produces.Add(1)
		return engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrNotSupported, Tail: "publish v2"}}
	})
	p := newProducerT(t, e, ProducerConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := p.SendFuture(&ProducerRecord{Topic: "T", Value: []byte("v")}).Get(ctx)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("record on an engine without publish v2: %v (context %v)", err, ctx.Err())
	}
	if !HasName(err, wire.ErrNotSupported) || !IsRejected(err) || IsSessionError(err) { // spec: E-11
		t.Fatalf("error %q (kind %v), want a rejection named MIMQE_NOT_SUPPORTED", err, AsError(err).Kind)
	}
	// A rejection is final: the request was not resent.
	if n := produces.Load(); n != 1 {
		t.Fatalf("%d PRODUCE requests, want 1", n)
	}
	if recs := readAll(t, e, "T", 1)[0]; len(recs) != 0 {
		t.Fatalf("%d records stored", len(recs))
	}
}
