package admin

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// Group administration against the engine's group coordinator.

func groupEngine(t *testing.T) (*engine.Engine, *Service, *Qmgr) {
	e, s, q, _ := startAdmin(t, engine.Config{CoordinatorLoadTime: 20 * time.Millisecond, HeartbeatInterval: 50 * time.Millisecond}, 1)
	return e, s, q
}

func subscribe(t *testing.T, e *engine.Engine, group, topic string) *consumer.Consumer {
	t.Helper()
	opt := consumer.NewOptions()
	opt.Group, opt.Commit, opt.ClientName = group, consumer.CommitManual, "svc-"+group
	c, err := consumer.Subscribe(testCtx(t), strings.Join(e.DataAddrs(), ","), topic, opt)
	if err != nil {
		t.Fatalf("Subscribe %s: %v", group, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// assigned waits until c owns n partitions.
func assigned(t *testing.T, c *consumer.Consumer, n int) {
	t.Helper()
	ilinktest.WaitFor(t, waitTimeout, "the assignment", func() bool {
		k := 0
		for _, tp := range c.Assignment() {
			k += len(tp.Partitions)
		}
		return k == n
	})
}

func TestGroupAdminAgainstEngine(t *testing.T) {
	t.Parallel()
	e, _, q := groupEngine(t)
	ctx := testCtx(t)
	noErr(t, q.CreateTopic(ctx, "G.T", "partitions=2"))
	noErr(t, q.CreateTopic(ctx, "G.IDLE", "partitions=1"))
	for i := 0; i < 10; i++ {
		must[PublishResult](t)(q.Publish(ctx, "G.T", nil, []byte("x")))
	}
	// spec: A-20 — no group qualifies: the empty string.
	if text := must[string](t)(q.SubscriptionListText(ctx, "G.T")); text != "" {
		t.Fatalf("subscription list before any group: %q", text)
	}

	c := subscribe(t, e, "billing", "G.T")
	assigned(t, c, 2)
	noErr(t, c.CommitOffset(ctx, "G.T", 0, 2)) // stores 3
	// A second group, subscribed elsewhere, must not show on G.T.
	other := subscribe(t, e, "audit", "G.IDLE")
	assigned(t, other, 1)

	gs := must[[]GroupInfo](t)(q.GroupList(ctx))
	var billing *GroupInfo
	for i := range gs {
		if gs[i].Name == "billing" {
			billing = &gs[i]
		}
	}
	if billing == nil || billing.Members != 1 || billing.State != GroupStable || !billing.Durable { // spec: A-16
		t.Fatalf("GroupList %+v", gs)
	}
	// Every partition of its topic counts: G.T/0 committed at 3 of 5 (lag
	// 2), G.T/1 without a commit (its 5 records, from the log start).
	if l := billing.Lag(); l != (LagTotal{Records: 7, Partitions: 2, NoCommit: 1}) || len(billing.Partitions) != 2 ||
		billing.Partitions[1] != (PartitionOffsets{Topic: "G.T", Partition: 1, Committed: -1, LogStart: 0, End: 5}) {
		t.Fatalf("billing's lag %+v over %+v", l, billing.Partitions)
	}
	d := must[GroupDescription](t)(q.DescribeGroup(ctx, "billing"))
	if d.State != GroupStable || len(d.Members) != 1 || d.Members[0].ClientName != "svc-billing" || d.Members[0].Host == "" ||
		len(d.Members[0].Assignment) != 1 || len(d.Members[0].Assignment[0].Partitions) != 2 {
		t.Fatalf("DescribeGroup members %+v", d)
	}
	offs := map[int32]GroupOffset{}
	for _, o := range d.Offsets {
		offs[o.Partition] = o
	}
	if o := offs[0]; o.Committed != 3 || o.End != 5 || o.Lag() != (PartLag{Records: 2}) {
		t.Fatalf("offset of partition 0: %+v", o)
	}
	if o := offs[1]; o.Committed != -1 || o.LogStart != 0 || o.End != 5 || o.Lag() != (PartLag{Records: 5, NoCommit: true}) {
		t.Fatalf("offset of partition 1: %+v", o)
	}

	// spec: — one line per group × partition, -1/-1 for
	// the assigned partition without a commit, other groups left out.
	text := must[string](t)(q.SubscriptionListText(ctx, "G.T"))
	want := "billing|Stable|0|3|2|members=1\nbilling|Stable|1|-1|-1|members=1"
	if text != want {
		t.Fatalf("subscription list:\n%s\nwant:\n%s", text, want)
	}
	lines := must[[]SubscriptionLine](t)(q.SubscriptionList(ctx, "G.T"))
	if len(lines) != 2 || lines[1].Commit != -1 || lines[1].Lag != -1 {
		t.Fatalf("parsed %+v", lines)
	}

	// spec: A-15 — refused with an active member, nothing changes.
	wantErr(t, errOf(q.SeekGroup(ctx, "billing", "G.T", SeekTarget{Earliest: true})), wire.ErrGroupNotEmpty, "1 active members")
	wantErr(t, q.DeleteGroup(ctx, "billing"), wire.ErrGroupNotEmpty, "1 active members")
	plan := must[[]OffsetChange](t)(q.PlanSeekGroup(ctx, "billing", "G.T", SeekTarget{Earliest: true}))
	if len(plan) != 2 || plan[0] != (OffsetChange{Topic: "G.T", Partition: 0, Old: 3, New: 0, LogStart: 0, End: 5}) {
		t.Fatalf("plan %+v", plan)
	}
	// Back to the start re-reads G.T/0's 3 records; G.T/1, never committed,
	// is read from its log start either way.
	if n, ok := plan[0].Skip(); !ok || n != -3 {
		t.Fatalf("skip of %+v: %d %v", plan[0], n, ok)
	}
	if n, ok := plan[1].Skip(); !ok || n != 0 {
		t.Fatalf("skip of %+v: %d %v", plan[1], n, ok)
	}
	// To the end skips exactly the group's lag: one rule for both.
	var skip int64
	for _, c := range must[[]OffsetChange](t)(q.PlanSeekGroup(ctx, "billing", "G.T", SeekTarget{Latest: true})) {
		n, _ := c.Skip()
		skip += n
	}
	if skip != billing.Lag().Records {
		t.Fatalf("a seek to the end skips %d, the lag is %d", skip, billing.Lag().Records)
	}
	if d := must[GroupDescription](t)(q.DescribeGroup(ctx, "billing")); d.Offsets[0].Committed != 3 {
		t.Fatalf("a refused seek or a plan moved the commit: %+v", d.Offsets)
	}

	// Without members: seek works, and a member joining starts there.
	c.Close()
	ilinktest.WaitFor(t, waitTimeout, "billing to have no member", func() bool {
		return must[GroupDescription](t)(q.DescribeGroup(ctx, "billing")).State == GroupEmpty
	})
	ch := must[[]OffsetChange](t)(q.SeekGroup(ctx, "billing", "G.T", SeekTarget{Offset: 1}))
	if len(ch) != 2 || ch[0] != (OffsetChange{Topic: "G.T", Partition: 0, Old: 3, New: 1, LogStart: 0, End: 5}) || ch[1].Old != -1 || ch[1].New != 1 {
		t.Fatalf("seek to 1: %+v", ch)
	}
	c2 := subscribe(t, e, "billing", "G.T") // spec: A-12
	r, err := c2.Read(ctx, 5*time.Second)
	if err != nil || r.Offset != 1 {
		t.Fatalf("first record after the seek: %+v, %v", r, err)
	}
	c2.Close()
	ilinktest.WaitFor(t, waitTimeout, "billing to have no member", func() bool {
		return must[GroupDescription](t)(q.DescribeGroup(ctx, "billing")).State == GroupEmpty
	})

	// spec: A-13 — to a time: the offsets of the first records at or after it.
	// at is in a millisecond of its own: after every record so far, before
	// every later one (record timestamps are milliseconds).
	nextMilli := func() {
		for ms := time.Now().UnixMilli(); time.Now().UnixMilli() == ms; {
			time.Sleep(100 * time.Microsecond) // crossing a clock boundary: the next millisecond, not a condition of the code
		}
	}
	nextMilli()
	at := time.Now()
	nextMilli()
	for i := 0; i < 2; i++ {
		must[PublishResult](t)(q.Publish(ctx, "G.T", nil, []byte("late")))
	}
	ch = must[[]OffsetChange](t)(q.SeekGroupToTime(ctx, "billing", "G.T", at))
	if len(ch) != 2 || ch[0].New != 5 || ch[1].New != 5 {
		t.Fatalf("seek to time: %+v", ch)
	}

	// spec: A-14 — delete, then Dead.
	noErr(t, q.DeleteGroup(ctx, "billing"))
	if d := must[GroupDescription](t)(q.DescribeGroup(ctx, "billing")); d.State != GroupDead || len(d.Offsets) != 0 {
		t.Fatalf("after delete: %+v", d)
	}
	// spec: A-11 — an unknown group is Dead, not an error.
	if d := must[GroupDescription](t)(q.DescribeGroup(ctx, "never-seen")); d.State != GroupDead {
		t.Fatalf("unknown group: %+v", d)
	}
	if text := must[string](t)(q.SubscriptionListText(ctx, "G.T")); text != "" {
		t.Fatalf("after delete: %q", text)
	}
}
