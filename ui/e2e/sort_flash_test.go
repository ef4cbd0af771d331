package e2e

import (
	"strings"
	"testing"
)

// On the real engine: shift+letter sorts the topics by the column of that
// letter (PART's is A: P puts messages), again reverses; M on the queue
// list flashes why it does nothing.
func TestShiftSortAndRefusalFlash(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "E2E.SORT.FEW", "partitions=1,replicas=1")
	createTopic(t, e, "E2E.SORT.MANY", "partitions=5,replicas=1")
	d := startDash(t, e, dashOpts{})
	d.keys("2")
	d.waitText("E2E.SORT.FEW", "E2E.SORT.MANY")
	d.keys("A")
	s := d.waitText("PART↓")
	if strings.Index(s, "E2E.SORT.MANY") > strings.Index(s, "E2E.SORT.FEW") {
		t.Fatalf("PART↓ puts the 5-partition topic first:\n%s", s)
	}
	d.keys("A")
	s = d.waitText("PART↑")
	if strings.Index(s, "E2E.SORT.FEW") > strings.Index(s, "E2E.SORT.MANY") {
		t.Fatalf("PART↑ puts the 1-partition topic first:\n%s", s)
	}
	d.keys("5")
	d.waitText("NAME", "DEPTH")
	d.keys("M")
	s = d.waitText("open a queue first (enter): M acts on the open queue")
	if h := hint(s); !strings.Contains(h, "open a queue first") {
		t.Fatalf("the refusal is not on the hint line: %q", h)
	}
}
