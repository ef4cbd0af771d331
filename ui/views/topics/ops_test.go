package topics_test

import (
	"context"
	"testing"
	"time"

	"ilinkdash/ui/internal/viewtest"
)

// The operator panes on the fake: every mutating flow shows its preview
// first, and nothing changes until the preview is confirmed.

func TestTopicConfigDiffPreview(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("c") // AUDIT.LOG
	r.MustShow("Configuration of AUDIT.LOG", "replicas 3 (fixed at creation)", "retention 30d", "[0] 1,2,3 · leader 1", "… 4 more partitions", "Partitions      12")
	r.Key("ctrl+s") // submit while navigating (enter would edit the field)
	r.MustShow("nothing changes: edit a value first")
	// Retention 7d, partitions 16.
	r.Key("enter") // edit
	for i := 0; i < 3; i++ {
		r.Key("backspace")
	}
	r.TypeText("7d")
	r.Key("tab", "tab", "tab", "backspace", "backspace")
	r.TypeText("10")
	r.Key("enter")
	r.MustShow("partitions can only grow: 12 -> 10")
	r.Key("backspace", "backspace")
	r.TypeText("16")
	r.Key("enter")
	r.MustShow("Alter AUDIT.LOG — preview", "retention.ms", "30d → 7d", "partitions", "12 → 16", "4 new partitions start empty", "Shorter retention")
	r.MustNotShow("minSync ")
	if r.Src.Calls("AlterTopic") != 0 {
		t.Fatal("the preview altered the topic")
	}
	r.Key("enter")
	r.Poll()
	ts, _ := r.Src.ListTopics(context.Background())
	for _, ti := range ts {
		if ti.Name == "AUDIT.LOG" && (ti.Partitions != 16 || ti.RetentionMs != 604_800_000) {
			t.Fatalf("after apply: %+v", ti)
		}
	}
}

func TestTopicConfigReadOnlyShowsNoFields(t *testing.T) {
	r := viewtest.Polled(t, true, topicsView)
	r.Key("c")
	r.MustShow("Configuration of AUDIT.LOG", "Read-only context")
	r.MustNotShow("Retention bytes", "preview")
}

// A topic altered by someone else between the preview and its
// confirmation is not altered on the preview's figures: nothing is
// applied, the preview is shown again with what changed meanwhile, and a
// change that is no longer a change says so ("altered (partitions=16)"
// when another had grown it to 16 already, the preview's 4 new partitions
// never made).
func TestTopicConfigAppliesOnlyOnThePreviewsFigures(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("c") // AUDIT.LOG: 30d, 12 partitions
	r.Key("tab", "tab", "tab", "enter", "backspace", "backspace")
	r.TypeText("16")
	r.Key("enter")
	r.MustShow("Alter AUDIT.LOG — preview", "12 → 16", "4 new partitions start empty")
	ctx := context.Background()
	if err := r.Src.AlterTopic(ctx, "AUDIT.LOG", "partitions=14"); err != nil {
		t.Fatal(err)
	}
	r.Key("enter")
	r.MustShow("Nothing was applied: AUDIT.LOG changed since the preview", "partitions was 12, is 14 now", "14 → 16", "2 new partitions start empty")
	if n := r.Src.Calls("AlterTopic"); n != 1 {
		t.Fatalf("%d alters, want only the other's", n)
	}
	if err := r.Src.AlterTopic(ctx, "AUDIT.LOG", "partitions=16"); err != nil {
		t.Fatal(err)
	}
	r.Key("enter")
	r.MustShow("partitions was 14, is 16 now", "nothing is left to change")
	if n := r.Src.Calls("AlterTopic"); n != 2 {
		t.Fatalf("%d alters, want only the other's two", n)
	}
	r.Key("enter")
	if r.V.Capturing() {
		t.Fatal("the dialog stayed open")
	}
	// Unchanged meanwhile: applied.
	r.Key("c", "tab", "tab", "tab", "enter", "backspace", "backspace")
	r.TypeText("18")
	r.Key("enter", "enter")
	r.Poll()
	ts, _ := r.Src.ListTopics(ctx)
	for _, ti := range ts {
		if ti.Name == "AUDIT.LOG" && ti.Partitions != 18 {
			t.Fatalf("after apply: %+v", ti)
		}
	}
}

// One new partition is said in the singular ("1 new partitions").
func TestTopicConfigOneNewPartition(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("c") // AUDIT.LOG
	r.MustShow("Partitions      12")
	r.Key("tab", "tab", "tab", "enter", "backspace", "backspace")
	r.TypeText("13")
	r.Key("enter")
	r.MustShow("Alter AUDIT.LOG — preview", "12 → 13", "1 new partition starts empty")
}

// A flush or delete preview made from a topic list that is no longer
// fresh says its figures are the last known, and how old: it said "Now".
func TestDeletePreviewOnAStaleList(t *testing.T) {
	r := viewtest.Polled(t, false, topicsView)
	r.Key("F") // AUDIT.LOG
	r.MustShow("Flush topic AUDIT.LOG", "Now (the list of ")
	r.Key("esc")
	r.Advance(5 * time.Minute) // no poll meanwhile
	r.Key("D")
	r.MustShow("Delete topic AUDIT.LOG", "Last known (the list of ", "5m ago; none fresh since)")
	r.MustNotShow("Now (the list of ")
}
