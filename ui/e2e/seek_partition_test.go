package e2e

import (
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// The seek dialog on a real engine (issue 22, defect 10): TOPIC:P@OFFSET
// moves that one partition and no other; P@OFFSET on "all topics" asks
// for the topic instead of pointing at a CLI that refused it; and the
// apply moves exactly the previewed offsets, not "latest" resolved again
// after records arrived between the preview and the apply.
func TestSeekDialogOnePartitionAndThePreviewedOffsets(t *testing.T) {
	t.Parallel()
	const topic = "E2E.SP"
	e, q := topicWithRecords(t, topic, "partitions=3,replicas=1", 30) // round-robin: 10 records in each partition
	idleGroup(t, e, "e2e-sp", topic, 1)

	d := startDash(t, e, dashOpts{})
	d.keys("3")
	d.waitFor("e2e-sp in the groups table", func(s string) bool { return groupRow(s, "e2e-sp") != nil })
	d.openRow("e2e-sp")
	d.waitText("Group e2e-sp", "COMMITTED")

	d.keys("o")
	d.waitText("Seek group e2e-sp", "To    earliest")
	d.keys("enter") // edit To
	d.typeText("2@5")
	d.keys("enter")
	screen := d.waitText("To: 2@5 moves one partition: choose its topic above")
	if strings.Contains(screen, "ilinkdash group seek") {
		t.Fatalf("the dialog still sends the operator to the CLI:\n%s", screen)
	}
	d.keys("ctrl+u")
	d.typeText(topic + ":2@5")
	d.press("enter")
	screen = d.waitText("Seek e2e-sp — preview", "on E2E.SP to offset 5 of partition 2", "E2E.SP [2]  1 → 5", "1 partition;")
	if strings.Contains(screen, "E2E.SP [0]") || strings.Contains(screen, "E2E.SP [1]") {
		t.Fatalf("the preview moves other partitions:\n%s", screen)
	}
	applySeek(t, d, e, "e2e-sp: 1 offset moved as previewed", "after the one-partition seek", 1, 1, 5)

	// Preview "latest" (10 everywhere), then more records arrive; the
	// apply moves to the 10s the preview showed, not to the new ends.
	d.keys("o")
	d.waitText("Seek group e2e-sp")
	d.seekTo("latest")
	d.waitText("Seek e2e-sp — preview", "E2E.SP [0]  1 → 10", "E2E.SP [2]  5 → 10")
	publishN(t, q, topic, 3)
	if _, ends := e.TopicOffsets(topic); ends[0] != 11 || ends[2] != 11 {
		t.Fatalf("ends after the late records: %v", ends)
	}
	applySeek(t, d, e, "e2e-sp: 3 offsets moved as previewed", "after applying the preview (the previewed offsets)", 10, 10, 10)
}

// applySeek applies the seek previewed (enter), waits for its outcome
// done and checks e2e-sp's commits on E2E.SP are want, partition by
// partition.
func applySeek(t *testing.T, d *dash, e *engine.Engine, done, when string, want ...int64) {
	t.Helper()
	d.press("enter")
	d.waitText(done)
	c := e.GroupCommits("e2e-sp")["E2E.SP"]
	for p, w := range want {
		if c[int32(p)] != w {
			t.Fatalf("commits %s: %v, want %v", when, c, want)
		}
	}
}
