package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// Admin request codes (docs/PROTOCOL.md, "Admin"). 2000–2999 are ours; the
// documented iLink codes SHUTDOWN 3002, VIEW LOAD 3204, RELOAD QUEUE 3315,
// PATCH 3335, DIAG CLUSTER 3395, VIEW CLUSTER LEADERS 3423, VIEW QUARANTINE
// 3425, SCAN QUARANTINE 3426 and REINJECT 3427 are declared in codes.go and
// their bodies are defined here. Every admin request is sent on an admin
// connection (HELLO mode 4) except the group admin requests 1310–1314.
const (
	CodeQmgrList      Code = 2000
	CodeNodeList      Code = 2001
	CodeNodeControl   Code = 2002
	CodeForceElection Code = 2003
	CodeRebalance     Code = 2004

	CodeTopicList        Code = 2010
	CodeDescribeTopic    Code = 2011
	CodeAdminCreateTopic Code = 2012
	CodeDeleteTopic      Code = 2013
	CodeFlushTopic       Code = 2014
	CodeAlterTopic       Code = 2015

	CodeQueueList     Code = 2020
	CodeQueueProperty Code = 2021
	CodeDefineQueue   Code = 2022
	CodeDeleteQueue   Code = 2023
	CodeBrowseQueue   Code = 2024
	CodeMoveMessages  Code = 2025

	CodeClusterProperty    Code = 2030
	CodeSetClusterProperty Code = 2031
	CodeAddNode            Code = 2032
	CodeRemoveNode         Code = 2033
	CodeCreateCluster      Code = 2034
	CodeJoinCluster        Code = 2035

	CodeQmgrProperty    Code = 2040
	CodeSetQmgrProperty Code = 2041

	CodeReplicationStatus Code = 2050
	CodeStatSeries        Code = 2051

	CodeSpokeList   Code = 2060
	CodeSpokeSwitch Code = 2061

	// Hub link: sent by a spoke engine to its hub's spoke listener only.
	CodeSpokeRegister Code = 2070
	CodeSpokeWait     Code = 2071
	CodeSpokeAttach   Code = 2072
)

// Group admin request codes. They go to a queue manager's DATA listener
// over a short connection (HELLO mode 3, spec A-10), except SUBSCRIPTION
// LIST which the admin client sends on its admin connection; an engine
// accepts all five on both listeners.
const (
	CodeGroupList        Code = 1310
	CodeDescribeGroup    Code = 1311
	CodeSeekGroup        Code = 1312
	CodeAdminDeleteGroup Code = 1313
	CodeSubscriptionList Code = 1314
)

func init() {
	for c, n := range map[Code]string{
		CodeQmgrList: "QMGR LIST", CodeNodeList: "NODE LIST", CodeNodeControl: "NODE CONTROL",
		CodeForceElection: "FORCE ELECTION", CodeRebalance: "REBALANCE LEADERS",
		CodeDefineQueue: "DEFINE QUEUE", CodeDeleteQueue: "DELETE QUEUE", CodeBrowseQueue: "BROWSE QUEUE",
		CodeMoveMessages: "MOVE MESSAGES",
		CodeTopicList:    "TOPIC LIST", CodeDescribeTopic: "DESCRIBE TOPIC", CodeAdminCreateTopic: "ADMIN CREATE TOPIC",
		CodeDeleteTopic: "DELETE TOPIC", CodeFlushTopic: "FLUSH TOPIC", CodeAlterTopic: "ALTER TOPIC",
		CodeQueueList: "QUEUE LIST", CodeQueueProperty: "QUEUE PROPERTY",
		CodeClusterProperty: "CLUSTER PROPERTY", CodeSetClusterProperty: "SET CLUSTER PROPERTY",
		CodeAddNode: "ADD NODE", CodeRemoveNode: "REMOVE NODE", CodeCreateCluster: "CREATE CLUSTER",
		CodeJoinCluster: "JOIN CLUSTER", CodeQmgrProperty: "QMGR PROPERTY", CodeSetQmgrProperty: "SET QMGR PROPERTY",
		CodeReplicationStatus: "REPLICATION STATUS", CodeStatSeries: "STAT SERIES",
		CodeSpokeList: "SPOKE LIST", CodeSpokeSwitch: "SPOKE SWITCH",
		CodeSpokeRegister: "SPOKE REGISTER", CodeSpokeWait: "SPOKE WAIT", CodeSpokeAttach: "SPOKE ATTACH",
		CodeGroupList: "GROUP LIST", CodeDescribeGroup: "DESCRIBE GROUP", CodeSeekGroup: "SEEK GROUP",
		CodeAdminDeleteGroup: "ADMIN DELETE GROUP", CodeSubscriptionList: "SUBSCRIPTION LIST",
	} {
		RegisterCodeName(c, n)
	}
}

// Error names of the admin surface that are ours (the documented ones,
// MIMQE_INVALID_PROPERTY, MIMQE_CLUSTER_NOT_COMMITTED, MIMQE_CLUSTER_DEF_MOVED,
// MIMQE_CLUSTER_UNREACHABLE and MIMQE_QMGR_NOT_RUNNING, are in errors.go).
const (
	ErrUnknownQmgr    = "MIMQE_UNKNOWN_QMGR"    // ours: queue manager not hosted by this service
	ErrUnknownCluster = "MIMQE_UNKNOWN_CLUSTER" // ours: no such cluster definition
	ErrUnknownSpoke   = "MIMQE_UNKNOWN_SPOKE"   // ours: no spoke of that name or key is attached
	ErrSpokeSwitched  = "MIMQE_SPOKE_SWITCHED"  // ours: the connection already switched once
	ErrUnknownNode    = "MIMQE_UNKNOWN_NODE"    // ours: no node with that id
	ErrNodeState      = "MIMQE_NODE_STATE"      // ours: node control not possible in the node's state
	ErrQueueFull      = "MIMQE_QUEUE_FULL"      // ours: a put or commit would exceed the queue's max depth
)

// Tails of MIMQE_CLUSTER_NOT_COMMITTED (spec K-12..K-14), exactly as iLink
// prints them.
const (
	TailNotCommittedRetry = "not committed - retry"
	TailOutcomeUnknown    = "outcome unknown - check VIEW CLUSTER"
	TailEarlierPending    = "earlier change still pending - retry"
)

// QMGR property keys (engine keys).
const (
	PropSubGroupTimeout = "SUBGROUPTIMEOUT" // subGroupTimeoutSec: 1..300, default 30
)

// LeadTableFormat is the only format version of VIEW CLUSTER LEADERS text.
const LeadTableFormat = "ILLT1"

// ---- compact primitives (docs/PROTOCOL.md "Admin", §A.1) ----

// Varint writes a signed zigzag LEB128 varint (at most 10 bytes).
func (w *Writer) Varint(v int64) { w.B = binary.AppendVarint(w.B, v) }

// Varint reads a signed zigzag varint, which must be minimally encoded
// (no trailing 0x00 group), so every value has one encoding.
func (r *Reader) Varint() int64 {
	start := r.off
	ux := r.Uvarint()
	if r.err != nil {
		return 0
	}
	if r.off-start > 1 && r.b[r.off-1] == 0 {
		r.off = start
		r.err = errors.New("varint is not minimally encoded")
		return 0
	}
	v := int64(ux >> 1) // zigzag, as binary.Varint
	if ux&1 != 0 {
		v = ^v
	}
	return v
}

// F32 writes a float as IEEE-754 binary32 bits, big-endian (rates).
func (w *Writer) F32(v float64) { w.U32(math.Float32bits(float32(v))) }

// F32 reads a binary32 float.
func (r *Reader) F32() float64 { return float64(math.Float32frombits(r.U32())) }

// smallInt reads a varint that must fit an int32 (counts, ids, ports).
func (r *Reader) smallInt() int {
	v := r.Varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.Fail(errors.New("integer out of range"))
		return 0
	}
	return int(v)
}

func encodeInt(id *int, w *Writer) { w.Varint(int64(*id)) }
func decodeInt(id *int, r *Reader) { *id = r.smallInt() }

func writeInts(w *Writer, ids []int) { writeArray(w, ids, encodeInt) }
func readInts(r *Reader) []int       { return readArray(r, 1, decodeInt) }

// ---- generic bodies ----

// QmgrRequest names the queue manager a per-queue-manager request is for.
// Every per-queue-manager request is answered MIMQE_QMGR_NOT_RUNNING
// (<qmgr>) while that queue manager is stopped on the answering node.
type QmgrRequest struct{ Qmgr string }

func (m *QmgrRequest) Encode(w *Writer) { w.String(m.Qmgr) }
func (m *QmgrRequest) Decode(r *Reader) { m.Qmgr = r.String() }

// TextReply carries engine text as is (lead table, DIAG CLUSTER,
// quarantine list and scan, subscription list).
type TextReply struct{ Text string }

func (m *TextReply) Encode(w *Writer) { w.String(m.Text) }
func (m *TextReply) Decode(r *Reader) { m.Text = r.String() }

// ---- service ----

// QmgrEntry is one queue manager of QMGR LIST.
type QmgrEntry struct {
	Name      string
	Running   bool
	DataAddr  string
	Clustered bool
	Cluster   string
}

// QmgrListReply answers QMGR LIST (request body empty).
type QmgrListReply struct{ Qmgrs []QmgrEntry }

func (q *QmgrEntry) encode(w *Writer) {
	w.String(q.Name)
	w.Bool(q.Running)
	w.String(q.DataAddr)
	w.Bool(q.Clustered)
	w.String(q.Cluster)
}

func (q *QmgrEntry) decode(r *Reader) {
	q.Name = r.String()
	q.Running = r.Bool()
	q.DataAddr = r.String()
	q.Clustered = r.Bool()
	q.Cluster = r.String()
}

func (m *QmgrListReply) Encode(w *Writer) { writeArray(w, m.Qmgrs, (*QmgrEntry).encode) }
func (m *QmgrListReply) Decode(r *Reader) { m.Qmgrs = readArray(r, 5, (*QmgrEntry).decode) }

// NodeEntry is one node of NODE LIST. Role is "leader", "follower" or
// "none"; State "running", "stopped", "down" or "syncing".
type NodeEntry struct {
	ID           int
	QueueManager string
	DataAddr     string
	AdminAddr    string
	Role         string
	State        string
	Partitions   int
	LagRecords   int64
	LagMs        int64
}

// NodeListReply answers NODE LIST (QmgrRequest).
type NodeListReply struct{ Nodes []NodeEntry }

func (n *NodeEntry) encode(w *Writer) {
	w.Varint(int64(n.ID))
	w.String(n.QueueManager)
	w.String(n.DataAddr)
	w.String(n.AdminAddr)
	w.String(n.Role)
	w.String(n.State)
	w.Varint(int64(n.Partitions))
	w.Varint(n.LagRecords)
	w.Varint(n.LagMs)
}

func (n *NodeEntry) decode(r *Reader) {
	n.ID = r.smallInt()
	n.QueueManager = r.String()
	n.DataAddr = r.String()
	n.AdminAddr = r.String()
	n.Role = r.String()
	n.State = r.String()
	n.Partitions = r.smallInt()
	n.LagRecords = r.Varint()
	n.LagMs = r.Varint()
}

func (m *NodeListReply) Encode(w *Writer) { writeArray(w, m.Nodes, (*NodeEntry).encode) }
func (m *NodeListReply) Decode(r *Reader) { m.Nodes = readArray(r, 9, (*NodeEntry).decode) }

// Node control actions.
const (
	NodeActionStop    uint8 = 1 // stop the node's queue manager (admin listener stays)
	NodeActionStart   uint8 = 2 // start a stopped queue manager, or restart a killed node
	NodeActionKill    uint8 = 3 // kill the node (memory state lost)
	NodeActionRestart uint8 = 4 // restart a killed node
)

// NodeControlRequest stops, starts or kills a node (fault injection).
type NodeControlRequest struct {
	Qmgr   string
	Node   int
	Action uint8
}

func (m *NodeControlRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.Varint(int64(m.Node))
	w.U8(m.Action)
}

func (m *NodeControlRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.Node = r.smallInt()
	m.Action = r.U8()
}

// ForceElectionRequest moves the leadership of one partition to Node
// (0 = the engine picks another in-sync replica).
type ForceElectionRequest struct {
	Qmgr      string
	Topic     string
	Partition int32
	Node      int
}

func (m *ForceElectionRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.String(m.Topic)
	w.I32(m.Partition)
	w.Varint(int64(m.Node))
}

func (m *ForceElectionRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.Topic = r.String()
	m.Partition = r.I32()
	m.Node = r.smallInt()
}

// RebalanceRequest is REBALANCE LEADERS: move every partition of every
// non-internal topic to its preferred leader (the first replica); DryRun
// plans and changes nothing.
type RebalanceRequest struct {
	Qmgr   string
	DryRun bool
}

func (m *RebalanceRequest) Encode(w *Writer) { w.String(m.Qmgr); w.Bool(m.DryRun) }
func (m *RebalanceRequest) Decode(r *Reader) { m.Qmgr = r.String(); m.DryRun = r.Bool() }

// LeaderMoveEntry is one partition a rebalance moves (or would move), or
// why it stays (Skipped).
type LeaderMoveEntry struct {
	Topic     string
	Partition int32
	From, To  int
	Skipped   string
}

func (e *LeaderMoveEntry) encode(w *Writer) {
	w.String(e.Topic)
	w.I32(e.Partition)
	w.Varint(int64(e.From))
	w.Varint(int64(e.To))
	w.String(e.Skipped)
}

func (e *LeaderMoveEntry) decode(r *Reader) {
	e.Topic = r.String()
	e.Partition = r.I32()
	e.From = r.smallInt()
	e.To = r.smallInt()
	e.Skipped = r.String()
}

// RebalanceReply answers REBALANCE LEADERS: the partitions considered,
// how many their preferred replica led before, and one entry per
// partition that was not led by it.
type RebalanceReply struct {
	Partitions int
	Preferred  int
	Moves      []LeaderMoveEntry
}

func (m *RebalanceReply) Encode(w *Writer) {
	w.Varint(int64(m.Partitions))
	w.Varint(int64(m.Preferred))
	writeArray(w, m.Moves, (*LeaderMoveEntry).encode)
}

func (m *RebalanceReply) Decode(r *Reader) {
	m.Partitions = r.smallInt()
	m.Preferred = r.smallInt()
	m.Moves = readArray(r, 8, (*LeaderMoveEntry).decode)
}

// ---- topics ----

// TopicListRequest asks for the topic list; Internal includes SYSTEM.*.
type TopicListRequest struct {
	Qmgr     string
	Internal bool
}

func (m *TopicListRequest) Encode(w *Writer) { w.String(m.Qmgr); w.Bool(m.Internal) }
func (m *TopicListRequest) Decode(r *Reader) { m.Qmgr = r.String(); m.Internal = r.Bool() }

// TopicEntry is one row of TOPIC LIST.
type TopicEntry struct {
	Name             string
	Internal         bool
	Partitions       int
	Replicas         int
	MinSync          int
	RetentionMs      int64
	RetentionBytes   int64
	Epoch            int32
	UnderReplicated  int
	Offline          int
	StartOffsetSum   int64
	EndOffsetSum     int64
	RecordsInPerSec  float64
	RecordsOutPerSec float64
	BytesInPerSec    float64
	BytesOutPerSec   float64
}

func (t *TopicEntry) encode(w *Writer) {
	w.String(t.Name)
	w.Bool(t.Internal)
	w.Varint(int64(t.Partitions))
	w.Varint(int64(t.Replicas))
	w.Varint(int64(t.MinSync))
	w.Varint(t.RetentionMs)
	w.Varint(t.RetentionBytes)
	w.Varint(int64(t.Epoch))
	w.Varint(int64(t.UnderReplicated))
	w.Varint(int64(t.Offline))
	w.Varint(t.StartOffsetSum)
	w.Varint(t.EndOffsetSum)
	w.F32(t.RecordsInPerSec)
	w.F32(t.RecordsOutPerSec)
	w.F32(t.BytesInPerSec)
	w.F32(t.BytesOutPerSec)
}

func (t *TopicEntry) decode(r *Reader) {
	t.Name = r.String()
	t.Internal = r.Bool()
	t.Partitions = r.smallInt()
	t.Replicas = r.smallInt()
	t.MinSync = r.smallInt()
	t.RetentionMs = r.Varint()
	t.RetentionBytes = r.Varint()
	t.Epoch = int32(r.smallInt())
	t.UnderReplicated = r.smallInt()
	t.Offline = r.smallInt()
	t.StartOffsetSum = r.Varint()
	t.EndOffsetSum = r.Varint()
	t.RecordsInPerSec = r.F32()
	t.RecordsOutPerSec = r.F32()
	t.BytesInPerSec = r.F32()
	t.BytesOutPerSec = r.F32()
}

// TopicListReply answers TOPIC LIST.
type TopicListReply struct{ Topics []TopicEntry }

func (m *TopicListReply) Encode(w *Writer) { writeArray(w, m.Topics, (*TopicEntry).encode) }
func (m *TopicListReply) Decode(r *Reader) { m.Topics = readArray(r, 28, (*TopicEntry).decode) }

// TopicRequest names a topic (DESCRIBE, DELETE, FLUSH TOPIC).
type TopicRequest struct {
	Qmgr  string
	Topic string
}

func (m *TopicRequest) Encode(w *Writer) { w.String(m.Qmgr); w.String(m.Topic) }
func (m *TopicRequest) Decode(r *Reader) { m.Qmgr = r.String(); m.Topic = r.String() }

// TopicPropsRequest creates or alters a topic with key=value properties
// ("partitions=3,retention.ms=60000", spec W-13).
type TopicPropsRequest struct {
	Qmgr       string
	Topic      string
	Properties string
}

func (m *TopicPropsRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.String(m.Topic)
	w.String(m.Properties)
}

func (m *TopicPropsRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.Topic = r.String()
	m.Properties = r.String()
}

// PartitionEntry is one partition of DESCRIBE TOPIC.
type PartitionEntry struct {
	Partition     int32
	Leader        int
	LeaderEpoch   int32
	Replicas      []int
	InSync        []int
	StartOffset   int64
	EndOffset     int64
	HighWatermark int64
}

// TopicDescriptionReply answers DESCRIBE TOPIC.
type TopicDescriptionReply struct {
	Topic      TopicEntry
	Partitions []PartitionEntry
}

func (p *PartitionEntry) encode(w *Writer) {
	w.I32(p.Partition)
	w.Varint(int64(p.Leader))
	w.Varint(int64(p.LeaderEpoch))
	writeInts(w, p.Replicas)
	writeInts(w, p.InSync)
	w.Varint(p.StartOffset)
	w.Varint(p.EndOffset)
	w.Varint(p.HighWatermark)
}

func (p *PartitionEntry) decode(r *Reader) {
	p.Partition = r.I32()
	p.Leader = r.smallInt()
	p.LeaderEpoch = int32(r.smallInt())
	p.Replicas = readInts(r)
	p.InSync = readInts(r)
	p.StartOffset = r.Varint()
	p.EndOffset = r.Varint()
	p.HighWatermark = r.Varint()
}

func (m *TopicDescriptionReply) Encode(w *Writer) {
	m.Topic.encode(w)
	writeArray(w, m.Partitions, (*PartitionEntry).encode)
}

func (m *TopicDescriptionReply) Decode(r *Reader) {
	m.Topic.decode(r)
	m.Partitions = readArray(r, 11, (*PartitionEntry).decode)
}

// ---- queues ----

// QueueNameRequest names a queue (QUEUE PROPERTY, RELOAD QUEUE).
type QueueNameRequest struct {
	Qmgr  string
	Queue string
}

func (m *QueueNameRequest) Encode(w *Writer) { w.String(m.Qmgr); w.String(m.Queue) }
func (m *QueueNameRequest) Decode(r *Reader) { m.Qmgr = r.String(); m.Queue = r.String() }

// QueuePropertyEntry is ILQueueProperty (field list ours).
type QueuePropertyEntry struct {
	Name            string
	Description     string
	MaxDepth        int64
	MaxMsgSize      int
	PutEnabled      bool
	GetEnabled      bool
	Persistent      bool
	CreatedMs       int64
	DeadLetterQueue string // "" = none
	MaxRedeliveries int    // 0 = no limit
}

func (p *QueuePropertyEntry) encode(w *Writer) {
	w.String(p.Name)
	w.String(p.Description)
	w.Varint(p.MaxDepth)
	w.Varint(int64(p.MaxMsgSize))
	w.Bool(p.PutEnabled)
	w.Bool(p.GetEnabled)
	w.Bool(p.Persistent)
	w.Varint(p.CreatedMs)
	w.String(p.DeadLetterQueue)
	w.Varint(int64(p.MaxRedeliveries))
}

func (p *QueuePropertyEntry) decode(r *Reader) {
	p.Name = r.String()
	p.Description = r.String()
	p.MaxDepth = r.Varint()
	p.MaxMsgSize = r.smallInt()
	p.PutEnabled = r.Bool()
	p.GetEnabled = r.Bool()
	p.Persistent = r.Bool()
	p.CreatedMs = r.Varint()
	p.DeadLetterQueue = r.String()
	p.MaxRedeliveries = r.smallInt()
}

// QueueDefineRequest is DEFINE QUEUE: create the queue with these
// properties, or give an existing queue these properties (its messages
// stay). Answered with QueuePropertyReply.
type QueueDefineRequest struct {
	Qmgr            string
	Queue           string
	Description     string
	MaxDepth        int64
	DeadLetterQueue string
	MaxRedeliveries int
}

func (m *QueueDefineRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.String(m.Queue)
	w.String(m.Description)
	w.Varint(m.MaxDepth)
	w.String(m.DeadLetterQueue)
	w.Varint(int64(m.MaxRedeliveries))
}

func (m *QueueDefineRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.Queue = r.String()
	m.Description = r.String()
	m.MaxDepth = r.Varint()
	m.DeadLetterQueue = r.String()
	m.MaxRedeliveries = r.smallInt()
}

// QueueBrowseRequest is BROWSE QUEUE: up to Max messages (0 = the engine's
// page size) and about MaxBytes of payload (0 = the engine's bound) from
// sequence number FromSeq on, read without locking or removing them.
// BeforeSeq, when not 0, asks for the page that ends just before it
// instead (the messages with a smaller sequence number, the closest
// ones; MaxUint64 = the last page): a browse pages back and jumps to the
// end.
type QueueBrowseRequest struct {
	Qmgr      string
	Queue     string
	FromSeq   uint64
	Max       int
	MaxBytes  int
	BeforeSeq uint64
}

func (m *QueueBrowseRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.String(m.Queue)
	w.Uvarint(m.FromSeq)
	w.Varint(int64(m.Max))
	w.Varint(int64(m.MaxBytes))
	w.Uvarint(m.BeforeSeq)
}

func (m *QueueBrowseRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.Queue = r.String()
	m.FromSeq = r.Uvarint()
	m.Max = r.smallInt()
	m.MaxBytes = r.smallInt()
	m.BeforeSeq = r.Uvarint()
}

// BrowsedMessage is one message of a BROWSE QUEUE reply.
type BrowsedMessage struct {
	Seq          uint64
	MsgID        []byte
	PutTimeMs    int64
	Redeliveries int
	InFlight     bool
	Headers      []RecordHeader
	Payload      []byte
}

func (b *BrowsedMessage) encode(w *Writer) {
	w.Uvarint(b.Seq)
	w.Bytes(b.MsgID)
	w.Varint(b.PutTimeMs)
	w.Varint(int64(b.Redeliveries))
	w.Bool(b.InFlight)
	writeArray(w, b.Headers, (*RecordHeader).encodeProp)
	w.Bytes(b.Payload)
}

func (b *BrowsedMessage) decode(r *Reader) {
	b.Seq = r.Uvarint()
	b.MsgID = r.Bytes()
	b.PutTimeMs = r.Varint()
	b.Redeliveries = r.smallInt()
	b.InFlight = r.Bool()
	b.Headers = readArray(r, 2, (*RecordHeader).decodeProp)
	b.Payload = r.Bytes()
}

// encodeProp and decodeProp write a header as `key` string, `value` bytes.
func (h *RecordHeader) encodeProp(w *Writer) { w.String(h.Key); w.Bytes(h.Value) }
func (h *RecordHeader) decodeProp(r *Reader) { h.Key = r.String(); h.Value = r.Bytes() }

// QueueBrowseReply answers BROWSE QUEUE: the queue's depth, the messages
// in queue order and whether more follow (the next page starts at the
// last Seq + 1). Index is the number of messages ahead of the first one
// returned (its 0-based position in the queue), so a page says where it
// is: "201–400 of 9,438".
type QueueBrowseReply struct {
	Depth    int64
	Messages []BrowsedMessage
	More     bool
	Index    int64
}

func (m *QueueBrowseReply) Encode(w *Writer) {
	w.Varint(m.Depth)
	writeArray(w, m.Messages, (*BrowsedMessage).encode)
	w.Bool(m.More)
	w.Varint(m.Index)
}

func (m *QueueBrowseReply) Decode(r *Reader) {
	m.Depth = r.Varint()
	m.Messages = readArray(r, 8, (*BrowsedMessage).decode)
	m.More = r.Bool()
	m.Index = r.Varint()
}

// MaxSelectIDs bounds the message ids one MOVE MESSAGES or REINJECT names
// (and the messages a plan of every message goes through), so a plan's
// ids always fit the request that executes it.
const MaxSelectIDs = 1000

// QueueMoveRequest is MOVE MESSAGES: the messages of From with these ids
// to To ("" = each dead letter's source queue). DryRun plans and changes
// nothing; a plan without ids takes every message (the first
// MaxSelectIDs). A move that is not a plan names its ids (at most
// MaxSelectIDs): the ones its plan showed. PlanNextSeq is that plan's
// NextSeq, so messages that arrived after it are counted, not moved.
type QueueMoveRequest struct {
	Qmgr        string
	From        string
	To          string
	MsgIDs      [][]byte
	DryRun      bool
	PlanNextSeq uint64
}

func (m *QueueMoveRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.String(m.From)
	w.String(m.To)
	writeArray(w, m.MsgIDs, func(b *[]byte, w *Writer) { w.Bytes(*b) })
	w.Bool(m.DryRun)
	w.Uvarint(m.PlanNextSeq)
}

func (m *QueueMoveRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.From = r.String()
	m.To = r.String()
	m.MsgIDs = readArray(r, 1, func(b *[]byte, r *Reader) { *b = r.Bytes() })
	m.DryRun = r.Bool()
	m.PlanNextSeq = r.Uvarint()
}

// MessageMoveEntry is one message of a move: its target, or why it is
// skipped ("" = moved, or would move in a plan).
type MessageMoveEntry struct {
	MsgID   []byte
	To      string
	Skipped string
}

func (e *MessageMoveEntry) encode(w *Writer) { w.Bytes(e.MsgID); w.String(e.To); w.String(e.Skipped) }
func (e *MessageMoveEntry) decode(r *Reader) {
	e.MsgID = r.Bytes()
	e.To = r.String()
	e.Skipped = r.String()
}

// QueueMoveReply answers MOVE MESSAGES. NextSeq is the position the next
// message gets (a plan's mark for its execution); Unselected counts the
// messages of From the selection did not name (left in place; in a plan
// of every message, those beyond MaxSelectIDs), Arrived those of them at
// or after the request's PlanNextSeq.
type QueueMoveReply struct {
	Moves      []MessageMoveEntry
	Moved      int64
	StopReason string // "" = the selection was gone through
	NextSeq    uint64
	Unselected int64
	Arrived    int64
}

func (m *QueueMoveReply) Encode(w *Writer) {
	writeArray(w, m.Moves, (*MessageMoveEntry).encode)
	w.Varint(m.Moved)
	w.String(m.StopReason)
	w.Uvarint(m.NextSeq)
	w.Varint(m.Unselected)
	w.Varint(m.Arrived)
}

func (m *QueueMoveReply) Decode(r *Reader) {
	m.Moves = readArray(r, 3, (*MessageMoveEntry).decode)
	m.Moved = r.Varint()
	m.StopReason = r.String()
	m.NextSeq = r.Uvarint()
	m.Unselected = r.Varint()
	m.Arrived = r.Varint()
}

// QueuePropertyReply answers QUEUE PROPERTY.
type QueuePropertyReply struct{ Property QueuePropertyEntry }

func (m *QueuePropertyReply) Encode(w *Writer) { m.Property.encode(w) }
func (m *QueuePropertyReply) Decode(r *Reader) { m.Property.decode(r) }

// QueueEntry is one row of QUEUE LIST.
type QueueEntry struct {
	Depth    int64
	InFlight int64
	PutRate  float64
	GetRate  float64
	Property QueuePropertyEntry // Property.Name is the queue name
}

// QueueListReply answers QUEUE LIST (QmgrRequest).
type QueueListReply struct{ Queues []QueueEntry }

func (q *QueueEntry) encode(w *Writer) {
	q.Property.encode(w)
	w.Varint(q.Depth)
	w.Varint(q.InFlight)
	w.F32(q.PutRate)
	w.F32(q.GetRate)
}

func (q *QueueEntry) decode(r *Reader) {
	q.Property.decode(r)
	q.Depth = r.Varint()
	q.InFlight = r.Varint()
	q.PutRate = r.F32()
	q.GetRate = r.F32()
}

func (m *QueueListReply) Encode(w *Writer) { writeArray(w, m.Queues, (*QueueEntry).encode) }
func (m *QueueListReply) Decode(r *Reader) { m.Queues = readArray(r, 18, (*QueueEntry).decode) }

// ReloadQueueReply answers RELOAD QUEUE (3315) with the depth after it.
type ReloadQueueReply struct{ Depth int64 }

func (m *ReloadQueueReply) Encode(w *Writer) { w.Varint(m.Depth) }
func (m *ReloadQueueReply) Decode(r *Reader) { m.Depth = r.Varint() }

// ---- cluster definition ----

// ClusterRequest names a cluster ("" = the answering node's cluster):
// CLUSTER PROPERTY, DIAG CLUSTER, VIEW CLUSTER LEADERS.
type ClusterRequest struct{ Cluster string }

func (m *ClusterRequest) Encode(w *Writer) { w.String(m.Cluster) }
func (m *ClusterRequest) Decode(r *Reader) { m.Cluster = r.String() }

// ClusterNodeEntry is ILClusterNode: (qmgr, host, listener port, ilcc port)
// plus its number in the definition.
type ClusterNodeEntry struct {
	Number       int
	QueueManager string
	Host         string
	Port         int
	IlccPort     int
}

func (n *ClusterNodeEntry) encode(w *Writer) {
	w.Varint(int64(n.Number))
	w.String(n.QueueManager)
	w.String(n.Host)
	w.Varint(int64(n.Port))
	w.Varint(int64(n.IlccPort))
}

func (n *ClusterNodeEntry) decode(r *Reader) {
	n.Number = r.smallInt()
	n.QueueManager = r.String()
	n.Host = r.String()
	n.Port = r.smallInt()
	n.IlccPort = r.smallInt()
}

// ClusterPropertyReply is a committed cluster definition. Replicas and
// MinSync are 0 when unset.
type ClusterPropertyReply struct {
	Name      string
	IlccPort  int
	Version   int64
	Replicas  int
	MinSync   int
	Placement bool
	AutoStart bool
	Nodes     []ClusterNodeEntry
}

func (m *ClusterPropertyReply) Encode(w *Writer) {
	w.String(m.Name)
	w.Varint(int64(m.IlccPort))
	w.Varint(m.Version)
	w.Varint(int64(m.Replicas))
	w.Varint(int64(m.MinSync))
	w.Bool(m.Placement)
	w.Bool(m.AutoStart)
	writeArray(w, m.Nodes, (*ClusterNodeEntry).encode)
}

func (m *ClusterPropertyReply) Decode(r *Reader) {
	m.Name = r.String()
	m.IlccPort = r.smallInt()
	m.Version = r.Varint()
	m.Replicas = r.smallInt()
	m.MinSync = r.smallInt()
	m.Placement = r.Bool()
	m.AutoStart = r.Bool()
	m.Nodes = readArray(r, 5, (*ClusterNodeEntry).decode)
}

// Tri-state values of SET CLUSTER PROPERTY: IntBlank leaves an integer
// property as is (0 clears it); FlagBlank leaves a flag as is.
const (
	IntBlank  int32 = -1
	FlagBlank uint8 = 0
	FlagOff   uint8 = 1
	FlagOn    uint8 = 2
)

// SetClusterPropertyRequest changes the definition read at BaseVersion.
type SetClusterPropertyRequest struct {
	Cluster     string
	BaseVersion int64
	Replicas    int32 // IntBlank, 0 = clear, else the value
	MinSync     int32
	Placement   uint8 // FlagBlank, FlagOff, FlagOn
	AutoStart   uint8
}

func (m *SetClusterPropertyRequest) Encode(w *Writer) {
	w.String(m.Cluster)
	w.Varint(m.BaseVersion)
	w.Varint(int64(m.Replicas))
	w.Varint(int64(m.MinSync))
	w.U8(m.Placement)
	w.U8(m.AutoStart)
}

func (m *SetClusterPropertyRequest) Decode(r *Reader) {
	m.Cluster = r.String()
	m.BaseVersion = r.Varint()
	m.Replicas = int32(r.smallInt())
	m.MinSync = int32(r.smallInt())
	m.Placement = r.U8()
	m.AutoStart = r.U8()
	if r.Err() == nil && (m.Placement > FlagOn || m.AutoStart > FlagOn) {
		r.Fail(errors.New("bad tri-state flag"))
	}
}

// ClusterNodeRequest adds a node to the definition read at BaseVersion
// (ADD NODE), or joins one to a cluster (JOIN CLUSTER, BaseVersion unused).
// Node.Number 0 = the next free number.
type ClusterNodeRequest struct {
	Cluster     string
	BaseVersion int64
	Node        ClusterNodeEntry
}

func (m *ClusterNodeRequest) Encode(w *Writer) {
	w.String(m.Cluster)
	w.Varint(m.BaseVersion)
	m.Node.encode(w)
}

func (m *ClusterNodeRequest) Decode(r *Reader) {
	m.Cluster = r.String()
	m.BaseVersion = r.Varint()
	m.Node.decode(r)
}

// RemoveNodeRequest removes node Number from the definition read at
// BaseVersion.
type RemoveNodeRequest struct {
	Cluster     string
	BaseVersion int64
	Number      int
}

func (m *RemoveNodeRequest) Encode(w *Writer) {
	w.String(m.Cluster)
	w.Varint(m.BaseVersion)
	w.Varint(int64(m.Number))
}

func (m *RemoveNodeRequest) Decode(r *Reader) {
	m.Cluster = r.String()
	m.BaseVersion = r.Varint()
	m.Number = r.smallInt()
}

// CreateClusterRequest creates a new cluster definition (CREATE CLUSTER);
// Version is ignored.
type CreateClusterRequest struct{ Definition ClusterPropertyReply }

func (m *CreateClusterRequest) Encode(w *Writer) { m.Definition.Encode(w) }
func (m *CreateClusterRequest) Decode(r *Reader) { m.Definition.Decode(r) }

// ---- queue-manager properties ----

// QmgrPropertyRequest reads (QMGR PROPERTY, Value ignored) or writes (SET
// QMGR PROPERTY) one queue-manager property by engine key.
type QmgrPropertyRequest struct {
	Qmgr  string
	Key   string
	Value string
}

func (m *QmgrPropertyRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.String(m.Key)
	w.String(m.Value)
}

func (m *QmgrPropertyRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.Key = r.String()
	m.Value = r.String()
}

// QmgrPropertyReply carries the property's value after the request.
type QmgrPropertyReply struct {
	Key   string
	Value string
}

func (m *QmgrPropertyReply) Encode(w *Writer) { w.String(m.Key); w.String(m.Value) }
func (m *QmgrPropertyReply) Decode(r *Reader) { m.Key = r.String(); m.Value = r.String() }

// ---- replication, stats, load ----

// NodeReplicationEntry is one node of REPLICATION STATUS.
type NodeReplicationEntry struct {
	ID           int
	QueueManager string
	Role         string
	State        string
	LagRecords   int64
	LagMs        int64
}

// FollowerEntry is one follower replica of a partition.
type FollowerEntry struct {
	Node       int
	InSync     bool
	LagRecords int64
	LagMs      int64
}

// PartitionReplicationEntry is one partition of REPLICATION STATUS.
type PartitionReplicationEntry struct {
	Partition int32
	Leader    int
	InSync    []int
	Followers []FollowerEntry
}

// TopicReplicationEntry groups the partitions of one topic, so a topic
// name travels once.
type TopicReplicationEntry struct {
	Topic      string
	Partitions []PartitionReplicationEntry
}

// ReplicationStatusReply answers REPLICATION STATUS (QmgrRequest).
type ReplicationStatusReply struct {
	Cluster string
	Leader  int
	Nodes   []NodeReplicationEntry
	Topics  []TopicReplicationEntry
}

func (n *NodeReplicationEntry) encode(w *Writer) {
	w.Varint(int64(n.ID))
	w.String(n.QueueManager)
	w.String(n.Role)
	w.String(n.State)
	w.Varint(n.LagRecords)
	w.Varint(n.LagMs)
}

func (n *NodeReplicationEntry) decode(r *Reader) {
	n.ID = r.smallInt()
	n.QueueManager = r.String()
	n.Role = r.String()
	n.State = r.String()
	n.LagRecords = r.Varint()
	n.LagMs = r.Varint()
}

func (f *FollowerEntry) encode(w *Writer) {
	w.Varint(int64(f.Node))
	w.Bool(f.InSync)
	w.Varint(f.LagRecords)
	w.Varint(f.LagMs)
}

func (f *FollowerEntry) decode(r *Reader) {
	f.Node = r.smallInt()
	f.InSync = r.Bool()
	f.LagRecords = r.Varint()
	f.LagMs = r.Varint()
}

func (p *PartitionReplicationEntry) encode(w *Writer) {
	w.I32(p.Partition)
	w.Varint(int64(p.Leader))
	writeInts(w, p.InSync)
	writeArray(w, p.Followers, (*FollowerEntry).encode)
}

func (t *TopicReplicationEntry) encode(w *Writer) {
	w.String(t.Topic)
	writeArray(w, t.Partitions, (*PartitionReplicationEntry).encode)
}

func (m *ReplicationStatusReply) Encode(w *Writer) {
	w.String(m.Cluster)
	w.Varint(int64(m.Leader))
	writeArray(w, m.Nodes, (*NodeReplicationEntry).encode)
	writeArray(w, m.Topics, (*TopicReplicationEntry).encode)
}

// Decode cuts partitions, in-sync lists and followers out of reply-wide
// arrays (readArrayFrom): a poll of 10,000 topics would otherwise allocate
// several small slices per partition.
func (m *ReplicationStatusReply) Decode(r *Reader) {
	m.Cluster = r.String()
	m.Leader = r.smallInt()
	m.Nodes = readArray(r, 6, (*NodeReplicationEntry).decode)
	var parts []PartitionReplicationEntry
	var inSync []int
	var followers []FollowerEntry
	decodePartition := func(p *PartitionReplicationEntry, r *Reader) {
		p.Partition = r.I32()
		p.Leader = r.smallInt()
		p.InSync = readArrayFrom(r, 1, &inSync, decodeInt)
		p.Followers = readArrayFrom(r, 4, &followers, (*FollowerEntry).decode)
	}
	m.Topics = readArray(r, 2, func(t *TopicReplicationEntry, r *Reader) {
		t.Topic = r.String()
		t.Partitions = readArrayFrom(r, 7, &parts, decodePartition)
	})
}

// StatSeriesRequest asks for a topic's series, or the queue manager's when
// Topic is empty.
type StatSeriesRequest struct {
	Qmgr  string
	Topic string
}

func (m *StatSeriesRequest) Encode(w *Writer) { w.String(m.Qmgr); w.String(m.Topic) }
func (m *StatSeriesRequest) Decode(r *Reader) { m.Qmgr = r.String(); m.Topic = r.String() }

// StatPointEntry is one interval of a series (per-second rates).
type StatPointEntry struct {
	RecordsIn  float64
	RecordsOut float64
	BytesIn    float64
	BytesOut   float64
}

// StatSeriesReply is a series of consecutive intervals, oldest first:
// point i covers [StartMs + i*ResolutionMs, StartMs + (i+1)*ResolutionMs).
type StatSeriesReply struct {
	Scope        string
	ResolutionMs int64
	StartMs      int64
	Points       []StatPointEntry
}

func (p *StatPointEntry) encode(w *Writer) {
	w.F32(p.RecordsIn)
	w.F32(p.RecordsOut)
	w.F32(p.BytesIn)
	w.F32(p.BytesOut)
}

func (p *StatPointEntry) decode(r *Reader) {
	p.RecordsIn = r.F32()
	p.RecordsOut = r.F32()
	p.BytesIn = r.F32()
	p.BytesOut = r.F32()
}

func (m *StatSeriesReply) Encode(w *Writer) {
	w.String(m.Scope)
	w.Varint(m.ResolutionMs)
	w.Varint(m.StartMs)
	writeArray(w, m.Points, (*StatPointEntry).encode)
}

func (m *StatSeriesReply) Decode(r *Reader) {
	m.Scope = r.String()
	m.ResolutionMs = r.Varint()
	m.StartMs = r.Varint()
	m.Points = readArray(r, 16, (*StatPointEntry).decode)
}

// ViewLoadRequest is VIEW LOAD (3204): Level 0 = service totals, 1 = also
// per node, 2 = also per queue.
type ViewLoadRequest struct {
	Qmgr  string
	Level uint8
}

func (m *ViewLoadRequest) Encode(w *Writer) { w.String(m.Qmgr); w.U8(m.Level) }
func (m *ViewLoadRequest) Decode(r *Reader) { m.Qmgr = r.String(); m.Level = r.U8() }

// NodeLoadEntry is one node of VIEW LOAD.
type NodeLoadEntry struct {
	ID             int
	Up             bool
	Running        bool
	Leader         bool
	DataSessions   int
	AdminSessions  int
	Requests       int64   // handled since start
	RequestsPerSec float64 // over the last interval
	PartitionsLed  int
}

// QueueLoadEntry is one queue of VIEW LOAD level 2.
type QueueLoadEntry struct {
	Name     string
	Depth    int64
	InFlight int64
	PutRate  float64
	GetRate  float64
}

func (n *NodeLoadEntry) encode(w *Writer) {
	w.Varint(int64(n.ID))
	w.Bool(n.Up)
	w.Bool(n.Running)
	w.Bool(n.Leader)
	w.Varint(int64(n.DataSessions))
	w.Varint(int64(n.AdminSessions))
	w.Varint(n.Requests)
	w.F32(n.RequestsPerSec)
	w.Varint(int64(n.PartitionsLed))
}

func (n *NodeLoadEntry) decode(r *Reader) {
	n.ID = r.smallInt()
	n.Up = r.Bool()
	n.Running = r.Bool()
	n.Leader = r.Bool()
	n.DataSessions = r.smallInt()
	n.AdminSessions = r.smallInt()
	n.Requests = r.Varint()
	n.RequestsPerSec = r.F32()
	n.PartitionsLed = r.smallInt()
}

func (q *QueueLoadEntry) encode(w *Writer) {
	w.String(q.Name)
	w.Varint(q.Depth)
	w.Varint(q.InFlight)
	w.F32(q.PutRate)
	w.F32(q.GetRate)
}

func (q *QueueLoadEntry) decode(r *Reader) {
	q.Name = r.String()
	q.Depth = r.Varint()
	q.InFlight = r.Varint()
	q.PutRate = r.F32()
	q.GetRate = r.F32()
}

// ViewLoadReply answers VIEW LOAD.
type ViewLoadReply struct {
	Level          uint8
	AtMs           int64
	Sessions       int
	Requests       int64
	RequestsPerSec float64
	Topics         int
	Partitions     int
	Queues         int
	QueueDepth     int64
	Nodes          []NodeLoadEntry
	QueueLoad      []QueueLoadEntry
}

func (m *ViewLoadReply) Encode(w *Writer) {
	w.U8(m.Level)
	w.Varint(m.AtMs)
	w.Varint(int64(m.Sessions))
	w.Varint(m.Requests)
	w.F32(m.RequestsPerSec)
	w.Varint(int64(m.Topics))
	w.Varint(int64(m.Partitions))
	w.Varint(int64(m.Queues))
	w.Varint(m.QueueDepth)
	writeArray(w, m.Nodes, (*NodeLoadEntry).encode)
	writeArray(w, m.QueueLoad, (*QueueLoadEntry).encode)
}

func (m *ViewLoadReply) Decode(r *Reader) {
	m.Level = r.U8()
	m.AtMs = r.Varint()
	m.Sessions = r.smallInt()
	m.Requests = r.Varint()
	m.RequestsPerSec = r.F32()
	m.Topics = r.smallInt()
	m.Partitions = r.smallInt()
	m.Queues = r.smallInt()
	m.QueueDepth = r.Varint()
	m.Nodes = readArray(r, 12, (*NodeLoadEntry).decode)
	m.QueueLoad = readArray(r, 11, (*QueueLoadEntry).decode)
}

// ---- service control ----

// ShutdownRequest is SHUTDOWN (3002).
type ShutdownRequest struct{ ClusterWide bool }

func (m *ShutdownRequest) Encode(w *Writer) { w.Bool(m.ClusterWide) }
func (m *ShutdownRequest) Decode(r *Reader) { m.ClusterWide = r.Bool() }

// PatchRequest is PATCH (3335).
type PatchRequest struct {
	FileName string
	Data     []byte
}

func (m *PatchRequest) Encode(w *Writer) { w.String(m.FileName); w.Bytes(m.Data) }
func (m *PatchRequest) Decode(r *Reader) { m.FileName = r.String(); m.Data = r.Bytes() }

// ---- quarantine ----

// QuarantineRequest is SCAN QUARANTINE (3426) and REINJECT (3427): the
// entries of directory Dir for Queue stored at or after SinceMs (0 = all).
// IncludeOld also takes entries of messages the queue already delivered
// ("OLD"), which can duplicate them (spec Q-23). MsgIDs (REINJECT only, at
// most MaxSelectIDs) narrows the selection to the entries with these ids:
// the ones a scan showed; none = every selected entry.
type QuarantineRequest struct {
	Qmgr       string
	Dir        string
	Queue      string
	SinceMs    int64
	IncludeOld bool
	MsgIDs     [][]byte
}

func (m *QuarantineRequest) Encode(w *Writer) {
	w.String(m.Qmgr)
	w.String(m.Dir)
	w.String(m.Queue)
	w.Varint(m.SinceMs)
	w.Bool(m.IncludeOld)
	writeArray(w, m.MsgIDs, func(b *[]byte, w *Writer) { w.Bytes(*b) })
}

func (m *QuarantineRequest) Decode(r *Reader) {
	m.Qmgr = r.String()
	m.Dir = r.String()
	m.Queue = r.String()
	m.SinceMs = r.Varint()
	m.IncludeOld = r.Bool()
	m.MsgIDs = readArray(r, 1, func(b *[]byte, r *Reader) { *b = r.Bytes() })
}

// ReinjectReply is ILQuarantineReinjectResult: how many messages were
// appended to the queue's tail, the node that led the queue state, and why
// reinjection stopped ("" when every selected entry was reinjected). With
// ids, Missing lists those no selected entry had and Left counts the
// entries the selection (dir, queue, since, include_old) holds that the
// ids did not name, left in the quarantine.
type ReinjectReply struct {
	Count      int64
	Leader     int
	StopReason string
	Missing    [][]byte
	Left       int64
}

func (m *ReinjectReply) Encode(w *Writer) {
	w.Varint(m.Count)
	w.Varint(int64(m.Leader))
	w.String(m.StopReason)
	writeArray(w, m.Missing, func(b *[]byte, w *Writer) { w.Bytes(*b) })
	w.Varint(m.Left)
}

func (m *ReinjectReply) Decode(r *Reader) {
	m.Count = r.Varint()
	m.Leader = r.smallInt()
	m.StopReason = r.String()
	m.Missing = readArray(r, 1, func(b *[]byte, r *Reader) { *b = r.Bytes() })
	m.Left = r.Varint()
}

// ---- hub / spoke ----

// SpokeEntry is ILSpokeProperty.
type SpokeEntry struct {
	Name    string
	Key     string
	Running bool // its link to the hub is up
	Qmgrs   []string
}

// SpokeListReply answers SPOKE LIST.
type SpokeListReply struct{ Spokes []SpokeEntry }

func (s *SpokeEntry) encode(w *Writer) {
	w.String(s.Name)
	w.String(s.Key)
	w.Bool(s.Running)
	w.Strings(s.Qmgrs)
}

func (s *SpokeEntry) decode(r *Reader) {
	s.Name = r.String()
	s.Key = r.String()
	s.Running = r.Bool()
	s.Qmgrs = r.Strings()
}

func (m *SpokeListReply) Encode(w *Writer) { writeArray(w, m.Spokes, (*SpokeEntry).encode) }
func (m *SpokeListReply) Decode(r *Reader) { m.Spokes = readArray(r, 4, (*SpokeEntry).decode) }

// SpokeSwitchRequest switches an admin connection to a spoke, by Name or,
// when Key is set, by key (no lookup by name).
type SpokeSwitchRequest struct {
	Name string
	Key  string
}

func (m *SpokeSwitchRequest) Encode(w *Writer) { w.String(m.Name); w.String(m.Key) }
func (m *SpokeSwitchRequest) Decode(r *Reader) { m.Name = r.String(); m.Key = r.String() }

// SpokeRegisterRequest opens a spoke's control link to its hub.
type SpokeRegisterRequest struct {
	Name  string
	Key   string
	Qmgrs []string
}

func (m *SpokeRegisterRequest) Encode(w *Writer) {
	w.String(m.Name)
	w.String(m.Key)
	w.Strings(m.Qmgrs)
}

func (m *SpokeRegisterRequest) Decode(r *Reader) {
	m.Name = r.String()
	m.Key = r.String()
	m.Qmgrs = r.Strings()
}

// SpokeTunnel names a tunnel: the answer to SPOKE WAIT (a client wants a
// tunnel) and the body of SPOKE ATTACH (the spoke's new connection for it).
type SpokeTunnel struct{ Tunnel uint64 }

func (m *SpokeTunnel) Encode(w *Writer) { w.U64(m.Tunnel) }
func (m *SpokeTunnel) Decode(r *Reader) { m.Tunnel = r.U64() }

// ---- group admin (1310–1314) ----

// GroupEntry is ILGroupInfo, one row of GROUP LIST (request body empty).
// Offsets has one entry per topic of the group (every topic its members
// subscribe to or it has a commit on, sorted by name), each with every
// partition of the topic: the facts a lag is computed from (the admin
// client's one lag function, admin.PartitionLag). A topic the engine does
// not know has no partition, unless the group has commits on it.
type GroupEntry struct {
	Name       string
	State      string
	Members    int
	Durable    bool
	Generation int32
	Offsets    []GroupTopicOffsets
}

// GroupTopicOffsets is one topic of a GROUP LIST entry.
type GroupTopicOffsets struct {
	Topic      string
	Partitions []GroupPartitionOffsets
}

// GroupPartitionOffsets is one partition of a GROUP LIST entry.
type GroupPartitionOffsets struct {
	Partition int32
	Committed int64 // next offset to read; -1 = no commit
	LogStart  int64 // first offset still in the log; -1 = unknown
	End       int64 // high watermark; -1 = unknown (deleted topic)
}

func (p *GroupPartitionOffsets) encode(w *Writer) {
	w.Varint(int64(p.Partition))
	w.Varint(p.Committed)
	w.Varint(p.LogStart)
	w.Varint(p.End)
}

func (p *GroupPartitionOffsets) decode(r *Reader) {
	p.Partition = int32(r.smallInt())
	p.Committed = r.Varint()
	p.LogStart = r.Varint()
	p.End = r.Varint()
}

func (t *GroupTopicOffsets) encode(w *Writer) {
	w.String(t.Topic)
	writeArray(w, t.Partitions, (*GroupPartitionOffsets).encode)
}

// GroupListReply answers GROUP LIST.
type GroupListReply struct{ Groups []GroupEntry }

func (g *GroupEntry) encode(w *Writer) {
	w.String(g.Name)
	w.String(g.State)
	w.Varint(int64(g.Members))
	w.Bool(g.Durable)
	w.Varint(int64(g.Generation))
	writeArray(w, g.Offsets, (*GroupTopicOffsets).encode)
}

func (m *GroupListReply) Encode(w *Writer) { writeArray(w, m.Groups, (*GroupEntry).encode) }

// Decode reads the list into reply-wide arrays of topics and partitions
// that each group's slices are cut from (readArrayFrom): a poll of
// thousands of groups costs a few allocations, not two per group and topic.
func (m *GroupListReply) Decode(r *Reader) {
	var topics []GroupTopicOffsets
	var parts []GroupPartitionOffsets
	decodeTopic := func(t *GroupTopicOffsets, r *Reader) {
		t.Topic = r.String()
		t.Partitions = readArrayFrom(r, 4, &parts, (*GroupPartitionOffsets).decode)
	}
	m.Groups = readArray(r, 6, func(g *GroupEntry, r *Reader) {
		g.Name = r.String()
		g.State = r.String()
		g.Members = r.smallInt()
		g.Durable = r.Bool()
		g.Generation = int32(r.smallInt())
		g.Offsets = readArrayFrom(r, 2, &topics, decodeTopic)
	})
}

// GroupMemberEntry is ILGroupMember.
type GroupMemberEntry struct {
	MemberID   string
	ClientName string
	Host       string
	Assignment []TopicPartitions
	LastSeenMs int64
}

// GroupOffsetEntry is ILGroupOffset. Committed is -1 when the partition
// has no commit; LogStart and EndOffset are -1 when unknown. The lag is the
// admin client's to compute (admin.PartitionLag), from these facts.
type GroupOffsetEntry struct {
	Topic     string
	Partition int32
	Committed int64
	LogStart  int64
	EndOffset int64
	MemberID  string
}

func (mb *GroupMemberEntry) encode(w *Writer) {
	w.String(mb.MemberID)
	w.String(mb.ClientName)
	w.String(mb.Host)
	writeTopicPartitions(w, mb.Assignment)
	w.Varint(mb.LastSeenMs)
}

func (mb *GroupMemberEntry) decode(r *Reader) {
	mb.MemberID = r.String()
	mb.ClientName = r.String()
	mb.Host = r.String()
	mb.Assignment = readTopicPartitions(r)
	mb.LastSeenMs = r.Varint()
}

func (o *GroupOffsetEntry) encode(w *Writer) {
	w.String(o.Topic)
	w.I32(o.Partition)
	w.Varint(o.Committed)
	w.Varint(o.LogStart)
	w.Varint(o.EndOffset)
	w.String(o.MemberID)
}

func (o *GroupOffsetEntry) decode(r *Reader) {
	o.Topic = r.String()
	o.Partition = r.I32()
	o.Committed = r.Varint()
	o.LogStart = r.Varint()
	o.EndOffset = r.Varint()
	o.MemberID = r.String()
}

// GroupDescriptionReply answers DESCRIBE GROUP (GroupRequest). An unknown
// group is state "Dead" with no members and no offsets, not an error
// (spec A-11).
type GroupDescriptionReply struct {
	Name        string
	State       string
	Generation  int32
	Coordinator int
	Durable     bool
	Members     []GroupMemberEntry
	Offsets     []GroupOffsetEntry
}

func (m *GroupDescriptionReply) Encode(w *Writer) {
	w.String(m.Name)
	w.String(m.State)
	w.Varint(int64(m.Generation))
	w.Varint(int64(m.Coordinator))
	w.Bool(m.Durable)
	writeArray(w, m.Members, (*GroupMemberEntry).encode)
	writeArray(w, m.Offsets, (*GroupOffsetEntry).encode)
}

func (m *GroupDescriptionReply) Decode(r *Reader) {
	m.Name = r.String()
	m.State = r.String()
	m.Generation = int32(r.smallInt())
	m.Coordinator = r.smallInt()
	m.Durable = r.Bool()
	m.Members = readArray(r, 5, (*GroupMemberEntry).decode)
	m.Offsets = readArray(r, 9, (*GroupOffsetEntry).decode)
}

// Seek modes of SEEK GROUP.
const (
	SeekToOffset   uint8 = 0
	SeekToEarliest uint8 = 1
	SeekToLatest   uint8 = 2
	SeekToTime     uint8 = 3
)

// SeekGroupRequest moves a group's committed offsets on Topic ("" = every
// topic the group has commits on) to an offset, the earliest or latest
// offset, or the first offset at or after TimeMs (LIST_OFFSETS rules).
// DryRun computes the changes and changes nothing. Applying is refused
// with MIMQE_GROUP_NOT_EMPTY (N active members) while the group has an
// active member (spec A-15); a dry run is never refused for that.
//
// Partitions (with a Topic) narrows the seek to those partitions of it
// (a P@OFFSET seek names one); none = every partition. Planned, when not
// empty, is the preview's changes: the engine applies exactly their New
// offsets to exactly their partitions (each clamped to the partition's
// current log start and high watermark) instead of resolving Mode again,
// so "latest" is the latest the operator saw; the reply says what was
// applied, and the client reports any difference from the preview.
type SeekGroupRequest struct {
	Group      string
	Topic      string
	Mode       uint8
	Offset     int64
	TimeMs     int64
	DryRun     bool
	Partitions []int32
	Planned    []OffsetChangeEntry
}

func (m *SeekGroupRequest) Encode(w *Writer) {
	w.String(m.Group)
	w.String(m.Topic)
	w.U8(m.Mode)
	w.Varint(m.Offset)
	w.Varint(m.TimeMs)
	w.Bool(m.DryRun)
	writeArray(w, m.Partitions, encodeI32)
	writeArray(w, m.Planned, (*OffsetChangeEntry).encode)
}

func (m *SeekGroupRequest) Decode(r *Reader) {
	m.Group = r.String()
	m.Topic = r.String()
	m.Mode = r.U8()
	m.Offset = r.Varint()
	m.TimeMs = r.Varint()
	m.DryRun = r.Bool()
	m.Partitions = readArray(r, 4, decodeI32)
	m.Planned = readArray(r, 9, (*OffsetChangeEntry).decode)
	if r.Err() == nil && m.Mode > SeekToTime {
		r.Fail(errors.New("bad seek mode"))
	}
}

// OffsetChangeEntry is one planned or applied change of a committed offset
// (Old -1 = no commit), with the partition's log start and end at the time
// of the change, so a preview counts the records skipped with the same
// lag function as the group list (admin.OffsetChange.Skip).
type OffsetChangeEntry struct {
	Topic     string
	Partition int32
	Old       int64
	New       int64
	LogStart  int64
	End       int64
}

// SeekGroupReply lists the changes made (or planned, for a dry run).
type SeekGroupReply struct{ Changes []OffsetChangeEntry }

func (c *OffsetChangeEntry) encode(w *Writer) {
	w.String(c.Topic)
	w.I32(c.Partition)
	w.Varint(c.Old)
	w.Varint(c.New)
	w.Varint(c.LogStart)
	w.Varint(c.End)
}

func (c *OffsetChangeEntry) decode(r *Reader) {
	c.Topic = r.String()
	c.Partition = r.I32()
	c.Old = r.Varint()
	c.New = r.Varint()
	c.LogStart = r.Varint()
	c.End = r.Varint()
}

func (m *SeekGroupReply) Encode(w *Writer) { writeArray(w, m.Changes, (*OffsetChangeEntry).encode) }
func (m *SeekGroupReply) Decode(r *Reader) { m.Changes = readArray(r, 9, (*OffsetChangeEntry).decode) }

// SubscriptionListRequest is SUBSCRIPTION LIST (getSubscriptionList); the
// reply is a TextReply in the spec's line format.
type SubscriptionListRequest struct {
	Qmgr  string
	Topic string
}

func (m *SubscriptionListRequest) Encode(w *Writer) { w.String(m.Qmgr); w.String(m.Topic) }
func (m *SubscriptionListRequest) Decode(r *Reader) { m.Qmgr = r.String(); m.Topic = r.String() }

// AppendSubscriptionLine appends one line of getSubscriptionList, without
// a newline: group|state|partition|commit|lag|members=N, where commit and
// lag are -1 for a partition assigned but never committed (spec A-17,
// A list joins its lines with "\n" (no trailing newline), sorted by
// group then partition; no line at all is the empty string.
func AppendSubscriptionLine(b []byte, group, state string, partition int32, commit, lag int64, members int) []byte {
	b = append(b, group...)
	b = append(b, '|')
	b = append(b, state...)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(partition), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, commit, 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, lag, 10)
	b = append(b, "|members="...)
	return strconv.AppendInt(b, int64(members), 10)
}
