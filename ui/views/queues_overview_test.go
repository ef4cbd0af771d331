package views_test

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/views"
)

func TestQueuesListAndDetail(t *testing.T) {
	r := newRig(t, false, queuesView)
	r.poll()
	r.step(5)
	r.mustShow("4 queues", "AUDIT.ARCHIVE", "93%", "get off", "1 ≥ 90% full")
	r.key("enter")
	r.mustShow("Queue AUDIT.ARCHIVE", "audit records waiting for the archiver", "max depth 10,000", "persistent", "Messages", "browsing 30 of 30")
	r.key("esc")
	r.mustShow("ORDERS.IN")
	// A click on an already selected row opens it.
	r.send(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 3})
	r.send(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 3})
	r.mustShow("Queue ORDERS.IN")
}

func TestOverviewAlerts(t *testing.T) {
	r := newRig(t, false, overviewView)
	r.poll()
	r.mustShow("DEMO", "engine 7.0.1.3552", "leader node 1 (QM1)", "3 nodes", "5 topics", "4 queues", "6 groups",
		"records in", "1 partition under-replicated in PAYMENT.RESULT")
	r.step(12)
	r.mustShow("group audit-archiver stalled", "group payment-audit lagging since", "group reporting-batch stopped")
	// The leader goes down: node down + leader change with times.
	r.src.SetNodeState(1, admin.NodeDown)
	r.step(1)
	r.mustShow("node 1 (QM1) down since 10:00:26", "10:00:26 leader changed: node 1 (QM1) → node 2 (QM2)", "(1 down)")
	s := r.screen()
	if strings.Index(s, "node 1 (QM1) down") > strings.Index(s, "leader changed") {
		t.Fatal("errors should come before informational events")
	}
	alerts := r.v.(*views.Overview).Alerts()
	if len(alerts) < 4 {
		t.Fatalf("alerts: %+v", alerts)
	}
	// Leader changes older than 15 minutes drop out.
	r.src.SetNodeState(1, admin.NodeRunning)
	r.now = r.now.Add(16 * time.Minute)
	r.poll()
	r.mustNotShow("leader changed", "down since")
}
