package consumer

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/wire"
)

// testEngine is the in-process engine with the handles the group and read
// tests ask of a cluster: records on a chosen partition, valued
// "<topic>/<p>/<offset>" so a read can be checked against its position,
// what the coordinator stored, and hooks on the requests (engine.Control).
// The tests that need what the engine cannot do (a topic hidden from
// metadata, a request held at the server) use the fake (fake_test.go).
type testEngine struct {
	*engine.Engine
	t testing.TB

	mu        sync.Mutex
	producers map[wire.Codec]*ilink.Producer
	next      map[tp]int64 // offset of the next record produce writes
}

func newTestEngine(t testing.TB, nodes int) *testEngine {
	t.Helper()
	e := enginetest.Start(t, engine.Config{
		Nodes:               nodes,
		ElectionDelay:       300 * time.Millisecond,
		HeartbeatInterval:   50 * time.Millisecond,
		CoordinatorLoadTime: 200 * time.Millisecond,
		Logf:                testLogf(t),
	})
	return &testEngine{Engine: e, t: t, producers: map[wire.Codec]*ilink.Producer{}, next: map[tp]int64{}}
}

// engineWithT starts an engine of nodes nodes holding topic T, of parts
// partitions with each uncompressed records in every one: the world most
// tests here read from.
func engineWithT(t testing.TB, nodes, parts, each int) *testEngine {
	t.Helper()
	x := newTestEngine(t, nodes)
	x.createTopic("T", parts)
	for p := range int32(parts) {
		x.produce("T", p, each, wire.CodecNone)
	}
	return x
}

// addr is node 1's address: the client finds the other nodes itself.
func (x *testEngine) addr() string { return x.DataAddrs()[0] }

func (x *testEngine) addrs() string { return engineAddrs(x.Engine) }

// createTopic creates a topic replicated on every node, so a leader or
// coordinator can move without losing records.
func (x *testEngine) createTopic(name string, parts int) {
	x.t.Helper()
	props := fmt.Sprintf("partitions=%d,replicas=%d", parts, len(x.DataAddrs()))
	if err := x.CreateTopic(name, props); err != nil {
		x.t.Fatal(err)
	}
}

// produce writes n records to partition p of topic through a producer
// compressing with codec, and waits for their acknowledgements.
func (x *testEngine) produce(topic string, p int32, n int, codec wire.Codec) {
	x.t.Helper()
	x.send(topic, p, n, codec, time.Time{})
}

// produceAt writes one record with timestamp ts (ms) to partition p.
func (x *testEngine) produceAt(topic string, p int32, ts int64) {
	x.t.Helper()
	x.send(topic, p, 1, wire.CodecNone, time.UnixMilli(ts))
}

func (x *testEngine) send(topic string, p int32, n int, codec wire.Codec, ts time.Time) {
	x.t.Helper()
	parts, err := x.TopicPartitions(topic)
	if err != nil {
		x.t.Fatal(err)
	}
	x.mu.Lock()
	pr := x.producers[codec]
	if pr == nil {
		pr = newTestProducer(x.t, x.Engine, ilink.ProducerConfig{Acks: ilink.AcksAll, Compression: codec, LingerMs: 1})
		x.producers[codec] = pr
	}
	k := tp{topic, p}
	from := x.next[k]
	x.next[k] += int64(n)
	x.mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		off := from + int64(i)
		rec := &ilink.ProducerRecord{
			Topic:     topic,
			Key:       keyFor(off, p, len(parts)),
			Value:     []byte(fmt.Sprintf("%s/%d/%d", topic, p, off)),
			Headers:   []wire.RecordHeader{{Key: "h", Value: []byte("v")}},
			Timestamp: ts,
		}
		wg.Add(1)
		pr.Send(rec, func(md ilink.RecordMetadata, err error) {
			defer wg.Done()
			if err != nil || md.Partition != p || md.Offset != off {
				errs <- fmt.Sprintf("record %s/%d/%d: stored at %d/%d: %v", topic, p, off, md.Partition, md.Offset, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		x.t.Fatal(e)
	}
}

// keyFor returns a key "k<off>[-j]" that the key partitioner puts in
// partition p of n.
func keyFor(off int64, p int32, n int) []byte {
	key := []byte(fmt.Sprintf("k%d", off))
	for j := 0; ilink.KeyPartition(key, n) != int(p); j++ {
		key = []byte(fmt.Sprintf("k%d-%d", off, j))
	}
	return key
}

// commit is the group's commit (next offset) of topic/p as the
// coordinator stored it.
func (x *testEngine) commit(group, topic string, p int32) (int64, bool) {
	o, ok := x.GroupCommits(group)[topic][p]
	return o, ok
}

// setCommit stores a commit of o for topic/p through a manual member of
// group that leaves at once.
func (x *testEngine) setCommit(group, topic string, p int32, o int64) {
	x.t.Helper()
	opts := testOptions(x.t, group)
	opts.Commit = CommitManual
	c := mustSubscribe(x.t, x.addr(), topic, opts)
	if err := c.CommitOffset(testCtx(x.t, 15*time.Second), topic, p, o-1); err != nil {
		x.t.Fatalf("commit %d for %s: %v", o, group, err)
	}
	c.Close()
}

// memberCount is the number of members the coordinator knows of group.
func (x *testEngine) memberCount(group string) int {
	x.t.Helper()
	d, err := x.DescribeGroup(group)
	if err != nil {
		x.t.Fatalf("describe %s: %v", group, err)
	}
	return len(d.Members)
}

func (x *testEngine) groupExists(group string) bool {
	x.t.Helper()
	d, err := x.DescribeGroup(group)
	if err != nil {
		x.t.Fatalf("describe %s: %v", group, err)
	}
	return d.State != engine.GroupDead
}

func (x *testEngine) requestCount(code wire.Code) int {
	return int(x.RequestCounts()[code])
}

// hook runs h on every request the engine receives, as the fake's hooks
// do: a non-nil action is the error reply instead of the handling.
func (x *testEngine) hook(h reqHook) func() {
	return x.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		a := h(&reqEvent{Node: uint16(ev.Node), Code: ev.Code, Body: ev.Body, Member: memberOf(ev.Code, ev.Body)})
		if a == nil {
			return engine.ControlAction{}
		}
		return engine.ControlAction{Reject: &wire.ErrorBody{Name: a.Name, Tail: a.Tail}, RejectReport: a.Report}
	})
}

// owners is the coordinator's owner of each partition some member of
// group holds; an error when it shows one partition held by two members.
func (x *testEngine) owners(group string) (map[tp]string, error) {
	d, err := x.DescribeGroup(group)
	if err != nil {
		return nil, nil // coordinator offline (loading): nothing to check
	}
	out := map[tp]string{}
	for _, m := range d.Members {
		for _, a := range m.Assignment {
			for _, p := range a.Partitions {
				k := tp{a.Topic, p}
				if prev, ok := out[k]; ok {
					return nil, fmt.Errorf("%v owned by %s and %s in generation %d", k, prev, m.MemberID, d.Generation)
				}
				out[k] = m.MemberID
			}
		}
	}
	return out, nil
}

// checkOwners fails the test if the coordinator gives one partition of
// group to two members.
func (x *testEngine) checkOwners(t testing.TB, group string) {
	t.Helper()
	if _, err := x.owners(group); err != nil {
		t.Error(err)
	}
}
