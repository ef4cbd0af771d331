package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// Group administration tests (group_admin.go).

// produceAt appends n records to topic/p at timestamps ts, ts+1, ... on
// the partition's leader and waits until they are committed.
func produceAt(t testing.TB, e *Engine, topic string, p int, ts int64, n int) {
	t.Helper()
	leader := e.PartitionLeader(topic, p)
	c := openSession(t, e.DataAddrs()[leader-1], wire.ModeProducer)
	defer c.close()
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("%s/%d/%d", topic, p, i)
	}
	c.mustProduce(topic, topicEpoch(t, e, topic), int32(p), batchOf(t, -1, -1, wire.CodecNone, ts, vals...))
	eventually(t, "records committed", func() bool {
		pi := partitionInfo(t, e, topic, p)
		return pi.HighWatermark == pi.EndOffset
	})
}

// fillPartitions appends counts[p] records to partition p of topic with
// produceAt, all stamped now, and returns now.
func fillPartitions(t testing.TB, e *Engine, topic string, counts ...int) int64 {
	t.Helper()
	now := time.Now().UnixMilli()
	for p, n := range counts {
		produceAt(t, e, topic, p, now, n)
	}
	return now
}

// seekReq sends SEEK GROUP and returns the changes or the failure.
func (c *rawClient) seek(req wire.SeekGroupRequest) ([]wire.OffsetChangeEntry, *failure) {
	c.t.Helper()
	var rep wire.SeekGroupReply
	if eb := c.call(wire.CodeSeekGroup, 0, &req, &rep); eb != nil {
		return nil, c.failure(eb)
	}
	return rep.Changes, nil
}

func changesText(cs []wire.OffsetChangeEntry) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s/%d:%d->%d ", c.Topic, c.Partition, c.Old, c.New)
	}
	return strings.TrimSpace(b.String())
}

func TestGroupAdminCalls(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "partitions=3")
	mustCreateTopic(t, e, "V", "")
	mustCreateTopic(t, e, "W", "")
	now := fillPartitions(t, e, "T", 8, 4)

	// alpha: one member holding T's three partitions, a commit on T/0.
	ca := coordSession(t, e, "alpha")
	ja := ca.mustJoin("alpha", "", true, "T")
	ca.commitAs("alpha", ja, off("T", 0, 5))
	// gamma: a member on V with a commit there.
	cg := coordSession(t, e, "gamma")
	jg := cg.mustJoin("gamma", "", true, "V")
	cg.commitAs("gamma", jg, off("V", 0, 0))
	// delta: a durable group with a member and no commit.
	coordSession(t, e, "delta").mustJoin("delta", "", true, "W")

	// spec: A-10 — the group calls are served on a DATA listener over a
	// consumer-mode connection, here one on a node that coordinates none
	// of these groups' partitions necessarily (the node forwards).
	d := openSession(t, e.DataAddrs()[2], wire.ModeConsumer)

	// beta: no member; SEEK GROUP creates its commits on T.
	changes, f := d.seek(wire.SeekGroupRequest{Group: "beta", Topic: "T", Mode: wire.SeekToOffset, Offset: 2, DryRun: true})
	if f != nil || changesText(changes) != "T/0:-1->2 T/1:-1->2 T/2:-1->0" {
		t.Fatalf("dry run: %s %v", changesText(changes), f)
	}
	if describe(t, e, "beta").State != GroupDead {
		t.Fatal("the dry run changed something")
	}
	// spec: A-12 — seekGroup moves the commits (to offset 2, clamped to
	// each partition's end).
	changes, f = d.seek(wire.SeekGroupRequest{Group: "beta", Topic: "T", Mode: wire.SeekToOffset, Offset: 2})
	if f != nil || changesText(changes) != "T/0:-1->2 T/1:-1->2 T/2:-1->0" {
		t.Fatalf("seek: %s %v", changesText(changes), f)
	}
	changes, _ = d.seek(wire.SeekGroupRequest{Group: "beta", Mode: wire.SeekToLatest}) // every topic with commits
	if changesText(changes) != "T/0:2->8 T/1:2->4 T/2:0->0" {
		t.Fatalf("seek to latest: %s", changesText(changes))
	}
	changes, _ = d.seek(wire.SeekGroupRequest{Group: "beta", Topic: "T", Mode: wire.SeekToEarliest})
	if changesText(changes) != "T/0:8->0 T/1:4->0 T/2:0->0" {
		t.Fatalf("seek to earliest: %s", changesText(changes))
	}
	if _, err := e.SeekGroup(wire.SeekGroupRequest{Group: "beta", Topic: "T", Mode: wire.SeekToOffset, Offset: 1}); err != nil {
		t.Fatal(err)
	}
	if got := e.GroupCommits("beta")["T"]; got[0] != 1 || got[1] != 1 || got[2] != 0 {
		t.Fatalf("Go SeekGroup: %v", got)
	}
	d.seek(wire.SeekGroupRequest{Group: "beta", Topic: "T", Mode: wire.SeekToOffset, Offset: 2})
	// ... and a member that joins afterwards starts there (its start
	// positions are the commits).
	cb := coordSession(t, e, "beta")
	jb := cb.mustJoin("beta", "", true, "T")
	if got := cb.committed("beta", "T", 1); got != 2 || len(assigned(jb.Assignment, "T")) != 3 {
		t.Fatalf("beta T/1 commit %d, assignment %+v", got, jb.Assignment)
	}
	cb.leave("beta", jb)

	// spec: A-13 — seekGroupToTime: the first offset at or after the time.
	t0 := now - 60_000
	produceAt(t, e, "W", 0, t0, 3)      // offsets 0..2 at t0, t0+1, t0+2
	produceAt(t, e, "W", 0, t0+1000, 2) // offsets 3, 4
	for _, tc := range []struct {
		at   int64
		want int64
	}{{t0 + 1, 1}, {t0 + 3, 3}, {t0 + 5000, 5}, {0, 0}} {
		changes, f := d.seek(wire.SeekGroupRequest{Group: "timed", Topic: "W", Mode: wire.SeekToTime, TimeMs: tc.at})
		if f != nil || len(changes) != 1 || changes[0].New != tc.want {
			t.Fatalf("seek to time %d: %s %v, want %d", tc.at-t0, changesText(changes), f, tc.want)
		}
	}

	// spec: A-15 — seek and delete refused while a member is active, and
	// they change nothing; a dry run is allowed.
	before := e.GroupCommits("alpha")
	if _, f := d.seek(wire.SeekGroupRequest{Group: "alpha", Topic: "T", Mode: wire.SeekToLatest}); f == nil || f.text != "MIMQE_GROUP_NOT_EMPTY (1 active members)" {
		t.Fatalf("seek with a member: %v", f)
	}
	if _, f := d.seek(wire.SeekGroupRequest{Group: "alpha", Topic: "T", Mode: wire.SeekToTime, TimeMs: now}); f == nil || f.text != "MIMQE_GROUP_NOT_EMPTY (1 active members)" {
		t.Fatalf("seek to time with a member: %v", f)
	}
	if f := d.failure(d.call(wire.CodeAdminDeleteGroup, 0, &wire.GroupRequest{Group: "alpha"}, nil)); f == nil || f.text != "MIMQE_GROUP_NOT_EMPTY (1 active members)" {
		t.Fatalf("delete with a member: %v", f)
	}
	if err := e.DeleteGroup("alpha"); err == nil || err.Error() != "MIMQE_GROUP_NOT_EMPTY (1 active members)" {
		t.Fatalf("DeleteGroup with a member: %v", err)
	}
	if after := e.GroupCommits("alpha"); fmt.Sprint(after) != fmt.Sprint(before) || describe(t, e, "alpha").State != GroupStable {
		t.Fatalf("refused calls changed alpha: %v -> %v", before, after)
	}
	if changes, f := d.seek(wire.SeekGroupRequest{Group: "alpha", Topic: "T", Mode: wire.SeekToLatest, DryRun: true}); f != nil || changesText(changes) != "T/0:5->8 T/1:-1->4 T/2:-1->0" {
		t.Fatalf("dry run with a member: %s %v", changesText(changes), f)
	}

	// spec: A-16 — GROUP LIST: every group with a member or a commit.
	var gl wire.GroupListReply
	d.mustCall(wire.CodeGroupList, 0, &wire.Empty{}, &gl)
	var rows []string
	for _, g := range gl.Groups {
		var parts []string
		for _, to := range g.Offsets {
			for _, p := range to.Partitions {
				parts = append(parts, fmt.Sprintf("%s/%d:%d,%d,%d", to.Topic, p.Partition, p.Committed, p.LogStart, p.End))
			}
		}
		rows = append(rows, fmt.Sprintf("%s %s m=%d durable=%v %v", g.Name, g.State, g.Members, g.Durable, parts))
	}
	// Every partition of every topic of the group, with its commit (-1:
	// none), log start and end: what the admin client computes lag from.
	want := []string{
		"alpha Stable m=1 durable=true [T/0:5,0,8 T/1:-1,0,4 T/2:-1,0,0]",
		"beta Empty m=0 durable=true [T/0:2,0,8 T/1:2,0,4 T/2:0,0,0]",
		"delta Stable m=1 durable=true [W/0:-1,0,5]",
		"gamma Stable m=1 durable=true [V/0:0,0,0]",
		"timed Empty m=0 durable=true [W/0:0,0,5]",
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("GROUP LIST:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}

	// DESCRIBE GROUP: members with client name, host and assignment; per
	// partition the commit, the end offset and the lag.
	var dr wire.GroupDescriptionReply
	d.mustCall(wire.CodeDescribeGroup, 0, &wire.GroupRequest{Group: "alpha"}, &dr)
	if dr.State != GroupStable || !dr.Durable || dr.Coordinator != e.CoordinatorOf("alpha") || len(dr.Members) != 1 {
		t.Fatalf("describe alpha: %+v", dr)
	}
	if m := dr.Members[0]; m.MemberID != ja.MemberID || m.ClientName != "rawtest" || m.Host != "testhost" || fmt.Sprint(m.Assignment) != "[{T [0 1 2]}]" || m.LastSeenMs <= 0 {
		t.Fatalf("member: %+v", m)
	}
	var offs []string
	for _, o := range dr.Offsets {
		offs = append(offs, fmt.Sprintf("%s/%d c=%d s=%d e=%d %s", o.Topic, o.Partition, o.Committed, o.LogStart, o.EndOffset, o.MemberID))
	}
	if wantOffs := []string{
		"T/0 c=5 s=0 e=8 " + ja.MemberID,
		"T/1 c=-1 s=0 e=4 " + ja.MemberID,
		"T/2 c=-1 s=0 e=0 " + ja.MemberID,
	}; !slices.Equal(offs, wantOffs) {
		t.Fatalf("offsets:\n%s", strings.Join(offs, "\n"))
	}
	// spec: A-11 — an unknown group is Dead, not an error.
	var dead wire.GroupDescriptionReply
	d.mustCall(wire.CodeDescribeGroup, 0, &wire.GroupRequest{Group: "nobody"}, &dead)
	if dead.Name != "nobody" || dead.State != GroupDead || len(dead.Members) != 0 || len(dead.Offsets) != 0 {
		t.Fatalf("describe of an unknown group: %+v", dead)
	}

	// spec: — getSubscriptionList(T): alpha (a member
	// holds T's partitions; T/1 and T/2 never committed: -1|-1) and beta
	// (commits on T), not gamma, delta or timed (nothing on T). On the
	// admin listener, as the admin client sends it.
	adm := openSession(t, e.AdminAddrs()[1], wire.ModeAdmin)
	subList := func(topic string) string {
		t.Helper()
		var tr wire.TextReply
		adm.mustCall(wire.CodeSubscriptionList, 0, &wire.SubscriptionListRequest{Qmgr: "QM1", Topic: topic}, &tr)
		if direct := e.SubscriptionList(topic); direct != tr.Text {
			t.Fatalf("SubscriptionList(%s) %q, over the wire %q", topic, direct, tr.Text)
		}
		return tr.Text
	}
	wantT := strings.Join([]string{
		"alpha|Stable|0|5|3|members=1",
		"alpha|Stable|1|-1|-1|members=1",
		"alpha|Stable|2|-1|-1|members=1",
		"beta|Empty|0|2|6|members=0",
		"beta|Empty|1|2|2|members=0",
		"beta|Empty|2|0|0|members=0",
	}, "\n")
	if got := subList("T"); got != wantT {
		t.Fatalf("getSubscriptionList(T):\n%s\nwant\n%s", got, wantT)
	}
	if got := subList("V"); got != "gamma|Stable|0|0|0|members=1" {
		t.Fatalf("getSubscriptionList(V): %q", got)
	}
	// A member holding a partition without a commit is enough (delta).
	if got := subList("W"); got != "delta|Stable|0|-1|-1|members=1\ntimed|Empty|0|0|5|members=0" {
		t.Fatalf("getSubscriptionList(W): %q", got)
	}
	// spec: A-20 — no group: the empty string, not an error.
	mustCreateTopic(t, e, "EMPTY", "partitions=2")
	if got := subList("EMPTY"); got != "" {
		t.Fatalf("getSubscriptionList(EMPTY): %q", got)
	}
	if got := subList("NOPE"); got != "" {
		t.Fatalf("getSubscriptionList(NOPE): %q", got)
	}

	// spec: A-14 — deleteGroup removes the group and its commits: Dead.
	d.mustCall(wire.CodeAdminDeleteGroup, 0, &wire.GroupRequest{Group: "beta"}, nil)
	if dd := describe(t, e, "beta"); dd.State != GroupDead || e.GroupCommits("beta") != nil {
		t.Fatalf("after deleteGroup: %+v", dd)
	}
	if err := e.DeleteGroup("timed"); err != nil {
		t.Fatal(err)
	}
	if got := subList("W"); got != "delta|Stable|0|-1|-1|members=1" {
		t.Fatalf("getSubscriptionList(W) after delete: %q", got)
	}
	d.mustCall(wire.CodeAdminDeleteGroup, 0, &wire.GroupRequest{Group: "beta"}, nil) // unknown: fine
}

// TestGroupAdminDuringLoad: describe, seek and delete answer REPORT 4176
// while the coordinator loads; the list calls keep answering.
func TestGroupAdminDuringLoad(t *testing.T) {
	t.Parallel()
	cfg := groupConfig()
	cfg.CoordinatorLoadTime = time.Hour
	e := topicEngine(t, cfg, "T", "")
	if _, err := e.SeekGroup(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToLatest}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.MoveCoordinator("g"); err != nil {
		t.Fatal(err)
	}
	d := localSession(t, e, wire.ModeConsumer)
	for _, tc := range []struct {
		code wire.Code
		req  wire.Message
	}{
		{wire.CodeDescribeGroup, &wire.GroupRequest{Group: "g"}},
		{wire.CodeSeekGroup, &wire.SeekGroupRequest{Group: "g", Mode: wire.SeekToEarliest}},
		{wire.CodeAdminDeleteGroup, &wire.GroupRequest{Group: "g"}},
	} {
		if f := d.failure(d.call(tc.code, 0, tc.req, nil)); f == nil || f.report != wire.ReportLoading {
			t.Fatalf("%v during the load: %v", tc.code, f)
		}
	}
	var gl wire.GroupListReply
	d.mustCall(wire.CodeGroupList, 0, &wire.Empty{}, &gl)
	if len(gl.Groups) != 1 || gl.Groups[0].Name != "g" {
		t.Fatalf("GROUP LIST during the load: %+v", gl)
	}
	// A stopped queue manager answers MIMQE_QMGR_NOT_RUNNING (spec A-21).
	adm := openSession(t, e.AdminAddrs()[2], wire.ModeAdmin)
	if err := e.StopNode(3); err != nil {
		t.Fatal(err)
	}
	if eb := adm.call(wire.CodeSubscriptionList, 0, &wire.SubscriptionListRequest{Topic: "T"}, nil); eb == nil || eb.Name != wire.ErrQmgrNotRunning || eb.Tail != "QM1" {
		t.Fatalf("SUBSCRIPTION LIST on a stopped queue manager: %s", errText(eb))
	}
}

// BenchmarkGroupList measures GROUP LIST, DESCRIBE GROUP and
// getSubscriptionList with 2,000 groups on 100 topics (the admin poll's
// load); reported, not asserted.
func BenchmarkGroupList(b *testing.B) {
	e := startEngine(b, Config{Logf: func(string, ...any) {}})
	for i := 0; i < 100; i++ {
		mustCreateTopic(b, e, fmt.Sprintf("T%03d", i), "partitions=3")
	}
	for i := 0; i < 2000; i++ {
		if _, err := e.SeekGroup(wire.SeekGroupRequest{Group: fmt.Sprintf("group-%04d", i), Topic: fmt.Sprintf("T%03d", i%100), Mode: wire.SeekToLatest}); err != nil {
			b.Fatal(err)
		}
	}
	c := openSession(b, e.DataAddrs()[0], wire.ModeConsumer)
	b.Run("GroupList", func(b *testing.B) {
		for range b.N {
			var gl wire.GroupListReply
			c.mustCall(wire.CodeGroupList, 0, &wire.Empty{}, &gl)
			if len(gl.Groups) != 2000 {
				b.Fatalf("%d groups", len(gl.Groups))
			}
		}
	})
	b.Run("Groups", func(b *testing.B) {
		for range b.N {
			e.Groups()
		}
	})
	b.Run("Describe", func(b *testing.B) {
		for i := range b.N {
			var d wire.GroupDescriptionReply
			c.mustCall(wire.CodeDescribeGroup, 0, &wire.GroupRequest{Group: fmt.Sprintf("group-%04d", i%2000)}, &d)
		}
	})
	b.Run("SubscriptionList", func(b *testing.B) {
		for i := range b.N {
			e.SubscriptionList(fmt.Sprintf("T%03d", i%100))
		}
	})
}

// TestGroupOffsetsCarryTheLogStart: GROUP LIST, DESCRIBE GROUP and SEEK
// GROUP give each partition's log start with its end, so the admin client
// can count a partition without a commit from where its log really starts
// (here, after a flush, at the old end).
func TestGroupOffsetsCarryTheLogStart(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "L", "partitions=2")
	now := fillPartitions(t, e, "L", 4, 6)
	if err := e.FlushTopic("L"); err != nil {
		t.Fatal(err)
	}
	produceAt(t, e, "L", 1, now, 3) // L/1: log 6..9
	d := localSession(t, e, wire.ModeConsumer)
	if _, f := d.seek(wire.SeekGroupRequest{Group: "g", Topic: "L", Mode: wire.SeekToOffset, Offset: 0}); f != nil {
		t.Fatal(f)
	}
	// Move only L/0's commit: L/1 keeps its commit at the log start 6.
	changes, f := d.seek(wire.SeekGroupRequest{Group: "g", Topic: "L", Mode: wire.SeekToLatest, DryRun: true})
	if f != nil || len(changes) != 2 || changes[1] != (wire.OffsetChangeEntry{Topic: "L", Partition: 1, Old: 6, New: 9, LogStart: 6, End: 9}) {
		t.Fatalf("dry run to the end: %+v %v", changes, f)
	}
	var gl wire.GroupListReply
	d.mustCall(wire.CodeGroupList, 0, &wire.Empty{}, &gl)
	if len(gl.Groups) != 1 || fmt.Sprint(gl.Groups[0].Offsets) != "[{L [{0 4 4 4} {1 6 6 9}]}]" {
		t.Fatalf("GROUP LIST: %+v", gl.Groups)
	}
	dr := describe(t, e, "g")
	if len(dr.Offsets) != 2 || dr.Offsets[1].LogStart != 6 || dr.Offsets[1].EndOffset != 9 || dr.Offsets[0].LogStart != 4 {
		t.Fatalf("DESCRIBE GROUP offsets: %+v", dr.Offsets)
	}
}
