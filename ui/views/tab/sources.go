package tab

// The sources. Each tab depends on a small interface defined here, over
// the typed values of package admin, never on a connection, so every tab
// is tested with fakes (package ui/internal/fakes) and the application
// wires adapters from the real admin client.
//
// Polled lists arrive as common.DataMsg from the root's poller; the Data
// type per resource is:
//
//	common.ResSummary     tab.ClusterSummary
//	common.ResStats       admin.StatSeries (scope "")
//	common.ResTopics      []admin.TopicInfo
//	common.ResGroups      []admin.GroupInfo
//	common.ResQueues      []admin.QueueInfo
//	common.ResCluster     admin.ClusterProperty
//	common.ResReplication admin.ReplicationStatus
//	common.ResLeaders     admin.ClusterLeadTable
//
// Details and actions are called by the tabs themselves, inside tea.Cmds,
// with a context that carries a timeout.

import (
	"context"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
)

// ClusterSummary is what the overview shows about the cluster as a whole.
type ClusterSummary struct {
	Cluster       string // cluster name; "" for a standalone queue manager
	QueueManager  string // the queue manager the dashboard is attached to
	EngineVersion string // e.g. "7.0.1.3552"
	Leader        int    // node ID of the cluster leader; 0 = none
	Nodes         []admin.NodeInfo
}

// SummarySource feeds the overview (polled as common.ResSummary).
type SummarySource interface {
	ClusterSummary(ctx context.Context) (ClusterSummary, error)
}

// StatsSource returns a stat series: scope "" is the whole queue manager
// (polled as common.ResStats), a topic name gives that topic (fetched by
// the topic detail).
type StatsSource interface {
	StatSeries(ctx context.Context, scope string) (admin.StatSeries, error)
}

// CompleteSeconds drops a stat series' last point: the current second,
// still counting (PROTOCOL.md, STAT SERIES), whose rate a fraction of a
// second in is a fraction of the real one. Rates "now" and sparklines
// read the complete seconds.
func CompleteSeconds(points []admin.StatPoint) []admin.StatPoint {
	if len(points) > 1 {
		return points[:len(points)-1]
	}
	return points
}

// TopicLister lists topics (polled as common.ResTopics).
type TopicLister interface {
	ListTopics(ctx context.Context) ([]admin.TopicInfo, error)
}

// TopicAdmin is what the topics view calls itself.
type TopicAdmin interface {
	DescribeTopic(ctx context.Context, topic string) (admin.TopicDescription, error)
	// SubscriptionList is getSubscriptionList parsed: one line per group ×
	// partition; an empty slice when no group consumes the topic.
	SubscriptionList(ctx context.Context, topic string) ([]admin.SubscriptionLine, error)
	StatsSource
	CreateTopic(ctx context.Context, spec TopicSpec) error
	DeleteTopic(ctx context.Context, topic string) error
	FlushTopic(ctx context.Context, topic string) error
	// AlterTopic changes properties with ALTER TOPIC's key=value text
	// (admin.PlanTopicAlter builds it): all of them or none.
	AlterTopic(ctx context.Context, topic, props string) error
}

// GroupLister lists groups (polled as common.ResGroups).
type GroupLister interface {
	ListGroups(ctx context.Context) ([]admin.GroupInfo, error)
}

// GroupAdmin is what the groups view calls itself.
type GroupAdmin interface {
	// DescribeGroup of an unknown group returns state Dead, not an error.
	DescribeGroup(ctx context.Context, group string) (admin.GroupDescription, error)
	// SeekGroup moves the group's committed offsets on topic (every topic
	// the group has offsets for when topic is ""). With apply false it only
	// plans: it returns the changes it would make and changes nothing. The
	// engine refuses to apply while the group has active members
	// (MIMQE_GROUP_NOT_EMPTY (N active members)).
	SeekGroup(ctx context.Context, group, topic string, to admin.SeekTarget, apply bool) ([]admin.OffsetChange, error)
	// SeekGroupToTime is SeekGroup to the first offset at or after t.
	SeekGroupToTime(ctx context.Context, group, topic string, t time.Time, apply bool) ([]admin.OffsetChange, error)
	// DeleteGroup deletes the group and its commits; refused with active
	// members.
	DeleteGroup(ctx context.Context, group string) error
}

// ClusterAdmin is the cluster definition and replication status. The
// three reads are polled (common.ResCluster, ResReplication, ResLeaders);
// the writes are called by the cluster view.
type ClusterAdmin interface {
	ClusterProperty(ctx context.Context) (admin.ClusterProperty, error)
	// SetClusterProperty sends change, which carries the definition
	// version it was read at (BaseVersion).
	SetClusterProperty(ctx context.Context, change admin.ClusterPropertyChange) error
	// AddNode adds a node (a read-modify-write of the definition).
	AddNode(ctx context.Context, node admin.ClusterNode) error
	// RemoveNode removes node number n.
	RemoveNode(ctx context.Context, n int) error
	ReplicationStatus(ctx context.Context) (admin.ReplicationStatus, error)
	ClusterLeadTable(ctx context.Context) (admin.ClusterLeadTable, error)
	// RebalanceLeaders moves every partition back to its preferred leader;
	// with apply false it only plans.
	RebalanceLeaders(ctx context.Context, apply bool) (admin.LeaderRebalance, error)
	// MovePartitionLeader makes node lead a partition (a forced election;
	// node 0 = the next in-sync replica).
	MovePartitionLeader(ctx context.Context, topic string, partition int32, node int) error
}

// QueueLister lists queues (polled as common.ResQueues).
type QueueLister interface {
	ListQueues(ctx context.Context) ([]admin.QueueInfo, error)
}

// QueueAdmin is what the queues view calls itself: browse, put and get
// for operators, dead-letter moves and the quarantine.
type QueueAdmin interface {
	// BrowseQueueAt reads one page of a queue without taking its
	// messages: from at.From on, or the page ending before at.Before
	// (admin.BrowseLast: the last page).
	BrowseQueueAt(ctx context.Context, queue string, at admin.BrowseAt) (admin.QueueBrowse, error)
	// PutMessages puts the bodies in order (an auto-commit session), each
	// with headers, and says how many were put: each commits as it goes,
	// so one that fails (a full queue) leaves those before it put.
	PutMessages(ctx context.Context, queue string, bodies [][]byte, headers []wire.RecordHeader) (int, error)
	// TakeMessage gets (removes) the message with id (the one the preview
	// showed; nil = the next); nil when it is no longer there.
	TakeMessage(ctx context.Context, queue string, id []byte) (*admin.QueueMessage, error)
	// MoveMessages plans (apply false) the move of messages of from to to
	// ("" = each dead letter's source) — sel.IDs, nil = every message, the
	// first admin.MaxMoveIDs — or executes a plan (apply true): exactly
	// sel.IDs, the plan's, counting what arrived after sel.PlanNext.
	MoveMessages(ctx context.Context, from, to string, sel admin.MoveSelection, apply bool) (admin.MoveResult, error)
	QuarantineList(ctx context.Context) ([]admin.QuarantineDir, error)
	ScanQuarantine(ctx context.Context, dir, queue string) (admin.QuarantineScan, error)
	// OpenQuarantineEntry reads the entry of dir and queue with id, its
	// headers and body (nil when it is no longer quarantined).
	OpenQuarantineEntry(ctx context.Context, dir, queue string, id []byte) (*admin.QuarantineEntry, error)
	// ReinjectQuarantine reinjects exactly the entries of plan (its ids).
	ReinjectQuarantine(ctx context.Context, plan admin.ReinjectPlan) (admin.QuarantineReinjectResult, error)
}

// Sources is everything the dashboard reads and calls. The application
// implements it with adapters over the admin client; ui/internal/fakes implements
// it with deterministic demo data.
type Sources interface {
	SummarySource
	StatsSource
	Lists
	TopicAdmin
	GroupAdmin
	ClusterAdmin
	QueueAdmin
}

// Lists are the polled lists' readers (declared in lists.go).
type Lists interface {
	TopicLister
	GroupLister
	QueueLister
}
