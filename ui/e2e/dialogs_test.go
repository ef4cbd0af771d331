package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCreateTopicReviewsBeforeItSends: the default partitions are
// selected (typing 6 makes 6, not 36), the first enter shows what will be
// created, and only the second creates it.
func TestCreateTopicReviewsBeforeItSends(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	d := startDash(t, e, dashOpts{})
	d.keys("2")
	d.waitText("Topics")
	d.keys("n")
	d.waitText("Create topic", "Partitions")
	d.keys("enter") // the dialog opens navigating: enter edits; tab keeps editing
	d.typeText("E2E.NEW")
	d.keys("tab")
	d.typeText("6")
	d.keys("enter")
	d.waitText("Create E2E.NEW: 6 partitions", "confirm: create")
	if _, end := e.TopicOffsets("E2E.NEW"); end != nil {
		t.Fatal("the topic was created before the review was confirmed")
	}
	d.keys("enter")
	d.waitText("topic E2E.NEW created")
	if _, end := e.TopicOffsets("E2E.NEW"); len(end) != 6 {
		t.Fatalf("E2E.NEW has %d partitions, want 6", len(end))
	}
}

// TestFlushAsksForTheName: like delete, flush needs the topic's name
// typed; y or enter alone do nothing.
func TestFlushAsksForTheName(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "E2E.FLUSH", "partitions=1,replicas=1")
	produce(t, e, "E2E.FLUSH", 0, 10)
	d := startDash(t, e, dashOpts{})
	d.findOn("2", "E2E.FLUSH")
	d.keys("F")
	// The preview says what the flush takes, from the last list.
	d.waitText("Flush topic E2E.FLUSH", "Type E2E.FLUSH to confirm", "10 records in 1 partition.")
	d.press("y", "enter") // y is only text in the name line
	d.waitText("type the name exactly to confirm")
	if start, end := e.TopicOffsets("E2E.FLUSH"); start[0] != 0 || end[0] != 10 {
		t.Fatalf("flushed without the name: start %v end %v", start, end)
	}
	d.keys("ctrl+u")
	d.typeText("E2E.FLUSH")
	d.keys("enter")
	// The result is reported against the preview, from the topic read
	// back after the flush.
	d.waitText("topic E2E.FLUSH flushed: 10 records removed (the preview showed 10 records in 1 partition); 0 records left")
	if start, end := e.TopicOffsets("E2E.FLUSH"); start[0] != end[0] {
		t.Fatalf("after the flush: start %v end %v", start, end)
	}
}

// TestCommandHistoryAcrossRuns: `:` ↑ brings back the last command of
// this run or of the one before (the history file in the XDG state dir),
// and never quits.
func TestCommandHistoryAcrossRuns(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	hist := filepath.Join(t.TempDir(), "ilinkdash", "history")
	d := startDash(t, e, dashOpts{history: hist})
	d.keys(":", "up", "enter") // nothing yet: no wrap to quit
	d.command("groups")
	d.waitText(" 3 Groups ")
	d.command("cluster")
	d.waitText("Cluster")
	d.quit()

	d2 := startDash(t, e, dashOpts{history: hist})
	// The history file is read by a command started with the first
	// poll's; once the poll has answered, the (local) read is done.
	d2.waitText("● nodes")
	d2.keys(":", "up")
	d2.waitText(":cluster")
	d2.keys("up")
	d2.waitText(":groups")
	d2.keys("up", "up") // stays on the oldest
	d2.waitText(":groups")
	d2.keys("enter")
	s := d2.waitText(" 3 Groups ")
	if !strings.Contains(s, "Groups") {
		t.Fatal("↑ enter did not run :groups")
	}
}

// TestPublishToAMissingTopic: the publish stops at the first
// MIMQE_UNKNOWN_TOPIC instead of failing every record, and offers to
// create the topic; once created, the same records are published.
func TestPublishToAMissingTopic(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	d := startDash(t, e, dashOpts{})
	d.command("publish E2E.MISSING")
	d.waitText("Publish to E2E.MISSING")
	d.keys("enter") // edit the key (the form opens navigating)
	for range 4 {   // Key (focused), Value, File, Headers → Count
		d.keys("tab")
	}
	d.typeText("5000") // replaces the selected default 1
	d.waitText("Count        5000")
	d.keys("enter")
	d.waitText("Send 5,000 records to E2E.MISSING?")
	d.keys("enter") // confirm
	s := d.waitText("Topic E2E.MISSING does not exist", "stopped at the first MIMQE_UNKNOWN_TOPIC")
	if !strings.Contains(s, "of 5,000 records not published") {
		t.Fatalf("dialog:\n%s", s)
	}
	d.keys("enter") // edit Partitions
	d.typeText("2") // partitions (the default 3 is selected)
	d.keys("enter")
	d.waitText("Create E2E.MISSING: 2 partitions")
	d.keys("enter")
	d.waitText("5,000/5,000 acknowledged", "✓ done")
	if _, end := e.TopicOffsets("E2E.MISSING"); len(end) != 2 || end[0]+end[1] != 5000 {
		t.Fatalf("E2E.MISSING: end offsets %v, want 2 partitions holding 5,000 records", end)
	}
}
