package consumer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func TestCommitStoresNextOffset(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 60)
	o := testOptions(t, "billing")
	o.Commit = CommitManual
	c := mustSubscribe(t, fc.addr(), "T", o)
	recs := readN(t, c, 10, 5*time.Second)
	ctx := testCtx(t, 10*time.Second)
	if err := c.Commit(ctx, recs[4]); err != nil {
		t.Fatal(err)
	}
	// spec: C-05 — commit(msg) stores msg.offset + 1.
	if got, _ := fc.commit("billing", "T", 0); got != 5 {
		t.Fatalf("Commit(offset 4) stored %d, want 5", got)
	}
	if err := c.CommitOffset(ctx, "T", 0, 50); err != nil {
		t.Fatal(err)
	}
	// spec: C-04 — commit_offset(p, 50) stores 51.
	if got, _ := fc.commit("billing", "T", 0); got != 51 {
		t.Fatalf("CommitOffset(50) stored %d, want 51", got)
	}
	readN(t, c, 20, 5*time.Second)
	c.Close()
	// spec: C-12 — MANUAL: nothing but the app's commits, not even at close.
	if got, _ := fc.commit("billing", "T", 0); got != 51 {
		t.Fatalf("after close the commit is %d, want 51 (no automatic commit)", got)
	}
}

func TestAutoCommitPeriodicAndAtClose(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 100)
	o := testOptions(t, "auto")
	o.AutoCommitInterval = 100 * time.Millisecond
	c := mustSubscribe(t, fc.addr(), "T", o)
	readN(t, c, 7, 5*time.Second)
	// spec: C-07 — positions of the records handed over are committed
	// every AutoCommitInterval, without any further read.
	ilinktest.WaitFor(t, 3*time.Second, "periodic commit of 7", func() bool {
		got, _ := fc.commit("auto", "T", 0)
		return got == 7
	})
	readN(t, c, 5, 5*time.Second)
	o2 := testOptions(t, "auto-close")
	o2.AutoCommitInterval = time.Hour
	c2 := mustSubscribe(t, fc.addr(), "T", o2)
	readN(t, c2, 30, 5*time.Second)
	// Two heartbeats after the reads: the group has run on since them,
	// time for any commit they would wrongly cause to arrive.
	hb := fc.requestCount(wire.CodeHeartbeat)
	ilinktest.WaitFor(t, 5*time.Second, "two more heartbeats", func() bool { return fc.requestCount(wire.CodeHeartbeat) >= hb+2 })
	if got, ok := fc.commit("auto-close", "T", 0); ok && got != 0 {
		t.Fatalf("commit %d before close with a 1h interval", got)
	}
	c2.Close()
	// spec: C-09 — committed at close.
	if got, _ := fc.commit("auto-close", "T", 0); got != 30 {
		t.Fatalf("commit at close %d, want 30", got)
	}
}

func TestImmediateCommitsBeforeHandOver(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 5)
	fc.produce("T", 0, 5, wire.CodecNone)
	o := testOptions(t, "imm")
	o.Commit = CommitImmediate
	c := mustSubscribe(t, fc.addr(), "T", o)
	r, err := c.Read(testCtx(t, 5*time.Second), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// spec: C-11 — the fetched batch was committed before Read returned its
	// first record: the commit covers the whole fetch (offsets 0..9).
	got, ok := fc.commit("imm", "T", 0)
	if r.Offset != 0 || !ok || got != 10 {
		t.Fatalf("after the first Read (offset %d) the commit is %d (%v), want 10", r.Offset, got, ok)
	}
	fc.produce("T", 0, 3, wire.CodecNone)
	readN(t, c, 9, 5*time.Second)
	rs := readN(t, c, 3, 5*time.Second)
	if got, _ := fc.commit("imm", "T", 0); got != 13 || rs[2].Offset != 12 {
		t.Fatalf("commit %d, want 13", got)
	}
}

func TestStartModesApplyOnlyWithoutCommit(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 2, 20)
	fc.setCommit("g-latest", "T", 0, 7)
	fc.setCommit("g-earliest", "T", 0, 7)
	o := testOptions(t, "g-latest")
	o.Start = StartLatest
	o.Commit = CommitManual
	c := mustSubscribe(t, fc.addr(), "T", o)
	// spec: C-14 — a commit wins over the start mode.
	if p := c.Position("T", 0); p != 7 {
		t.Fatalf("partition 0 with commit 7 starts at %d", p)
	}
	if p := c.Position("T", 1); p != 20 {
		t.Fatalf("latest: partition 1 starts at %d, want 20", p)
	}
	o = testOptions(t, "g-earliest")
	o.Commit = CommitManual
	c2 := mustSubscribe(t, fc.addr(), "T", o)
	// spec: C-13 — earliest: from the earliest retained offset.
	if p0, p1 := c2.Position("T", 0), c2.Position("T", 1); p0 != 7 || p1 != 0 {
		t.Fatalf("earliest: positions %d, %d, want 7, 0", p0, p1)
	}
	o = testOptions(t, "g-offset")
	o.Start, o.StartOffset = StartOffset, 12
	o.Commit = CommitManual
	c3 := mustSubscribe(t, fc.addr(), "T", o)
	r := readN(t, c3, 1, 5*time.Second)[0]
	if r.Offset != 12 {
		t.Fatalf("StartOffset 12: first record %d", r.Offset)
	}
}

func TestSecondMemberWaitsForHolderRejoin(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 2, 4, 10)
	var mu sync.Mutex
	var calls []string
	cb := func(name string) func(in Inside, a, r []wire.TopicPartitions) {
		return func(in Inside, a, r []wire.TopicPartitions) {
			mu.Lock()
			calls = append(calls, fmt.Sprintf("%s +%v -%v", name, a, r))
			mu.Unlock()
		}
	}
	// The order on the coordinator, from the requests it receives: each
	// JOIN and OFFSET COMMIT with the member id it names.
	var reqs []string
	fc.hook(func(ev *reqEvent) *reqAction {
		switch ev.Code {
		case wire.CodeJoinGroup, wire.CodeOffsetCommit:
			mu.Lock()
			reqs = append(reqs, fmt.Sprintf("%v %s", ev.Code, ev.Member))
			mu.Unlock()
		}
		return nil
	})
	oa := testOptions(t, "g")
	oa.AutoCommitInterval = time.Hour
	oa.OnRebalance = cb("A")
	a := mustSubscribe(t, fc.addr(), "T", oa)
	if n := countParts(a.Assignment()); n != 4 {
		t.Fatalf("A holds %d partitions", n)
	}
	readN(t, a, 12, 5*time.Second)
	positions := map[int32]int64{}
	for p := int32(0); p < 4; p++ {
		positions[p] = a.Position("T", p)
	}

	ob := testOptions(t, "g")
	ob.OnRebalance = cb("B")
	ob.Commit = CommitManual
	b := mustSubscribe(t, fc.addr(), "T", ob)
	// spec: C-26 — B's first join gets nothing: every partition is held.
	if n := countParts(b.Assignment()); n != 0 {
		t.Fatalf("B got %d partitions before A rejoined", n)
	}
	ilinktest.WaitFor(t, 5*time.Second, "B gets partitions after A rejoins", func() bool { return countParts(b.Assignment()) == 2 })
	ilinktest.WaitFor(t, 5*time.Second, "A keeps 2", func() bool { return countParts(a.Assignment()) == 2 })
	// The order on the coordinator: A's commit, A's rejoin, then B's rejoin
	// that returns partitions (B's last join: its first got nothing).
	idA, _ := a.MemberID()
	idB, _ := b.MemberID()
	mu.Lock()
	ev := slices.Clone(reqs)
	mu.Unlock()
	iGetB, iRejoinA, iCommit, joinsA := -1, -1, -1, 1 // A's first join names no member
	for i, e := range ev {
		if e == fmt.Sprintf("%v %s", wire.CodeJoinGroup, idB) {
			iGetB = i
		}
	}
	for i, e := range ev[:max(iGetB, 0)] {
		if e == fmt.Sprintf("%v %s", wire.CodeJoinGroup, idA) {
			iRejoinA = i
			joinsA++
		}
		if e == fmt.Sprintf("%v %s", wire.CodeOffsetCommit, idA) {
			iCommit = i
		}
	}
	if iGetB < 0 || joinsA < 2 || iCommit < 0 || iCommit > iRejoinA {
		t.Fatalf("order on the coordinator (A %s, B %s):\n%s", idA, idB, strings.Join(ev, "\n"))
	}
	// spec: C-08 — A committed its positions right before the partitions
	// moved, so B starts exactly where A stopped.
	for _, tps := range b.Assignment() {
		for _, p := range tps.Partitions {
			if got, _ := fc.commit("g", "T", p); got != positions[p] {
				t.Errorf("partition %d: commit %d, A's position was %d", p, got, positions[p])
			}
			if pos := b.Position("T", p); pos != positions[p] {
				t.Errorf("partition %d: B starts at %d, want %d", p, pos, positions[p])
			}
		}
	}
	// spec: C-54 — both listeners saw their assignment change.
	ilinktest.WaitFor(t, 2*time.Second, "rebalance listener calls", func() bool {
		mu.Lock()
		defer mu.Unlock()
		var sawA, sawB bool
		for _, c := range calls {
			sawA = sawA || strings.HasPrefix(c, "A +[] -[{T")
			sawB = sawB || strings.HasPrefix(c, "B +[{T")
		}
		return sawA && sawB
	})
	fc.checkOwners(t, "g")
}

func countParts(a []wire.TopicPartitions) int {
	n := 0
	for _, t := range a {
		n += len(t.Partitions)
	}
	return n
}

func TestManualCommitAfterReassignmentIsRebalanced(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 2, 10)
	oa := testOptions(t, "g")
	oa.Commit = CommitManual
	a := mustSubscribe(t, fc.addr(), "T", oa)
	recs := readN(t, a, 20, 5*time.Second)
	b := mustSubscribe(t, fc.addr(), "T", testOptions(t, "g"))
	ilinktest.WaitFor(t, 5*time.Second, "rebalance", func() bool { return countParts(b.Assignment()) == 1 })
	lost := b.Assignment()[0].Partitions[0]
	var r *Record
	for _, x := range recs {
		if x.Partition == lost {
			r = x
		}
	}
	err := a.Commit(testCtx(t, 5*time.Second), r)
	// spec: C-31 — 4161 reaches the app only on a manual commit, as
	// MIMQE_TOPIC_REBALANCED.
	if e := ilink.AsError(err); e == nil || e.Name != wire.ErrTopicRebalanced || e.Report != wire.ReportRebalanced || !ilink.IsRejected(err) {
		t.Fatalf("commit of a reassigned partition: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "MIMQE_TOPIC_REBALANCED (") {
		t.Fatalf("error text %q", err)
	}
	// The same for a generation mismatch (4178).
	kept := 1 - lost
	remove := fc.hook(func(ev *reqEvent) *reqAction {
		if ev.Code == wire.CodeOffsetCommit {
			return &reqAction{Report: wire.ReportGenerationMismatch, Name: wire.ErrGenerationMismatch, Tail: "stale"}
		}
		return nil
	})
	err = a.CommitOffset(testCtx(t, 5*time.Second), "T", kept, 3)
	remove()
	if e := ilink.AsError(err); e == nil || e.Name != wire.ErrTopicRebalanced || e.Report != wire.ReportGenerationMismatch {
		t.Fatalf("commit with a stale generation: %v", err)
	}
}

func TestRebalanceReportsHiddenFromReads(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 1)
	fc.createTopic("T", 2)
	n := 0
	var mu sync.Mutex
	fc.hook(func(ev *reqEvent) *reqAction {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Code {
		case wire.CodeHeartbeat:
			n++
			switch n % 4 {
			case 1:
				return &reqAction{Report: wire.ReportRebalanced, Name: wire.ErrRebalanceInProgress}
			case 2:
				return &reqAction{Report: wire.ReportGenerationMismatch, Name: wire.ErrGenerationMismatch}
			}
		case wire.CodeOffsetCommit:
			n++
			if n%3 == 0 {
				return &reqAction{Report: wire.ReportGenerationMismatch, Name: wire.ErrGenerationMismatch}
			}
		}
		return nil
	})
	for _, mode := range []CommitMode{CommitAuto, CommitImmediate} {
		o := testOptions(t, "hidden-"+mode.String())
		o.Commit = mode
		o.AutoCommitInterval = 20 * time.Millisecond
		c := mustSubscribe(t, fc.addr(), "T", o)
		for i := 0; i < 30; i++ {
			fc.produce("T", int32(i%2), 3, wire.CodecNone)
			// spec: C-32 — no 4161/4178 from read or read_batch, nor from
			// AUTO / IMMEDIATE commits.
			readN(t, c, 3, 10*time.Second)
			// A heartbeat or a commit between two reads, so the injected
			// reports reach the group loop while the reads go on.
			sent := fc.requestCount(wire.CodeHeartbeat) + fc.requestCount(wire.CodeOffsetCommit)
			ilinktest.WaitFor(t, 5*time.Second, "a heartbeat or commit", func() bool {
				return fc.requestCount(wire.CodeHeartbeat)+fc.requestCount(wire.CodeOffsetCommit) > sent
			})
		}
		c.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if n < 20 {
		t.Fatalf("only %d heartbeats/commits were answered with rebalance reports", n)
	}
}

// fakeClock is a clock that only moves when the client sleeps.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.sleeps = append(f.sleeps, d)
	f.now = f.now.Add(d)
	f.mu.Unlock()
	return ctx.Err()
}

func TestCoordinatorRetryScheduleAndBudget(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 2)
	fc.createTopic("T", 1)
	for _, tc := range []struct {
		name   string
		report uint16
		errn   string
	}{
		{"not-coordinator", wire.ReportNotCoordinator, wire.ErrNotCoordinator},
		{"loading", wire.ReportLoading, wire.ErrLoading},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remove := fc.hook(func(ev *reqEvent) *reqAction {
				if ev.Code == wire.CodeJoinGroup {
					return &reqAction{Report: tc.report, Name: tc.errn, Tail: "this node follows"}
				}
				return nil
			})
			defer remove()
			clk := &fakeClock{now: time.Unix(1e9, 0)}
			o := testOptions(t, "retry-"+tc.name)
			o.now, o.sleep = clk.Now, clk.Sleep // the real 10 s budget, on a fake clock
			finds := fc.requestCount(wire.CodeFindCoordinator)
			_, err := Subscribe(testCtx(t, 10*time.Second), fc.addr(), "T", o)
			// spec: C-34 — after 10 s: MIMQE_NOT_AVAILABLE (group coordinator for <group>).
			if err == nil || err.Error() != "MIMQE_NOT_AVAILABLE (group coordinator for retry-"+tc.name+")" {
				t.Fatalf("Subscribe: %v", err)
			}
			// spec: C-33 — waits of 100 ms doubling to 1 s.
			want := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 500}
			for i := range want {
				want[i] *= time.Millisecond
			}
			if !slices.Equal(clk.sleeps, want) {
				t.Fatalf("waits %v, want %v", clk.sleeps, want)
			}
			var total time.Duration
			for _, d := range clk.sleeps {
				total += d
			}
			if total != CoordinatorBudget {
				t.Fatalf("total wait %v", total)
			}
			// The coordinator is looked up again after each failure.
			if n := fc.requestCount(wire.CodeFindCoordinator) - finds; n != len(want)+1 {
				t.Fatalf("%d FIND COORDINATOR requests, want %d", n, len(want)+1)
			}
		})
	}
}

func TestCoordinatorMoveAndLoadingHidden(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 3)
	fc.createTopic("T", 3)
	o := testOptions(t, "mover")
	o.Commit = CommitManual
	c := mustSubscribe(t, fc.addr(), "T", o)
	ctx := testCtx(t, 30*time.Second)
	next := 0
	for round := 0; round < 4; round++ {
		for p := int32(0); p < 3; p++ {
			fc.produce("T", p, 5, wire.CodecNone)
		}
		if round > 0 {
			// spec: C-27, C-28 — NOT_COORDINATOR and LOADING are retried
			// inside the client.
			if _, err := fc.MoveCoordinator("mover"); err != nil {
				t.Fatal(err)
			}
		}
		recs := readN(t, c, 15, 10*time.Second)
		for _, r := range recs {
			if err := c.Commit(ctx, r); err != nil {
				t.Fatalf("round %d: commit: %v", round, err)
			}
		}
		next += 15
	}
	if _, err := c.Read(ctx, 100*time.Millisecond); !ilink.IsNoMessage(err) {
		t.Fatalf("read after the moves: %v", err)
	}
}

func TestOffsetFetchFailureFailsSubscribe(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 5)
	fc.hook(func(ev *reqEvent) *reqAction {
		if ev.Code == wire.CodeOffsetFetch {
			return &reqAction{Name: wire.ErrInternal, Tail: "commit log unreadable"}
		}
		return nil
	})
	_, err := Subscribe(testCtx(t, 10*time.Second), fc.addr(), "T", testOptions(t, "g"))
	// spec: C-15 — no fallback to the start position.
	if err == nil || err.Error() != "MIMQE_INTERNAL (commit log unreadable)" {
		t.Fatalf("Subscribe: %v", err)
	}
	ilinktest.WaitFor(t, 2*time.Second, "member left", func() bool { return fc.memberCount("g") == 0 })
}

func TestTemporaryAndDurableGroups(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 10)
	o := testOptions(t, "tmp")
	o.Durable = false
	o.AutoCommitInterval = 50 * time.Millisecond
	c := mustSubscribe(t, fc.addr(), "T", o)
	readN(t, c, 10, 5*time.Second)
	// spec: C-01 — the subscription name is the group name.
	if !fc.groupExists("tmp") || fc.memberCount("tmp") != 1 {
		t.Fatal("no group named after the subscription")
	}
	ilinktest.WaitFor(t, 5*time.Second, "the temporary group's commit", func() bool {
		got, ok := fc.commit("tmp", "T", 0)
		return ok && got == 10
	})
	c.Close()
	// spec: C-16 — the temporary group is gone with its last member, and
	// its commits with it.
	if fc.groupExists("tmp") {
		t.Fatal("temporary group still exists after close")
	}
	if got, ok := fc.commit("tmp", "T", 0); ok {
		t.Fatalf("temporary group still has commit %d", got)
	}
	d := mustSubscribe(t, fc.addr(), "T", testOptions(t, "dur"))
	readN(t, d, 4, 5*time.Second)
	d.Close()
	// spec: C-17 — a durable group keeps its commits; a new member resumes.
	d2 := mustSubscribe(t, fc.addr(), "T", testOptions(t, "dur"))
	if r := readN(t, d2, 1, 5*time.Second)[0]; r.Offset != 4 {
		t.Fatalf("resumed at %d, want 4", r.Offset)
	}
}

func TestExpiryLeavesAndNextReadRejoins(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 10)
	var mu sync.Mutex
	var revokedAll bool
	o := testOptions(t, "exp")
	o.Expiry = 200 * time.Millisecond
	o.AutoCommitInterval = time.Hour
	o.OnRebalance = func(in Inside, a, r []wire.TopicPartitions) {
		mu.Lock()
		revokedAll = revokedAll || (len(a) == 0 && len(r) == 1)
		mu.Unlock()
	}
	c := mustSubscribe(t, fc.addr(), "T", o)
	readN(t, c, 4, 5*time.Second)
	// spec: C-18 — more than Expiry between reads: the client leaves.
	ilinktest.WaitFor(t, 3*time.Second, "left after expiry", func() bool { return fc.memberCount("exp") == 0 })
	if got, _ := fc.commit("exp", "T", 0); got != 4 {
		t.Fatalf("AUTO commit before the expiry leave: %d", got)
	}
	if len(c.Assignment()) != 0 {
		t.Fatalf("assignment after expiry: %v", c.Assignment())
	}
	fc.produce("T", 0, 2, wire.CodecNone)
	// spec: C-19 — the next read rejoins and returns records again.
	r, err := c.Read(testCtx(t, 5*time.Second), 5*time.Second)
	if err != nil || r.Offset != 4 {
		t.Fatalf("read after expiry: %v %v", r, err)
	}
	if fc.memberCount("exp") != 1 {
		t.Fatal("not a member again")
	}
	mu.Lock()
	defer mu.Unlock()
	if !revokedAll {
		t.Fatal("rebalance listener not told of the expiry leave")
	}
}

// An expiry revokes before it leaves: once the engine no longer counts the
// member, Assignment is empty too (the LEAVE's reply is held, so that the
// engine has dropped the member long before the client hears back).
func TestExpiryRevokesBeforeLeaving(t *testing.T) {
	t.Parallel()
	fc, c := expiringMember(t, "exp-order")
	fc.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeLeaveGroup {
			return engine.ControlAction{Delay: 400 * time.Millisecond}
		}
		return engine.ControlAction{}
	})
	ilinktest.WaitFor(t, 3*time.Second, "left after expiry", func() bool { return fc.memberCount("exp-order") == 0 })
	if a := c.Assignment(); len(a) != 0 {
		t.Fatalf("the engine dropped the member, but the consumer still holds %v", a)
	}
}

func TestUnsubscribeDeletesGroup(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 1)
	fc.createTopic("T", 2)
	fc.produce("T", 0, 4, wire.CodecNone)
	a := mustSubscribe(t, fc.addr(), "T", testOptions(t, "u"))
	b := mustSubscribe(t, fc.addr(), "T", testOptions(t, "u"))
	readN(t, a, 1, 5*time.Second)
	err := a.Unsubscribe(testCtx(t, 5*time.Second))
	// spec: C-25 — other members active: MIMQE_GROUP_NOT_EMPTY, nothing deleted.
	if err == nil || err.Error() != "MIMQE_GROUP_NOT_EMPTY (1 active members)" {
		t.Fatalf("Unsubscribe with another member: %v", err)
	}
	if !fc.groupExists("u") {
		t.Fatal("group deleted")
	}
	fc.produce("T", 0, 1, wire.CodecNone)
	fc.produce("T", 1, 1, wire.CodecNone)
	// a still works
	if _, err := a.Read(testCtx(t, 5*time.Second), 5*time.Second); err != nil {
		t.Fatalf("a after the refused unsubscribe: %v", err)
	}
	b.Close()
	// spec: C-24 — deleted once alone.
	if err := a.Unsubscribe(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if fc.groupExists("u") {
		t.Fatal("group still exists")
	}
	if _, err := a.Read(context.Background(), 0); err == nil {
		t.Fatal("read after unsubscribe")
	}
}

func TestRequestsGoToCoordinatorAndLeaders(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 3, 3, 20)
	coord := uint16(fc.CoordinatorOf("route"))
	leader := map[int32]uint16{}
	for p := 0; p < 3; p++ {
		leader[int32(p)] = uint16(fc.PartitionLeader("T", p))
	}
	var mu sync.Mutex
	var wrong []string
	fc.hook(func(ev *reqEvent) *reqAction {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Code {
		case wire.CodeJoinGroup, wire.CodeHeartbeat, wire.CodeOffsetCommit, wire.CodeOffsetFetch, wire.CodeLeaveGroup:
			if ev.Node != coord {
				wrong = append(wrong, fmt.Sprintf("%v to node %d", ev.Code, ev.Node))
			}
		case wire.CodeFetch:
			var req wire.FetchRequest
			if wire.Decode(ev.Body, &req) == nil {
				for _, ft := range req.Topics {
					for _, fp := range ft.Partitions {
						if leader[fp.Partition] != ev.Node {
							wrong = append(wrong, fmt.Sprintf("fetch of partition %d from node %d", fp.Partition, ev.Node))
						}
					}
				}
			}
		}
		return nil
	})
	o := testOptions(t, "route")
	o.AutoCommitInterval = 50 * time.Millisecond
	c := mustSubscribe(t, fc.addr(), "T", o)
	readN(t, c, 60, 5*time.Second)
	ilinktest.WaitFor(t, 5*time.Second, "a heartbeat and a commit", func() bool {
		return fc.requestCount(wire.CodeHeartbeat) > 0 && fc.requestCount(wire.CodeOffsetCommit) > 0
	})
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	// spec: C-02, C-03 — each partition is fetched from its leader; join,
	// heartbeat and commit go to the coordinator.
	if len(wrong) > 0 || fc.requestCount(wire.CodeHeartbeat) == 0 {
		t.Fatalf("misrouted: %v", wrong)
	}
}

func TestAutoCommitRedeliveryWindowAfterCrash(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 1)
	// A member that stops heartbeating is gone after 1 s: the new member
	// gets the partition then.
	if err := fc.SetSubGroupTimeout(1); err != nil {
		t.Fatal(err)
	}
	fc.createTopic("T", 1)
	fc.produce("T", 0, 1000, wire.CodecNone)
	o := testOptions(t, "crash")
	o.AutoCommitInterval = 200 * time.Millisecond
	c, err := Subscribe(testCtx(t, 5*time.Second), fc.addr(), "T", o)
	if err != nil {
		t.Fatal(err)
	}
	readN(t, c, 100, 5*time.Second)
	ilinktest.WaitFor(t, 3*time.Second, "periodic commit", func() bool {
		got, _ := fc.commit("crash", "T", 0)
		return got == 100
	})
	readN(t, c, 37, 5*time.Second)
	// The member dies without Close: no final commit, no LEAVE.
	c.markClosed()
	c.teardown()
	c2 := mustSubscribe(t, fc.addr(), "T", testOptions(t, "crash"))
	// spec: C-10 — redelivered: only what was read since the last periodic
	// commit (offsets 100..136).
	if r := readN(t, c2, 1, 5*time.Second)[0]; r.Offset != 100 {
		t.Fatalf("the new member starts at %d, want 100", r.Offset)
	}
}
