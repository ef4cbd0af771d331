package admin

import (
	"context"
	"strconv"
	"time"

	"ilinkdash/ilink/wire"
)

// Qmgr is ILAdminQmgr: the administration of one queue manager of a
// service. Every query to a stopped queue manager fails with
// MIMQE_QMGR_NOT_RUNNING (<qmgr>) (spec A-21).
type Qmgr struct {
	svc  *Service
	name string
}

// Name is the queue manager's name ("" for the service's own queue
// manager until a service made by New has connected).
func (q *Qmgr) Name() string { return q.qmgr() }

// qmgr is the name requests carry: the one given, else the service's queue
// manager from the handshake; "" before the first handshake of a service
// made by New, which the engine reads as its own (docs/PROTOCOL.md §11.1).
func (q *Qmgr) qmgr() string {
	if q.name != "" {
		return q.name
	}
	return q.svc.QueueManager()
}

// Service is the service the handle belongs to.
func (q *Qmgr) Service() *Service { return q.svc }

func ms(d int64) time.Duration { return time.Duration(d) * time.Millisecond }

func msTime(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

// ---- nodes ----

// Nodes lists the queue manager's cluster nodes with their role, state,
// the partitions they lead and their replication lag.
func (q *Qmgr) Nodes(ctx context.Context) ([]NodeInfo, error) {
	var rep wire.NodeListReply
	if err := q.svc.read(ctx, wire.CodeNodeList, &wire.QmgrRequest{Qmgr: q.qmgr()}, &rep); err != nil {
		return nil, err
	}
	out := make([]NodeInfo, len(rep.Nodes))
	for i, n := range rep.Nodes {
		out[i] = NodeInfo{
			ID: n.ID, QueueManager: n.QueueManager, DataAddr: n.DataAddr, AdminAddr: n.AdminAddr,
			Role: NodeRole(n.Role), State: NodeState(n.State), Partitions: n.Partitions,
			LagRecords: n.LagRecords, Lag: ms(n.LagMs),
		}
		q.svc.LearnAdmins(n.AdminAddr) // a node added since the handshake is somewhere to fail over to
	}
	return out, nil
}

func (q *Qmgr) nodeControl(ctx context.Context, call string, id int, action uint8) error {
	if err := q.svc.mutate(call); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeNodeControl, &wire.NodeControlRequest{Qmgr: q.qmgr(), Node: id, Action: action}, nil)
}

// StopNode stops node id's queue manager (its admin listener stays up).
func (q *Qmgr) StopNode(ctx context.Context, id int) error {
	return q.nodeControl(ctx, "StopNode", id, wire.NodeActionStop)
}

// StartNode starts node id's queue manager again, or restarts a killed node.
func (q *Qmgr) StartNode(ctx context.Context, id int) error {
	return q.nodeControl(ctx, "StartNode", id, wire.NodeActionStart)
}

// KillNode kills node id (fault injection: its memory state is lost).
// Killing the node this service is connected to answers first; the
// connection then closes and the next call reconnects to another node.
func (q *Qmgr) KillNode(ctx context.Context, id int) error {
	return q.nodeControl(ctx, "KillNode", id, wire.NodeActionKill)
}

// ForceElection moves the leadership of a partition to node (0 = the
// engine picks another in-sync replica).
func (q *Qmgr) ForceElection(ctx context.Context, topic string, partition int32, node int) error {
	if err := q.svc.mutate("ForceElection"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeForceElection, &wire.ForceElectionRequest{Qmgr: q.qmgr(), Topic: topic, Partition: partition, Node: node}, nil)
}

// ---- topics ----

func topicInfo(t *wire.TopicEntry) TopicInfo {
	return TopicInfo{
		Name: t.Name, Internal: t.Internal, Partitions: t.Partitions, Replicas: t.Replicas, MinSync: t.MinSync,
		RetentionMs: t.RetentionMs, RetentionBytes: t.RetentionBytes, Epoch: t.Epoch,
		UnderReplicated: t.UnderReplicated, Offline: t.Offline,
		StartOffsetSum: t.StartOffsetSum, EndOffsetSum: t.EndOffsetSum,
		RecordsInPerSec: t.RecordsInPerSec, RecordsOutPerSec: t.RecordsOutPerSec,
		BytesInPerSec: t.BytesInPerSec, BytesOutPerSec: t.BytesOutPerSec,
	}
}

// Topics is getTopicList: every topic, SYSTEM.* included (Internal set),
// sorted by name, with offsets and the rates of the last 10 s.
func (q *Qmgr) Topics(ctx context.Context) ([]TopicInfo, error) {
	var rep wire.TopicListReply
	if err := q.svc.read(ctx, wire.CodeTopicList, &wire.TopicListRequest{Qmgr: q.qmgr(), Internal: true}, &rep); err != nil {
		return nil, err
	}
	out := make([]TopicInfo, len(rep.Topics))
	for i := range rep.Topics {
		out[i] = topicInfo(&rep.Topics[i])
	}
	return out, nil
}

// DescribeTopic describes a topic partition by partition.
func (q *Qmgr) DescribeTopic(ctx context.Context, topic string) (TopicDescription, error) {
	var rep wire.TopicDescriptionReply
	if err := q.svc.read(ctx, wire.CodeDescribeTopic, &wire.TopicRequest{Qmgr: q.qmgr(), Topic: topic}, &rep); err != nil {
		return TopicDescription{}, err
	}
	d := TopicDescription{TopicInfo: topicInfo(&rep.Topic), PartitionList: make([]PartitionInfo, len(rep.Partitions))}
	for i, p := range rep.Partitions {
		d.PartitionList[i] = PartitionInfo{
			Partition: p.Partition, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch,
			Replicas: p.Replicas, InSync: p.InSync,
			StartOffset: p.StartOffset, EndOffset: p.EndOffset, HighWatermark: p.HighWatermark,
		}
	}
	return d, nil
}

// CreateTopic is createTopic(name, "partitions=3"): properties are
// comma-separated key=value pairs (partitions, replicas, minSync,
// retention.ms, retention.bytes; spec T-01, W-13).
func (q *Qmgr) CreateTopic(ctx context.Context, topic, properties string) error {
	if err := q.svc.mutate("CreateTopic"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeAdminCreateTopic, &wire.TopicPropsRequest{Qmgr: q.qmgr(), Topic: topic, Properties: properties}, nil)
}

// DeleteTopic deletes a topic with its data and its groups' commits.
func (q *Qmgr) DeleteTopic(ctx context.Context, topic string) error {
	if err := q.svc.mutate("DeleteTopic"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeDeleteTopic, &wire.TopicRequest{Qmgr: q.qmgr(), Topic: topic}, nil)
}

// FlushTopic empties a topic (FLUSH) and bumps its epoch.
func (q *Qmgr) FlushTopic(ctx context.Context, topic string) error {
	if err := q.svc.mutate("FlushTopic"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeFlushTopic, &wire.TopicRequest{Qmgr: q.qmgr(), Topic: topic}, nil)
}

// AlterTopic changes topic properties (same key=value form as CreateTopic).
func (q *Qmgr) AlterTopic(ctx context.Context, topic, properties string) error {
	if err := q.svc.mutate("AlterTopic"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeAlterTopic, &wire.TopicPropsRequest{Qmgr: q.qmgr(), Topic: topic, Properties: properties}, nil)
}

// Publish is admin publish(topic, data, key=): one request per record,
// round-robin partition, acks=1, never idempotent (spec A-06..A-09). It
// returns (offset, timestamp, partition).
func (q *Qmgr) Publish(ctx context.Context, topic string, key, value []byte, headers ...wire.RecordHeader) (PublishResult, error) {
	if err := q.svc.mutate("Publish"); err != nil {
		return PublishResult{}, err
	}
	if value == nil {
		value = []byte{}
	}
	var rep wire.AdminPublishReply
	if err := q.svc.write(ctx, wire.CodeAdminPublish, &wire.AdminPublishRequest{Topic: topic, Key: key, Value: value, Headers: headers}, &rep); err != nil {
		return PublishResult{}, err
	}
	return PublishResult{Offset: rep.Offset, Timestamp: time.UnixMilli(rep.TimestampMs), Partition: rep.Partition}, nil
}

// StatSeries is getStatSeries: records and bytes in/out per second of a
// topic (or of the whole queue manager when topic is ""), the last 15
// minutes at 1 s resolution, oldest first.
func (q *Qmgr) StatSeries(ctx context.Context, topic string) (StatSeries, error) {
	var rep wire.StatSeriesReply
	if err := q.svc.read(ctx, wire.CodeStatSeries, &wire.StatSeriesRequest{Qmgr: q.qmgr(), Topic: topic}, &rep); err != nil {
		return StatSeries{}, err
	}
	res := ms(rep.ResolutionMs)
	out := StatSeries{Scope: rep.Scope, Resolution: res, Points: make([]StatPoint, len(rep.Points))}
	start := time.UnixMilli(rep.StartMs)
	for i, p := range rep.Points {
		out.Points[i] = StatPoint{Time: start.Add(time.Duration(i) * res), RecordsIn: p.RecordsIn, RecordsOut: p.RecordsOut, BytesIn: p.BytesIn, BytesOut: p.BytesOut}
	}
	return out, nil
}

// ---- queues ----

func queueProperty(p *wire.QueuePropertyEntry) QueueProperty {
	return QueueProperty{
		Name: p.Name, Description: p.Description, MaxDepth: p.MaxDepth, MaxMsgSize: p.MaxMsgSize,
		PutEnabled: p.PutEnabled, GetEnabled: p.GetEnabled, Persistent: p.Persistent, Created: msTime(p.CreatedMs),
		DeadLetterQueue: p.DeadLetterQueue, MaxRedeliveries: p.MaxRedeliveries,
	}
}

// Queues lists the queues with depth, in-flight messages, put/get rates
// and properties, sorted by name.
func (q *Qmgr) Queues(ctx context.Context) ([]QueueInfo, error) {
	var rep wire.QueueListReply
	if err := q.svc.read(ctx, wire.CodeQueueList, &wire.QmgrRequest{Qmgr: q.qmgr()}, &rep); err != nil {
		return nil, err
	}
	out := make([]QueueInfo, len(rep.Queues))
	for i := range rep.Queues {
		e := &rep.Queues[i]
		out[i] = QueueInfo{Name: e.Property.Name, Depth: e.Depth, InFlight: e.InFlight, PutRate: e.PutRate, GetRate: e.GetRate, Property: queueProperty(&e.Property)}
	}
	return out, nil
}

// QueueProperty is a queue's ILQueueProperty.
func (q *Qmgr) QueueProperty(ctx context.Context, queue string) (QueueProperty, error) {
	var rep wire.QueuePropertyReply
	if err := q.svc.read(ctx, wire.CodeQueueProperty, &wire.QueueNameRequest{Qmgr: q.qmgr(), Queue: queue}, &rep); err != nil {
		return QueueProperty{}, err
	}
	return queueProperty(&rep.Property), nil
}

// ReloadQueue is reloadQueue (RELOAD QUEUE 3315); it returns the queue's
// depth after the reload.
func (q *Qmgr) ReloadQueue(ctx context.Context, queue string) (int64, error) {
	if err := q.svc.mutate("ReloadQueue"); err != nil {
		return 0, err
	}
	var rep wire.ReloadQueueReply
	if err := q.svc.write(ctx, wire.CodeReloadQueue, &wire.QueueNameRequest{Qmgr: q.qmgr(), Queue: queue}, &rep); err != nil {
		return 0, err
	}
	return rep.Depth, nil
}

// QuarantineList is getQuarantineList (VIEW QUARANTINE 3425): text as is.
func (q *Qmgr) QuarantineList(ctx context.Context) (string, error) {
	var rep wire.TextReply
	if err := q.svc.read(ctx, wire.CodeViewQuarantine, &wire.QmgrRequest{Qmgr: q.qmgr()}, &rep); err != nil {
		return "", err
	}
	return rep.Text, nil
}

func sinceMs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// ScanQuarantine is scanQuarantine(dir, queue, since) (3426): text as is.
// Empty dir or queue match every directory or queue; a zero since, every
// entry.
func (q *Qmgr) ScanQuarantine(ctx context.Context, dir, queue string, since time.Time) (string, error) {
	var rep wire.TextReply
	req := &wire.QuarantineRequest{Qmgr: q.qmgr(), Dir: dir, Queue: queue, SinceMs: sinceMs(since)}
	if err := q.svc.read(ctx, wire.CodeScanQuarantine, req, &rep); err != nil {
		return "", err
	}
	return rep.Text, nil
}

// ReinjectQuarantine is reinjectQuarantine(dir, queue, since) (REINJECT
// 3427): the selected entries are appended to the queue's tail. includeOld
// also takes entries of messages the queue already delivered, which can
// duplicate them (spec Q-23).
func (q *Qmgr) ReinjectQuarantine(ctx context.Context, dir, queue string, since time.Time, includeOld bool) (QuarantineReinjectResult, error) {
	if err := q.svc.mutate("ReinjectQuarantine"); err != nil {
		return QuarantineReinjectResult{}, err
	}
	var rep wire.ReinjectReply
	req := &wire.QuarantineRequest{Qmgr: q.qmgr(), Dir: dir, Queue: queue, SinceMs: sinceMs(since), IncludeOld: includeOld}
	if err := q.svc.write(ctx, wire.CodeReinject, req, &rep); err != nil {
		return QuarantineReinjectResult{}, err
	}
	return QuarantineReinjectResult{Count: rep.Count, Leader: rep.Leader, StopReason: rep.StopReason}, nil
}

// ---- load, replication, properties ----

// LoadInfo is getLoadMonitoringInfo(level) (VIEW LOAD 3204): level 0
// totals, 1 per node, 2 per queue too.
func (q *Qmgr) LoadInfo(ctx context.Context, level int) (LoadInfo, error) {
	if level < 0 || level > 255 {
		level = 0
	}
	var rep wire.ViewLoadReply
	if err := q.svc.read(ctx, wire.CodeViewLoad, &wire.ViewLoadRequest{Qmgr: q.qmgr(), Level: uint8(level)}, &rep); err != nil {
		return LoadInfo{}, err
	}
	out := LoadInfo{
		Level: int(rep.Level), At: time.UnixMilli(rep.AtMs), Sessions: rep.Sessions, Requests: rep.Requests,
		RequestsPerSec: rep.RequestsPerSec, Topics: rep.Topics, Partitions: rep.Partitions,
		Queues: rep.Queues, QueueDepth: rep.QueueDepth,
	}
	for _, n := range rep.Nodes {
		out.Nodes = append(out.Nodes, NodeLoad{ID: n.ID, Up: n.Up, Running: n.Running, Leader: n.Leader,
			DataSessions: n.DataSessions, AdminSessions: n.AdminSessions, Requests: n.Requests,
			RequestsPerSec: n.RequestsPerSec, PartitionsLed: n.PartitionsLed})
	}
	for _, l := range rep.QueueLoad {
		out.QueueLoad = append(out.QueueLoad, QueueLoad{Name: l.Name, Depth: l.Depth, InFlight: l.InFlight, PutRate: l.PutRate, GetRate: l.GetRate})
	}
	return out, nil
}

// ReplicationStatus is getReplicationStatus: per node role, state and
// lag; per partition leader, in-sync set and follower lag in records and
// time. A stopped queue manager answers MIMQE_QMGR_NOT_RUNNING (<qmgr>).
func (q *Qmgr) ReplicationStatus(ctx context.Context) (ReplicationStatus, error) {
	var rep wire.ReplicationStatusReply
	if err := q.svc.read(ctx, wire.CodeReplicationStatus, &wire.QmgrRequest{Qmgr: q.qmgr()}, &rep); err != nil {
		return ReplicationStatus{}, err
	}
	out := ReplicationStatus{Cluster: rep.Cluster, Leader: rep.Leader, Nodes: make([]NodeReplication, len(rep.Nodes))}
	for i, n := range rep.Nodes {
		out.Nodes[i] = NodeReplication{ID: n.ID, QueueManager: n.QueueManager, Role: NodeRole(n.Role), State: NodeState(n.State), LagRecords: n.LagRecords, Lag: ms(n.LagMs)}
	}
	np, nf := 0, 0
	for _, t := range rep.Topics {
		np += len(t.Partitions)
		for _, p := range t.Partitions {
			nf += len(p.Followers)
		}
	}
	out.Partitions = make([]PartitionReplication, 0, np)
	fbuf := make([]FollowerLag, nf)
	for _, t := range rep.Topics {
		for _, p := range t.Partitions {
			fs := fbuf[:len(p.Followers):len(p.Followers)]
			fbuf = fbuf[len(p.Followers):]
			for i, f := range p.Followers {
				fs[i] = FollowerLag{Node: f.Node, InSync: f.InSync, LagRecords: f.LagRecords, Lag: ms(f.LagMs)}
			}
			out.Partitions = append(out.Partitions, PartitionReplication{Topic: t.Topic, Partition: p.Partition, Leader: p.Leader, InSync: p.InSync, Followers: fs})
		}
	}
	return out, nil
}

// Property reads a queue-manager property by engine key (e.g.
// SUBGROUPTIMEOUT).
func (q *Qmgr) Property(ctx context.Context, key string) (string, error) {
	var rep wire.QmgrPropertyReply
	if err := q.svc.read(ctx, wire.CodeQmgrProperty, &wire.QmgrPropertyRequest{Qmgr: q.qmgr(), Key: key}, &rep); err != nil {
		return "", err
	}
	return rep.Value, nil
}

// SetProperty writes a queue-manager property by engine key.
func (q *Qmgr) SetProperty(ctx context.Context, key, value string) error {
	if err := q.svc.mutate("SetProperty"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeSetQmgrProperty, &wire.QmgrPropertyRequest{Qmgr: q.qmgr(), Key: key, Value: value}, nil)
}

// SubGroupTimeout is the queue manager property subGroupTimeoutSec
// (engine key SUBGROUPTIMEOUT), in seconds; default 30.
func (q *Qmgr) SubGroupTimeout(ctx context.Context) (int, error) {
	v, err := q.Property(ctx, wire.PropSubGroupTimeout)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// SetSubGroupTimeout sets subGroupTimeoutSec; the engine accepts 1..300
// and refuses others with MIMQE_INVALID_PROPERTY.
func (q *Qmgr) SetSubGroupTimeout(ctx context.Context, sec int) error {
	if err := q.svc.mutate("SetSubGroupTimeout"); err != nil {
		return err
	}
	return q.svc.write(ctx, wire.CodeSetQmgrProperty, &wire.QmgrPropertyRequest{Qmgr: q.qmgr(), Key: wire.PropSubGroupTimeout, Value: strconv.Itoa(sec)}, nil)
}
