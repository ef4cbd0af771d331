package overview_test

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/overview"
)

func TestOverviewAlerts(t *testing.T) {
	r := viewtest.Polled(t, false, overviewView)
	r.MustShow("DEMO", "engine 7.0.1.3552", "leader node 1 (QM1)", "3 nodes", "5 topics", "4 queues", "6 groups",
		"records in", "1 partition under-replicated in PAYMENT.RESULT")
	r.Step(12)
	r.MustShow("group audit-archiver stalled", "group payment-audit lagging since", "group reporting-batch stopped")
	// The leader goes down: node down + leader change with times.
	r.Src.SetNodeState(1, admin.NodeDown)
	r.Step(1)
	r.MustShow("node 1 (QM1) down since 10:00:26", "10:00:26 leader changed: node 1 (QM1) → node 2 (QM2)", "(1 down)")
	s := r.Screen()
	if strings.Index(s, "node 1 (QM1) down") > strings.Index(s, "leader changed") {
		t.Fatal("errors should come before informational events")
	}
	alerts := r.V.(*overview.View).Alerts()
	if len(alerts) < 4 {
		t.Fatalf("alerts: %+v", alerts)
	}
	// Leader changes older than 15 minutes drop out.
	r.Src.SetNodeState(1, admin.NodeRunning)
	r.Now = r.Now.Add(16 * time.Minute)
	r.Poll()
	r.MustNotShow("leader changed", "down since")
}

// A leader that changes at every poll keeps at most 32 changes in the
// alert list (the latest), not one per poll for the 15-minute window.
func TestOverviewLeaderChangesBounded(t *testing.T) {
	r := viewtest.Polled(t, false, overviewView)
	for i := 0; i < 100; i++ {
		// Node 1 and node 2 take turns: every poll sees a new leader.
		down := 1 + i%2
		r.Src.SetNodeState(down, admin.NodeDown)
		r.Poll()
		r.Src.SetNodeState(down, admin.NodeRunning)
	}
	n := 0
	for _, a := range r.V.(*overview.View).Alerts() {
		if strings.Contains(a.Text, "leader changed") {
			n++
		}
	}
	if n == 0 || n > 32 {
		t.Errorf("%d leader changes listed after 100 within the window, want 1..32", n)
	}
}
