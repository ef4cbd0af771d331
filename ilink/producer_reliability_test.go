package ilink

import (
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// A topic that grows while a producer writes to it gets its new
// partitions from the periodic metadata refresh, without any error first.
func TestProducerGrownTopicGetsNewPartitions(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=2"})
	p := newProducerT(t, e, ProducerConfig{Acks: AcksAll, MetadataMaxAgeMs: 100})
	ctx := testCtx(t)
	key := keyFor(t, 3, 4) // partition 3 once the topic has 4
	md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: key, Value: []byte("before")})
	if err != nil || md.Partition != int32(KeyPartition(key, 2)) {
		t.Fatalf("send before the growth: %+v %v", md, err)
	}
	if err := e.AlterTopic("T", "partitions=4"); err != nil {
		t.Fatal(err)
	}
	sends := 0
	if !ilinktest.Poll(10*time.Second, func() bool {
		var err error
		md, err = p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: key, Value: []byte("after")})
		if err != nil {
			t.Fatalf("send %d after the growth: %v", sends, err)
		}
		sends++
		return md.Partition == 3
	}) {
		t.Fatalf("after %d sends the key still goes to partition %d of the old layout", sends, md.Partition)
	}
	t.Logf("the key reached the new partition 3 after %d sends", sends)
	// Unkeyed records reach the new partitions too (sticky partitioner).
	seen := map[int32]bool{}
	for i := 0; len(seen) < 4; i++ {
		md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: make([]byte, 100<<10)})
		if err != nil {
			t.Fatalf("unkeyed send %d: %v", i, err)
		}
		seen[md.Partition] = true
		if i > 400 {
			t.Fatalf("unkeyed records reached only partitions %v", seen)
		}
	}
	if st := p.Stats(); st.Errors != 0 {
		t.Fatalf("errors: %+v", st)
	}
}

// When the engine loses a producer's state (every replica of a partition
// restarted with an empty log), it answers MIMQE_UNKNOWN_PRODUCER_ID; the
// producer takes a new id, resends under it from sequence 0 and counts
// what may be stored twice (a batch in flight whose outcome it never
// learned).
func TestProducerNewIDAfterEngineLostState(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1,replicas=1"})
	p := newProducerT(t, e, ProducerConfig{Acks: AcksAll, DeliveryTimeoutMs: 30_000})
	ctx := testCtx(t)
	for i := 0; i < 5; i++ {
		if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("x")}); err != nil {
			t.Fatal(err)
		}
	}
	pid := p.ProducerID()
	node := e.PartitionLeader("T", 0)
	// The next produce is handled, its reply held: the node dies before
	// it is sent, so the producer never learns the outcome.
	var held atomic.Bool
	remove := e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeProduce && held.CompareAndSwap(false, true) {
			return engine.ControlAction{Delay: 10 * time.Second}
		}
		return engine.ControlAction{}
	})
	fut := p.SendFuture(&ProducerRecord{Topic: "T", Value: []byte("unsure")})
	ilinktest.WaitFor(t, 5*time.Second, "the produce held", held.Load)
	remove()
	if err := e.KillNode(node); err != nil {
		t.Fatal(err)
	}
	if err := e.RestartNode(node); err != nil {
		t.Fatal(err)
	}
	md, err := fut.Get(ctx)
	if err != nil {
		t.Fatalf("the unsure record after the restart: %v", err)
	}
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("after")}); err != nil {
		t.Fatalf("send after the restart: %v", err)
	}
	st := p.Stats()
	if p.ProducerID() == pid || st.ProducerIDResets != 1 || st.PossibleDuplicates != 1 || st.Errors != 0 {
		t.Fatalf("producer id %d (was %d), stats %+v", p.ProducerID(), pid, st)
	}
	recs := readAll(t, e, "T", 1)[0]
	if len(recs) != 2 || string(recs[0].Value) != "unsure" || md.Offset != 0 {
		t.Fatalf("partition holds %d records (first %q), unsure record at %d", len(recs), recs[0].Value, md.Offset)
	}
}

// An idle connection sends PINGs (KeepAlive), so the engine's IdleTimeout,
// which drops silent (half-open) connections, never cuts it; without
// keepalive the same idle connection is cut.
func TestConnKeepAliveOutlivesIdleTimeout(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{Nodes: 1, IdleTimeout: 300 * time.Millisecond, FrameTimeout: 100 * time.Millisecond})
	dial := func(ka time.Duration) *Conn {
		c, err := DialConn(testCtx(t), e.DataAddrs()[0], ConnConfig{Mode: wire.ModeProducer, KeepAlive: ka, Logf: testLogf(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	kept := dial(100 * time.Millisecond)
	silent := dial(-1)
	ilinktest.WaitFor(t, 5*time.Second, "the silent connection cut", func() bool { return silent.Err() != nil })
	// The silent one was idle for IdleTimeout; so was the other, which
	// pinged. It stays through three more idle timeouts.
	// Under test: 900 ms of idleness, three idle timeouts.
	for end := time.Now().Add(900 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if err := kept.Err(); err != nil {
			t.Fatalf("the keepalive connection was cut: %v", err)
		}
	}
	if err := kept.Do(testCtx(t), wire.CodePing, 0, &wire.Empty{}, nil); err != nil {
		t.Fatalf("the keepalive connection after the idle timeout: %v", err)
	}
}

// The first send to a topic needs its partition count; while no node
// answers (the whole cluster restarting) the producer keeps asking within
// its budget instead of failing the record with the connect error.
func TestProducerFirstSendWaitsThroughOutage(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=2,replicas=3"})
	p := newProducerT(t, e, ProducerConfig{Acks: AcksAll})
	if err := e.Outage(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		// Under test: an outage of several retry backoffs (the first send
		// is made during it); nothing on the client side to wait for.
		time.Sleep(500 * time.Millisecond)
		ended <- e.EndOutage()
	}()
	md, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Value: []byte("first")})
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("first send during the outage: %v", err)
	}
	if recs := readAll(t, e, "T", 2); len(recs[md.Partition]) != 1 || string(recs[md.Partition][0].Value) != "first" {
		t.Fatalf("partition %d holds %v", md.Partition, recs[md.Partition])
	}
}
