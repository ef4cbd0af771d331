// Group tests against the engine's coordinator (issue 4 contract).

package consumer

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func startGroupEngine(t testing.TB) *engine.Engine {
	t.Helper()
	return newTestEngine(t, 3).Engine
}

// engineCommit reads a group's commit through OFFSET FETCH at the
// engine's coordinator: what the engine stored.
func engineCommit(t testing.TB, addrs, group, topic string, p int32) (int64, bool) {
	t.Helper()
	o, _ := NewOptions().withDefaults()
	o.Group = group
	seeds, _ := ilink.ParseAddrs(addrs)
	cl := newCluster(&o, seeds)
	defer cl.close()
	co := newCoordinator(cl, &o)
	var rep wire.OffsetsReply
	req := &wire.OffsetFetchRequest{Group: group, Topics: []wire.TopicPartitions{{Topic: topic, Partitions: []int32{p}}}}
	if err := co.do(testCtx(t, 15*time.Second), wire.CodeOffsetFetch, 0, req, &rep); err != nil {
		t.Fatalf("OFFSET FETCH %s: %v", group, err)
	}
	for _, e := range rep.Offsets {
		if e.Topic == topic && e.Partition == p && e.Offset >= 0 {
			return e.Offset, true
		}
	}
	return -1, false
}

func TestEngineInvalidGroupNames(t *testing.T) {
	t.Parallel()
	e := startGroupEngine(t)
	if err := e.CreateTopic("T", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ group, want string }{
		// spec: C-39
		{"", "MIMQE_INVALID_ARGUMENT (Group : empty name not allowed)"},
		// spec: C-40
		{"a\x01b", "MIMQE_INVALID_ARGUMENT (Group : byte 0x01 not allowed (|,:; ctrl))"},
		// spec: C-41
		{"a|b", "MIMQE_INVALID_ARGUMENT (Group : byte 0x7c not allowed (|,:; ctrl))"},
		{"a,b", "MIMQE_INVALID_ARGUMENT (Group : byte 0x2c not allowed (|,:; ctrl))"},
		{"a:b", "MIMQE_INVALID_ARGUMENT (Group : byte 0x3a not allowed (|,:; ctrl))"},
		{"a;b", "MIMQE_INVALID_ARGUMENT (Group : byte 0x3b not allowed (|,:; ctrl))"},
	} {
		_, err := Subscribe(testCtx(t, 15*time.Second), engineAddrs(e), "T", testOptions(t, tc.group))
		if err == nil || err.Error() != tc.want || !ilink.IsRejected(err) {
			t.Errorf("group %q: %v, want %s", tc.group, err, tc.want)
		}
	}
	// spec: C-42 — Hangul is accepted.
	c := mustSubscribe(t, engineAddrs(e), "T", testOptions(t, "주문-그룹"))
	c.Close()
}

// engineChaos drives runCoordinatorMoveChaos against the engine.
type engineChaos struct {
	e *engine.Engine
	p *ilink.Producer
}

func (x *engineChaos) Addrs() string { return engineAddrs(x.e) }
func (x *engineChaos) CreateTopic(t testing.TB, topic string, n int) {
	if err := x.e.CreateTopic(topic, "partitions="+strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
}
func (x *engineChaos) Produce(t testing.TB, topic string, p int32, n int) {
	for i := 0; i < n; i++ {
		x.p.Send(&ilink.ProducerRecord{Topic: topic, Value: []byte(strings.Repeat("x", 50))}, nil)
	}
	if err := x.p.Flush(context.Background()); err != nil {
		t.Errorf("flush: %v", err)
	}
}
func (x *engineChaos) EndOffsets(t testing.TB, topic string) []int64 {
	_, end := x.e.TopicOffsets(topic)
	return end
}
func (x *engineChaos) Commit(t testing.TB, group, topic string, p int32) (int64, bool) {
	o, ok := x.e.GroupCommits(group)[topic][p]
	return o, ok
}
func (x *engineChaos) Owners(t testing.TB, group string) (map[tp]string, error) {
	return (&testEngine{Engine: x.e}).owners(group)
}
func (x *engineChaos) MoveCoordinator(t testing.TB, group string) {
	if _, err := x.e.MoveCoordinator(group); err != nil {
		t.Fatal(err)
	}
}
func (x *engineChaos) Faults(t testing.TB) func() {
	var n atomic.Int64
	return x.e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		switch ev.Code {
		case wire.CodeHeartbeat, wire.CodeOffsetCommit, wire.CodeOffsetFetch:
			switch n.Add(1) % 11 {
			case 3:
				return engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrNotCoordinator, Tail: "this node follows"}, RejectReport: wire.ReportNotCoordinator}
			case 7:
				return engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrLoading}, RejectReport: wire.ReportLoading}
			}
		}
		return engine.ControlAction{}
	})
}

func TestEngineCoordinatorMoveDuringGroupConsume(t *testing.T) {
	t.Parallel()
	e := startGroupEngine(t)
	p := newTestProducer(t, e, ilink.ProducerConfig{LingerMs: 1})
	runCoordinatorMoveChaos(t, &engineChaos{e: e, p: p}, 30*time.Second)
}

func TestEngineCommitsSurviveCoordinatorFailover(t *testing.T) {
	t.Parallel()
	e := startGroupEngine(t)
	if err := e.CreateTopic("T", "partitions=3,replicas=3"); err != nil {
		t.Fatal(err)
	}
	p := newTestProducer(t, e, ilink.ProducerConfig{Acks: ilink.AcksAll})
	produceN(t, p, "T", 0, 300)
	o := testOptions(t, "survivor")
	o.Commit = CommitManual
	c := mustSubscribe(t, engineAddrs(e), "T", o)
	recs := readN(t, c, 300, 10*time.Second)
	ctx := testCtx(t, 30*time.Second)
	for _, r := range recs {
		if err := c.Commit(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	victim := e.CoordinatorOf("survivor")
	if err := e.KillNode(victim); err != nil {
		t.Fatal(err)
	}
	produceN(t, p, "T", 300, 300)
	// spec: C-49 — the member finds the new coordinator and the partition
	// leaders by itself; reads and manual commits go on without an error.
	more := readN(t, c, 300, 20*time.Second)
	for _, r := range more {
		if err := c.Commit(ctx, r); err != nil {
			t.Fatalf("commit after the coordinator's node died: %v", err)
		}
	}
	c.Close()
	// spec: C-48 — the commits survived: a new member resumes from them.
	c2 := mustSubscribe(t, engineAddrs(e), "T", testOptions(t, "survivor"))
	if _, err := c2.Read(context.Background(), 500*time.Millisecond); !ilink.IsNoMessage(err) {
		t.Fatalf("a new member after the failover read again: %v", err)
	}
	_, end := e.TopicOffsets("T")
	for q := range end {
		if got, _ := engineCommit(t, engineAddrs(e), "survivor", "T", int32(q)); got != end[q] {
			t.Errorf("partition %d: commit %d, end %d", q, got, end[q])
		}
	}
}

// A Subscribe given up while its JoinGroup is being answered (the engine
// made the member; the reply is on its way) waits for the reply and
// leaves: the temporary group goes with the Subscribe, not a session
// timeout later (an interrupted `tail` left its group behind).
func TestSubscribeGivenUpMidJoinLeaves(t *testing.T) {
	t.Parallel()
	x := engineWithT(t, 1, 1, 1)
	holdJoinReplies(x)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Until the Subscribe below returns (it cancels ctx) at the latest;
		// a goroutine may not end the test, so a timeout only reports.
		if !ilinktest.Poll(10*time.Second, func() bool {
			if ctx.Err() != nil {
				return true
			}
			d, err := x.DescribeGroup("given-up")
			return err == nil && len(d.Members) > 0
		}) {
			t.Errorf("timed out after %v waiting for the given-up member to exist", 10*time.Second)
		}
		cancel() // the member exists; its reply is held
	}()
	opt := testOptions(t, "given-up")
	c, err := Subscribe(ctx, x.addr(), "T", opt)
	cancel()
	if err == nil {
		c.Close()
		t.Fatal("Subscribe succeeded although its ctx ended before the join's reply")
	}
	if n := x.memberCount("given-up"); n != 0 {
		t.Fatalf("after the given-up Subscribe (%v): %d members left in its temporary group, want none", err, n)
	}
}

// An interrupted Subscribe waits for its join's reply and its LEAVE
// within one abortLeaveTimeout past its ctx's end, not one each: a tail
// interrupted while it joins a slow cluster stops within its 2 s.
func TestSubscribeGivenUpHasOneBudget(t *testing.T) {
	// Not parallel: it times a stop against a bound.
	x := engineWithT(t, 1, 1, 1)
	joins := make(chan struct{}, 1)
	x.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		switch ev.Code {
		case wire.CodeJoinGroup:
			select {
			case joins <- struct{}{}:
			default:
			}
			return engine.ControlAction{Delay: abortLeaveTimeout * 9 / 10} // answered just inside the budget
		case wire.CodeLeaveGroup:
			return engine.ControlAction{Delay: time.Hour}
		}
		return engine.ControlAction{}
	})
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	go func() {
		<-joins
		cancelled = time.Now()
		cancel()
	}()
	_, err := Subscribe(ctx, x.addr(), "T", testOptions(t, "one-budget"))
	took := time.Since(cancelled)
	if err == nil {
		t.Fatal("Subscribe succeeded although its ctx ended before the join's reply")
	}
	if bound := abortLeaveTimeout + 500*time.Millisecond; took > bound {
		t.Fatalf("Subscribe returned %v after its ctx ended, want within %v (the join's wait and the LEAVE share one budget)", took, bound)
	}
}

// A Close while the consumer rejoins as a new member (it left on expiry;
// a read rejoins it) waits, within its budget, for the join's reply and
// leaves: no member stays behind until its session times out.
func TestCloseMidJoinLeaves(t *testing.T) {
	t.Parallel()
	x, c := expiringMember(t, "mid")
	ilinktest.WaitFor(t, 3*time.Second, "left after expiry", func() bool { return x.memberCount("mid") == 0 })
	joins := holdJoinReplies(x)
	go c.Read(testCtx(t, 5*time.Second), 5*time.Second) // rejoins, with no member id
	select {
	case <-joins:
	case <-time.After(10 * time.Second):
		t.Fatal("the read did not rejoin")
	}
	c.Close() // the join is out; its reply is held
	if n := x.memberCount("mid"); n != 0 {
		t.Fatalf("after Close during the rejoin: %d members left, want none", n)
	}
}

// holdJoinReplies makes x handle every JoinGroup at once and answer it
// 400 ms later. The channel is told of each as it arrives.
func holdJoinReplies(x *testEngine) <-chan struct{} {
	joins := make(chan struct{}, 16)
	x.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeJoinGroup {
			select {
			case joins <- struct{}{}:
			default:
			}
			return engine.ControlAction{Delay: 400 * time.Millisecond}
		}
		return engine.ControlAction{}
	})
	return joins
}

// expiringMember is an engine with topic T (10 records) and a member of
// group that read one record and leaves on its own after 200 ms without
// another (Expiry).
func expiringMember(t *testing.T, group string) (*testEngine, *Consumer) {
	t.Helper()
	x := engineWithT(t, 1, 1, 10)
	o := testOptions(t, group)
	o.Expiry = 200 * time.Millisecond
	c := mustSubscribe(t, x.addr(), "T", o)
	readN(t, c, 1, 5*time.Second)
	return x, c
}
