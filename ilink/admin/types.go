// Package admin is the iLink admin client: the admin service connection,
// per-queue-manager administration, groups, cluster definition and
// replication status, returning typed values (and the raw text forms the
// spec documents). Read-only mode is enforced here, before anything is sent.
package admin

import "time"

// QmgrInfo is one queue manager hosted by an admin service (getQmgrList).
type QmgrInfo struct {
	Name      string
	Running   bool
	DataAddr  string // its listener, host:port
	Clustered bool
	Cluster   string
}

// NodeRole is a node's role in the clustered queue manager.
type NodeRole string

const (
	RoleLeader   NodeRole = "leader"
	RoleFollower NodeRole = "follower"
	RoleNone     NodeRole = "none" // down, or no leader elected
)

// NodeState is a node's run state.
type NodeState string

const (
	NodeRunning NodeState = "running"
	NodeStopped NodeState = "stopped" // queue manager stopped, admin listener up
	NodeDown    NodeState = "down"    // unreachable
	NodeSyncing NodeState = "syncing" // catching up after a restart
)

// NodeInfo is one cluster node as the dashboard shows it.
type NodeInfo struct {
	ID           int
	QueueManager string
	DataAddr     string
	AdminAddr    string
	Role         NodeRole
	State        NodeState
	Partitions   int   // partitions it leads
	LagRecords   int64 // replication lag behind the leaders, summed over its follower replicas
	Lag          time.Duration
}

// TopicInfo is one row of the topic list.
type TopicInfo struct {
	Name             string
	Internal         bool // SYSTEM.*
	Partitions       int
	Replicas         int
	MinSync          int
	RetentionMs      int64 // 0 = forever
	RetentionBytes   int64 // per partition, 0 = unlimited
	Epoch            int32
	UnderReplicated  int // partitions whose in-sync set is smaller than the replica set
	Offline          int // partitions without a leader
	StartOffsetSum   int64
	EndOffsetSum     int64
	RecordsInPerSec  float64 // over the last 10 s
	RecordsOutPerSec float64
	BytesInPerSec    float64
	BytesOutPerSec   float64
}

// PartitionInfo is one partition of a topic description.
type PartitionInfo struct {
	Partition     int32
	Leader        int // 0 = none
	LeaderEpoch   int32
	Replicas      []int
	InSync        []int
	StartOffset   int64
	EndOffset     int64 // log end on the leader
	HighWatermark int64 // committed (replicated to the in-sync set)
}

// PreferredLeader is the partition's preferred leader: the first replica
// of its placement (0 when it has none). Rebalancing moves leadership
// back to it.
func (p PartitionInfo) PreferredLeader() int {
	if len(p.Replicas) == 0 {
		return 0
	}
	return p.Replicas[0]
}

// TopicDescription is describe topic.
type TopicDescription struct {
	TopicInfo
	PartitionList []PartitionInfo
}

// QueueProperty is ILQueueProperty: the field list is ours (the spec does
// not give one); accessors are generated from field names in the real API.
type QueueProperty struct {
	Name        string
	Description string
	MaxDepth    int64 // 0 = unlimited
	MaxMsgSize  int
	PutEnabled  bool
	GetEnabled  bool
	Persistent  bool
	Created     time.Time
	// DeadLetterQueue receives the messages returned to this queue more
	// than MaxRedeliveries times ("" and 0 = none).
	DeadLetterQueue string
	MaxRedeliveries int
}

// QueueInfo is one row of the queue list.
type QueueInfo struct {
	Name     string
	Depth    int64
	InFlight int64 // taken by transacted gets, not yet committed
	PutRate  float64
	GetRate  float64
	Property QueueProperty
}

// GroupState uses Kafka's vocabulary plus Dead for unknown groups
// (spec: describeGroup of an unknown group returns state Dead).
type GroupState string

const (
	GroupStable              GroupState = "Stable"
	GroupPreparingRebalance  GroupState = "PreparingRebalance"
	GroupCompletingRebalance GroupState = "CompletingRebalance"
	GroupEmpty               GroupState = "Empty"
	GroupDead                GroupState = "Dead"
)

// GroupInfo is ILGroupInfo: one row of getGroupList.
type GroupInfo struct {
	Name       string
	State      GroupState
	Members    int
	Topics     []string // its members' subscriptions and the topics it has commits on
	Durable    bool
	Generation int32
	// Partitions are every partition of every topic of Topics, sorted by
	// topic and partition, with what its lag is computed from (Lag).
	Partitions []PartitionOffsets
}

// Lag is the group's lag over every partition of its topics (GroupLag).
func (g GroupInfo) Lag() LagTotal { return GroupLag(g.Partitions) }

// TopicPartitions lists partitions of one topic.
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}

// GroupMember is ILGroupMember.
type GroupMember struct {
	MemberID   string
	ClientName string
	Host       string
	Assignment []TopicPartitions
	LastSeen   time.Time
}

// GroupOffset is ILGroupOffset: one partition of a group, with the member
// that holds it ("" = none). Its lag is PartitionOffsets.Lag.
type GroupOffset struct {
	PartitionOffsets
	MemberID string
}

// GroupDescription is ILGroupDescription.
type GroupDescription struct {
	Name        string
	State       GroupState
	Generation  int32
	Coordinator int
	Durable     bool
	Members     []GroupMember
	Offsets     []GroupOffset
}

// SeekTarget says where SeekGroup moves a group.
type SeekTarget struct {
	Earliest bool
	Latest   bool
	Offset   int64 // used when neither Earliest nor Latest nor Time
	// Time, when not zero, moves to the first offset at or after it
	// (LIST_OFFSETS rules; the end offset when nothing is that recent).
	Time time.Time
	// Partitions, with a topic, moves only these partitions of it (a
	// P@OFFSET seek names one); nil = every partition.
	Partitions []int32
	// Planned, when not empty, is a preview's changes (PlanSeekGroup):
	// SeekGroup applies exactly their New offsets instead of resolving
	// the target again, so the seek does what the preview showed
	// (SeekDifferences says where the engine's result differs).
	Planned []OffsetChange
}

// OffsetChange is one planned or applied change of a committed offset,
// with the partition's log start and end when the engine computed it.
type OffsetChange struct {
	Topic     string
	Partition int32
	Old       int64 // -1 = no commit
	New       int64
	LogStart  int64 // -1 = unknown
	End       int64 // -1 = unknown
}

// SubscriptionLine is one line of getSubscriptionList:
// group|state|partition|commit|lag|members=N.
type SubscriptionLine struct {
	Group     string
	State     GroupState
	Partition int32
	Commit    int64 // -1 = assigned but never committed
	Lag       int64 // -1 likewise
	Members   int
}

// ClusterNode is ILClusterNode: (qmgr, host, listener port, ilcc port).
type ClusterNode struct {
	Number       int
	QueueManager string
	Host         string
	Port         int
	IlccPort     int
}

// ClusterProperty is the cluster definition (getClusterProperty). Replicas
// and MinSync are 0 when unset.
type ClusterProperty struct {
	Name      string
	IlccPort  int
	Version   int64 // definition version; changes must carry the version they were read at
	Replicas  int
	MinSync   int
	Placement bool
	AutoStart bool
	Nodes     []ClusterNode
}

// ClusterPropertyChange is setClusterProperty's argument. A nil field is
// "blank: leave as is"; a pointer to 0 clears Replicas or MinSync.
type ClusterPropertyChange struct {
	BaseVersion int64
	Replicas    *int
	MinSync     *int
	Placement   *bool
	AutoStart   *bool
}

// NodeReplication is one node in the replication status.
type NodeReplication struct {
	ID           int
	QueueManager string
	Role         NodeRole
	State        NodeState
	LagRecords   int64
	Lag          time.Duration
}

// FollowerLag is one follower replica of a partition.
type FollowerLag struct {
	Node       int
	InSync     bool
	LagRecords int64
	Lag        time.Duration
}

// PartitionReplication is one partition in the replication status.
type PartitionReplication struct {
	Topic     string
	Partition int32
	Leader    int
	InSync    []int
	Followers []FollowerLag
}

// ReplicationStatus is getReplicationStatus.
type ReplicationStatus struct {
	Cluster    string
	Leader     int
	Nodes      []NodeReplication
	Partitions []PartitionReplication
}

// StatPoint is one second of a stat series.
type StatPoint struct {
	Time       time.Time
	RecordsIn  float64 // per second
	RecordsOut float64
	BytesIn    float64
	BytesOut   float64
}

// StatSeries is getStatSeries: per topic or per queue manager, the last
// 15 minutes at 1 s resolution, oldest first.
type StatSeries struct {
	Scope      string // topic name, or "" for the whole queue manager
	Resolution time.Duration
	Points     []StatPoint
}

// LeadRow is one row of the leadership table (VIEW CLUSTER LEADERS, ILLT1).
// Which fields a row fills depends on Kind (docs/PROTOCOL.md, lead table):
//
//	node:      Node, Role, State, Epoch
//	partition: Topic, Partition, Node (leader, 0 = none), Epoch (leader epoch), Replicas, InSync
//	bundle:    Bundle, Node (leader), Epoch, Members
//	election:  Time, Forced, Scope ("cluster" or "partition"), Topic (partition scope) or
//	           Bundle (cluster name, cluster scope), Partition (-1 unless partition scope),
//	           From, Node (the new leader), Detail (reason)
//	offline:   Scope ("node", "partition" or "bundle"), Node / Topic+Partition / Bundle, Time (since; zero = unknown)
type LeadRow struct {
	Kind      string // "node", "partition", "bundle", "election", "offline"
	Node      int
	Topic     string
	Partition int32
	Bundle    string
	Epoch     int32
	Detail    string

	Role     NodeRole
	State    NodeState
	Replicas []int
	InSync   []int
	Members  []int
	Scope    string
	Forced   bool
	From     int
	Time     time.Time
}

// ClusterLeadTable is getClusterLeadTableParsed.
type ClusterLeadTable struct {
	Format string // "ILLT1"
	Rows   []LeadRow
}

// PublishResult is admin publish's (offset, timestamp, partition).
type PublishResult struct {
	Offset    int64
	Timestamp time.Time
	Partition int32
}

// LoadInfo is getLoadMonitoringInfo (VIEW LOAD 3204). Level 0 fills the
// totals, 1 also Nodes, 2 also Queues. Text gives the stable text form.
type LoadInfo struct {
	Level          int
	At             time.Time
	Sessions       int // open client connections, data and admin, on every node
	Requests       int64
	RequestsPerSec float64
	Topics         int
	Partitions     int
	Queues         int
	QueueDepth     int64
	Nodes          []NodeLoad
	QueueLoad      []QueueLoad
}

// NodeLoad is one node of LoadInfo.
type NodeLoad struct {
	ID             int
	Up             bool
	Running        bool
	Leader         bool
	DataSessions   int
	AdminSessions  int
	Requests       int64
	RequestsPerSec float64
	PartitionsLed  int
}

// QueueLoad is one queue of LoadInfo (level 2).
type QueueLoad struct {
	Name     string
	Depth    int64
	InFlight int64
	PutRate  float64
	GetRate  float64
}

// QuarantineReinjectResult is ILQuarantineReinjectResult: how many
// messages were appended to the queue's tail, the node that led the queue
// state, and why reinjection stopped early ("" = it did not).
type QuarantineReinjectResult struct {
	Count      int64
	Leader     int
	StopReason string
	// By id (ReinjectQuarantineIDs): the ids no selected entry had, and
	// the selected entries the ids did not name (left in the quarantine).
	Missing [][]byte
	Left    int64
}

// SpokeProperty is ILSpokeProperty: a spoke attached to a hub.
type SpokeProperty struct {
	Name          string
	Key           string
	Running       bool // its link to the hub is up (isRunning())
	QueueManagers []string
}
