// Package views holds the dashboard's tabs. Each view depends on a small
// interface defined here, over the typed values of package admin, never on
// a connection, so every view is tested with fakes (package ui/fakes) and
// the application wires adapters from the real admin client.
//
// Polled lists arrive as common.DataMsg from the root's poller; the Data
// type per resource is:
//
//	common.ResSummary     views.ClusterSummary
//	common.ResStats       admin.StatSeries (scope "")
//	common.ResTopics      []admin.TopicInfo
//	common.ResGroups      []admin.GroupInfo
//	common.ResQueues      []admin.QueueInfo
//	common.ResCluster     admin.ClusterProperty
//	common.ResReplication admin.ReplicationStatus
//	common.ResLeaders     admin.ClusterLeadTable
//
// Details and actions are called by the views themselves, inside tea.Cmds,
// with a context that carries a timeout.
package views

import (
	"context"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/jsonl"
	"ilinkdash/ilink/position"
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

// TopicSpec is what the create-topic dialog asks for. Zero Replicas and
// RetentionMs (and RetentionBytes) mean "the cluster's default".
type TopicSpec struct {
	Name           string
	Partitions     int
	Replicas       int
	RetentionMs    int64 // -1 = keep forever
	RetentionBytes int64
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
	// BrowseQueue reads up to max messages from position from on without
	// taking them.
	BrowseQueue(ctx context.Context, queue string, from uint64, max int) (admin.QueueBrowse, error)
	// PutMessages puts the bodies in order (an auto-commit session).
	PutMessages(ctx context.Context, queue string, bodies [][]byte) error
	// TakeMessage gets (removes) the next message; nil when there is none.
	TakeMessage(ctx context.Context, queue string) (*admin.QueueMessage, error)
	// MoveMessages moves messages (ids nil = all) of from to to ("" = each
	// dead letter's source); with apply false it only plans.
	MoveMessages(ctx context.Context, from, to string, ids [][]byte, apply bool) (admin.MoveResult, error)
	QuarantineList(ctx context.Context) ([]admin.QuarantineDir, error)
	ScanQuarantine(ctx context.Context, dir, queue string) (admin.QuarantineScan, error)
	ReinjectQuarantine(ctx context.Context, dir, queue string, includeOld bool) (admin.QuarantineReinjectResult, error)
}

// Sources is everything the dashboard reads and calls. The application
// implements it with adapters over the admin client; ui/fakes implements
// it with deterministic demo data.
type Sources interface {
	SummarySource
	StatsSource
	TopicLister
	TopicAdmin
	GroupLister
	GroupAdmin
	ClusterAdmin
	QueueLister
	QueueAdmin
}

// CallTimeout bounds every call a view makes itself.
const CallTimeout = 15 * time.Second

func callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), CallTimeout)
}

// ---- tail ----

// HeaderKV is one record header (an iLink record property).
type HeaderKV = jsonl.Header

// TailRecord is one consumed record as the tail view receives it: the
// record of the JSON lines format (ilink/jsonl), so saving and replaying
// need no conversion. The view keeps the slices as they are (raw bytes are
// stored once, never copied), so the stream must not modify or reuse them
// after sending the record. ilink/consumer.Record satisfies this (its batch
// buffers are never reused); converting its Headers to HeaderKV is the
// adapter's only allocation per record.
type TailRecord = jsonl.Record

// TailSpec is what the tail view asks a Tailer for.
type TailSpec struct {
	// Target is a topic name or a pattern (ORDER.*), with the consumer's
	// pattern rules (SYSTEM. topics only when the pattern names them).
	Target string
	// Group is the consumer group; "" = a temporary group, so tailing never
	// disturbs production groups. The view offers a named group only when
	// the context is writable (a named group commits offsets).
	Group string
	// From is where reading starts in partitions without a committed
	// offset (all of them for a temporary group), as ilink/position reads
	// it: latest (the zero value), earliest, an offset in every partition
	// (clamped to each partition's range) or a time (the first offset at
	// or after it). The view never asks for a P@OFFSET start.
	From position.Position
}

// TailBatch is what a stream hands the view at once: records read from
// the stream's position epoch Epoch (0 when the stream starts, one more
// after each Seek). The view drops batches of an epoch older than the
// last Seek it saw return, so nothing read before a jump shows after it.
type TailBatch struct {
	Epoch   uint64
	Records []TailRecord
}

// TailStream is one running tail. One goroutine per stream owns the
// consumer: it reads, feeds a bounded channel of batches, and serves Seek,
// Pause and Close as requests, so none of them waits behind a blocked
// send. The view drains the channel without ever blocking, at most every
// 50 ms while records flow (backing off to 250 ms when idle); a full
// channel back-pressures the consumer; the view's ring buffer caps memory
// (the oldest records are dropped, with a counter).
type TailStream interface {
	// Records is the bounded channel of batches. It is closed when the
	// stream ends: after Close, when the StartTail context is cancelled, or
	// on a fatal error (then Err says why).
	Records() <-chan TailBatch
	// Err is the error that ended the stream (nil while it runs and after
	// a plain Close). Safe to call from any goroutine.
	Err() error
	// Seek moves every assigned partition to `to` (a P@OFFSET position
	// moves one partition) and resumes a paused stream. It returns the
	// epoch that batches read from the new position carry. ctx bounds the
	// call, queueing included.
	Seek(ctx context.Context, to position.Position) (epoch uint64, err error)
	// Pause stops (true) or resumes (false) fetching: while paused the
	// consumer fetches nothing, so its position holds and nothing is
	// fetched only to be dropped; resuming continues from that position.
	// Records fetched before the pause still arrive. ctx bounds the call.
	Pause(ctx context.Context, paused bool) error
	// Waiting is, while paused, how many records lie between the stream's
	// position and the end of its partitions (from end offsets, refreshed
	// about every second); ok is false when unknown (not paused, or not
	// measured yet). Safe to call from any goroutine.
	Waiting() (n int64, ok bool)
	// Close stops the consumer (leaving a temporary group deletes it) and
	// closes Records. Idempotent; the view calls it in a command, never
	// in Update.
	Close() error
}

// Tailer starts tails. StartTail subscribes (joining the group, resolving
// a pattern, positioning per spec.From) and returns once the stream is
// running; it is called in a command, never in Update. ctx bounds the
// stream's whole life: cancelling it ends the stream as Close does.
type Tailer interface {
	StartTail(ctx context.Context, spec TailSpec) (TailStream, error)
}

// SearchSpec is a search beyond the tail's buffer (ilink/search): every
// criterion given must match; positions take the forms of ilink/position.
type SearchSpec struct {
	Target        string
	Key           []byte // nil = any key
	ValueContains string
	ValueRegex    string
	Header        string // NAME=VALUE, or NAME for any value; "" = none
	From, To      string // "" = earliest / the end when the scan starts
}

// SearchProgress is a snapshot of a running search.
type SearchProgress struct {
	Topic                   string
	Scanned, Total, Matches int64
	Rate                    float64 // records scanned per second
	ETA                     time.Duration
	Done, Cancelled         bool
	Err                     error // set when it failed (Done too)
}

// SearchRun is one running search. Matches arrive on Records (bounded:
// a full channel holds the scan back), which is closed when the search
// ends; Progress is cheap and safe from any goroutine.
type SearchRun interface {
	Records() <-chan TailRecord
	Progress() SearchProgress
	Cancel()
}

// Searcher starts searches; a Tailer that is also a Searcher gives the
// tail view its search (S). It reads with a direct consumer and no group.
type Searcher interface {
	StartSearch(ctx context.Context, spec SearchSpec) (SearchRun, error)
}

// ---- publish ----

// PublishRecord is one record the publish form produced.
type PublishRecord struct {
	Key     []byte // nil = null key (uniform sticky partitioning)
	Value   []byte
	Headers []HeaderKV
}

// PublishSpec is what the publish form sends.
type PublishSpec struct {
	Topic string
	// Count is the number of records, 1..MaxPublishCount.
	Count int64
	// Rate is the target records per second; 0 = as fast as the producer
	// accepts.
	Rate float64
	// Compression is "none", "lz4" or "zstd"; Acks is "0", "1" or "all".
	Compression string
	Acks        string
	// Record fills r with record seq (0 .. Count-1), templates expanded.
	// It reuses r's slices between calls, so the sender must copy them
	// before the next call (ilink.Producer.Send does). It is called from
	// one goroutine, in seq order.
	Record func(seq int64, r *PublishRecord)
}

// MaxPublishCount bounds PublishSpec.Count.
const MaxPublishCount = 100_000_000

// PublishError is one distinct error text of a run, with how many records
// failed with it.
type PublishError struct {
	Text  string // raw (the view sanitizes it)
	Count int64
}

// PublishedAt is where an acknowledged record was stored (Offset -1 with
// acks 0).
type PublishedAt struct {
	Partition int32
	Offset    int64
}

// PublishProgress is a snapshot of a run.
type PublishProgress struct {
	Count   int64 // records the run will send
	Sent    int64 // handed to the producer
	Acked   int64 // acknowledged
	Failed  int64 // failed (Errors says why)
	Elapsed time.Duration
	// Rate is acknowledged records per second over the last seconds.
	Rate float64
	// LatencyP50 and LatencyP99 are send → acknowledgement, over the most
	// recent records.
	LatencyP50, LatencyP99 time.Duration
	// Last is where the most recent acknowledged records went, newest
	// first (up to 8).
	Last []PublishedAt
	// Connections is the producer's open connections per leader node id.
	Connections map[int]int
	// Errors are the distinct failure texts (MIMQE_* names), most frequent
	// first.
	Errors []PublishError
	// Done: nothing is in flight any more and nothing more will be sent.
	Done bool
	// Stopped: the run was stopped (Stop or its context) before Count.
	Stopped bool
	// Err is a fatal error that ended the run early (the producer failed).
	Err error
	// MissingTopic: a record failed with MIMQE_UNKNOWN_TOPIC, and the run
	// stopped there instead of failing every record at the set rate.
	MissingTopic bool
}

// PublishRun is one running publish. The view reads Progress every 250 ms
// (never per record).
type PublishRun interface {
	// Progress returns a snapshot; cheap, safe from any goroutine.
	Progress() PublishProgress
	// Stop stops sending; records in flight are still awaited (bounded)
	// before Progress reports Done. Idempotent, non-blocking.
	Stop()
}

// Publisher starts publish runs through the multi-connection producer
// (compression and acks from the spec). It is called in a command; ctx
// bounds the run's whole life. A read-only context must refuse (the view
// does not offer publishing there, and the producer layer refuses too).
type Publisher interface {
	StartPublish(ctx context.Context, spec PublishSpec) (PublishRun, error)
}
