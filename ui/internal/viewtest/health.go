package viewtest

import (
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tab"
)

// The health tests drive the overview and the groups view by hand (no
// rig): one tracker, lists made up poll by poll. These are their lists.

// GroupOnT is a durable group on the one partition of topic T, committed
// at c of end; with no member it is empty.
func GroupOnT(name string, members int, c, end int64) admin.GroupInfo {
	st := admin.GroupStable
	if members == 0 {
		st = admin.GroupEmpty
	}
	return admin.GroupInfo{Name: name, State: st, Members: members, Topics: []string{"T"}, Durable: true,
		Partitions: []admin.PartitionOffsets{{Topic: "T", Partition: 0, Committed: c, LogStart: 0, End: end}}}
}

// PollAt is the time of the i-th poll: 2 s apart from fakes.Epoch.
func PollAt(i int) time.Time { return fakes.Epoch.Add(time.Duration(i) * 2 * time.Second) }

// FeedLists gives tr (when there is one) and then v fresh node, topic and
// queue lists at `at` (one node of QM1, topic T, queue Q1), as the root's
// fan-out does.
func FeedLists(tr *tab.HealthTracker, v common.View, at time.Time) {
	for _, m := range []common.DataMsg{
		{Res: common.ResSummary, At: at, Data: tab.ClusterSummary{QueueManager: "QM1", Leader: 1,
			Nodes: []admin.NodeInfo{{ID: 1, QueueManager: "QM1", Role: admin.RoleLeader, State: admin.NodeRunning}}}},
		{Res: common.ResTopics, At: at, Data: []admin.TopicInfo{{Name: "T", Partitions: 1}}},
		{Res: common.ResQueues, At: at, Data: []admin.QueueInfo{{Name: "Q1"}}},
	} {
		if tr != nil {
			tr.Observe(m)
		}
		v.Update(m)
	}
}
