package consumer

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// groupCluster is what the conformance scenarios ask of a cluster: the
// fake (fake_test.go) and the engine (testEngine) both have it.
type groupCluster interface {
	addr() string
	createTopic(name string, parts int)
	produce(topic string, p int32, n int, codec wire.Codec)
	commit(group, topic string, p int32) (int64, bool)
	memberCount(group string) int
	requestCount(code wire.Code) int
	hook(h reqHook) func()
}

// TestGroupConformance runs the core group scenarios against the fake
// coordinator and the engine's and asserts the same observable outcome
// on both: the tests still on the fake rely on it behaving as the engine
// does, and a change to either that the other lacks shows here.
func TestGroupConformance(t *testing.T) {
	t.Parallel()
	clusters := []struct {
		name  string
		start func(t *testing.T) groupCluster
	}{
		{"fake", func(t *testing.T) groupCluster { return newFakeCluster(t, 2) }},
		{"engine", func(t *testing.T) groupCluster { return newTestEngine(t, 2) }},
	}
	for _, sc := range []struct {
		name string
		run  func(t *testing.T, cl groupCluster) []string
		want []string // what the contract says both must show
	}{
		{"join and assignment", conformJoin, []string{
			"assigned 4 partitions", "1 members", "read up to map[0:10 1:10 2:10 3:10]"}},
		{"heartbeats keep the member", conformHeartbeat, []string{
			"same member true, same generation true", "assigned 2 partitions", "1 members"}},
		{"commit is the next offset", conformCommit, []string{
			"Commit(offset 4) stores 5", "CommitOffset(50) stores 51", "a new member starts at 51"}},
		{"rebalance when a member leaves", conformLeave, []string{
			"B's first join: 0 partitions", "then A 2, B 2, 2 members", "B starts where A stopped: true",
			"after B left: A 4, 1 members", "A resumes at B's commits: true"}},
		{"coordinator not available is retried", conformCoordinatorRetry, []string{
			"assigned 2 partitions", "FIND COORDINATOR after each refusal: true"}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			seen := map[string][]string{}
			for _, cl := range clusters {
				t.Run(cl.name, func(t *testing.T) {
					seen[cl.name] = sc.run(t, cl.start(t))
					if !slices.Equal(seen[cl.name], sc.want) {
						t.Errorf("got %q, want %q", seen[cl.name], sc.want)
					}
				})
			}
			if !slices.Equal(seen["fake"], seen["engine"]) {
				t.Errorf("the fake and the engine differ:\nfake:   %q\nengine: %q", seen["fake"], seen["engine"])
			}
		})
	}
}

// conformJoin: a lone member is given every partition and reads them all
// in order.
func conformJoin(t *testing.T, cl groupCluster) []string {
	cl.createTopic("T", 4)
	for p := int32(0); p < 4; p++ {
		cl.produce("T", p, 10, wire.CodecNone)
	}
	c := mustSubscribe(t, cl.addr(), "T", testOptions(t, "join"))
	id, gen := c.MemberID()
	if id == "" || gen <= 0 {
		t.Errorf("member %q generation %d after the join", id, gen)
	}
	next := map[int32]int64{}
	for _, r := range readN(t, c, 40, 10*time.Second) {
		if r.Offset != next[r.Partition] || string(r.Value) != fmt.Sprintf("T/%d/%d", r.Partition, r.Offset) {
			t.Errorf("partition %d: offset %d value %q, want offset %d", r.Partition, r.Offset, r.Value, next[r.Partition])
		}
		next[r.Partition]++
	}
	return []string{
		fmt.Sprintf("assigned %d partitions", countParts(c.Assignment())),
		fmt.Sprintf("%d members", cl.memberCount("join")),
		fmt.Sprintf("read up to %v", next),
	}
}

// conformHeartbeat: an idle member heartbeats and keeps its id,
// generation and partitions.
func conformHeartbeat(t *testing.T, cl groupCluster) []string {
	cl.createTopic("T", 2)
	c := mustSubscribe(t, cl.addr(), "T", testOptions(t, "hb"))
	id, gen := c.MemberID()
	hb := cl.requestCount(wire.CodeHeartbeat)
	ilinktest.WaitFor(t, 5*time.Second, "three heartbeats", func() bool { return cl.requestCount(wire.CodeHeartbeat) >= hb+3 })
	id2, gen2 := c.MemberID()
	return []string{
		fmt.Sprintf("same member %v, same generation %v", id2 == id, gen2 == gen),
		fmt.Sprintf("assigned %d partitions", countParts(c.Assignment())),
		fmt.Sprintf("%d members", cl.memberCount("hb")),
	}
}

// conformCommit: commit(record) stores its offset + 1, commit_offset(o)
// stores o + 1, and a new member resumes there (spec C-04, C-05, C-14).
func conformCommit(t *testing.T, cl groupCluster) []string {
	cl.createTopic("T", 1)
	cl.produce("T", 0, 60, wire.CodecLZ4)
	o := testOptions(t, "billing")
	o.Commit = CommitManual
	c := mustSubscribe(t, cl.addr(), "T", o)
	recs := readN(t, c, 10, 10*time.Second)
	ctx := testCtx(t, 15*time.Second)
	var out []string
	if err := c.Commit(ctx, recs[4]); err != nil {
		t.Fatal(err)
	}
	got, _ := cl.commit("billing", "T", 0)
	out = append(out, fmt.Sprintf("Commit(offset 4) stores %d", got))
	if err := c.CommitOffset(ctx, "T", 0, 50); err != nil {
		t.Fatal(err)
	}
	got, _ = cl.commit("billing", "T", 0)
	out = append(out, fmt.Sprintf("CommitOffset(50) stores %d", got))
	c.Close()
	c2 := mustSubscribe(t, cl.addr(), "T", testOptions(t, "billing"))
	return append(out, fmt.Sprintf("a new member starts at %d", readN(t, c2, 1, 10*time.Second)[0].Offset))
}

// conformLeave: a second member gets nothing until the holder rejoins and
// then half, starting where the holder stopped (C-26, C-08); when it
// leaves, the first member gets its partitions back at its commits.
func conformLeave(t *testing.T, cl groupCluster) []string {
	cl.createTopic("T", 4)
	for p := int32(0); p < 4; p++ {
		cl.produce("T", p, 10, wire.CodecNone)
	}
	oa := testOptions(t, "g")
	oa.AutoCommitInterval = time.Hour
	a := mustSubscribe(t, cl.addr(), "T", oa)
	readN(t, a, 12, 10*time.Second)
	pos := map[int32]int64{}
	for p := int32(0); p < 4; p++ {
		pos[p] = a.Position("T", p)
	}
	b := mustSubscribe(t, cl.addr(), "T", testOptions(t, "g"))
	out := []string{fmt.Sprintf("B's first join: %d partitions", countParts(b.Assignment()))}
	ilinktest.WaitFor(t, 10*time.Second, "B gets its share", func() bool {
		return countParts(b.Assignment()) == 2 && countParts(a.Assignment()) == 2
	})
	out = append(out, fmt.Sprintf("then A %d, B %d, %d members", countParts(a.Assignment()), countParts(b.Assignment()), cl.memberCount("g")))
	fromA := true
	var lost []int32
	for _, tps := range b.Assignment() {
		for _, p := range tps.Partitions {
			lost = append(lost, p)
			fromA = fromA && b.Position("T", p) == pos[p]
		}
	}
	out = append(out, fmt.Sprintf("B starts where A stopped: %v", fromA))
	readN(t, b, 2, 10*time.Second)
	b.Close()
	ilinktest.WaitFor(t, 10*time.Second, "A gets B's partitions back", func() bool { return countParts(a.Assignment()) == 4 })
	atB := true
	for _, p := range lost {
		got, ok := cl.commit("g", "T", p)
		atB = atB && ok && a.Position("T", p) == got
	}
	return append(out,
		fmt.Sprintf("after B left: A %d, %d members", countParts(a.Assignment()), cl.memberCount("g")),
		fmt.Sprintf("A resumes at B's commits: %v", atB))
}

// conformCoordinatorRetry: a JOIN answered NOT_COORDINATOR, then LOADING,
// is retried after a new FIND COORDINATOR, invisibly to Subscribe (C-27,
// C-28, C-33).
func conformCoordinatorRetry(t *testing.T, cl groupCluster) []string {
	cl.createTopic("T", 2)
	refusals := []*reqAction{
		{Report: wire.ReportNotCoordinator, Name: wire.ErrNotCoordinator, Tail: "this node follows"},
		{Report: wire.ReportLoading, Name: wire.ErrLoading},
	}
	var mu sync.Mutex
	joins := 0
	defer cl.hook(func(ev *reqEvent) *reqAction {
		mu.Lock()
		defer mu.Unlock()
		if ev.Code != wire.CodeJoinGroup || joins >= len(refusals) {
			return nil
		}
		joins++
		return refusals[joins-1]
	})()
	finds := cl.requestCount(wire.CodeFindCoordinator)
	c := mustSubscribe(t, cl.addr(), "T", testOptions(t, "retry"))
	return []string{
		fmt.Sprintf("assigned %d partitions", countParts(c.Assignment())),
		fmt.Sprintf("FIND COORDINATOR after each refusal: %v", cl.requestCount(wire.CodeFindCoordinator)-finds >= len(refusals)+1),
	}
}
