package e2e

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
)

// TestSeekDoesNotInflateTheRate: a durable group without a member (EMPTY
// after the seek) is seeked to the latest offsets from outside the
// dashboard; its commits jump by the whole lag between two polls. The
// groups table's RATE/s is consumption, and nobody consumed: it stays 0
// while the jump is inside the window (before the fix the jump read as
// hundreds of records per second, the repro's "RATE/s 906"), and the row
// says EMPTY with lag 0.
func TestSeekDoesNotInflateTheRate(t *testing.T) {
	t.Parallel()
	const topic, group = "E2E.SEEKRATE", "e2e-legacy"
	e, q := topicWithRecords(t, topic, "partitions=2,replicas=2", 400)
	idleGroup(t, e, group, topic, 1)

	d := startDash(t, e, dashOpts{})
	d.keys("3")
	d.waitFor("the idle group STOPPED with its lag and no rate", func(s string) bool {
		f := groupRow(s, group)
		return f != nil && f[4] == "398" && f[len(f)-1] == "STOPPED" && (f[len(f)-2] == "0" || f[len(f)-2] == "-")
	})

	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := q.SeekGroup(ctx, group, "", admin.SeekTarget{Latest: true}); err != nil {
		t.Fatalf("seek: %v", err)
	}
	d.markNow()
	// Every frame from the seek on, until three polls showed the group
	// caught up: the rate is never more than 0 (the window, 10 s, holds the
	// jump all that time).
	seen := 0
	d.waitFor("three polls of the seeked group", func(s string) bool {
		f := groupRow(s, group)
		if f == nil {
			return false
		}
		if r := f[len(f)-2]; r != "0" && r != "-" {
			t.Fatalf("after the seek the group's RATE/s is %s (a seek is not consumption):\n%s", r, s)
		}
		if f[4] == "0" && f[len(f)-1] == "EMPTY" {
			seen++
		}
		return seen >= 3 && strings.Contains(s, group)
	})
}
