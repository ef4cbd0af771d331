package publish_test

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
)

// TestPublishConfirmsBeforeSending: the form opens navigating (typed keys
// are not text), and a run always starts from a confirmation that names
// topic, count, rate, size and the key/value templates, warning of a count
// above 100,000 and of no rate limit; esc sends nothing.
func TestPublishConfirmsBeforeSending(t *testing.T) {
	pub := &fakes.Publisher{}
	r := newPubRig(t, false, pub)
	r.v.SetTarget("T")
	r.TypeText(":publish NOPE") // what the user of issue 22 typed
	if got := r.v.Field(1).Input.Value(); got != "" {
		t.Fatalf("keys typed while navigating went into the key: %q", got)
	}
	r.MustShow("▸ Key", "navigating", "not editing: enter or e edits Key")
	r.Key("enter") // edits the key; sends nothing
	if pub.Runs() != 0 || !r.v.Editing() {
		t.Fatalf("enter on the key: %d runs, editing %v", pub.Runs(), r.v.Editing())
	}
	r.MustShow("✎ editing Key")
	r.TypeText("k-{{seq}}")
	r.Key("esc", "down", "down", "down", "down", "enter") // Count
	r.TypeText("100000000")
	r.Key("enter")
	if pub.Runs() != 0 {
		t.Fatal("enter in the form sent without a confirmation")
	}
	r.MustShow("Send 100,000,000 records to T?",
		"Topic        T",
		"Count        100,000,000 records",
		"Rate         no limit",
		"Size         up to 22B a record, at most 2.0GiB in all", // k- and {{seq}}'s 20 digits; no value
		"key 22B · value 0B",
		"Key          k-{{seq}} (template)",
		"Value        empty",
		"Compression  none · acks all",
		"⚠ 100,000,000 records, more than 100,000: check the count.",
		"⚠ no rate limit: sent as fast as the cluster acknowledges.",
		"enter/y send", "esc back to the form")
	r.Key("esc")
	if pub.Runs() != 0 || r.v.Capturing() {
		t.Fatalf("esc on the confirmation: %d runs, capturing %v", pub.Runs(), r.v.Capturing())
	}
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || !strings.Contains(fl[0].Text, "not sent") {
		t.Fatalf("flash %+v", fl)
	}
	r.MustShow("Publish to T", "▸ Count")

	// A small, limited run: no warning; n goes back too; y sends.
	r.v.Field(5).Input.SetValue("100")
	r.v.Field(6).Input.SetValue("500")
	r.Key("ctrl+s")
	r.MustShow("Send 100 records to T?", "Count        100 records", "Rate         500 records/s (about 200ms)")
	r.MustNotShow("⚠")
	r.Key("n")
	if pub.Runs() != 0 {
		t.Fatal("n sent")
	}
	r.Key("ctrl+s", "y")
	run := pub.Last()
	if run == nil || run.Spec().Count != 100 || run.Spec().Rate != 500 {
		t.Fatalf("run %+v", run)
	}
	if !run.Wait(5 * time.Second) {
		t.Fatal("run did not finish")
	}
	r.Advance(250 * time.Millisecond)
	r.MustShow("100 planned, 100 acknowledged")
	// The next confirmation says the count is the last run's.
	r.Key("e", "ctrl+s")
	r.MustShow("Count        100 records (as in the last run)")
	r.Key("esc")
}

// TestPublishResultAgainstPlan: a run with failures reports them against
// what was confirmed.
func TestPublishResultAgainstPlan(t *testing.T) {
	pub := &fakes.Publisher{FailEvery: 10}
	r := newPubRig(t, false, pub)
	r.v.SetTarget("T")
	r.v.Field(5).Input.SetValue("30")
	r.Key("ctrl+s", "enter")
	run := pub.Last()
	if run == nil || !run.Wait(5*time.Second) {
		t.Fatal("no finished run")
	}
	r.Advance(250 * time.Millisecond)
	r.MustShow("30 planned, 27 acknowledged, 3 failed")
}

// TestPublishValidationEditsTheFieldAtFault: a refused form puts the
// cursor in the field the error is about, its value selected.
func TestPublishValidationEditsTheFieldAtFault(t *testing.T) {
	r := newPubRig(t, false, &fakes.Publisher{})
	r.v.SetTarget("T")
	r.v.Field(6).Input.SetValue("fast")
	r.Key("ctrl+s")
	r.MustShow("rate must be a number", "✎ editing Rate")
	r.TypeText("10") // replaces the selected "fast"
	if got := r.v.Field(6).Input.Value(); got != "10" {
		t.Fatalf("rate %q", got)
	}
}
