package e2e

import (
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// sent is how many records topic holds (its end offsets summed).
func sent(e *engine.Engine, topic string) int64 {
	_, end := e.TopicOffsets(topic)
	var n int64
	for _, o := range end {
		n += o
	}
	return n
}

// hint is the frame's hint line (above the status bar).
func hint(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) < 2 {
		return ""
	}
	return lines[len(lines)-2]
}

// TestPublishConfirmsBeforeSending is issue 22's report: `:publish TOPIC`
// opened the form editing the key while the hint line offered `: command ·
// q quit`, the typed `:publish NOPE` went into the key, and enter sent at
// once with the count kept from the last run (100,000,000). Now the form
// opens navigating, `:` is the command line, enter edits a field, and a
// run starts only from a confirmation that names count, rate and size.
func TestPublishConfirmsBeforeSending(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "E2E.PUBCONF", "partitions=2,replicas=1")
	d := startDash(t, e, dashOpts{})
	d.command("publish E2E.PUBCONF")
	s := d.waitText("Publish to E2E.PUBCONF", "▸ Key", "navigating")
	if h := hint(s); !strings.Contains(h, "enter/e edit field") || !strings.Contains(h, ": command") {
		t.Fatalf("navigating hint line %q", h)
	}
	// Typing while navigating is no text; enter edits the key and sends
	// nothing.
	d.markNow()
	d.typeText("abc")
	d.waitText("not editing: enter or e edits Key")
	d.keys("enter")
	s = d.waitText("✎ editing Key")
	if h := hint(s); strings.Contains(h, ": command") || strings.Contains(h, "q quit") || !strings.Contains(h, "esc stop editing") {
		t.Fatalf("editing hint line %q: it must offer only the keys that work while editing", h)
	}
	if l, _ := line(s, "Key  "); strings.Contains(l, "abc") {
		t.Fatalf("keys typed while navigating reached the key: %q", l)
	}
	// A count of 100,000,000 and no rate limit: the confirmation says so.
	d.keys("esc", "down", "down", "down", "down", "enter") // edit Count
	d.typeText("100000000")
	d.keys("enter")
	s = d.waitText("Send 100,000,000 records to E2E.PUBCONF?")
	for _, want := range []string{"Count        100,000,000 records", "Rate         no limit", "Size         0B a record",
		"⚠ 100,000,000 records, more than 100,000: check the count.", "⚠ no rate limit", "enter/y send"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the confirmation lacks %q:\n%s", want, s)
		}
	}
	if n := sent(e, "E2E.PUBCONF"); n != 0 {
		t.Fatalf("%d records sent before the confirmation", n)
	}
	d.press("esc")
	d.waitText("not sent: the publish was cancelled")
	if n := sent(e, "E2E.PUBCONF"); n != 0 {
		t.Fatalf("%d records sent after esc on the confirmation", n)
	}
	// `:publish NOPE` while navigating is the command it looks like.
	d.command("publish E2E.NOPE")
	d.waitText("Publish to E2E.NOPE")
	d.markNow() // older frames name E2E.PUBCONF too
	d.command("publish E2E.PUBCONF")
	d.waitText("Publish to E2E.PUBCONF")
	// 100 records at 1,000/s: no warning; enter sends; the result is
	// reported against the plan.
	d.keys("down", "down", "down", "down", "enter") // Count (100,000,000 selected)
	d.typeText("100")
	d.keys("tab") // Rate, still editing
	d.typeText("1000")
	d.keys("enter")
	s = d.waitText("Send 100 records to E2E.PUBCONF?", "Count        100 records", "Rate         1")
	if strings.Contains(s, "⚠") {
		t.Fatalf("a warning for 100 records at 1,000/s:\n%s", s)
	}
	d.press("enter")
	d.waitText("100 planned, 100 acknowledged", "✓ done")
	if n := sent(e, "E2E.PUBCONF"); n != 100 {
		t.Fatalf("E2E.PUBCONF holds %d records, want the 100 confirmed", n)
	}
	if start, end := e.TopicOffsets("E2E.NOPE"); start != nil || end != nil {
		t.Fatal("E2E.NOPE was created or written")
	}
}
