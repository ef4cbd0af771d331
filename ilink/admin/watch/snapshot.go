package watch

import (
	"strings"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
)

// ListState is how one list's polls stand.
type ListState struct {
	// Polled: the Source reads this list.
	Polled bool
	// OKAt is when its latest good answer arrived (zero: none yet).
	OKAt time.Time
	// Err is the latest poll's error (nil when it answered), failing
	// since ErrSince.
	Err      error
	ErrSince time.Time
}

// Snapshot is the watcher's view after one answer: each list's latest
// data, the health of every group and the alerts, as the dashboard's
// Overview and Groups tab would show them. It is immutable (shared by
// every reader).
type Snapshot struct {
	// Seq numbers the snapshots in the order they were made (OnSnapshot
	// may hear two lists' snapshots out of order: keep the latest).
	Seq     uint64
	Context string
	Target  string
	Health  health.Config

	Lists      [NumLists]ListState
	StaleAfter [NumLists]time.Duration

	Nodes      []admin.NodeInfo
	Definition admin.ClusterProperty
	Topics     []admin.TopicInfo
	// Groups are the monitor's statuses, by name: the latest group list's
	// groups and the durable groups missing from it that it still tracks
	// (Unlisted set). They carry no partition statuses (Partitions nil,
	// health.Monitor.NoPartitionStatuses): a partition's lag is
	// Info.Partitions[i].Lag().
	Groups []health.GroupStatus
	Queues []admin.QueueInfo
	// Alerts are the monitor's alerts of the latest lists, with the
	// unreachable alert first while the latest poll of a list could not
	// reach the cluster: the Overview's list. An alert's list may be
	// stale: see Fresh and AlertList.
	Alerts []health.Alert
}

// Fresh reports whether list l's data can be told as the cluster's state
// now: its latest poll answered and the answer is younger than three
// polling intervals ("never health without fresh data", docs/HEALTH.md).
func (s *Snapshot) Fresh(l List, now time.Time) bool {
	st := s.Lists[l]
	return st.Polled && st.Err == nil && !st.OKAt.IsZero() && now.Sub(st.OKAt) <= s.StaleAfter[l]
}

// Reachable reports whether the cluster was reached: some list answered,
// and no list's latest poll failed to reach it (a refused or lost
// connection, no answer in time). An engine answering with an error was
// reached.
func (s *Snapshot) Reachable() bool {
	answered := false
	for _, st := range s.Lists {
		if st.Err != nil && health.Unreachable(st.Err) {
			return false
		}
		answered = answered || !st.OKAt.IsZero()
	}
	return answered
}

// unreachable is the alert of a cluster the latest polls could not reach,
// failing since the earliest of them.
func (s *Snapshot) unreachable() (health.Alert, bool) {
	var since time.Time
	var why error
	for _, st := range s.Lists {
		if st.Err != nil && health.Unreachable(st.Err) && (why == nil || st.ErrSince.Before(since)) {
			since, why = st.ErrSince, st.Err
		}
	}
	if why == nil {
		return health.Alert{}, false
	}
	return health.UnreachableAlert(s.Target, health.ReachReason(why), since), true
}

// AlertList is the list an alert of kind k is judged from: its alert
// lasts only while that list is fresh. The unreachable alert is judged
// from the polls themselves (ok false).
func AlertList(k health.Kind) (l List, ok bool) {
	switch {
	case k == health.KindUnreachable:
		return 0, false
	case k == health.KindOffline || k == health.KindUnderReplicated:
		return Topics, true
	case k == health.KindQueueFull || k == health.KindQueueDepth || k == health.KindDLQGrowing:
		return Queues, true
	case strings.HasPrefix(string(k), "group-"):
		return Groups, true
	}
	return Nodes, true // node-down, node-syncing, node-absent, node-removed, no-leader
}
