package engine

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// ALTER TOPIC (topics_alter.go).

func topicInfo(t testing.TB, e *Engine, name string) TopicInfo {
	t.Helper()
	for _, ti := range e.Topics() {
		if ti.Name == name {
			return ti
		}
	}
	t.Fatalf("topic %s not listed", name)
	return TopicInfo{}
}

func mustAlter(t testing.TB, e *Engine, name, props string) {
	t.Helper()
	if err := e.AlterTopic(name, props); err != nil {
		t.Fatalf("AlterTopic(%s, %q): %v", name, props, err)
	}
}

func TestAlterTopicRetention(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{RetentionInterval: 20 * time.Millisecond}, "BYTIME", "partitions=1,retention.ms=100")
	b := plainBatch(t, "0123456789")
	mustCreateTopic(t, e, "BYSIZE", "partitions=1,replicas=1")
	// retention.ms=0 keeps for ever: nothing goes, however many sweeps run.
	mustAlter(t, e, "BYTIME", "retention.ms=0")
	if ti := topicInfo(t, e, "BYTIME"); ti.RetentionMs != 0 || ti.Partitions != 1 || ti.Epoch != 1 {
		t.Fatalf("after retention.ms=0: %+v", ti)
	}
	c := localSession(t, e, wire.ModeProducer)
	for i := 0; i < 3; i++ {
		c.mustProduce("BYTIME", 1, 0, plainBatch(t, "a", "b"))
	}
	for i := 0; i < 5; i++ {
		c.mustProduce("BYSIZE", 1, 0, plainBatch(t, "0123456789"))
	}
	// A sweep an hour from now: the batches are far older than the old
	// 100ms, and the periodic sweeps run on besides.
	e.topics.sweepRetention(time.Now().Add(time.Hour).UnixMilli())
	if start, end := e.TopicOffsets("BYTIME"); start[0] != 0 || end[0] != 6 {
		t.Fatalf("BYTIME kept for ever: offsets %d..%d, want 0..6", start[0], end[0])
	}
	if start, end := e.TopicOffsets("BYSIZE"); start[0] != 0 || end[0] != 5 {
		t.Fatalf("BYSIZE unbounded: offsets %d..%d, want 0..5", start[0], end[0])
	}
	// A time bound applies at the next sweep, on every replica.
	mustAlter(t, e, "BYTIME", "retention.ms=50")
	eventually(t, "time retention after the alter", func() bool {
		pi := partitionInfo(t, e, "BYTIME", 0)
		return pi.StartOffset == 6 && pi.EndOffset == 6 && pi.Bytes == 0
	})
	// So does a byte bound (the sweep applies it too): the last two batches stay.
	mustAlter(t, e, "BYSIZE", fmt.Sprintf("retention.bytes=%d", 2*len(b)))
	eventually(t, "byte retention after the alter", func() bool {
		start, end := e.TopicOffsets("BYSIZE")
		return start[0] == 3 && end[0] == 5
	})
	if ti := topicInfo(t, e, "BYSIZE"); ti.RetentionBytes != int64(2*len(b)) || ti.RetentionMs != defaultRetentionMs {
		t.Fatalf("BYSIZE after the alter: %+v", ti)
	}
	// And after an append (trimBytes), before any sweep would.
	c.mustProduce("BYSIZE", 1, 0, plainBatch(t, "0123456789"))
	if start, end := e.TopicOffsets("BYSIZE"); start[0] != 4 || end[0] != 6 {
		t.Fatalf("BYSIZE after an append: offsets %d..%d, want 4..6", start[0], end[0])
	}
	cons := localSession(t, e, wire.ModeConsumer)
	if res := cons.fetchOne("BYTIME", 0, 0, 0, 0, 0); res.Err.Name != wire.ErrOffsetOutOfRange || res.LogStart != 6 {
		t.Fatalf("fetch below the new log start: %+v", res)
	}
}

func TestAlterTopicMinSync(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=1,replicas=3,minSync=3")
	p := localSession(t, e, wire.ModeProducer)
	if res := p.produceTo("T", 1, wire.AcksAll, 0, 5000, plainBatch(t, "a")); res.Err.Name != "" || res.BaseOffset != 0 {
		t.Fatalf("acks=all with 3 in sync: %+v", res)
	}
	if err := e.KillNode(3); err != nil {
		t.Fatal(err)
	}
	res := p.produceTo("T", 1, wire.AcksAll, 0, 200, plainBatch(t, "b"))
	if res.Err.Name != wire.ErrNotEnoughReplicas || res.Err.Tail != "T/0: 2 of 3 replicas in sync, minSync 3" {
		t.Fatalf("acks=all below minSync 3: %+v", res)
	}
	// Lowered: later acks=all produces need 2.
	mustAlter(t, e, "T", "minSync=2")
	if ti := topicInfo(t, e, "T"); ti.MinSync != 2 || ti.Replicas != 3 {
		t.Fatalf("after minSync=2: %+v", ti)
	}
	if res := p.produceTo("T", 1, wire.AcksAll, 0, 5000, plainBatch(t, "c")); res.Err.Name != "" || res.BaseOffset != 2 {
		t.Fatalf("acks=all with minSync 2: %+v", res)
	}
	// Raised again: refused again.
	mustAlter(t, e, "T", "minSync=3")
	res = p.produceTo("T", 1, wire.AcksAll, 0, 200, plainBatch(t, "d"))
	if res.Err.Name != wire.ErrNotEnoughReplicas || res.Err.Tail != "T/0: 2 of 3 replicas in sync, minSync 3" {
		t.Fatalf("acks=all after minSync=3: %+v", res)
	}
	// A pending acks=all is woken by the alter and settles against the
	// new minSync at once (not at its 10 s timeout).
	done := make(chan wire.ProducePartitionResult, 1)
	go func() {
		var rep wire.ProduceReply
		req := &wire.ProduceRequest{Acks: wire.AcksAll, Topics: []wire.ProduceTopic{{Topic: "T", Epoch: 1, Partitions: []wire.ProducePartition{{Partition: 0, Batches: plainBatch(t, "e")}}}}}
		eb, err := p.tryCall(wire.CodeProduce, 10000, req, &rep)
		if eb != nil || err != nil || len(rep.Topics) != 1 {
			done <- wire.ProducePartitionResult{Err: wire.PartError{Name: "call failed", Tail: fmt.Sprint(eb, err)}}
			return
		}
		done <- rep.Topics[0].Partitions[0]
	}()
	eventually(t, "the pending produce to be appended and replicated", func() bool {
		pi := partitionInfo(t, e, "T", 0)
		return pi.EndOffset == 5 && pi.HighWatermark == 5
	})
	start := time.Now()
	mustAlter(t, e, "T", "minSync=1")
	select {
	case res := <-done:
		if res.Err.Name != "" || res.BaseOffset != 4 {
			t.Fatalf("pending acks=all after minSync=1: %+v", res)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("pending acks=all settled %v after the alter", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending acks=all did not settle after minSync was lowered")
	}
}

func TestAlterTopicGrowPartitions(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "G", "partitions=2,replicas=2")
	prods := make([]*rawClient, 3)
	for i := range prods {
		prods[i] = openSession(t, e.DataAddrs()[i], wire.ModeProducer)
	}
	prods[0].mustProduce("G", 1, 0, plainBatch(t, "p0-old"))
	// A group member holds both partitions.
	g := "growers"
	gs := coordSession(t, e, g)
	j := gs.mustJoin(g, "", true, "G")
	wantAssigned(t, j.Assignment, "G", []int32{0, 1}, "join before the growth")

	mustAlter(t, e, "G", "partitions=5")

	// Metadata reports the new count; new partitions are placed like
	// CreateTopic places them, with leaders, at the same topic epoch.
	md := prods[2].metadata("G")
	tm := md.Topics[0]
	if tm.Err.Name != "" || tm.Epoch != 1 || len(tm.Partitions) != 5 {
		t.Fatalf("metadata after the growth: %+v", tm)
	}
	wantRoundRobin(t, tm.Partitions)
	if ti := topicInfo(t, e, "G"); ti.Partitions != 5 || ti.Replicas != 2 || ti.Offline != 0 || ti.UnderReplicated != 0 || ti.Epoch != 1 {
		t.Fatalf("Topics after the growth: %+v", ti)
	}
	ps, err := e.TopicPartitions("G")
	if err != nil || len(ps) != 5 {
		t.Fatalf("TopicPartitions: %d, %v", len(ps), err)
	}
	for _, pi := range ps[2:] {
		if pi.StartOffset != 0 || pi.EndOffset != 0 || pi.HighWatermark != 0 {
			t.Fatalf("new partition not empty: %+v", pi)
		}
	}
	// Produce to the new partitions on their leaders, read them back.
	for i := 2; i < 5; i++ {
		leader := e.PartitionLeader("G", i)
		if off := prods[leader-1].mustProduce("G", 1, int32(i), plainBatch(t, fmt.Sprintf("p%d-new", i))); off != 0 {
			t.Fatalf("first record of G/%d at %d", i, off)
		}
		if got := readValues(t, e, "G", i); !slices.Equal(got, []string{fmt.Sprintf("p%d-new", i)}) {
			t.Fatalf("ReadPartition(G, %d) = %v", i, got)
		}
	}
	cons := localSession(t, e, wire.ModeConsumer) // node 1 leads G/3
	res := cons.fetchOne("G", 3, 0, 0, 1<<20, 0)
	if _, vals := recordsOf(t, res.Batches, 0); res.Err.Name != "" || !slices.Equal(vals, []string{"p3-new"}) {
		t.Fatalf("fetch G/3: %+v %v", res.Err, vals)
	}
	// The old partitions kept their data and leaders.
	wantValues(t, e, "G", 0, []string{"p0-old"}, "after the growth")
	// The group member is told to rejoin and gets the new partitions.
	eventually(t, "the member to be asked to rejoin", func() bool {
		f := gs.heartbeat(g, j)
		return f != nil && f.report == wire.ReportRebalanced
	})
	j = gs.mustJoin(g, j.MemberID, true, "G")
	wantAssigned(t, j.Assignment, "G", []int32{0, 1, 2, 3, 4}, "rejoin after the growth")
	// Growing again keeps going; the same count is a no-op.
	mustAlter(t, e, "G", "partitions=5")
	mustAlter(t, e, "G", "PARTITIONS = 6")
	if len(prods[0].metadata("G").Topics[0].Partitions) != 6 {
		t.Fatal("metadata after the second growth")
	}
}

// New partitions are placed among the running nodes exactly like
// CreateTopic does: the first running replica leads, a stopped replica is
// out of the in-sync set and catches up when it is back.
func TestAlterTopicGrowWithNodeDown(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{ElectionDelay: 100 * time.Millisecond}, "D", "partitions=1")
	if err := e.StopNode(3); err != nil {
		t.Fatal(err)
	}
	mustAlter(t, e, "D", "partitions=3")
	for i, want := range []struct {
		leader int
		isr    []int
	}{{1, []int{1, 2}}, {2, []int{2, 1}}, {1, []int{1, 2}}} {
		pi := partitionInfo(t, e, "D", i)
		if pi.Leader != want.leader || !slices.Equal(pi.InSync, want.isr) {
			t.Fatalf("D/%d with node 3 stopped: %+v", i, pi)
		}
	}
	p := localSession(t, e, wire.ModeProducer)
	p.mustProduce("D", 1, 2, plainBatch(t, "x"))
	if err := e.StartNode(3); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node 3 in sync on D/2", func() bool {
		pi := partitionInfo(t, e, "D", 2)
		return len(pi.InSync) == 3 && slices.Equal(pi.ReplicaEnds, []int64{1, 1, 1})
	})
}

func TestAlterTopicRefusals(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "T", "partitions=3,minSync=2,retention.ms=60000")
	mustCreateTopic(t, e, "T2", "replicas=2")
	before := topicInfo(t, e, "T")
	for _, tc := range []struct {
		name, props string
		errName     string
		tail        string
	}{
		{"NOPE", "retention.ms=1", wire.ErrUnknownTopic, "NOPE"},
		{wire.GroupsTopic, "partitions=5", wire.ErrInvalidArgument, "topic SYSTEM.GROUPS is internal: its layout is fixed"},
		{wire.GroupsTopic, "retention.ms=1", wire.ErrInvalidArgument, "topic SYSTEM.GROUPS is internal: its layout is fixed"},
		{"T", "partitions=2", wire.ErrInvalidArgument, "partitions can only grow: 3 -> 2"},
		{"T", "partitions=1", wire.ErrInvalidArgument, "partitions can only grow: 3 -> 1"},
		{"T", "partitions=0", wire.ErrInvalidArgument, "partitions: 0 out of range 1..1024"},
		{"T", "partitions=1025", wire.ErrInvalidArgument, "partitions: 1025 out of range 1..1024"},
		{"T", "replicas=2", wire.ErrInvalidArgument, "replicas cannot be altered: T has replicas=3 (fixed at creation)"},
		{"T2", "replicas=3", wire.ErrInvalidArgument, "replicas cannot be altered: T2 has replicas=2 (fixed at creation)"},
		{"T", "minSync=0", wire.ErrInvalidArgument, "minSync: 0 out of range 1..3 (the topic's replicas)"},
		{"T", "minSync=4", wire.ErrInvalidArgument, "minSync: 4 out of range 1..3 (the topic's replicas)"},
		{"T2", "minSync=3", wire.ErrInvalidArgument, "minSync: 3 out of range 1..2 (the topic's replicas)"},
		{"T", "retention.ms=-1", wire.ErrInvalidArgument, "retention.ms: -1 is negative (0 = keep forever)"},
		{"T", "retention.bytes=-5", wire.ErrInvalidArgument, "retention.bytes: -5 is negative (0 = unlimited)"},
		{"T", "colour=red", wire.ErrInvalidArgument, "unknown topic property colour (known: partitions, replicas, minSync, retention.ms, retention.bytes)"},
		{"T", "minSync", wire.ErrInvalidArgument, `topic property "minSync" is not key=value`},
		{"T", "minSync=two", wire.ErrInvalidArgument, `topic property minSync: "two" is not an integer`},
		{"T", "minSync=1,MINSYNC=2", wire.ErrInvalidArgument, "topic property MINSYNC given twice"},
		{"T", "", wire.ErrInvalidArgument, "no topic property to alter (alterable: partitions, minSync, retention.ms, retention.bytes)"},
		{"T", "  ", wire.ErrInvalidArgument, "no topic property to alter (alterable: partitions, minSync, retention.ms, retention.bytes)"},
		// All or nothing: the valid keys before a refused one change nothing.
		{"T", "retention.ms=5,minSync=1,partitions=2", wire.ErrInvalidArgument, "partitions can only grow: 3 -> 2"},
		{"T", "partitions=4,retention.bytes=10,replicas=1", wire.ErrInvalidArgument, "replicas cannot be altered: T has replicas=3 (fixed at creation)"},
	} {
		err := e.AlterTopic(tc.name, tc.props)
		var te *Error
		if !errors.As(err, &te) || te.Name != tc.errName || te.Tail != tc.tail {
			t.Errorf("AlterTopic(%q, %q) = %v, want %s (%s)", tc.name, tc.props, err, tc.errName, tc.tail)
		}
	}
	if after := topicInfo(t, e, "T"); after != before {
		t.Fatalf("refused alters changed T:\n%+v\n%+v", before, after)
	}
	if n := len(partitionsOf(t, e, wire.GroupsTopic)); n != e.Config().GroupPartitions {
		t.Fatalf("SYSTEM.GROUPS has %d partitions", n)
	}
	// replicas at its current value is accepted and changes nothing.
	mustAlter(t, e, "T", "replicas=3,minSync=3")
	if ti := topicInfo(t, e, "T"); ti.Replicas != 3 || ti.MinSync != 3 || ti.Partitions != 3 {
		t.Fatalf("after replicas=3,minSync=3: %+v", ti)
	}
	// The same refusals over the admin listener, as error replies.
	adm := openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	qm := e.Config().QueueManager
	for _, tc := range []struct {
		topic, props, errName, tail string
	}{
		{"T", "partitions=2", wire.ErrInvalidArgument, "partitions can only grow: 3 -> 2"},
		{"NOPE", "partitions=2", wire.ErrUnknownTopic, "NOPE"},
		{wire.GroupsTopic, "partitions=9", wire.ErrInvalidArgument, "topic SYSTEM.GROUPS is internal: its layout is fixed"},
	} {
		eb := adm.call(wire.CodeAlterTopic, 0, &wire.TopicPropsRequest{Qmgr: qm, Topic: tc.topic, Properties: tc.props}, nil)
		if eb == nil || eb.Name != tc.errName || eb.Tail != tc.tail {
			t.Errorf("ALTER TOPIC %s %q: %s, want %s (%s)", tc.topic, tc.props, errText(eb), tc.errName, tc.tail)
		}
	}
	adm.mustCall(wire.CodeAlterTopic, 0, &wire.TopicPropsRequest{Qmgr: qm, Topic: "T", Properties: "partitions=4"}, nil)
	if ti := topicInfo(t, e, "T"); ti.Partitions != 4 {
		t.Fatalf("after ALTER TOPIC partitions=4: %+v", ti)
	}
	// A deleted topic is unknown.
	if err := e.DeleteTopic("T2"); err != nil {
		t.Fatal(err)
	}
	var te *Error
	if err := e.AlterTopic("T2", "minSync=1"); !errors.As(err, &te) || te.Name != wire.ErrUnknownTopic || te.Tail != "T2" {
		t.Fatalf("alter of a deleted topic: %v", err)
	}
}

func partitionsOf(t testing.TB, e *Engine, topic string) []PartitionInfo {
	t.Helper()
	ps, err := e.TopicPartitions(topic)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestAlterTopicConcurrentReaders alters a topic over and over (growth,
// retention, minSync) while producers, fetchers, metadata, the topic list,
// the replication scan and the retention sweep read it. Run with -race.
func TestAlterTopicConcurrentReaders(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{RetentionInterval: 5 * time.Millisecond}, "C", "partitions=1")
	const grows = 40
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var calls atomic.Int64 // reader and writer calls made, all goroutines
	run := func(fn func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				fn(i)
				calls.Add(1)
			}
		}()
	}
	// ranOn waits until the goroutines made n more calls: they run
	// against each layout, however the machine schedules them.
	ranOn := func(n int64, what string) {
		from := calls.Load()
		eventually(t, what, func() bool { return calls.Load() >= from+n })
	}
	errs := make(chan string, 16)
	report := func(format string, args ...any) {
		select {
		case errs <- fmt.Sprintf(format, args...):
		default:
		}
	}
	for n := 0; n < 3; n++ {
		addr := e.DataAddrs()[n]
		node := n + 1
		prod := openSession(t, addr, wire.ModeProducer) // then tryCall only, off the test goroutine
		run(func(i int) {
			// Every partition this node leads, at the current count.
			ps := e.topics.lookup("C").partitions()
			part := int32(i % len(ps))
			if e.PartitionLeader("C", int(part)) != node {
				return
			}
			acks := int8(wire.AcksLeader)
			if i%2 == 0 {
				acks = wire.AcksAll
			}
			req := &wire.ProduceRequest{Acks: acks, Topics: []wire.ProduceTopic{{Topic: "C", Epoch: 1, Partitions: []wire.ProducePartition{{Partition: part, Batches: batchOf(nopTB{}, -1, -1, wire.CodecNone, time.Now().UnixMilli(), "v")}}}}}
			var rep wire.ProduceReply
			if eb, err := prod.tryCall(wire.CodeProduce, 2000, req, &rep); eb != nil || err != nil {
				report("produce C/%d on node %d: %v %v", part, node, errText(eb), err)
			} else if pe := rep.Topics[0].Partitions[0].Err; pe.Name != "" && pe.Name != wire.ErrNotEnoughReplicas {
				report("produce C/%d on node %d: %s (%s)", part, node, pe.Name, pe.Tail)
			}
		})
		cons := openSession(t, addr, wire.ModeConsumer)
		run(func(i int) {
			var md wire.MetadataReply
			if eb, err := cons.tryCall(wire.CodeMetadata, 0, &wire.MetadataRequest{Topics: []string{"C"}}, &md); eb != nil || err != nil {
				report("metadata: %v %v", errText(eb), err)
				return
			}
			part := int32(i % len(md.Topics[0].Partitions))
			if md.Topics[0].Partitions[part].Leader != uint16(node) {
				return
			}
			req := &wire.FetchRequest{MaxBytes: 1 << 20, Topics: []wire.FetchTopic{{Topic: "C", Partitions: []wire.FetchPartition{{Partition: part, Offset: 0, MaxBytes: 1 << 20}}}}}
			var rep wire.FetchReply
			if eb, err := cons.tryCall(wire.CodeFetch, 0, req, &rep); eb != nil || err != nil {
				report("fetch: %v %v", errText(eb), err)
			}
		})
	}
	adm := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	qm := e.Config().QueueManager
	run(func(i int) {
		var err error
		var eb *wire.ErrorBody
		switch i % 3 {
		case 0:
			var rep wire.TopicListReply
			eb, err = adm.tryCall(wire.CodeTopicList, 0, &wire.TopicListRequest{Qmgr: qm}, &rep)
		case 1:
			var rep wire.TopicDescriptionReply
			eb, err = adm.tryCall(wire.CodeDescribeTopic, 0, &wire.TopicRequest{Qmgr: qm, Topic: "C"}, &rep)
			if eb == nil && err == nil && rep.Topic.Partitions != len(rep.Partitions) {
				report("describe: %d partitions in the summary, %d listed", rep.Topic.Partitions, len(rep.Partitions))
			}
		case 2:
			var rep wire.ReplicationStatusReply
			eb, err = adm.tryCall(wire.CodeReplicationStatus, 0, &wire.QmgrRequest{Qmgr: qm}, &rep)
		}
		if eb != nil || err != nil {
			report("admin read %d: %v %v", i%3, errText(eb), err)
		}
		for _, ti := range e.Topics() {
			if ps, err := e.TopicPartitions("C"); ti.Name == "C" && (err != nil || ti.Partitions > len(ps)) {
				report("Topics() reports %d partitions, TopicPartitions %d (%v)", ti.Partitions, len(ps), err)
			}
		}
	})

	for i := 2; i <= grows; i++ {
		mustAlter(t, e, "C", fmt.Sprintf("partitions=%d,minSync=%d,retention.ms=%d,retention.bytes=%d", i, i%3+1, 1000+i, 1<<20+i))
		ranOn(5, "calls between two alters")
	}
	ranOn(50, "calls after the last alter")
	close(stop)
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	ti := topicInfo(t, e, "C")
	if ti.Partitions != grows || ti.MinSync != grows%3+1 || ti.RetentionMs != 1000+grows || ti.RetentionBytes != 1<<20+grows || ti.Offline != 0 {
		t.Fatalf("after the alters: %+v", ti)
	}
	if n := len(prodMetadata(t, e).Partitions); n != grows {
		t.Fatalf("metadata reports %d partitions, want %d", n, grows)
	}
}

func prodMetadata(t testing.TB, e *Engine) wire.TopicMeta {
	t.Helper()
	return openSession(t, e.DataAddrs()[1], wire.ModeProducer).metadata("C").Topics[0]
}
