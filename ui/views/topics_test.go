package views_test

import (
	"errors"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"ilinkdash/ui/common"
)

func TestTopicsTableSortFilterInternal(t *testing.T) {
	r := newRig(t, false, topicsView)
	r.mustShow("loading topics")
	r.poll()
	r.mustShow("5 topics", "1 internal hidden", "AUDIT.LOG", "PAYMENT.RESULT", "1 under", "30d/1.0GiB")
	r.mustNotShow("SYSTEM.GROUPS")
	// Name order first.
	s := r.screen()
	if strings.Index(s, "AUDIT.LOG") > strings.Index(s, "ORDER.EVENT") {
		t.Fatal("not sorted by name")
	}
	r.key("s") // partitions
	if !strings.Contains(r.v.Status(), "part ↑") {
		t.Fatalf("status %q after s", r.v.Status())
	}
	r.key("S")
	s = r.screen()
	if strings.Index(s, "AUDIT.LOG") > strings.Index(s, "SHIPMENT.STATUS") {
		t.Fatalf("partitions descending should put AUDIT.LOG (12) first:\n%s", s)
	}
	// Filter.
	r.key("/")
	if !r.v.Capturing() {
		t.Fatal("the filter input does not capture keys")
	}
	r.typeText("pay")
	r.mustShow("PAYMENT.RESULT", "/pay")
	r.mustNotShow("AUDIT.LOG")
	r.key("enter")
	if r.v.Capturing() {
		t.Fatal("enter did not leave the filter input")
	}
	r.poll() // the filter survives new data
	r.mustNotShow("AUDIT.LOG")
	r.key("/", "backspace", "backspace", "backspace")
	r.typeText("!pay")
	r.key("enter")
	r.mustShow("AUDIT.LOG")
	r.mustNotShow("PAYMENT.RESULT")
	if !r.v.Back() {
		t.Fatal("esc did not clear the filter")
	}
	r.mustShow("PAYMENT.RESULT", "AUDIT.LOG")
	// Internal topics.
	r.key("i")
	r.mustShow("SYSTEM.GROUPS")
}

func TestTopicsDetailAndStaleReplies(t *testing.T) {
	r := newRig(t, false, topicsView)
	r.poll()
	r.key("enter") // AUDIT.LOG
	r.mustShow("Topic AUDIT.LOG", "12 partitions", "Partitions (12)", "Consumers (1 group)", "LEADER")
	if len(r.ticks) != 1 {
		t.Fatalf("%d detail ticks armed, want 1 (re-armed on reply only)", len(r.ticks))
	}
	r.key("v")
	r.mustShow("audit-archiver", "Stable")
	r.step(1) // the tick refreshes the detail
	if n := r.src.Calls("DescribeTopic"); n != 2 {
		t.Fatalf("DescribeTopic called %d times, want 2", n)
	}
	// Failure: the last good data stays, the error shows.
	r.src.Fail("DescribeTopic", errors.New("MIMQE_QMGR_NOT_RUNNING (QM1)"))
	r.step(1)
	r.mustShow("MIMQE_QMGR_NOT_RUNNING (QM1)", "audit-archiver")
	r.src.Fail("DescribeTopic", nil)
	// Stale reply: leave the detail while a describe is in flight.
	r.key("esc")
	if r.v.Back() {
		t.Fatal("Back in the list with no filter reported work")
	}
	r.key("down", "down") // ORDER.EVENT
	cmd := r.v.Update(keyMsg("enter"))
	r.key("esc", "up") // leave, go to INVENTORY.DELTA
	r.key("enter")
	r.run(cmd) // ORDER.EVENT's reply arrives late
	r.mustShow("Topic INVENTORY.DELTA")
	r.mustNotShow("ORDER.EVENT")
}

func TestTopicsCreateDeleteFlush(t *testing.T) {
	r := newRig(t, false, topicsView)
	r.poll()
	r.key("n")
	r.mustShow("Create topic", "Partitions")
	r.key("enter")
	r.mustShow("give the topic a name")
	r.typeText("bad name")
	r.key("enter")
	r.mustShow("no spaces")
	for range "bad name" {
		r.key("backspace")
	}
	r.typeText("NEW.TOPIC")
	r.key("tab")
	r.typeText("8") // replaces the selected default 3 (not 38)
	r.key("tab", "tab")
	r.typeText("12h")
	// The first enter reviews; nothing is sent yet.
	r.key("enter")
	r.mustShow("Create NEW.TOPIC: 8 partitions · replicas: cluster default · retention", "12h. Enter creates it", "confirm: create")
	if r.src.Calls("CreateTopic") != 0 {
		t.Fatal("create sent before the review")
	}
	// Editing goes back to the form; the review shows the new values.
	r.key("backspace", "backspace", "backspace")
	r.typeText("1d")
	r.mustNotShow("Create NEW.TOPIC:")
	r.key("enter")
	r.mustShow("retention 1d")
	r.key("enter")
	flash := took[common.FlashMsg](r)
	if len(flash) != 1 || !strings.Contains(flash[0].Text, "NEW.TOPIC created") {
		t.Fatalf("flash %+v", flash)
	}
	if len(took[common.RefreshMsg](r)) != 1 {
		t.Fatal("no refresh after create")
	}
	r.poll()
	r.mustShow("NEW.TOPIC", "1d")
	if r.v.Capturing() {
		t.Fatal("dialog still open")
	}
	// Delete needs the name typed.
	r.key("/")
	r.typeText("NEW.")
	r.key("enter", "D")
	r.mustShow("Delete topic NEW.TOPIC", "Type NEW.TOPIC to confirm")
	r.key("enter")
	r.mustShow("type the name exactly")
	r.typeText("NEW.TOPIC")
	r.key("enter")
	r.poll()
	r.v.Back()
	r.mustNotShow("NEW.TOPIC")
	if r.src.Calls("DeleteTopic") != 1 {
		t.Fatal("DeleteTopic not called")
	}
	// Flush, like delete, needs the name typed: neither enter nor y does it.
	r.key("F")
	r.mustShow("Flush topic AUDIT.LOG", "wipes the group commits", "Type AUDIT.LOG to confirm")
	r.key("y", "enter")
	r.mustShow("type the name exactly")
	if r.src.Calls("FlushTopic") != 0 {
		t.Fatal("flushed without the name")
	}
	r.key("ctrl+u")
	r.typeText("AUDIT.LOG")
	r.key("enter")
	if r.src.Calls("FlushTopic") != 1 {
		t.Fatal("FlushTopic not called")
	}
	// A refusal stays in the dialog with the engine's text.
	r.src.Fail("FlushTopic", errors.New("MIMQE_NOT_AUTHORIZED (\x1b[31mred\x1b[0m)"))
	r.key("F")
	r.typeText("AUDIT.LOG")
	r.key("enter")
	r.mustShow("flush failed: MIMQE_NOT_AUTHORIZED (␛[31mred␛[0m)")
	r.key("esc")
}

func TestTopicsNavigationMessages(t *testing.T) {
	r := newRig(t, false, topicsView)
	r.poll()
	r.key("down", "down", "t")
	if m := took[common.OpenTailMsg](r); len(m) != 1 || m[0].Pattern != "ORDER.EVENT" {
		t.Fatalf("tail: %+v", m)
	}
	r.key("p")
	if m := took[common.OpenPublishMsg](r); len(m) != 1 || m[0].Topic != "ORDER.EVENT" {
		t.Fatalf("publish: %+v", m)
	}
}

func TestTopicsReadOnlyOffersNoMutation(t *testing.T) {
	r := newRig(t, true, topicsView)
	r.poll()
	for _, k := range []string{"n", "D", "F", "p"} {
		r.key(k)
		if r.v.Capturing() {
			t.Fatalf("%s opened a dialog in read-only mode", k)
		}
	}
	if len(took[common.OpenPublishMsg](r)) != 0 {
		t.Fatal("p emitted publish in read-only mode")
	}
	r.key("t")
	if len(took[common.OpenTailMsg](r)) != 1 {
		t.Fatal("tail must stay available read-only")
	}
	assertNoMutatingHelp(t, r)
}

func assertNoMutatingHelp(t *testing.T, r *rig) {
	t.Helper()
	mut := map[string]bool{}
	for _, b := range r.ctx.Keys.Mutating() {
		mut[b.Help().Desc] = true
	}
	check := func(bs []key.Binding) {
		for _, b := range bs {
			if b.Enabled() && mut[b.Help().Desc] {
				t.Fatalf("read-only help offers %q", b.Help().Desc)
			}
		}
	}
	check(r.v.ShortHelp())
	for _, g := range r.v.FullHelp() {
		check(g)
	}
}
