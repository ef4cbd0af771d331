package ui

import (
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

// The root feeds the one health tracker each polled list once, as it fans
// the list out; the overview and the groups view, which share it, only
// read it (they used to feed it too, and the tracker dropped the repeat
// by comparing slice pointers).
func TestTrackerFedOncePerList(t *testing.T) {
	h := newHarness(t, 120, 40)
	before := h.m.health.Lists()
	lists := []common.DataMsg{
		{Res: common.ResGroups, At: h.Now, Data: []admin.GroupInfo{{Name: "g", State: "Stable", Members: 1, Durable: true}}},
		{Res: common.ResTopics, At: h.Now, Data: []admin.TopicInfo{{Name: "T", Partitions: 1}}},
		{Res: common.ResQueues, At: h.Now, Data: []admin.QueueInfo{{Name: "Q"}}},
		{Res: common.ResSummary, At: h.Now, Data: tab.ClusterSummary{QueueManager: "QM1"}},
	}
	for _, m := range lists {
		h.m.fanOut(m)
	}
	if got := h.m.health.Lists() - before; got != len(lists) {
		t.Fatalf("the tracker took in %d lists for %d fanned out", got, len(lists))
	}
	if h.m.health.Row("g") == nil {
		t.Fatal("the group fanned out is not in the tracker")
	}
}
