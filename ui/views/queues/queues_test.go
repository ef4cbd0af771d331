package queues_test

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/internal/viewtest"
)

func TestQueuesListAndDetail(t *testing.T) {
	r := viewtest.Polled(t, false, queuesView)
	r.Step(5)
	r.MustShow("4 queues", "AUDIT.ARCHIVE", "93%", "get off", "1 ≥ 90% full")
	r.Key("enter")
	r.MustShow("Queue AUDIT.ARCHIVE", "audit records waiting for the archiver", "max depth 10,000", "persistent", "Messages", "browsing 30 of 30")
	r.Key("esc")
	r.MustShow("ORDERS.IN")
	// A click on an already selected row opens it.
	r.Send(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 3})
	r.Send(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 3})
	r.MustShow("Queue ORDERS.IN")
}
