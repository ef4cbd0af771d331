package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// publishN appends n records to topic through the admin publish call (from
// outside the dashboard): keys "k-0"..., values "value-0"...
func publishN(t testing.TB, q *admin.Qmgr, topic string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for i := 0; i < n; i++ {
		if _, err := q.Publish(ctx, topic, fmt.Appendf(nil, "k-%d", i), fmt.Appendf(nil, "value-%d", i)); err != nil {
			t.Fatalf("publish %s #%d: %v", topic, i, err)
		}
	}
}

// topicWithRecords starts an engine with topic (props) holding n records
// published from outside (publishN); q is the admin connection that
// published them.
func topicWithRecords(t *testing.T, topic, props string, n int) (e *engine.Engine, q *admin.Qmgr) {
	t.Helper()
	e = engineWithTopic(t, topic, props)
	q = adminQmgr(t, e)
	publishN(t, q, topic, n)
	return e, q
}

// groupOptions are the options of the test's own members of group:
// manual commits, a client name saying whose they are.
func groupOptions(group string) consumer.Options {
	opt := consumer.NewOptions()
	opt.Group = group
	opt.Commit = consumer.CommitManual
	opt.ClientName = "e2e-" + group
	return opt
}

// commitEach leaves a durable group on topic, without a member, whose
// committed offset (the next record to read) on partition p is next[p].
func commitEach(t testing.TB, e *engine.Engine, group, topic string, next map[int32]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := consumer.Assign(ctx, strings.Join(e.DataAddrs(), ","), topic, nil, groupOptions(group))
	if err != nil {
		t.Fatalf("assign %s: %v", group, err)
	}
	defer c.Close()
	for p, n := range next {
		if err := c.CommitOffset(ctx, topic, p, n-1); err != nil { // stores n (spec C-04)
			t.Fatalf("commit %s %s/%d: %v", group, topic, p, err)
		}
	}
}

// idleGroup leaves a durable group on topic whose committed offset (the
// next record to read) is next on every partition, with no member (so the
// engine accepts a seek).
func idleGroup(t testing.TB, e *engine.Engine, group, topic string, next int64) {
	t.Helper()
	_, ends := e.TopicOffsets(topic)
	each := make(map[int32]int64, len(ends))
	for p := range ends {
		each[int32(p)] = next
	}
	commitEach(t, e, group, topic, each)
}

// activeGroup keeps a member subscribed to topic in group until the test
// ends.
func activeGroup(t testing.TB, e *engine.Engine, group, topic string) *consumer.Consumer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := consumer.Subscribe(ctx, strings.Join(e.DataAddrs(), ","), topic, groupOptions(group))
	if err != nil {
		t.Fatalf("subscribe %s: %v", group, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// lagSum is the engine's own total lag of a group over topic's partitions.
func lagSum(e *engine.Engine, group, topic string) (lag int64, ends []int64) {
	_, ends = e.TopicOffsets(topic)
	commits := e.GroupCommits(group)[topic]
	for p, end := range ends {
		if c, ok := commits[int32(p)]; ok {
			lag += end - c
		}
	}
	return lag, ends
}

// groupRow returns the fields of a group's row in the groups table: name,
// state, members, topics, lag, ...
func groupRow(screen, group string) []string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(l)
		if len(f) >= 5 && f[0] == group {
			return f
		}
	}
	return nil
}

// seekTo types to into the open seek dialog's To field (enter edits it)
// and asks for the preview.
func (d *dash) seekTo(to string) {
	d.t.Helper()
	d.keys("enter")
	d.typeText(to)
	d.waitText("To    " + to)
	d.press("enter")
}

// TestGroupsSeekToLatest: the groups tab lists a durable group with no
// member and its lag as the engine computes it; the group's detail, `o`,
// "latest" shows a preview of every old → new offset, and applying it
// moves the commits: the table shows lag 0 after the next poll.
func TestGroupsSeekToLatest(t *testing.T) {
	t.Parallel()
	const topic = "E2E.ORDERS"
	e, _ := topicWithRecords(t, topic, "partitions=2,replicas=2", 20)
	idleGroup(t, e, "e2e-idle", topic, 1)
	wantLag, ends := lagSum(e, "e2e-idle", topic)
	if wantLag != 18 {
		t.Fatalf("setup: engine lag %d, want 18 (ends %v, commits %v)", wantLag, ends, e.GroupCommits("e2e-idle"))
	}

	d := startDash(t, e, dashOpts{})
	d.keys("3")
	d.waitFor("e2e-idle with its lag in the groups table", func(s string) bool {
		f := groupRow(s, "e2e-idle")
		return f != nil && f[4] == "18" && strings.Contains(s, " 3 Groups ")
	})

	// Open it: filter the table to the group, enter.
	d.openRow("e2e-idle")
	d.waitText("Group e2e-idle", "durable", "COMMITTED", "lag 18")

	// Seek: o, To (focused, "earliest" selected) → latest, enter: the
	// preview lists old → new per partition.
	d.keys("o")
	d.waitText("Seek group e2e-idle", "earliest")
	d.seekTo("latest")
	want := []string{"Seek e2e-idle — preview", "on all topics to latest", "Planned changes (nothing is applied"}
	for p, end := range ends {
		want = append(want, fmt.Sprintf("%s [%d]  1 → %d  (skip %d)", topic, p, end, end-1))
	}
	want = append(want, "the group will skip 18 records")
	d.waitText(want...)
	if c := e.GroupCommits("e2e-idle")[topic]; c[0] != 1 || c[1] != 1 {
		t.Fatalf("the preview moved the commits: %v", c)
	}

	// Apply, go back to the table: the next poll shows lag 0.
	d.press("enter")
	d.waitText("e2e-idle: 2 offsets moved")
	d.press("esc")
	d.waitFor("lag 0 for e2e-idle", func(s string) bool {
		f := groupRow(s, "e2e-idle")
		return f != nil && f[4] == "0"
	})
	if lag, _ := lagSum(e, "e2e-idle", topic); lag != 0 {
		t.Fatalf("engine lag after the seek: %d", lag)
	}
}

// TestGroupsSeekRefusedWithActiveMember: a seek of a group with a live
// member warns in the form and ends with the engine's refusal
// (MIMQE_GROUP_NOT_EMPTY) explained; the commits do not move.
func TestGroupsSeekRefusedWithActiveMember(t *testing.T) {
	t.Parallel()
	const topic = "E2E.BUSY"
	e, _ := topicWithRecords(t, topic, "partitions=2,replicas=2", 10)
	c := activeGroup(t, e, "e2e-busy", topic)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for _, tp := range c.Assignment() {
		for _, p := range tp.Partitions {
			if err := c.CommitOffset(ctx, tp.Topic, p, 2); err != nil {
				t.Fatalf("commit: %v", err)
			}
		}
	}
	before := fmt.Sprint(e.GroupCommits("e2e-busy"))

	d := startDash(t, e, dashOpts{})
	d.keys("3")
	d.waitFor("e2e-busy with one member", func(s string) bool {
		f := groupRow(s, "e2e-busy")
		return f != nil && f[2] == "1"
	})
	d.filter("e2e-busy")
	d.waitFor("the table filtered to e2e-busy", func(s string) bool {
		return groupRow(s, "e2e-busy") != nil && strings.Contains(s, "/e2e-busy")
	})
	d.keys("o")
	d.waitText("Seek group e2e-busy", "has 1 active member.", wire.ErrGroupNotEmpty)
	d.seekTo("latest")
	// The engine may refuse the plan already, or only its application.
	s := d.waitFor("the preview or the refusal", func(s string) bool {
		return strings.Contains(s, "Seek e2e-busy — preview") || strings.Contains(s, "Seek e2e-busy failed")
	})
	if strings.Contains(s, "— preview") {
		d.press("enter")
	}
	d.waitText("Seek e2e-busy failed", "The engine refused: "+wire.ErrGroupNotEmpty, "Stop the consumers of e2e-busy")
	if after := fmt.Sprint(e.GroupCommits("e2e-busy")); after != before {
		t.Fatalf("commits moved despite the refusal: %s → %s", before, after)
	}
}
