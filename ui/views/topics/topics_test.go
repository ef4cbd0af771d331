package topics_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
)

func TestTopicsTableSortFilterInternal(t *testing.T) {
	r := viewtest.New(t, false, topicsView)
	r.MustShow("loading topics")
	r.Poll()
	r.MustShow("5 topics", "1 internal hidden", "AUDIT.LOG", "PAYMENT.RESULT", "1 under", "30d/1GiB")
	r.MustNotShow("SYSTEM.GROUPS")
	// Name order first.
	s := r.Screen()
	if strings.Index(s, "AUDIT.LOG") > strings.Index(s, "ORDER.EVENT") {
		t.Fatal("not sorted by name")
	}
	r.Key("s") // partitions
	if !strings.Contains(r.V.Status(), "part ↑") {
		t.Fatalf("status %q after s", r.V.Status())
	}
	r.Key("S")
	s = r.Screen()
	if strings.Index(s, "AUDIT.LOG") > strings.Index(s, "SHIPMENT.STATUS") {
		t.Fatalf("partitions descending should put AUDIT.LOG (12) first:\n%s", s)
	}
	// Filter.
	r.Key("/")
	if !r.V.Capturing() {
		t.Fatal("the filter input does not capture keys")
	}
	r.TypeText("pay")
	r.MustShow("PAYMENT.RESULT", "/pay")
	r.MustNotShow("AUDIT.LOG")
	r.Key("enter")
	if r.V.Capturing() {
		t.Fatal("enter did not leave the filter input")
	}
	r.Poll() // the filter survives new data
	r.MustNotShow("AUDIT.LOG")
	r.Key("/", "backspace", "backspace", "backspace")
	r.TypeText("!pay")
	r.Key("enter")
	r.MustShow("AUDIT.LOG")
	r.MustNotShow("PAYMENT.RESULT")
	if !r.V.Back() {
		t.Fatal("esc did not clear the filter")
	}
	r.MustShow("PAYMENT.RESULT", "AUDIT.LOG")
	// Internal topics.
	r.Key("i")
	r.MustShow("SYSTEM.GROUPS")
}

func TestTopicsDetailAndStaleReplies(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("enter") // AUDIT.LOG
	r.MustShow("Topic AUDIT.LOG", "12 partitions", "Partitions (12)", "Consumers (1 group)", "LEADER")
	if r.Pending() != 1 {
		t.Fatalf("%d detail ticks armed, want 1 (re-armed on reply only)", r.Pending())
	}
	r.Key("v")
	r.MustShow("audit-archiver", "Stable")
	r.Step(1) // the tick refreshes the detail
	if n := r.Src.Calls("DescribeTopic"); n != 2 {
		t.Fatalf("DescribeTopic called %d times, want 2", n)
	}
	// Failure: the last good data stays, the error shows.
	r.Src.Fail("DescribeTopic", errors.New("MIMQE_QMGR_NOT_RUNNING (QM1)"))
	r.Step(1)
	r.MustShow("MIMQE_QMGR_NOT_RUNNING (QM1)", "audit-archiver")
	r.Src.Fail("DescribeTopic", nil)
	// Stale reply: leave the detail while a describe is in flight.
	r.Key("esc")
	if r.V.Back() {
		t.Fatal("Back in the list with no filter reported work")
	}
	r.Key("down", "down") // ORDER.EVENT
	cmd := r.V.Update(viewtest.KeyMsg("enter"))
	r.Key("esc", "up") // leave, go to INVENTORY.DELTA
	r.Key("enter")
	r.Run(cmd) // ORDER.EVENT's reply arrives late
	r.MustShow("Topic INVENTORY.DELTA")
	r.MustNotShow("ORDER.EVENT")
}

func TestTopicsCreateDeleteFlush(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("n")
	r.MustShow("Create topic", "Partitions")
	r.Key("enter", "enter") // edit Name (the dialog opens navigating), submit
	r.MustShow("give the topic a name")
	r.TypeText("bad name")
	r.Key("enter")
	r.MustShow("Name: ' ' at 3 is not allowed")
	for range "bad name" {
		r.Key("backspace")
	}
	r.TypeText("NEW.TOPIC")
	r.Key("tab")
	r.TypeText("8") // replaces the selected default 3 (not 38)
	r.Key("tab", "tab")
	r.TypeText("12h")
	// The first enter reviews; nothing is sent yet.
	r.Key("enter")
	r.MustShow("Create NEW.TOPIC: 8 partitions · replicas: cluster default · retention", "12h. Enter creates it", "confirm: create")
	if r.Src.Calls("CreateTopic") != 0 {
		t.Fatal("create sent before the review")
	}
	// Editing goes back to the form; the review shows the new values.
	r.Key("backspace", "backspace", "backspace")
	r.TypeText("1d")
	r.MustNotShow("Create NEW.TOPIC:")
	r.Key("enter")
	r.MustShow("retention 1d")
	r.Key("enter")
	flash := viewtest.Took[common.FlashMsg](r)
	if len(flash) != 1 || !strings.Contains(flash[0].Text, "NEW.TOPIC created") {
		t.Fatalf("flash %+v", flash)
	}
	if len(viewtest.Took[common.RefreshMsg](r)) != 1 {
		t.Fatal("no refresh after create")
	}
	r.Poll()
	r.MustShow("NEW.TOPIC", "1d")
	if r.V.Capturing() {
		t.Fatal("dialog still open")
	}
	// Delete needs the name typed.
	r.Filter("NEW.")
	r.Key("D")
	r.MustShow("Delete topic NEW.TOPIC", "Type NEW.TOPIC to confirm")
	preview := regexp.MustCompile(`Now \(the list of [0-9:]+\): ([0-9,]+ records in [0-9]+ partitions)\.`).FindStringSubmatch(r.Screen())
	if preview == nil {
		t.Fatalf("the preview says nothing of what the delete takes:\n%s", r.Screen())
	}
	r.Key("enter")
	r.MustShow("type the name exactly")
	r.TypeText("NEW.TOPIC")
	r.Key("enter")
	// The result against the preview: the topic read back is gone.
	if f := viewtest.Took[common.FlashMsg](r); len(f) != 1 || f[0].Text != "topic NEW.TOPIC deleted: the preview showed "+preview[1]+"; no such topic now" {
		t.Fatalf("delete flash %+v", f)
	}
	r.Poll()
	r.V.Back()
	r.MustNotShow("NEW.TOPIC")
	if r.Src.Calls("DeleteTopic") != 1 {
		t.Fatal("DeleteTopic not called")
	}
	// Flush, like delete, needs the name typed: neither enter nor y does it.
	r.Key("F")
	r.MustShow("Flush topic AUDIT.LOG", "wipes the group commits", "Type AUDIT.LOG to confirm")
	r.Key("y", "enter")
	r.MustShow("type the name exactly")
	if r.Src.Calls("FlushTopic") != 0 {
		t.Fatal("flushed without the name")
	}
	r.Key("ctrl+u")
	r.TypeText("AUDIT.LOG")
	r.Key("enter")
	if r.Src.Calls("FlushTopic") != 1 {
		t.Fatal("FlushTopic not called")
	}
	if f := viewtest.Took[common.FlashMsg](r); len(f) != 1 || !strings.Contains(f[0].Text, "topic AUDIT.LOG flushed: ") || !strings.Contains(f[0].Text, "records removed (the preview showed ") || !strings.HasSuffix(f[0].Text, "; 0 records left") {
		t.Fatalf("flush flash %+v", f)
	}
	// A refusal stays in the dialog with the engine's text.
	r.Src.Fail("FlushTopic", errors.New("MIMQE_NOT_AUTHORIZED (\x1b[31mred\x1b[0m)"))
	r.Key("F", "enter") // edit the name line
	r.TypeText("AUDIT.LOG")
	r.Key("enter")
	r.MustShow("flush failed: MIMQE_NOT_AUTHORIZED (␛[31mred␛[0m)")
	r.Key("esc")
}

func TestTopicsNavigationMessages(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("down", "down", "t")
	if m := viewtest.Took[common.OpenTailMsg](r); len(m) != 1 || m[0].Pattern != "ORDER.EVENT" {
		t.Fatalf("tail: %+v", m)
	}
	r.Key("p")
	if m := viewtest.Took[common.OpenPublishMsg](r); len(m) != 1 || m[0].Topic != "ORDER.EVENT" {
		t.Fatalf("publish: %+v", m)
	}
}

func TestTopicsReadOnlyOffersNoMutation(t *testing.T) {
	r := viewtest.Polled(t, true, topicsView)
	for _, k := range []string{"n", "D", "F", "p"} {
		r.Key(k)
		if r.V.Capturing() {
			t.Fatalf("%s opened a dialog in read-only mode", k)
		}
	}
	if len(viewtest.Took[common.OpenPublishMsg](r)) != 0 {
		t.Fatal("p emitted publish in read-only mode")
	}
	r.Key("t")
	if len(viewtest.Took[common.OpenTailMsg](r)) != 1 {
		t.Fatal("tail must stay available read-only")
	}
	viewtest.AssertNoMutatingHelp(t, r)
}
