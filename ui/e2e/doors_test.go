package e2e

import (
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// doorsSetup: a topic of three partitions with ten records each and a
// stopped group lagging most on partition 2 (committed 4 there, 9 on the
// others): the overview's one alert is about that group.
func doorsSetup(t *testing.T) (*engine.Engine, *dash) {
	e, _ := topicWithRecords(t, "E2E.DOORS", "partitions=3,replicas=1", 30) // round-robin: 10 in each
	commitEach(t, e, "e2e-doors", "E2E.DOORS", map[int32]int64{0: 9, 1: 9, 2: 4})
	if c := e.GroupCommits("e2e-doors")["E2E.DOORS"]; c[2] != 4 || c[0] != 9 {
		t.Fatalf("setup: commits %v", c)
	}
	return e, startDash(t, e, dashOpts{})
}

// tabBar is the screen's first line.
func tabBar(screen string) string {
	first, _, _ := strings.Cut(screen, "\n")
	return first
}

// TestDrillDownAlertGroupPartitionTail walks the operator's path on a
// real engine (issue 23, DOORS): enter on the overview's group alert
// opens the group's detail with the cursor on the partition it lags most
// on; `t` there tails that one partition from the committed offset; esc
// esc walks back to the overview, the breadcrumb shrinking at each step.
func TestDrillDownAlertGroupPartitionTail(t *testing.T) {
	t.Parallel()
	_, d := doorsSetup(t)
	d.waitText("Alerts (1)", "group e2e-doors stopped")
	d.waitText("enter open")

	d.press("enter")
	screen := d.waitText("Group e2e-doors", "COMMITTED", "Overview › group e2e-doors")
	if !strings.Contains(tabBar(screen), "Overview › group e2e-doors") {
		t.Fatalf("the breadcrumb is not in the tab bar:\n%s", screen)
	}
	d.waitText("t tail partition (from commit)")

	// The cursor is on partition 2 (committed 4): t tails it from there.
	d.press("t")
	d.waitText("Tail E2E.DOORS", "one partition, no group · from offset 4 of E2E.DOORS partition 2", "Overview › group e2e-doors › partition 2")
	// The records shown are partition 2's from offset 4 on: six of them.
	screen = d.waitFor("partition 2's records from offset 4", func(s string) bool {
		return strings.Contains(s, "value-") && countRecordRows(s, "E2E.DOORS") == 6
	})
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && strings.Contains(l, "value-") && !(f[1] == "2" || f[0] == "2" || strings.Contains(l, " 2 ")) {
			t.Fatalf("a record of another partition in the one-partition tail: %q\n%s", l, screen)
		}
	}

	d.press("esc")
	screen = d.waitText("Group e2e-doors", "Overview › group e2e-doors")
	if strings.Contains(tabBar(screen), "partition 2") {
		t.Fatalf("the breadcrumb did not shrink:\n%s", screen)
	}
	d.press("esc")
	screen = d.waitText("Alerts (1)", "group e2e-doors stopped")
	if strings.Contains(tabBar(screen), "›") {
		t.Fatalf("a breadcrumb is left on the overview:\n%s", screen)
	}
}

// countRecordRows counts the tail's record rows (lines naming topic and
// carrying a value).
func countRecordRows(screen, topic string) int {
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "value-") {
			n++
		}
	}
	return n
}

// TestDrillDownConsumerRowAndNode: enter on a topic's consumer row opens
// that group's detail; on the overview, v then enter on a node row opens
// it on the Cluster tab (the cursor on that node).
func TestDrillDownConsumerRowAndNode(t *testing.T) {
	t.Parallel()
	_, d := doorsSetup(t)
	d.findOn("2", "E2E.DOORS")
	d.keys("enter")
	d.waitText("Topic E2E.DOORS", "Partitions (3)")
	d.keys("v")
	d.waitText("e2e-doors", "enter open")
	d.press("enter")
	d.waitText("Group e2e-doors", "COMMITTED", "Topics › group e2e-doors")
	d.press("esc")
	d.waitText("Topic E2E.DOORS")

	d.keys("1")
	d.waitText("Alerts (1)")
	d.keys("v", "j")
	d.press("enter")
	screen := d.waitText("Overview › node 2", "nodes · 2/3")
	if !strings.Contains(tabBar(screen), "Cluster") {
		t.Fatalf("not on the Cluster tab:\n%s", screen)
	}
}
