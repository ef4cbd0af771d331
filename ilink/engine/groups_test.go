package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// Group coordinator tests over raw TCP (coordinator.go, groups.go).

func TestGroupCommitStoresNextOffset(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "partitions=2")
	mustCreateTopic(t, e, "U", "")
	g := "billing"
	c := coordSession(t, e, g)
	j := c.mustJoin(g, "", true, "T", "U")
	if j.Generation != 1 || j.HeartbeatIntervalMs != 50 || j.SessionTimeoutMs != 30000 || !slices.Equal(assigned(j.Assignment, "T"), []int32{0, 1}) {
		t.Fatalf("join: %+v", j)
	}
	// commit_offset(p, 50) sends 51; the engine stores what it was sent.
	rep, f := c.commitAs(g, j, off("T", 0, 51), off("U", 0, 7))
	if f != nil || len(rep.Offsets) != 2 || rep.Offsets[0].Err.Name != "" || rep.Offsets[1].Err.Name != "" {
		t.Fatalf("commit: %+v %v", rep, f)
	}
	// spec: C-04 (engine half) — the stored value is the next offset sent.
	c.wantCommitted(g, "T", 0, 51, "after the commit")
	if got := e.GroupCommits(g); got["T"][0] != 51 || got["U"][0] != 7 || len(got["T"]) != 1 {
		t.Fatalf("GroupCommits: %v", got)
	}
	// The commit is a record of the group's SYSTEM.GROUPS partition.
	recs := groupRecords(t, e, g)
	if !slices.Contains(recs, "billing|T|0=51") || !slices.Contains(recs, "billing|U|0=7") || !slices.Contains(recs, "billing=durable") {
		t.Fatalf("SYSTEM.GROUPS records: %v", recs)
	}
	// spec: C-56 — a commit on U never moves the commit on T.
	c.commitAs(g, j, off("U", 0, 9))
	c.wantCommitted(g, "T", 0, 51, "after a commit on U")
	c.wantCommitted(g, "T", 1, -1, "with no commit")
	// Per-partition refusals: unknown topic or partition, negative offset.
	rep, _ = c.commitAs(g, j, off("NOPE", 0, 1), off("T", 5, 1), off("T", 1, -3))
	for i, want := range []string{wire.ErrUnknownTopic, wire.ErrUnknownTopic, wire.ErrInvalidArgument} {
		if rep.Offsets[i].Err.Name != want {
			t.Fatalf("entry %d: %+v, want %s", i, rep.Offsets[i], want)
		}
	}
	// Outside membership: refused while the group has an active member,
	// accepted once it has none.
	if _, f := c.commitAs(g, nil, off("T", 0, 3)); f == nil || f.text != "MIMQE_GROUP_NOT_EMPTY (1 active members)" {
		t.Fatalf("commit outside membership with a member: %v", f)
	}
	wantOK(t, c.leave(g, j), "LEAVE")
	wantOK(t, c.commitFailure(g, nil, off("T", 0, 3)), "commit outside membership")
	c.wantCommitted(g, "T", 0, 3, "after the outside commit")
	// spec: C-17 (engine half) — a durable group keeps its commits without
	// members.
	if d := describe(t, e, g); d.State != GroupEmpty || len(d.Members) != 0 {
		t.Fatalf("durable group after its last member left: %+v", d)
	}
}

func TestGroupSecondMemberWaitsForHolderRejoin(t *testing.T) {
	t.Parallel()
	g := "g"
	e, a, b := groupPair(t, "partitions=4", g)
	ja := a.mustJoin(g, "", true, "T")
	wantAssigned(t, ja.Assignment, "T", []int32{0, 1, 2, 3}, "A")
	jb := b.mustJoin(g, "", true, "T")
	// spec: C-26 — nothing for B while A holds everything.
	if len(jb.Assignment) != 0 {
		t.Fatalf("B got %+v at its first join", jb.Assignment)
	}
	wantOK(t, b.heartbeat(g, jb), "B's heartbeat before A rejoined")
	wantState(t, e, g, GroupPreparingRebalance, "after B joined")
	// A's heartbeat: rejoin. It may still commit what it holds.
	wantReport(t, a.heartbeat(g, ja), wire.ReportRebalanced, "A's heartbeat")
	wantOK(t, a.commitFailure(g, ja, off("T", 1, 10), off("T", 3, 30)), "A commits before rejoining")
	ja = a.mustJoin(g, ja.MemberID, true, "T")
	wantAssigned(t, ja.Assignment, "T", []int32{0, 2}, "A after its rejoin")
	wantState(t, e, g, GroupCompletingRebalance, "after A rejoined")
	// Only now does B's heartbeat ask it to rejoin, and its rejoin gets
	// the partitions A released.
	wantReport(t, b.heartbeat(g, jb), wire.ReportRebalanced, "B's heartbeat after A rejoined")
	jb = b.mustJoin(g, jb.MemberID, true, "T")
	wantAssigned(t, jb.Assignment, "T", []int32{1, 3}, "B after its rejoin")
	wantOK(t, a.heartbeat(g, ja), "A")
	wantOK(t, b.heartbeat(g, jb), "B")
	d := describe(t, e, g)
	if d.State != GroupStable || len(d.Members) != 2 || d.Generation != 4 {
		t.Fatalf("describe: %+v", d)
	}
	// B starts where A committed.
	b.wantCommitted(g, "T", 1, 10, "where A committed")
}

func TestGroupNotCoordinator(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "")
	g := groupOn(t, e, 2, "nc")
	other := localSession(t, e, wire.ModeConsumer)
	// FIND COORDINATOR is answered by any node.
	var cr wire.CoordinatorReply
	other.mustCall(wire.CodeFindCoordinator, 0, &wire.GroupRequest{Group: g}, &cr)
	if cr.NodeID != 2 || cr.Addr != e.DataAddrs()[1] {
		t.Fatalf("FIND COORDINATOR: %+v", cr)
	}
	// spec: C-35 — join, heartbeat and commit at a follower.
	want := "REPORT 4175 MIMQE_NOT_COORDINATOR (this node follows)"
	if _, f := other.join(g, "", true, "T"); f.String() != want {
		t.Fatalf("JOIN: %v", f)
	}
	j := coordSession(t, e, g).mustJoin(g, "", true, "T")
	if f := other.heartbeat(g, j); f.String() != want {
		t.Fatalf("HEARTBEAT: %v", f)
	}
	if _, f := other.commitAs(g, j, off("T", 0, 1)); f.String() != want {
		t.Fatalf("OFFSET COMMIT: %v", f)
	}
}

func TestGroupCoordinatorLoading(t *testing.T) {
	t.Parallel()
	cfg := groupConfig()
	cfg.CoordinatorLoadTime = 400 * time.Millisecond
	e := topicEngine(t, cfg, "T", "")
	g := groupOn(t, e, 1, "load")
	old := coordSession(t, e, g)
	j := old.mustJoin(g, "", true, "T")
	old.commitAs(g, j, off("T", 0, 42))
	to, err := e.MoveCoordinator(g)
	if err != nil || to == 1 || e.CoordinatorOf(g) != to {
		t.Fatalf("MoveCoordinator: %d %v (coordinator %d)", to, err, e.CoordinatorOf(g))
	}
	moved := time.Now()
	nc := openSession(t, e.DataAddrs()[to-1], wire.ModeConsumer)
	f := nc.heartbeat(g, j)
	// spec: C-36 — the new coordinator loads: REPORT 4176.
	if time.Since(moved) < cfg.CoordinatorLoadTime && (f == nil || f.report != wire.ReportLoading || !strings.HasPrefix(f.text, wire.ErrLoading)) {
		t.Fatalf("request during the load: %v", f)
	}
	// spec: C-35 — the old one follows now.
	if f := old.heartbeat(g, j); f == nil || f.report != wire.ReportNotCoordinator {
		t.Fatalf("old coordinator: %v", f)
	}
	eventually(t, "the new coordinator loaded", func() bool {
		f := nc.heartbeat(g, j)
		return f == nil || f.report != wire.ReportLoading
	})
	// Loaded: the commit is there, and so is the member: it heartbeats and
	// commits at the new coordinator with its id and generation, the group
	// stays Stable and nothing was reassigned (groups_persist.go).
	nc.wantCommitted(g, "T", 0, 42, "after the move")
	wantOK(t, nc.heartbeat(g, j), "old member at the new coordinator")
	wantOK(t, nc.commitFailure(g, j, off("T", 0, 43)), "commit as the old member at the new coordinator")
	d := describe(t, e, g)
	if d.State != GroupStable || d.Generation != j.Generation || len(d.Members) != 1 || d.Members[0].MemberID != j.MemberID {
		t.Fatalf("group after the move: %+v (member %+v)", d, j)
	}
	if a := d.Members[0].Assignment; len(a) != 1 || a[0].Topic != "T" || !slices.Equal(a[0].Partitions, []int32{0}) {
		t.Fatalf("assignment after the move: %+v", a)
	}
	// A rejoin goes on from the same generation.
	j2 := nc.mustJoin(g, j.MemberID, true, "T")
	wantRejoined(t, j, j2, "rejoin at the new coordinator")
}

func TestGroupStaleGeneration(t *testing.T) {
	t.Parallel()
	g := "gen"
	_, c := groupClient(t, "T", "", g)
	j1 := c.mustJoin(g, "", true, "T")
	j2 := c.mustJoin(g, j1.MemberID, true, "T")
	wantRejoined(t, j1, j2, "rejoin")
	// spec: C-37 — a commit at the old generation is fenced.
	if _, f := c.commitAs(g, j1, off("T", 0, 5)); f == nil || f.report != wire.ReportGenerationMismatch || !strings.HasPrefix(f.text, wire.ErrGenerationMismatch) {
		t.Fatalf("commit with a stale generation: %v", f)
	}
	if f := c.heartbeat(g, j1); f == nil || f.report != wire.ReportGenerationMismatch {
		t.Fatalf("heartbeat with a stale generation: %v", f)
	}
	c.wantCommitted(g, "T", 0, -1, "after the fenced commit (it must not be stored)")
	wantOK(t, c.commitFailure(g, j2, off("T", 0, 5)), "commit at the current generation")
}

func TestGroupCommitOfReassignedPartition(t *testing.T) {
	t.Parallel()
	g := "moved"
	e, a, b := groupPair(t, "partitions=2", g)
	ja := a.mustJoin(g, "", true, "T")
	jb := b.mustJoin(g, "", true, "T")
	ja = a.mustJoin(g, ja.MemberID, true, "T") // releases partition 1
	jb = b.mustJoin(g, jb.MemberID, true, "T") // takes it
	if !slices.Equal(assigned(ja.Assignment, "T"), []int32{0}) || !slices.Equal(assigned(jb.Assignment, "T"), []int32{1}) {
		t.Fatalf("A %+v B %+v", ja.Assignment, jb.Assignment)
	}
	// spec: C-38 — A commits the partition it no longer owns: REPORT 4161.
	if _, f := a.commitAs(g, ja, off("T", 1, 9)); f == nil || f.report != wire.ReportRebalanced || f.text != "MIMQE_REBALANCE (partition 1 of T is not owned by member "+ja.MemberID+")" {
		t.Fatalf("commit of a reassigned partition: %v", f)
	}
	// With a partition it owns in the same commit, that one is stored and
	// the other refused alone.
	rep, f := a.commitAs(g, ja, off("T", 0, 4), off("T", 1, 9))
	if f != nil || rep.Offsets[0].Err.Name != "" || rep.Offsets[1].Err.Name != wire.ErrRebalanceInProgress {
		t.Fatalf("mixed commit: %+v %v", rep, f)
	}
	if a.committed(g, "T", 0) != 4 || a.committed(g, "T", 1) != -1 {
		t.Fatalf("commits %v", e.GroupCommits(g))
	}
}

func TestGroupNameValidation(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "")
	c := localSession(t, e, wire.ModeConsumer)
	for _, tc := range []struct{ group, tail string }{
		{"", "Group : empty name not allowed"},                                           // spec: C-39
		{"a\x01b", "Group : byte 0x01 not allowed (|,:; ctrl)"},                          // spec: C-40
		{"tab\there", "Group : byte 0x09 not allowed (|,:; ctrl)"},                       // spec: C-40
		{"del\x7f", "Group : byte 0x7f not allowed (|,:; ctrl)"},                         // spec: C-40
		{"a|b", "Group : byte 0x7c not allowed (|,:; ctrl)"},                             // spec: C-41
		{"a,b", "Group : byte 0x2c not allowed (|,:; ctrl)"},                             // spec: C-41
		{"a:b", "Group : byte 0x3a not allowed (|,:; ctrl)"},                             // spec: C-41
		{"a;b", "Group : byte 0x3b not allowed (|,:; ctrl)"},                             // spec: C-41
		{"주문|그룹", "Group : byte 0x7c not allowed (|,:; ctrl)"},                           // spec: C-41
		{strings.Repeat("x", 1025), "Group : name of 1025 bytes not allowed (max 1024)"}, // ours
	} {
		want := "MIMQE_INVALID_ARGUMENT (" + tc.tail + ")"
		for _, code := range []wire.Code{wire.CodeFindCoordinator, wire.CodeJoinGroup, wire.CodeOffsetCommit} {
			var req wire.Message
			switch code {
			case wire.CodeFindCoordinator:
				req = &wire.GroupRequest{Group: tc.group}
			case wire.CodeJoinGroup:
				req = &wire.JoinGroupRequest{Group: tc.group, Topics: []string{"T"}, Durable: true}
			default:
				req = &wire.OffsetCommitRequest{Group: tc.group, Generation: -1, Offsets: []wire.OffsetEntry{off("T", 0, 1)}}
			}
			if f := c.failure(c.call(code, 0, req, nil)); f == nil || f.text != want {
				t.Errorf("%v of %q: %v, want %s", code, tc.group, f, want)
			}
		}
		if _, err := e.DescribeGroup(tc.group); err == nil || err.Error() != want {
			t.Errorf("DescribeGroup(%q): %v", tc.group, err)
		}
	}
	// spec: C-42 — Hangul and other UTF-8 letters are fine.
	for _, g := range []string{"주문-그룹", "Ünïcødé.group_1", "注文"} {
		j := coordSession(t, e, g).mustJoin(g, "", true, "T")
		if len(assigned(j.Assignment, "T")) != 1 {
			t.Fatalf("%s: %+v", g, j)
		}
	}
}

func TestGroupConsumerProtocolV1Join(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "")
	c := dialRaw(t, e.DataAddrs()[e.CoordinatorOf("old")-1])
	var hr wire.HelloReply
	c.mustCall(wire.CodeHello, 0, &wire.HelloRequest{ClientName: "old", Mode: wire.ModeConsumer, ConsumerProtocol: 1}, &hr)
	// spec: C-43 — JOIN by a protocol-1 consumer.
	if _, f := c.join("old", "", true, "T"); f.String() != "REPORT 4157 MIMQE_UNSUPPORTED (consumer protocol v2 - upgrade client)" {
		t.Fatalf("JOIN by a v1 consumer: %v", f)
	}
}

func TestGroupMemberExpiry(t *testing.T) {
	t.Parallel()
	g := "exp"
	e, a, b := groupPair(t, "partitions=2", g)
	ja := a.mustJoin(g, "", true, "T") // joined at the default 30 s
	// spec: C-44
	if e.SubGroupTimeout() != 30*time.Second || ja.SessionTimeoutMs != 30000 {
		t.Fatalf("default timeout %v, join %+v", e.SubGroupTimeout(), ja)
	}
	if err := e.SetSubGroupTimeout(1); err != nil {
		t.Fatal(err)
	}
	jb := b.mustJoin(g, "", true, "T")
	// spec: C-47 — applies at once to new joins.
	if jb.SessionTimeoutMs != 1000 {
		t.Fatalf("B's join after the change: %+v", jb)
	}
	ja = a.mustJoin(g, ja.MemberID, true, "T") // releases partition 1; A now at 1 s too
	jb = b.mustJoin(g, jb.MemberID, true, "T")
	if ja.SessionTimeoutMs != 1000 || len(assigned(jb.Assignment, "T")) != 1 {
		t.Fatalf("A %+v B %+v", ja, jb)
	}
	// A goes silent; B keeps heartbeating: after subGroupTimeoutSec A is
	// removed and B is asked to rejoin for A's partition.
	start := time.Now()
	var f *failure
	ilinktest.Poll(5*time.Second, func() bool { f = b.heartbeat(g, jb); return f != nil })
	if f == nil || f.report != wire.ReportRebalanced {
		t.Fatalf("B's heartbeat: %v", f)
	}
	if d := time.Since(start); d < 900*time.Millisecond { // spec: C-46 — after subGroupTimeoutSec, not before
		t.Fatalf("A removed after %v, before its 1 s timeout", d)
	}
	if d := describe(t, e, g); len(d.Members) != 1 || d.Members[0].MemberID != jb.MemberID { // spec: C-46 — removed
		t.Fatalf("members after the expiry: %+v", d.Members)
	}
	jb = b.mustJoin(g, jb.MemberID, true, "T")
	if !slices.Equal(assigned(jb.Assignment, "T"), []int32{0, 1}) { // spec: C-46 — its partition reassigned
		t.Fatalf("B after A expired: %+v", jb.Assignment)
	}
	if f := a.heartbeat(g, ja); f == nil || !strings.HasPrefix(f.text, wire.ErrUnknownMember) {
		t.Fatalf("expired member's heartbeat: %v", f)
	}
}

func TestGroupMemberExpiryKeepsJoinTimeout(t *testing.T) {
	t.Parallel()
	g := "keep"
	e, c := groupClient(t, "T", "", g)
	ja := c.mustJoin(g, "", true, "T") // 30 s
	if err := e.SetSubGroupTimeout(1); err != nil {
		t.Fatal(err)
	}
	jb := c.mustJoin(g, "", true, "T") // 1 s
	// Both silent: B expires after 1 s, A (joined before the change) does
	// not (spec: C-47 — joined members pick the change up at their next
	// rejoin).
	eventually(t, "B expired", func() bool { return len(describe(t, e, g).Members) == 1 })
	if d := describe(t, e, g); d.Members[0].MemberID != ja.MemberID {
		t.Fatalf("left: %+v (B was %s)", d.Members, jb.MemberID)
	}
}

func TestGroupCommitsSurviveLeaderKill(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "partitions=2")
	g := groupOn(t, e, 2, "kill")
	c := coordSession(t, e, g)
	j := c.mustJoin(g, "", true, "T")
	wantOK(t, c.commitFailure(g, j, off("T", 0, 17), off("T", 1, 23)), "OFFSET COMMIT")
	if err := e.KillNode(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a new coordinator", func() bool { n := e.CoordinatorOf(g); return n != 0 && n != 2 })
	nc := coordSession(t, e, g)
	var got int64
	eventually(t, "the commit at the new coordinator", func() bool {
		var rep wire.OffsetsReply
		eb := nc.call(wire.CodeOffsetFetch, 0, &wire.OffsetFetchRequest{Group: g, Topics: []wire.TopicPartitions{{Topic: "T", Partitions: []int32{0, 1}}}}, &rep)
		if eb != nil {
			if nc.report != wire.ReportLoading {
				t.Fatalf("OFFSET FETCH: %s", errText(eb))
			}
			return false
		}
		got = rep.Offsets[0].Offset*100 + rep.Offsets[1].Offset
		return true
	})
	// spec: C-48 — the commits survived the loss of the coordinator.
	if got != 1723 {
		t.Fatalf("commits after the kill: %v", e.GroupCommits(g))
	}
	// The generation goes on from the old coordinator's.
	if j2 := nc.mustJoin(g, "", true, "T"); j2.Generation <= j.Generation {
		t.Fatalf("generation %d after %d", j2.Generation, j.Generation)
	}
}

func TestTemporaryGroupDeletedWithLastMember(t *testing.T) {
	t.Parallel()
	g := "tmp"
	e, c := groupClient(t, "T", "partitions=2", g)
	ja := c.mustJoin(g, "", false, "T")
	jb := c.mustJoin(g, "", false, "T")
	c.commitAs(g, ja, off("T", 0, 5))
	wantOK(t, c.leave(g, ja), "LEAVE")
	if d := describe(t, e, g); d.State == GroupDead || d.Durable {
		t.Fatalf("with one member left: %+v", d)
	}
	c.wantCommitted(g, "T", 0, 5, "with one member left") // the commit is there before the last leave
	wantOK(t, c.leave(g, jb), "LEAVE")
	// spec: C-16 — gone with its commits once the last member left.
	if d := describe(t, e, g); d.State != GroupDead || len(d.Offsets) != 0 {
		t.Fatalf("after the last member left: %+v", d)
	}
	c.wantCommitted(g, "T", 0, -1, "after the group died (no commit may survive)")
	recs := groupRecords(t, e, g)
	if !slices.Equal(recs[len(recs)-3:], []string{"tmp|T|0=<nil>", "tmp|=<nil>", "tmp=<nil>"}) {
		t.Fatalf("records: %v", recs)
	}
	// The same when the last member expires.
	if err := e.SetSubGroupTimeout(1); err != nil {
		t.Fatal(err)
	}
	g2 := "tmp2"
	c2 := coordSession(t, e, g2)
	j := c2.mustJoin(g2, "", false, "T")
	c2.commitAs(g2, j, off("T", 1, 8))
	eventually(t, "the expired temporary group deleted", func() bool { return describe(t, e, g2).State == GroupDead })
	if e.GroupCommits(g2) != nil {
		t.Fatalf("commits left: %v", e.GroupCommits(g2))
	}
}

func TestDeleteGroupWithOtherMembers(t *testing.T) {
	t.Parallel()
	g := "unsub"
	e, c := groupClient(t, "T", "partitions=2", g)
	ja := c.mustJoin(g, "", true, "T")
	jb := c.mustJoin(g, "", true, "T")
	c.commitAs(g, ja, off("T", 0, 5))
	// spec: C-25 — refused while another member is active (the caller is
	// not counted), and nothing is deleted.
	f := c.failure(c.call(wire.CodeDeleteGroup, 0, &wire.DeleteGroupRequest{Group: g, MemberID: ja.MemberID}, nil))
	if f == nil || f.text != "MIMQE_GROUP_NOT_EMPTY (1 active members)" {
		t.Fatalf("DELETE GROUP with another member: %v", f)
	}
	if f := c.failure(c.call(wire.CodeDeleteGroup, 0, &wire.DeleteGroupRequest{Group: g}, nil)); f == nil || f.text != "MIMQE_GROUP_NOT_EMPTY (2 active members)" {
		t.Fatalf("DELETE GROUP by a non-member: %v", f)
	}
	if c.committed(g, "T", 0) != 5 || len(describe(t, e, g).Members) != 2 {
		t.Fatal("the refused delete changed the group")
	}
	c.leave(g, jb)
	// spec: C-24 — the caller alone: the group and its commits go.
	c.mustCall(wire.CodeDeleteGroup, 0, &wire.DeleteGroupRequest{Group: g, MemberID: ja.MemberID}, nil)
	if d := describe(t, e, g); d.State != GroupDead || c.committed(g, "T", 0) != -1 {
		t.Fatalf("after the delete: %+v", d)
	}
	// Deleting an unknown group is not an error.
	c.mustCall(wire.CodeDeleteGroup, 0, &wire.DeleteGroupRequest{Group: g}, nil)
}

func TestTopicDeleteAndFlushWipeCommits(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "partitions=2")
	mustCreateTopic(t, e, "U", "")
	groups := []string{groupOn(t, e, 1, "w"), groupOn(t, e, 2, "w"), groupOn(t, e, 3, "w")}
	commitAll := func(o int64) {
		t.Helper()
		for _, g := range groups {
			if _, f := coordSession(t, e, g).commitAs(g, nil, off("T", 0, o), off("T", 1, o), off("U", 0, o)); f != nil {
				t.Fatal(f)
			}
		}
	}
	check := func(what string, wantT, wantU int64) {
		t.Helper()
		for _, g := range groups {
			c := coordSession(t, e, g)
			if gotT, gotU := c.committed(g, "T", 1), c.committed(g, "U", 0); gotT != wantT || gotU != wantU {
				t.Fatalf("%s: group %s: T/1 %d U/0 %d, want %d %d", what, g, gotT, gotU, wantT, wantU)
			}
		}
	}
	commitAll(0)
	check("committed", 0, 0)
	// spec: T-08 — FLUSH wipes every group's commits on that topic only.
	if err := e.FlushTopic("T"); err != nil {
		t.Fatal(err)
	}
	check("after FLUSH", -1, 0)
	commitAll(0)
	// spec: T-08 — and so does DELETE.
	if err := e.DeleteTopic("T"); err != nil {
		t.Fatal(err)
	}
	check("after DELETE", -1, 0)
	if !slices.Contains(groupRecords(t, e, groups[0]), groups[0]+"|T|1=<nil>") {
		t.Fatal("no tombstone for the wiped commit")
	}
	// spec: T-09 — recreated, the topic has no commit: read from the start.
	mustCreateTopic(t, e, "T", "partitions=2")
	check("recreated", -1, 0)

	// A coordinator without a leader misses the wipe; the commit it would
	// have wiped is void when the new coordinator replays it.
	g := groups[1] // coordinated by node 2
	c := coordSession(t, e, g)
	c.commitAs(g, nil, off("T", 1, 0))
	if err := e.KillNode(2); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteTopic("T"); err != nil {
		t.Fatal(err)
	}
	mustCreateTopic(t, e, "T", "partitions=2")
	eventually(t, "a new coordinator", func() bool { n := e.CoordinatorOf(g); return n != 0 && n != 2 })
	eventually(t, "loaded", func() bool { _, err := e.DescribeGroup(g); return err == nil })
	if got := e.GroupCommits(g); got["T"] != nil || got["U"][0] != 0 {
		t.Fatalf("after the replay: %v", got)
	}
}

func TestTopicLeaveWhileReadPending(t *testing.T) {
	t.Parallel()
	e := startEngine(t, groupConfig())
	mustCreateTopic(t, e, "T", "") // partition 0 led by node 1
	mustCreateTopic(t, e, "U", "")
	g := groupOn(t, e, 1, "leave")
	c := coordSession(t, e, g)
	j := c.mustJoin(g, "", true, "T", "U")
	// A long-poll fetch covering T is pending on this connection.
	fetch := c.send(wire.CodeFetch, 300, &wire.FetchRequest{MinBytes: 1, MaxBytes: 1 << 20, Topics: []wire.FetchTopic{
		{Topic: "T", Partitions: []wire.FetchPartition{{Partition: 0, MaxBytes: 1 << 20}}},
		{Topic: "U", Partitions: []wire.FetchPartition{{Partition: 0, MaxBytes: 1 << 20}}},
	}})
	leave := c.send(wire.CodeTopicLeave, 0, &wire.TopicLeaveRequest{Group: g, MemberID: j.MemberID, Topic: "T"})
	// Another connection's LEAVE is not refused for it.
	other := coordSession(t, e, g)
	jo := other.mustJoin(g, "", true, "U")
	other.mustCall(wire.CodeTopicLeave, 0, &wire.TopicLeaveRequest{Group: g, MemberID: jo.MemberID, Topic: "U"}, nil)
	if eb := c.read(fetch, &wire.FetchReply{}); eb != nil {
		t.Fatalf("fetch: %s", errText(eb))
	}
	// spec: T-22
	if eb := c.read(leave, nil); eb == nil || eb.Name != wire.ErrReadInProgress || eb.Tail != "T" {
		t.Fatalf("LEAVE during the read: %s", errText(eb))
	}
	// Once the read returned, the LEAVE goes through and T's partition is
	// released.
	c.mustCall(wire.CodeTopicLeave, 0, &wire.TopicLeaveRequest{Group: g, MemberID: j.MemberID, Topic: "T"}, nil)
	d := describe(t, e, g)
	for _, m := range d.Members {
		if m.MemberID == j.MemberID && (len(m.Assignment) != 1 || m.Assignment[0].Topic != "U") {
			t.Fatalf("assignment after the LEAVE: %+v", m.Assignment)
		}
	}
}

func TestGroupGenerationContinues(t *testing.T) {
	t.Parallel()
	g := "gens"
	e, c := groupClient(t, "T", "", g)
	j := c.mustJoin(g, "", true, "T")
	c.leave(g, j) // durable, no commit: forgotten...
	if d := describe(t, e, g); d.State != GroupDead {
		t.Fatalf("durable group without members or commits: %+v", d)
	}
	j = c.mustJoin(g, "", true, "T") // ... but its generation goes on
	if j.Generation != 2 {
		t.Fatalf("generation %d after a forgotten generation 1", j.Generation)
	}
	c.leave(g, j)
	to, err := e.MoveCoordinator(g)
	if err != nil {
		t.Fatal(err)
	}
	nc := openSession(t, e.DataAddrs()[to-1], wire.ModeConsumer)
	eventually(t, "a join at the new coordinator", func() bool {
		j, _ = nc.join(g, "", true, "T")
		return j != nil
	})
	if j.Generation != 3 {
		t.Fatalf("generation %d at the new coordinator, want 3", j.Generation)
	}
}

func TestFlushGroupsTopicForgetsGroups(t *testing.T) {
	t.Parallel()
	cfg := groupConfig()
	cfg.CoordinatorLoadTime = 20 * time.Millisecond
	e := topicEngine(t, cfg, "T", "")
	if _, err := e.SeekGroup(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToLatest}); err != nil {
		t.Fatal(err)
	}
	if err := e.FlushTopic(wire.GroupsTopic); err != nil {
		t.Fatal(err)
	}
	// The state follows the log: no record, no group.
	if d := describe(t, e, "g"); d.State != GroupDead || len(e.Groups()) != 0 {
		t.Fatalf("after flushing %s: %+v %+v", wire.GroupsTopic, d, e.Groups())
	}
}
