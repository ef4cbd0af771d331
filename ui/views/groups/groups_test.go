package groups_test

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/groups"
	"ilinkdash/ui/views/tab"
)

func TestGroupsHealthFromTheDemo(t *testing.T) {
	r := viewtest.Polled(t, false, groupsView)
	// One sample: the verdicts of the state and the lag now (STOPPED: no
	// member and 9,000 unread; OK: caught up); the others are not judged
	// yet (UNKNOWN), never OK.
	r.MustShow("6 groups", "REBALANCING", "1 STOPPED", "3 UNKNOWN")
	r.MustNotShow("STALLED", "LAGGING")
	if line := lineWith(r.Screen(), "payment-audit"); !strings.HasSuffix(strings.TrimSpace(line), "UNKNOWN") {
		t.Errorf("payment-audit after one sample: %q", line)
	}
	r.Step(12)
	s := r.Screen()
	for group, want := range map[string]string{
		"audit-archiver":   "STALLED",
		"payment-audit":    "LAGGING",
		"order-processor":  "OK",
		"inventory-sync":   "REBALANCING",
		"reporting-batch":  "STOPPED", // no member, 9,000+ unread
		"shipment-tracker": "OK",
	} {
		line := lineWith(s, group)
		if !strings.HasSuffix(strings.TrimSpace(line), want) {
			t.Errorf("%s: %q, want health %s", group, line, want)
		}
	}
	r.MustShow("1 STALLED", "1 LAGGING", "1 STOPPED")
	// Sorting by health puts the worst last / first reversed.
	for i := 0; i < 7; i++ {
		r.Key("s")
		if strings.Contains(r.V.Status(), "health") {
			break
		}
	}
	r.Key("S")
	s = r.Screen()
	if strings.Index(s, "audit-archiver") > strings.Index(s, "payment-audit") {
		t.Fatalf("health descending should list STALLED first:\n%s", s)
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

func TestGroupDetailMembersOffsetsDrain(t *testing.T) {
	r := viewtest.Polled(t, false, groupsView)
	r.Key("down", "down", "down", "enter") // payment-audit
	r.MustShow("Group payment-audit", "generation 12", "coordinator node 2", "PAYMENT.RESULT", "COMMITTED")
	r.Step(3)
	r.MustShow("consuming 30/s", "falling behind")
	r.Key("v")
	r.MustShow("payment-audit-1", "svc-payment", "app-10.example", "PAYMENT.RESULT:0,1,2")
	r.Key("esc")
	r.Key("up", "enter") // order-processor keeps pace
	r.Step(3)
	r.MustShow("steady")
}

// The footer offers t (tail the partition) only where it does something:
// on the offsets pane with the cursor on a partition, not on the members.
func TestGroupDetailOffersTailWhereItWorks(t *testing.T) {
	r := viewtest.Polled(t, false, groupsView)
	offers := func() bool {
		for _, b := range r.V.ShortHelp() {
			if b.Help().Desc == "tail partition (from commit)" {
				return true
			}
		}
		return false
	}
	r.Key("down", "down", "down", "enter") // payment-audit
	r.MustShow("Group payment-audit", "COMMITTED")
	if !offers() {
		t.Fatal("the offsets pane, cursor on a partition: t is not offered")
	}
	r.Key("v")
	r.MustShow("payment-audit-1")
	if offers() {
		t.Fatal("the members pane offers t, which does nothing there")
	}
}

func TestGroupSeekPreviewRefusalAndApply(t *testing.T) {
	r := viewtest.Polled(t, false, groupsView)
	r.Key("o") // audit-archiver, 2 active members
	r.MustShow("Seek group audit-archiver", "2 active members", "MIMQE_GROUP_NOT_EMPTY")
	// To (focused first) is read by ilink/position, as by the CLI.
	r.Key("enter") // the dialog opens navigating: enter edits To
	r.TypeText("abc")
	r.Key("enter")
	r.MustShow(`position "abc": want earliest`)
	r.Key("ctrl+u")
	r.TypeText("3@5")
	r.Key("enter")
	r.MustShow("moves one partition: choose its topic")
	r.Key("ctrl+u")
	r.TypeText("earliest")
	r.Key("enter")
	r.MustShow("preview", "AUDIT.LOG [0]", "→", "re-read")
	if r.Src.Calls("SeekGroup") != 1 {
		t.Fatal("preview did not plan through SeekGroup")
	}
	r.Key("enter") // apply: the engine refuses, members are active
	r.MustShow("The engine refused: MIMQE_GROUP_NOT_EMPTY (2 active members)", "Stop the consumers of audit-archiver")
	r.Key("esc")
	// Consumers stopped: the same seek goes through.
	r.Src.SetMembers("audit-archiver", 0)
	r.Poll()
	r.Key("o")
	r.MustNotShow("active member")
	r.Key("ctrl+s") // submit the default without editing it
	r.MustShow("12 partitions")
	r.Key("y")
	f := viewtest.Took[common.FlashMsg](r)
	if len(f) != 1 || !strings.Contains(f[0].Text, "12 offsets moved") {
		t.Fatalf("flash %+v", f)
	}
	if r.V.Capturing() {
		t.Fatal("dialog still open after apply")
	}
	// By time, and by offset.
	r.Key("o", "enter")
	r.TypeText("-1m")
	r.Key("enter")
	r.MustShow("time 2026-11-30 09:59:00")
	r.Key("esc", "o", "enter")
	r.TypeText("1200")
	r.Key("enter")
	r.MustShow("offset 1200")
}

func TestGroupDeleteRefusedThenDone(t *testing.T) {
	var tracker *tab.HealthTracker
	r := viewtest.New(t, false, func(ctx *common.Context, s *fakes.Source) common.View {
		tracker = tab.NewHealthTracker(health.Config(ctx.Config.Health))
		return groups.New(ctx, s, tracker)
	})
	r.Tracker = tracker // shared: fed as the root feeds it
	r.Poll()
	r.Key("D")
	r.MustShow("Delete group audit-archiver", "2 active members")
	r.Key("enter") // edit the name line
	r.TypeText("audit-archiver")
	r.Key("enter")
	r.MustShow("MIMQE_GROUP_NOT_EMPTY (2 active members)", "Stop the consumers")
	r.Key("esc")
	r.Key("down", "down", "down", "down", "D", "enter") // reporting-batch: empty
	r.TypeText("reporting-batch")
	r.Key("enter")
	if f := viewtest.Took[common.FlashMsg](r); len(f) != 1 || !strings.Contains(f[0].Text, "reporting-batch deleted") {
		t.Fatalf("flash %+v", f)
	}
	r.Poll()
	r.MustNotShow("reporting-batch")
	// Deleted here, so its absence from the list is no news: no "missing
	// from the group list" warning.
	for _, a := range tracker.Alerts() {
		if a.Kind == health.KindGroupUnlisted {
			t.Fatalf("a deleted group raised %q", a.Text)
		}
	}
}

func TestGroupsReadOnly(t *testing.T) {
	r := viewtest.Polled(t, true, groupsView)
	r.Key("o", "D")
	if r.V.Capturing() {
		t.Fatal("a mutating dialog opened read-only")
	}
	r.Key("enter")
	r.Key("o", "D")
	if r.V.Capturing() {
		t.Fatal("a mutating dialog opened read-only in the detail")
	}
	viewtest.AssertNoMutatingHelp(t, r)
}

// TestGroupWithoutCommitsOnSomePartitions (issue 10): a partition the
// group never committed on counts from its log start in LAG, reads "no
// commit" in the detail (never -1), and a seek preview to the latest
// offset skips exactly the group's LAG.
func TestGroupWithoutCommitsOnSomePartitions(t *testing.T) {
	r := viewtest.New(t, false, groupsView)
	r.Src.DropCommit("payment-audit", "PAYMENT.RESULT", 1)
	r.Poll()
	var lag, noCommit int64
	gs, _ := r.Src.ListGroups(context.Background())
	for _, g := range gs {
		if g.Name == "payment-audit" {
			for _, p := range g.Partitions {
				if p.Committed < 0 {
					noCommit++
					lag += p.End - p.LogStart
				} else {
					lag += p.End - p.Committed
				}
			}
		}
	}
	if noCommit != 1 {
		t.Fatalf("%d partitions without a commit", noCommit)
	}
	r.Key("down", "down", "down", "enter") // payment-audit
	r.MustShow("Group payment-audit", "no commit", "1 partition without a commit", "lag "+common.Thousands(lag))
	r.MustNotShow("-1")
	r.Key("o", "enter")
	r.TypeText("latest") // To (focused): replaces the selected "earliest"
	r.Key("enter")
	r.MustShow("preview", "PAYMENT.RESULT [1]  no commit (log start", "the group will skip "+common.Thousands(lag)+" records")
}
