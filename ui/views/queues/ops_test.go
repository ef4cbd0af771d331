package queues_test

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ui/internal/viewtest"
)

// The operator panes on the fake: every mutating flow shows its preview
// first, and nothing changes until the preview is confirmed.

func TestQueueDetailBrowsePutTakeAndMoveBack(t *testing.T) {
	r := viewtest.Polled(t, false, queuesView)
	r.Step(3)
	r.MustShow("5 dead letters (+2 in 1m)", "(is a DLQ)", "5 +2/1m")
	r.Key("j", "j", "enter") // PAYMENTS.DLQ
	r.MustShow("Queue PAYMENTS.DLQ", "dead letters of PAYMENTS.IN", "browsing 3 of 3, without taking them",
		"dlq.source: PAYMENTS.IN", "dlq.reason: redelivered 4 times (max 3)", `{"payment":9100,"error":"schema validation failed"}`)
	r.Key("f")
	r.MustShow("body (json, f cycles)", `"payment": 9100,`)
	r.Key("f")
	r.MustShow("body (hex, f cycles)", "7b 22 70 61")
	// Move back: the selected message, plan first.
	r.Key("M")
	r.MustShow("Move messages of PAYMENTS.DLQ back", "‹ the selected message")
	r.Key("enter")
	r.MustShow("Move back — preview", "→ PAYMENTS.IN", "1 message would move")
	b, _ := r.Src.BrowseQueue(context.Background(), "PAYMENTS.DLQ", 0, 0)
	if len(b.Messages) != 3 {
		t.Fatalf("the preview moved messages: %d left", len(b.Messages))
	}
	r.Key("enter")
	r.MustShow("browsing 2 of 2")
	// Put three messages with a template, then take one.
	r.Key("P", "enter") // the dialog opens navigating: enter edits
	r.TypeText(`{"n":{{seq}}}`)
	r.Key("tab", "backspace")
	r.TypeText("3")
	r.Key("enter")
	r.MustShow("browsing 5 of 5", `{"n":2}`)
	r.Key("T")
	r.MustShow("Take the next message of PAYMENTS.DLQ")
	r.Key("enter")
	r.MustShow("Taken from PAYMENTS.DLQ", "longer on the queue", "|validati|")
	r.Key("enter")
	r.MustShow("browsing 4 of 4")
	// A bad template is refused before anything is sent.
	r.Key("P", "enter")
	r.TypeText("{{nope}}")
	r.Key("enter")
	r.MustShow("{{nope}}")
	if n := r.Src.Calls("PutMessages"); n != 1 {
		t.Fatalf("%d put calls, want 1", n)
	}
}

func TestQuarantineReinjectWarnsBeforeItRuns(t *testing.T) {
	r := viewtest.Polled(t, false, queuesView)
	r.Key("Q")
	r.MustShow("Quarantine", "qdir1", "ORDERS.IN", "Entries of qdir1 / ORDERS.IN", "OLD")
	r.Key("R")
	r.MustShow("Reinject qdir1 into ORDERS.IN", "‹ NEW entries only (1) ›")
	r.Key("right", "enter")
	s := r.Screen()
	warn := strings.Index(s, "⚠ 1 OLD entry")
	plan := strings.Index(s, "2 entries appended")
	if warn < 0 || plan < 0 || warn > plan || !strings.Contains(s, "duplicates are not removed") {
		t.Fatalf("the duplicate warning must come first:\n%s", s)
	}
	if r.Src.Calls("ReinjectQuarantine") != 0 {
		t.Fatal("the preview reinjected")
	}
	r.Key("enter")
	r.MustShow("Reinject — result", "2 messages appended to ORDERS.IN; the queue state is led by node 1", "Every selected entry was reinjected")
	r.Key("enter")
	r.MustNotShow("qdir1")
}

func TestOperatorPanesReadOnly(t *testing.T) {
	viewtest.AssertReadOnlyKeys(t, "queues", queuesView, "enter", "P", "T", "M")
}
