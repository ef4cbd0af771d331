package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"ilinkdash/ilink/wire"
)

// dataSessions is how many sessions the data listeners hold, every node.
func dataSessions(e *Engine) int {
	n := 0
	for _, nd := range e.nodes {
		n += nd.data.count()
	}
	return n
}

// The admin connection alone publishes, finds the topics of a pattern,
// subscribes a group to them and reads and commits what was published:
// no request goes to a data port.
func TestAdminConnectionAlonePublishesAndSubscribes(t *testing.T) {
	t.Parallel()
	e := startEngine(t, groupConfig())
	for _, name := range []string{"ORDER.EU", "ORDER.US", "AUDIT"} {
		mustCreateTopic(t, e, name, "partitions=2")
	}
	qm := e.Config().QueueManager
	adm := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	published := map[string]bool{}
	for i := range 6 {
		topic := []string{"ORDER.EU", "ORDER.US", "AUDIT"}[i%3]
		v := fmt.Sprintf("%s-%d", topic, i)
		var rep wire.AdminPublishReply
		adm.mustCall(wire.CodeAdminPublish, 0, &wire.AdminPublishRequest{Topic: topic, Value: []byte(v)}, &rep)
		if strings.HasPrefix(topic, "ORDER.") {
			published[v] = true
		}
	}
	// Published with acks=1: read once the followers have it.
	for _, name := range []string{"ORDER.EU", "ORDER.US"} {
		for p := range 2 {
			eventually(t, "replicated", func() bool {
				pi := partitionInfo(t, e, name, p)
				return pi.HighWatermark == pi.EndOffset
			})
		}
	}
	// A pattern subscription: the topics of ORDER.* from the topic list.
	var tl wire.TopicListReply
	adm.mustCall(wire.CodeTopicList, 0, &wire.TopicListRequest{Qmgr: qm}, &tl)
	var topics []string
	for _, te := range tl.Topics {
		if strings.HasPrefix(te.Name, "ORDER.") {
			topics = append(topics, te.Name)
		}
	}
	if !slices.Equal(topics, []string{"ORDER.EU", "ORDER.US"}) {
		t.Fatalf("ORDER.* matched %v", topics)
	}
	// The coordinator of an admin connection is named by its admin address.
	var cr wire.CoordinatorReply
	adm.mustCall(wire.CodeFindCoordinator, 0, &wire.GroupRequest{Group: "adm"}, &cr)
	if !slices.Contains(e.AdminAddrs(), cr.Addr) {
		t.Fatalf("FIND COORDINATOR over admin answered %q, not an admin address (%v)", cr.Addr, e.AdminAddrs())
	}
	co := openSession(t, cr.Addr, wire.ModeAdmin)
	j := co.mustJoin("adm", "", true, topics...)
	got := map[string]bool{}
	var offs []wire.OffsetEntry
	for _, tp := range j.Assignment {
		for _, p := range tp.Partitions {
			res := co.fetchOne(tp.Topic, p, 0, 0, 1<<20, 0)
			if res.Err.Name != "" {
				t.Fatalf("admin fetch of %s/%d: %+v", tp.Topic, p, res.Err)
			}
			_, vals := recordsOf(t, res.Batches, 0)
			for _, v := range vals {
				got[v] = true
			}
			offs = append(offs, off(tp.Topic, p, int64(len(vals))))
		}
	}
	wantOK(t, co.commitFailure("adm", j, offs...), "commit over admin")
	// spec: A-05 — published, subscribed (pattern), read and committed over
	// admin connections only.
	if len(got) != len(published) || dataSessions(e) != 0 {
		t.Fatalf("read %v of %v; %d data-port sessions", got, published, dataSessions(e))
	}
	for _, o := range offs {
		if c := co.committed("adm", o.Topic, o.Partition); c != o.Offset { // spec: A-05
			t.Fatalf("commit of %s/%d over admin: %d, want %d", o.Topic, o.Partition, c, o.Offset)
		}
	}
}

// A subscription over the admin connection seeks (SEEK GROUP, or a commit
// outside membership) only while its group has no member: refused with
// MIMQE_GROUP_NOT_EMPTY while one is there, applied once it left.
func TestAdminSubscriptionSeeksOnlyWithoutMembers(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "partitions=1")
	adm := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	for i := range 5 {
		adm.mustCall(wire.CodeAdminPublish, 0, &wire.AdminPublishRequest{Topic: "T", Value: []byte(fmt.Sprint(i))}, &wire.AdminPublishReply{})
	}
	eventually(t, "replicated", func() bool { return partitionInfo(t, e, "T", 0).HighWatermark == 5 })
	var cr wire.CoordinatorReply
	adm.mustCall(wire.CodeFindCoordinator, 0, &wire.GroupRequest{Group: "sub"}, &cr)
	co := openSession(t, cr.Addr, wire.ModeAdmin)
	j := co.mustJoin("sub", "", true, "T")
	wantOK(t, co.commitFailure("sub", j, off("T", 0, 4)), "OFFSET COMMIT")
	seek := &wire.SeekGroupRequest{Group: "sub", Topic: "T", Mode: wire.SeekToOffset, Offset: 1}
	eb := co.call(wire.CodeSeekGroup, 0, seek, nil)
	_, f := co.commitAs("sub", nil, off("T", 0, 2))
	// spec: C-57 — with a member, neither way of seeking is applied.
	if eb == nil || eb.Name != wire.ErrGroupNotEmpty || f == nil || !strings.HasPrefix(f.text, wire.ErrGroupNotEmpty) {
		t.Fatalf("seek with a member: SEEK GROUP %s, commit outside membership %v", errText(eb), f)
	}
	if c := co.committed("sub", "T", 0); c != 4 { // spec: C-57
		t.Fatalf("commit after the refused seeks: %d, want 4", c)
	}
	wantOK(t, co.leave("sub", j), "LEAVE")
	var rep wire.SeekGroupReply
	if eb := co.call(wire.CodeSeekGroup, 0, seek, &rep); eb != nil || len(rep.Changes) != 1 || rep.Changes[0].New != 1 {
		t.Fatalf("seek without members: %s %+v", errText(eb), rep)
	}
	if c := co.committed("sub", "T", 0); c != 1 { // spec: C-57 — applied once the group has no member
		t.Fatalf("commit after the seek: %d, want 1", c)
	}
	if _, f := co.commitAs("sub", nil, off("T", 0, 3)); f != nil { // spec: C-57
		t.Fatalf("commit outside membership without members: %v", f)
	}
	j2 := co.mustJoin("sub", "", true, "T")
	res := co.fetchOne("T", 0, co.committed("sub", "T", 0), 0, 1<<20, 0)
	if _, vals := recordsOf(t, res.Batches, 3); j2.MemberID == "" || !slices.Equal(vals, []string{"3", "4"}) {
		t.Fatalf("a new member reads from the seek: %v", vals)
	}
}
