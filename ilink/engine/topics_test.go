package engine

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func TestCreateAndListTopics(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	// Go API, then CREATE TOPIC on an admin listener and on a data listener.
	mustCreateTopic(t, e, "ORDER.EVENT", "partitions=3")
	adm := openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	adm.mustCall(wire.CodeCreateTopic, 0, &wire.CreateTopicRequest{Topic: "PAYMENT.RESULT", Properties: "partitions=2,replicas=2,minSync=2"}, nil)
	prod := openSession(t, e.DataAddrs()[2], wire.ModeProducer)
	prod.mustCall(wire.CodeCreateTopic, 0, &wire.CreateTopicRequest{Topic: "AUDIT.LOG", Properties: ""}, nil)

	want := map[string]struct{ parts, replicas, minSync int }{
		"ORDER.EVENT":    {3, 3, 1},
		"PAYMENT.RESULT": {2, 2, 2},
		"AUDIT.LOG":      {1, 3, 1},
	}
	// spec: T-02
	var names []string
	for _, ti := range e.Topics() {
		if ti.Name == wire.GroupsTopic && ti.Internal { // spec: T-10 (created at start, groups.go)
			continue
		}
		names = append(names, ti.Name)
		w, ok := want[ti.Name]
		if !ok {
			t.Fatalf("unexpected topic %+v", ti)
		}
		// spec: T-01
		if ti.Partitions != w.parts || ti.Replicas != w.replicas || ti.MinSync != w.minSync || ti.Epoch != 1 || ti.RetentionMs != defaultRetentionMs || ti.RetentionBytes != 0 || ti.Offline != 0 || ti.UnderReplicated != 0 {
			t.Fatalf("topic %s: %+v, want %+v", ti.Name, ti, w)
		}
	}
	if !slices.Equal(names, []string{"AUDIT.LOG", "ORDER.EVENT", "PAYMENT.RESULT"}) {
		t.Fatalf("Topics() = %v", names)
	}
	// spec: T-02 — and the same list over the wire, from any node.
	md := adm.metadata()
	var got []string
	for _, tm := range md.Topics {
		if tm.Name == wire.GroupsTopic {
			continue
		}
		got = append(got, tm.Name)
		if tm.Err.Name != "" || len(tm.Partitions) != want[tm.Name].parts {
			t.Fatalf("metadata %s: %+v", tm.Name, tm)
		}
	}
	if !slices.Equal(got, names) {
		t.Fatalf("METADATA topics %v, want %v", got, names)
	}
	if md := prod.metadata("NOPE"); len(md.Topics) != 1 || md.Topics[0].Err.Name != wire.ErrUnknownTopic {
		t.Fatalf("metadata of an unknown topic: %+v", md.Topics)
	}
}

func TestCreateTopicRefusals(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "")
	for _, tc := range []struct {
		name, props string
		errName     string
		tail        string
	}{
		{"T", "", wire.ErrTopicExists, "T"},
		{"X", "partitions=0", wire.ErrInvalidArgument, "partitions: 0 out of range 1..1024"},
		{"X", "partitions=1025", wire.ErrInvalidArgument, "partitions: 1025 out of range 1..1024"},
		{"X", "partitions=two", wire.ErrInvalidArgument, `topic property partitions: "two" is not an integer`},
		{"X", "replicas=4", wire.ErrInvalidArgument, "replicas: 4 but the cluster has 3 nodes"},
		{"X", "replicas=2,minSync=3", wire.ErrInvalidArgument, "minSync: 3 out of range 1..2 (the topic's replicas)"},
		{"X", "retention.ms=-1", wire.ErrInvalidArgument, "retention.ms: -1 is negative (0 = keep forever)"},
		{"X", "retention.bytes=-5", wire.ErrInvalidArgument, "retention.bytes: -5 is negative (0 = unlimited)"},
		{"X", "colour=red", wire.ErrInvalidArgument, "unknown topic property colour"},
		{"X", "partitions", wire.ErrInvalidArgument, `topic property "partitions" is not key=value`},
		{"X", "partitions=1,partitions=2", wire.ErrInvalidArgument, "topic property partitions given twice"},
		{"", "", wire.ErrInvalidArgument, "name: empty; give the topic a name"},
		{strings.Repeat("a", 250), "", wire.ErrInvalidArgument, "name: 250 characters; at most 249"},
		{"A B", "", wire.ErrInvalidArgument, "name: ' ' at 1 is not allowed (only A-Z a-z 0-9 . _ -)"},
		{"SYSTEM.MINE", "", wire.ErrInvalidArgument, "name: the SYSTEM. prefix is reserved for the engine"},
	} {
		err := e.CreateTopic(tc.name, tc.props)
		var te *Error
		if !errors.As(err, &te) || te.Name != tc.errName || !strings.HasPrefix(te.Tail, tc.tail) {
			t.Errorf("CreateTopic(%q, %q) = %v, want %s (%s...)", tc.name, tc.props, err, tc.errName, tc.tail)
		}
	}
	// The same refusal over the wire, as an error reply.
	adm := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	eb := adm.call(wire.CodeCreateTopic, 0, &wire.CreateTopicRequest{Topic: "Y", Properties: "partitions=-3"}, nil)
	if eb == nil || eb.Name != wire.ErrInvalidArgument || eb.Tail != "partitions: -3 out of range 1..1024" {
		t.Fatalf("CREATE TOPIC with a bad property: %s", errText(eb))
	}
	// Spaces and key case are tolerated; the engine may create SYSTEM. topics.
	mustCreateTopic(t, e, "Z", " Partitions = 2 , MINSYNC=2 ")
	if err := e.createInternal("SYSTEM.TEST", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteTopic("SYSTEM.TEST"); err == nil {
		t.Fatal("deleting an internal topic succeeded")
	}
}

func TestMetadataLeaderTable(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "ORDER.EVENT", "partitions=6,replicas=2")
	c := openSession(t, e.DataAddrs()[2], wire.ModeProducer)
	md := c.metadata("ORDER.EVENT")
	if len(md.Nodes) != 3 || md.Nodes[0].Addr != e.DataAddrs()[0] || !md.Nodes[0].Leader {
		t.Fatalf("node list %+v", md.Nodes)
	}
	tm := md.Topics[0]
	if tm.Epoch != 1 || len(tm.Partitions) != 6 {
		t.Fatalf("topic meta %+v", tm)
	}
	// spec: K-22 — every partition maps to its leader; leaders are
	// spread round-robin over the nodes (PLACEMENT on).
	wantRoundRobin(t, tm.Partitions)
	for i := range tm.Partitions {
		if got, want := e.PartitionLeader("ORDER.EVENT", i), i%3+1; got != want {
			t.Fatalf("PartitionLeader(%d) = %d, want %d", i, got, want)
		}
	}
}

func TestInitProducerIDsAreUnique(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	seen := map[int64]bool{}
	for _, addr := range e.DataAddrs() {
		c := openSession(t, addr, wire.ModeProducer)
		for i := 0; i < 2; i++ {
			id := c.initProducer()
			if id <= 0 || seen[id] {
				t.Fatalf("producer id %d (seen %v)", id, seen)
			}
			seen[id] = true
		}
	}
	// Producer requests are refused on other session modes.
	cons := localSession(t, e, wire.ModeConsumer)
	wantErrName(t, cons.call(wire.CodeInitProducer, 0, &wire.InitProducerRequest{}, nil), wire.ErrSessionMode, "INIT PRODUCER on a consumer session")
}

func TestProducerAndConsumerAcceptedDuringElection(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{ElectionDelay: 2 * time.Second}, "T", "partitions=3")
	if _, err := e.KillLeader(); err != nil {
		t.Fatal(err)
	}
	if e.Leader() != 0 {
		t.Fatal("a leader exists right after the kill")
	}
	// No cluster leader, yet producer and consumer connections open on
	// any running node, and node 2 still serves the partition it leads.
	p := openSession(t, e.DataAddrs()[1], wire.ModeProducer)
	p.mustProduce("T", 1, 1, plainBatch(t, "during election"))
	c := openSession(t, e.DataAddrs()[2], wire.ModeConsumer)
	c.metadata()
	if e.Leader() != 0 {
		t.Fatal("the election happened before the test finished; make ElectionDelay longer")
	}
}

func TestStoppedQueueManagerRefusesTopicRequests(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "")
	adm := openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	if err := e.StopNode(2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code wire.Code
		req  wire.Message
	}{
		{wire.CodeMetadata, &wire.MetadataRequest{}},
		{wire.CodeAdminPublish, &wire.AdminPublishRequest{Topic: "T", Value: []byte("v")}},
		{wire.CodeCreateTopic, &wire.CreateTopicRequest{Topic: "U"}},
	} {
		// spec: A-21
		if eb := adm.call(tc.code, 0, tc.req, nil); eb == nil || eb.Name != wire.ErrQmgrNotRunning || eb.Tail != "QM1" {
			t.Fatalf("%v on a stopped queue manager: %s", tc.code, errText(eb))
		}
	}
}

func TestAdminPublishRoundRobin(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "ORDER.EVENT", "partitions=3")
	// Node 3's admin listener: it leads only partition 2, the others are
	// forwarded in-process to their leaders.
	adm := openSession(t, e.AdminAddrs()[2], wire.ModeAdmin)
	before := time.Now().UnixMilli()
	for i := 0; i < 6; i++ {
		var rep wire.AdminPublishReply
		adm.mustCall(wire.CodeAdminPublish, 0, &wire.AdminPublishRequest{Topic: "ORDER.EVENT", Key: []byte("order-1"), Value: []byte(fmt.Sprint("v", i))}, &rep)
		// spec: — (offset, timestamp, partition), partitions in turn.
		if rep.Partition != int32(i%3) || rep.Offset != int64(i/3) || rep.TimestampMs < before || rep.TimestampMs > time.Now().UnixMilli() {
			t.Fatalf("publish %d: %+v", i, rep)
		}
	}
	// Also on a data listener connection.
	data := localSession(t, e, wire.ModeConsumer)
	var rep wire.AdminPublishReply
	data.mustCall(wire.CodeAdminPublish, 0, &wire.AdminPublishRequest{Topic: "ORDER.EVENT", Value: []byte("v6")}, &rep)
	if rep.Partition != 0 || rep.Offset != 2 {
		t.Fatalf("publish on the data listener: %+v", rep)
	}
	wantValues(t, e, "ORDER.EVENT", 0, []string{"v0", "v3", "v6"}, "after the publishes")
	readValues(t, e, "ORDER.EVENT", 1) // waits until committed
	recs, err := e.ReadPartition("ORDER.EVENT", 1, 0, 0)
	if err != nil || len(recs) != 2 || string(recs[0].Key) != "order-1" || string(recs[1].Value) != "v4" {
		t.Fatalf("partition 1: %+v %v", recs, err)
	}
	if eb := adm.call(wire.CodeAdminPublish, 0, &wire.AdminPublishRequest{Topic: "NOPE", Value: []byte("v")}, nil); eb == nil || eb.Name != wire.ErrUnknownTopic || eb.Tail != "NOPE" {
		t.Fatalf("publish to an unknown topic: %s", errText(eb))
	}
}

func TestRetentionSweepAdvancesLogStart(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{RetentionInterval: 20 * time.Millisecond}, "BYTIME", "partitions=1,retention.ms=150")
	b := plainBatch(t, "0123456789")
	mustCreateTopic(t, e, "BYSIZE", fmt.Sprintf("partitions=1,replicas=1,retention.bytes=%d", 2*len(b)))
	c := localSession(t, e, wire.ModeProducer)
	for i := 0; i < 3; i++ {
		c.mustProduce("BYTIME", 1, 0, plainBatch(t, "a", "b"))
	}
	for i := 0; i < 5; i++ {
		c.mustProduce("BYSIZE", 1, 0, plainBatch(t, "0123456789"))
	}
	// The byte bound keeps the last two batches (applied at append).
	start, end := e.TopicOffsets("BYSIZE")
	if start[0] != 3 || end[0] != 5 {
		t.Fatalf("BYSIZE offsets %d..%d, want 3..5", start[0], end[0])
	}
	// The sweep drops the batches older than retention.ms on every replica.
	eventually(t, "time retention", func() bool {
		start, end := e.TopicOffsets("BYTIME")
		if start[0] != 6 || end[0] != 6 {
			return false
		}
		pi := partitionInfo(t, e, "BYTIME", 0)
		return pi.StartOffset == 6 && pi.Bytes == 0
	})
	cons := localSession(t, e, wire.ModeConsumer)
	res := cons.fetchOne("BYTIME", 0, 0, 0, 0, 0)
	if res.Err.Name != wire.ErrOffsetOutOfRange || res.LogStart != 6 || res.HighWatermark != 6 {
		t.Fatalf("fetch below the log start: %+v", res)
	}
}

func TestStatSeriesCountsTraffic(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{Nodes: 1}, "S", "partitions=2")
	p := localSession(t, e, wire.ModeProducer)
	b := plainBatch(t, "a", "b", "c")
	p.mustProduce("S", 1, 0, b)
	p.mustProduce("S", 1, 1, b)
	c := localSession(t, e, wire.ModeConsumer)
	if res := c.fetchOne("S", 0, 1, 0, 0, 0); res.Err.Name != "" {
		t.Fatalf("fetch: %+v", res)
	}
	sum := func(ps []StatPoint) (in, inB, out, outB int64) {
		for _, pt := range ps {
			in, inB, out, outB = in+pt.RecordsIn, inB+pt.BytesIn, out+pt.RecordsOut, outB+pt.BytesOut
		}
		return
	}
	for _, name := range []string{"S", ""} {
		ps := e.StatSeries(name)
		if len(ps) != StatSeconds || time.Since(ps[len(ps)-1].Time) > 2*time.Second || ps[1].Time.Sub(ps[0].Time) != time.Second {
			t.Fatalf("series %q: %d points, last at %v", name, len(ps), ps[len(ps)-1].Time)
		}
		in, inB, out, outB := sum(ps)
		if in != 6 || inB != int64(2*len(b)) || out != 2 || outB != int64(len(b)) {
			t.Fatalf("series %q: in %d/%d B, out %d/%d B", name, in, inB, out, outB)
		}
	}
	if e.StatSeries("NOPE") != nil {
		t.Fatal("series of an unknown topic")
	}
}

// A churn of generated topic names leaves no per-name state: the epoch a
// re-created name must exceed is one number (topicStore.deadEpoch), where it
// was a map entry for every name ever created (≈ 2.4 MB here). Not parallel:
// it measures the heap.
func TestTopicNameChurnKeepsNoPerNameState(t *testing.T) {
	e := startEngine(t, Config{Logf: func(string, ...any) {}}) // t.Logf would keep every line
	long := strings.Repeat("x", 230)
	churn := func(from, to int) {
		for i := from; i < to; i++ {
			name := fmt.Sprintf("TMP.%06d.%s", i, long)
			if err := e.CreateTopic(name, "partitions=1,replicas=1"); err != nil {
				t.Fatal(err)
			}
			if err := e.DeleteTopic(name); err != nil {
				t.Fatal(err)
			}
		}
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	churn(0, 500) // warm up: pools, the first snapshots
	before := heap()
	const names = 10000
	churn(500, 500+names)
	grown := int64(heap()) - int64(before)
	if grown > 1<<20 {
		t.Fatalf("heap live grew %d bytes over %d created and deleted topic names (per-name state kept?)", grown, names)
	}
	ts := e.topics
	ts.mu.Lock()
	live, dead := len(ts.byName), ts.deadEpoch
	ts.mu.Unlock()
	if live != 1 { // SYSTEM.GROUPS
		t.Fatalf("%d topics held after creating and deleting %d names, want only %s", live, names, wire.GroupsTopic)
	}
	// A re-created name still starts above every epoch it had.
	name := fmt.Sprintf("TMP.%06d.%s", 7, long)
	mustCreateTopic(t, e, name, "")
	if ep := topicEpoch(t, e, name); ep <= dead || ep <= 1 {
		t.Fatalf("re-created topic at epoch %d, want above %d (the highest deleted epoch)", ep, dead)
	}
}
