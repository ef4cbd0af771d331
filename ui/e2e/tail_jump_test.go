package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// firstRecord is the first row under the tail's table header.
func firstRecord(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "TIME") && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	return ""
}

// A row at offset 100 of some partition: P, OFFSET, key.
var atOffset100 = regexp.MustCompile(`\s[01]\s+100\s+k-`)

// TestTailJumpIsBackPressure: a jump to an early offset with far more
// records after it than the buffer holds fills the buffer from the target
// and then stops fetching: the first row is the record at the target,
// nothing is dropped, the engine gets no FETCH while the tail holds (the
// header counts what waits beyond the buffer, from end offsets, and the
// count follows new records), and G goes to the end, live.
func TestTailJumpIsBackPressure(t *testing.T) {
	t.Parallel()
	const topic = "E2E.JUMP"
	e := engineWithTopic(t, topic, "partitions=2,replicas=1")
	produce(t, e, topic, 0, 25000)
	fetches := countFetches(t, e)
	d := startDash(t, e, dashOpts{})
	d.tailLive(topic)

	d.keys("o")
	d.waitText("Jump to an offset or a time")
	d.keys("enter") // the dialog opens navigating: enter edits
	d.typeText("100")
	d.keys("enter")
	// Both partitions from offset 100: 24,800 records; the buffer takes
	// 10,000 and the rest wait.
	s := d.waitText("jumped to offset 100 in every partition", "⏸ HELD at the jump · 14,800 newer waiting · space resumes · G: end", "10,000 total", "buffer 10,000/10,000")
	if strings.Contains(s, "dropped") {
		t.Fatalf("records dropped after the jump:\n%s", s)
	}
	d.keys("g")
	d.waitFor("the first row at offset 100", func(s string) bool { return atOffset100.MatchString(firstRecord(s)) })

	// Held: nothing is fetched, however many records arrive; the count
	// of those waiting follows them.
	before := fetches.Load()
	produce(t, e, topic, 25000, 100)
	s = d.waitText("14,900 newer waiting", "10,000 total")
	if n := fetches.Load() - before; n != 0 {
		t.Fatalf("%d FETCH requests reached the engine while the tail held after the jump", n)
	}
	if !atOffset100.MatchString(firstRecord(s)) || strings.Contains(s, "dropped") {
		t.Fatalf("the rows moved while held:\n%s", s)
	}

	// G: to the end, live; the buffer starts again from there.
	d.keys("G")
	d.waitText("temporary group · from the latest records", "● live", "0 total")
	d.markNow()
	produce(t, e, topic, 25100, 1)
	s = d.waitText("k-25100", "1 total")
	if strings.Contains(s, "HELD") || strings.Contains(s, "k-25099") {
		t.Fatalf("after G:\n%s", s)
	}
}

// TestTailPatternWithoutATopicWatches: `:tail NOPE.*` matching no topic
// says so instead of "live", and keeps watching: once NOPE.X is created
// the tail reads it.
func TestTailPatternWithoutATopicWatches(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	d := startDash(t, e, dashOpts{})
	d.command("tail NOPE.*")
	s := d.waitText("Tail NOPE.*", "◌ no topic matches NOPE.* — watching for one", "no topic matches NOPE.* yet")
	if strings.Contains(s, "● live") {
		t.Fatalf("a pattern with no topic says live:\n%s", s)
	}
	createTopic(t, e, "NOPE.X", "partitions=1,replicas=1")
	d.markNow()
	d.waitFor("the tail on NOPE.X", func(s string) bool {
		return strings.Contains(s, "● live") && strings.Contains(s, "1 topic") && !strings.Contains(s, "no topic matches")
	})
	for i := 0; i < 3; i++ {
		produce(t, e, "NOPE.X", i, 1)
	}
	d.waitText("k-0", "k-1", "k-2", fmt.Sprintf("%d total", 3))
}
