package views_test

import (
	"context"
	"strings"
	"testing"
)

// The operator panes on the fake: every mutating flow shows its preview
// first, and nothing changes until the preview is confirmed.

func TestClusterBalanceAndRebalancePreview(t *testing.T) {
	r := newRig(t, false, clusterView)
	r.poll()
	r.mustShow("leaders 26/27 on preferred (imbalance 3%)")
	r.key("v", "v", "v")
	r.mustShow("Balance (1 off)", "PREFERRED", "not preferred", "node 1 leads 11 (preferred for 10)")
	r.key("b")
	r.mustShow("Rebalance leaders — preview", "26 of 27 partitions", "ORDER.EVENT [2]  node 1 → node 3", "imbalance after: 0%")
	if n := r.src.Calls("RebalanceLeaders"); n != 1 {
		t.Fatalf("%d plan calls, want 1", n)
	}
	lt, _ := r.src.ClusterLeadTable(context.Background())
	for _, row := range lt.Rows {
		if row.Topic == "ORDER.EVENT" && row.Partition == 2 && row.Node != 1 {
			t.Fatalf("the preview moved the leader to %d", row.Node)
		}
	}
	r.key("enter")
	r.poll()
	r.mustShow("27/27 on preferred (imbalance 0%)", "Balance (0 off)")
	r.mustNotShow("not preferred")
	// Nothing to do: the preview says so and enter only closes it.
	r.key("b")
	r.mustShow("Every partition is on its preferred leader")
	r.key("enter")
	if r.v.Capturing() {
		t.Fatal("the empty preview stayed open")
	}
}

func TestClusterMoveLeaderPreview(t *testing.T) {
	r := newRig(t, false, clusterView)
	r.poll()
	r.key("v", "v", "v") // Balance: AUDIT.LOG [0] first, led by node 1
	r.key("L")
	r.mustShow("Move the leader of AUDIT.LOG [0]", "placement 1,2,3", "‹ node 2 ›")
	r.key("right", "enter")
	r.mustShow("Move leader — preview", "AUDIT.LOG [0]: leader node 1 → node 3")
	if r.src.Calls("MovePartitionLeader") != 0 {
		t.Fatal("the preview moved the leader")
	}
	r.key("enter")
	r.poll()
	r.mustShow("25/27 on preferred")
}

func TestTopicConfigDiffPreview(t *testing.T) {
	r := newRig(t, false, topicsView)
	r.poll()
	r.key("c") // AUDIT.LOG
	r.mustShow("Configuration of AUDIT.LOG", "replicas 3 (fixed at creation)", "retention 2592000000 (30d)", "[0] 1,2,3 · leader 1", "… 4 more partitions", "Partitions      12")
	r.key("enter")
	r.mustShow("nothing changes: edit a value first")
	// Retention 7d, partitions 16.
	for i := 0; i < 3; i++ {
		r.key("backspace")
	}
	r.typeText("7d")
	r.key("tab", "tab", "tab", "backspace", "backspace")
	r.typeText("10")
	r.key("enter")
	r.mustShow("partitions can only grow: 12 -> 10")
	r.key("backspace", "backspace")
	r.typeText("16")
	r.key("enter")
	r.mustShow("Alter AUDIT.LOG — preview", "retention.ms", "2592000000 (30d) → 604800000 (1w)", "partitions", "12 → 16", "4 new partitions start empty", "Shorter retention")
	r.mustNotShow("minSync ")
	if r.src.Calls("AlterTopic") != 0 {
		t.Fatal("the preview altered the topic")
	}
	r.key("enter")
	r.poll()
	ts, _ := r.src.ListTopics(context.Background())
	for _, ti := range ts {
		if ti.Name == "AUDIT.LOG" && (ti.Partitions != 16 || ti.RetentionMs != 604_800_000) {
			t.Fatalf("after apply: %+v", ti)
		}
	}
}

func TestTopicConfigReadOnlyShowsNoFields(t *testing.T) {
	r := newRig(t, true, topicsView)
	r.poll()
	r.key("c")
	r.mustShow("Configuration of AUDIT.LOG", "Read-only context")
	r.mustNotShow("Retention bytes", "preview")
}

func TestQueueDetailBrowsePutTakeAndMoveBack(t *testing.T) {
	r := newRig(t, false, queuesView)
	r.poll()
	r.step(3)
	r.mustShow("5 dead letters (+2 in 1m)", "(is a DLQ)", "5 +2/1m")
	r.key("j", "j", "enter") // PAYMENTS.DLQ
	r.mustShow("Queue PAYMENTS.DLQ", "dead letters of PAYMENTS.IN", "browsing 3 of 3, without taking them",
		"dlq.source: PAYMENTS.IN", "dlq.reason: redelivered 4 times (max 3)", `{"payment":9100,"error":"schema validation failed"}`)
	r.key("f")
	r.mustShow("body (json, f cycles)", `"payment": 9100,`)
	r.key("f")
	r.mustShow("body (hex, f cycles)", "7b 22 70 61")
	// Move back: the selected message, plan first.
	r.key("M")
	r.mustShow("Move messages of PAYMENTS.DLQ back", "‹ the selected message")
	r.key("enter")
	r.mustShow("Move back — preview", "→ PAYMENTS.IN", "1 message would move")
	b, _ := r.src.BrowseQueue(context.Background(), "PAYMENTS.DLQ", 0, 0)
	if len(b.Messages) != 3 {
		t.Fatalf("the preview moved messages: %d left", len(b.Messages))
	}
	r.key("enter")
	r.mustShow("browsing 2 of 2")
	// Put three messages with a template, then take one.
	r.key("P")
	r.typeText(`{"n":{{seq}}}`)
	r.key("tab", "backspace")
	r.typeText("3")
	r.key("enter")
	r.mustShow("browsing 5 of 5", `{"n":2}`)
	r.key("T")
	r.mustShow("Take the next message of PAYMENTS.DLQ")
	r.key("enter")
	r.mustShow("Taken from PAYMENTS.DLQ", "longer on the queue", "|validati|")
	r.key("enter")
	r.mustShow("browsing 4 of 4")
	// A bad template is refused before anything is sent.
	r.key("P")
	r.typeText("{{nope}}")
	r.key("enter")
	r.mustShow("{{nope}}")
	if n := r.src.Calls("PutMessages"); n != 1 {
		t.Fatalf("%d put calls, want 1", n)
	}
}

func TestQuarantineReinjectWarnsBeforeItRuns(t *testing.T) {
	r := newRig(t, false, queuesView)
	r.poll()
	r.key("Q")
	r.mustShow("Quarantine", "qdir1", "ORDERS.IN", "Entries of qdir1 / ORDERS.IN", "OLD")
	r.key("R")
	r.mustShow("Reinject qdir1 into ORDERS.IN", "‹ NEW entries only (1) ›")
	r.key("right", "enter")
	s := r.screen()
	warn := strings.Index(s, "⚠ 1 OLD entry")
	plan := strings.Index(s, "2 entries appended")
	if warn < 0 || plan < 0 || warn > plan || !strings.Contains(s, "duplicates are not removed") {
		t.Fatalf("the duplicate warning must come first:\n%s", s)
	}
	if r.src.Calls("ReinjectQuarantine") != 0 {
		t.Fatal("the preview reinjected")
	}
	r.key("enter")
	r.mustShow("Reinject — result", "2 messages appended to ORDERS.IN; the queue state is led by node 1", "Every selected entry was reinjected")
	r.key("enter")
	r.mustNotShow("qdir1")
}

func TestOperatorPanesReadOnly(t *testing.T) {
	for _, mk := range []struct {
		name string
		rig  func() *rig
		keys []string
	}{
		{"cluster", func() *rig { return newRig(t, true, clusterView) }, []string{"b", "L"}},
		{"queues", func() *rig { return newRig(t, true, queuesView) }, []string{"enter", "P", "T", "M"}},
	} {
		r := mk.rig()
		r.poll()
		r.key(mk.keys...)
		if r.v.Capturing() {
			t.Fatalf("%s: a mutating dialog opened read-only:\n%s", mk.name, r.screen())
		}
		assertNoMutatingHelp(t, r)
	}
}
