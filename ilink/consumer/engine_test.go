package consumer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/wire"
)

// Tests against the in-process engine's topic API; the group tests against
// its coordinator are in engine_groups_test.go.

func startEngine(t testing.TB, nodes int) *engine.Engine {
	t.Helper()
	return enginetest.Start(t, engine.Config{Nodes: nodes, ElectionDelay: 300 * time.Millisecond, Logf: testLogf(t)})
}

func engineAddrs(e *engine.Engine) string { return strings.Join(e.DataAddrs(), ",") }

func newTestProducer(t testing.TB, e *engine.Engine, cfg ilink.ProducerConfig) *ilink.Producer {
	t.Helper()
	if cfg.Logf == nil {
		cfg.Logf = testLogf(t)
	}
	p, err := ilink.NewProducer(testCtx(t, 30*time.Second), engineAddrs(e), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// produceN sends n records "<topic>-<i>" keyed "k<i>" and waits for all.
func produceN(t testing.TB, p *ilink.Producer, topic string, from, n int) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Value
	for i := from; i < from+n; i++ {
		wg.Add(1)
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("%s-%d", topic, i))}, func(_ ilink.RecordMetadata, err error) {
			if err != nil {
				failed.Store(err)
			}
			wg.Done()
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

func TestEngineAssignConsume(t *testing.T) {
	t.Parallel()
	e := startEngine(t, 3)
	if err := e.CreateTopic("ORDER.EVENT", "partitions=3"); err != nil {
		t.Fatal(err)
	}
	p := newTestProducer(t, e, ilink.ProducerConfig{Compression: wire.CodecLZ4})
	produceN(t, p, "ORDER.EVENT", 0, 3000)
	c := mustAssign(t, engineAddrs(e), "ORDER.EVENT", nil, testOptions(t, ""))
	recs := readN(t, c, 3000, 20*time.Second)
	next := map[int32]int64{}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Offset != next[r.Partition] || r.Topic != "ORDER.EVENT" {
			t.Fatalf("partition %d: offset %d, want %d", r.Partition, r.Offset, next[r.Partition])
		}
		next[r.Partition]++
		if want := int32(ilink.KeyPartition(r.Key, 3)); want != r.Partition {
			t.Fatalf("key %s in partition %d, want %d", r.Key, r.Partition, want)
		}
		seen[string(r.Value)] = true
	}
	if len(seen) != 3000 {
		t.Fatalf("%d distinct values", len(seen))
	}
	start, end := e.TopicOffsets("ORDER.EVENT")
	for i := range end {
		if next[int32(i)] != end[i] || start[i] != 0 {
			t.Fatalf("partition %d: read up to %d, log [%d, %d)", i, next[int32(i)], start[i], end[i])
		}
	}
	// LIST_OFFSETS through the engine: latest = end, time in the future = end.
	o := testOptions(t, "")
	o.Start = StartLatest
	c2 := mustAssign(t, engineAddrs(e), "ORDER.EVENT", []int32{0}, o)
	if pos := c2.Position("ORDER.EVENT", 0); pos != end[0] {
		t.Fatalf("latest: %d, end %d", pos, end[0])
	}
	if err := c2.SeekToTime(testCtx(t, 5*time.Second), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if r := readN(t, c2, 1, 5*time.Second)[0]; r.Offset != 0 {
		t.Fatalf("SeekToTime(an hour ago): offset %d", r.Offset)
	}
}

func TestEngineUnknownTopicAndPartition(t *testing.T) {
	t.Parallel()
	e := startEngine(t, 1)
	if err := e.CreateTopic("T", "partitions=2"); err != nil {
		t.Fatal(err)
	}
	_, err := Assign(testCtx(t, 5*time.Second), engineAddrs(e), "NOPE", nil, testOptions(t, ""))
	if !ilink.HasName(err, wire.ErrUnknownTopic) {
		t.Fatalf("Assign(unknown topic): %v", err)
	}
	_, err = Assign(testCtx(t, 5*time.Second), engineAddrs(e), "T", []int32{5}, testOptions(t, ""))
	if !ilink.HasName(err, wire.ErrInvalidArgument) {
		t.Fatalf("Assign(partition 5 of 2): %v", err)
	}
	// Said in words an operator reads, with the partitions there are.
	if want := "T has no partition 5 (its 2 partitions: 0-1)"; !strings.Contains(err.Error(), want) {
		t.Errorf("Assign(partition 5 of 2): %q, want it to say %q", err, want)
	}
	got, err := Resolve(testCtx(t, 5*time.Second), engineAddrs(e), "*")
	if err != nil || len(got) != 1 || got[0] != "T" {
		// spec: T-15 — '*' lists no SYSTEM. topic, whatever the engine holds.
		t.Fatalf("Resolve(*) = %v, %v", got, err)
	}
}

func TestEngineLeaderKillDuringConsume(t *testing.T) {
	t.Parallel()
	e := startEngine(t, 3)
	if err := e.CreateTopic("T", "partitions=3,replicas=3,minSync=2"); err != nil {
		t.Fatal(err)
	}
	p := newTestProducer(t, e, ilink.ProducerConfig{Acks: ilink.AcksAll, Compression: wire.CodecLZ4, LingerMs: 1})
	c := mustAssign(t, engineAddrs(e), "T", nil, testOptions(t, ""))
	var mu sync.Mutex
	acked := map[string]bool{}
	stop := loopUntilStopped(t, func(i int) {
		v := fmt.Sprintf("v%d", i)
		_, err := p.SendSync(context.Background(), &ilink.ProducerRecord{Topic: "T", Key: []byte(v), Value: []byte(v)})
		if err == nil {
			mu.Lock()
			acked[v] = true
			mu.Unlock()
		}
		if i%50 == 0 {
			time.Sleep(time.Millisecond) // pacing the sends across the failover, not a wait for a condition
		}
	})
	next := map[int32]int64{}
	seen := map[string]bool{}
	read := func(d time.Duration) {
		deadline := time.Now().Add(d)
		for time.Now().Before(deadline) {
			rs, err := c.ReadBatch(context.Background(), 200, 100*time.Millisecond)
			if err != nil && !ilink.IsNoMessage(err) {
				// spec: C-29, C-49 — the leader's death is hidden from reads.
				t.Fatalf("read: %v", err)
			}
			advanceInOrder(t, rs, next)
			for _, r := range rs {
				seen[string(r.Value)] = true
			}
		}
	}
	read(500 * time.Millisecond)
	victim := e.PartitionLeader("T", 0)
	if err := e.KillNode(victim); err != nil {
		t.Fatal(err)
	}
	read(1500 * time.Millisecond)
	if err := e.RestartNode(victim); err != nil {
		t.Fatal(err)
	}
	read(500 * time.Millisecond)
	stop()
	read(1500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	missing := 0
	for v := range acked {
		if !seen[v] {
			missing++
		}
	}
	if missing > 0 || len(acked) < 100 {
		t.Fatalf("%d of %d acknowledged records never read", missing, len(acked))
	}
	t.Logf("%d acknowledged records read, positions %v", len(acked), next)
}

// A pattern subscription from latest reads a topic created after the
// subscribe from its start: the records written to it before the
// consumer's refresh found it came after the subscribe, and a tail
// waiting for the topic must not miss them. A topic that existed at the
// subscribe still starts at its end.
func TestLatestPatternReadsANewTopicFromItsStart(t *testing.T) {
	t.Parallel()
	e := startEngine(t, 1)
	if err := e.CreateTopic("NEW.OLD", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	p := newTestProducer(t, e, ilink.ProducerConfig{})
	produceN(t, p, "NEW.OLD", 0, 5) // before the subscribe: not read
	o := testOptions(t, "latest-pattern")
	o.Start = StartLatest
	o.PatternRefresh = time.Hour // only RefreshNow finds the new topic
	c := mustSubscribe(t, engineAddrs(e), "NEW.*", o)
	if err := e.CreateTopic("NEW.X", "partitions=2"); err != nil {
		t.Fatal(err)
	}
	produceN(t, p, "NEW.X", 0, 6) // before the consumer knows NEW.X
	if err := c.RefreshNow(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	produceN(t, p, "NEW.OLD", 5, 1) // after the subscribe: read
	recs := readN(t, c, 7, 10*time.Second)
	got := map[string]bool{}
	for _, r := range recs {
		got[string(r.Value)] = true
	}
	for i := 0; i < 6; i++ {
		if v := fmt.Sprintf("NEW.X-%d", i); !got[v] {
			t.Errorf("the new topic's record %s, written before the refresh, was not read (read %v)", v, got)
		}
	}
	if !got["NEW.OLD-5"] {
		t.Errorf("the record written to the old topic after the subscribe was not read (read %v)", got)
	}
	for i := 0; i < 5; i++ {
		if v := fmt.Sprintf("NEW.OLD-%d", i); got[v] {
			t.Errorf("latest read %s, written to a topic that existed before the subscribe", v)
		}
	}
}
