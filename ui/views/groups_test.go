package views_test

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ui/common"
)

func TestGroupsHealthFromTheDemo(t *testing.T) {
	r := newRig(t, false, groupsView)
	r.poll()
	// One sample: the verdicts of the state and the lag now (STOPPED: no
	// member and 9,000 unread; OK: caught up); the others are not judged
	// yet (UNKNOWN), never OK.
	r.mustShow("6 groups", "REBALANCING", "1 STOPPED", "3 UNKNOWN")
	r.mustNotShow("STALLED", "LAGGING")
	if line := lineWith(r.screen(), "payment-audit"); !strings.HasSuffix(strings.TrimSpace(line), "UNKNOWN") {
		t.Errorf("payment-audit after one sample: %q", line)
	}
	r.step(12)
	s := r.screen()
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
	r.mustShow("1 STALLED", "1 LAGGING", "1 STOPPED")
	// Sorting by health puts the worst last / first reversed.
	for i := 0; i < 7; i++ {
		r.key("s")
		if strings.Contains(r.v.Status(), "health") {
			break
		}
	}
	r.key("S")
	s = r.screen()
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
	r := newRig(t, false, groupsView)
	r.poll()
	r.key("down", "down", "down", "enter") // payment-audit
	r.mustShow("Group payment-audit", "generation 12", "coordinator node 2", "PAYMENT.RESULT", "COMMITTED")
	r.step(3)
	r.mustShow("consuming 30/s", "falling behind")
	r.key("v")
	r.mustShow("payment-audit-1", "svc-payment", "10.0.1.10", "PAYMENT.RESULT:0,1,2")
	r.key("esc")
	r.key("up", "enter") // order-processor keeps pace
	r.step(3)
	r.mustShow("steady")
}

func TestGroupSeekPreviewRefusalAndApply(t *testing.T) {
	r := newRig(t, false, groupsView)
	r.poll()
	r.key("o") // audit-archiver, 2 active members
	r.mustShow("Seek group audit-archiver", "2 active members", "MIMQE_GROUP_NOT_EMPTY")
	// To (focused first) is read by ilink/position, as by the CLI.
	r.typeText("abc")
	r.key("enter")
	r.mustShow(`position "abc": want earliest`)
	r.key("ctrl+u")
	r.typeText("3@5")
	r.key("enter")
	r.mustShow("without P@")
	r.key("ctrl+u")
	r.typeText("earliest")
	r.key("enter")
	r.mustShow("preview", "AUDIT.LOG [0]", "→", "re-read")
	if r.src.Calls("SeekGroup") != 1 {
		t.Fatal("preview did not plan through SeekGroup")
	}
	r.key("enter") // apply: the engine refuses, members are active
	r.mustShow("The engine refused: MIMQE_GROUP_NOT_EMPTY (2 active members)", "Stop the consumers of audit-archiver")
	r.key("esc")
	// Consumers stopped: the same seek goes through.
	r.src.SetMembers("audit-archiver", 0)
	r.poll()
	r.key("o")
	r.mustNotShow("active member")
	r.key("enter")
	r.mustShow("12 partitions")
	r.key("y")
	f := took[common.FlashMsg](r)
	if len(f) != 1 || !strings.Contains(f[0].Text, "12 offsets moved") {
		t.Fatalf("flash %+v", f)
	}
	if r.v.Capturing() {
		t.Fatal("dialog still open after apply")
	}
	// By time, and by offset.
	r.key("o")
	r.typeText("-1m")
	r.key("enter")
	r.mustShow("time 2026-11-30 09:59:00")
	r.key("esc", "o")
	r.typeText("1200")
	r.key("enter")
	r.mustShow("offset 1200")
}

func TestGroupDeleteRefusedThenDone(t *testing.T) {
	r := newRig(t, false, groupsView)
	r.poll()
	r.key("D")
	r.mustShow("Delete group audit-archiver", "2 active members")
	r.typeText("audit-archiver")
	r.key("enter")
	r.mustShow("MIMQE_GROUP_NOT_EMPTY (2 active members)", "Stop the consumers")
	r.key("esc")
	r.key("down", "down", "down", "down", "D") // reporting-batch: empty
	r.typeText("reporting-batch")
	r.key("enter")
	if f := took[common.FlashMsg](r); len(f) != 1 || !strings.Contains(f[0].Text, "reporting-batch deleted") {
		t.Fatalf("flash %+v", f)
	}
	r.poll()
	r.mustNotShow("reporting-batch")
}

func TestGroupsReadOnly(t *testing.T) {
	r := newRig(t, true, groupsView)
	r.poll()
	r.key("o", "D")
	if r.v.Capturing() {
		t.Fatal("a mutating dialog opened read-only")
	}
	r.key("enter")
	r.key("o", "D")
	if r.v.Capturing() {
		t.Fatal("a mutating dialog opened read-only in the detail")
	}
	assertNoMutatingHelp(t, r)
}

// TestGroupWithoutCommitsOnSomePartitions (issue 10): a partition the
// group never committed on counts from its log start in LAG, reads "no
// commit" in the detail (never -1), and a seek preview to the latest
// offset skips exactly the group's LAG.
func TestGroupWithoutCommitsOnSomePartitions(t *testing.T) {
	r := newRig(t, false, groupsView)
	r.src.DropCommit("payment-audit", "PAYMENT.RESULT", 1)
	r.poll()
	var lag, noCommit int64
	gs, _ := r.src.ListGroups(context.Background())
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
	r.key("down", "down", "down", "enter") // payment-audit
	r.mustShow("Group payment-audit", "no commit", "1 partition without a commit", "lag "+common.Thousands(lag))
	r.mustNotShow("-1")
	r.key("o")
	r.typeText("latest") // To (focused): replaces the selected "earliest"
	r.key("enter")
	r.mustShow("preview", "PAYMENT.RESULT [1]  no commit (log start", "the group will skip "+common.Thousands(lag)+" records")
}
