package engine

import (
	"fmt"
	"time"

	"ilinkdash/ilink/wire"
)

// METADATA, CREATE TOPIC and admin PUBLISH: any session mode, on either
// listener of any running node.
func init() {
	register(wire.CodeMetadata, route{fn: handleMetadata})
	register(wire.CodeCreateTopic, route{fn: handleCreateTopic})
	register(wire.CodeAdminPublish, route{fn: handleAdminPublish})
}

// nodeInfos is the node list of METADATA (as in the HELLO reply).
func (c *cluster) nodeInfos() []wire.NodeInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nodeInfosLocked()
}

// handleMetadata answers the node list and the partition-leader tables
// (spec K-22): per topic its epoch and per partition leader, leader
// epoch, replicas and in-sync replicas.
func handleMetadata(r *request) {
	var req wire.MetadataRequest
	if !r.decode(&req) || !topicSessionOK(r, false) {
		return
	}
	e := r.c.e
	rep := &wire.MetadataReply{Nodes: e.cl.nodeInfos()}
	var ts []*topic
	if req.Topics == nil {
		ts = e.topics.snap.Load().list
	}
	for _, name := range req.Topics {
		t := e.topics.lookup(name)
		if t == nil {
			rep.Topics = append(rep.Topics, wire.TopicMeta{Name: name, Err: wire.PartError{Name: wire.ErrUnknownTopic, Tail: name}})
			continue
		}
		rep.Topics = append(rep.Topics, topicMeta(t))
	}
	for _, t := range ts {
		rep.Topics = append(rep.Topics, topicMeta(t))
	}
	r.reply(rep)
}

func topicMeta(t *topic) wire.TopicMeta {
	ps := t.partitions() // one load: the current count (it grows with AlterTopic)
	tm := wire.TopicMeta{Name: t.name, Epoch: t.epoch.Load(), Partitions: make([]wire.PartitionMeta, len(ps))}
	for i, p := range ps {
		p.mu.Lock()
		pm := wire.PartitionMeta{ID: p.id, Leader: uint16(p.leader), LeaderEpoch: p.leaderEpoch}
		for _, r := range p.reps {
			pm.Replicas = append(pm.Replicas, uint16(r.node))
			if p.isr&bit(r.node) != 0 {
				pm.InSync = append(pm.InSync, uint16(r.node))
			}
		}
		if p.tEpoch > tm.Epoch { // a bump in progress: the partitions know first
			tm.Epoch = p.tEpoch
		}
		p.mu.Unlock()
		tm.Partitions[i] = pm
	}
	return tm
}

// handleCreateTopic creates a topic (spec T-01, W-13); the reply is empty.
func handleCreateTopic(r *request) {
	var req wire.CreateTopicRequest
	if !r.decode(&req) || !topicSessionOK(r, false) {
		return
	}
	r.replyEmpty(r.c.e.CreateTopic(req.Topic, req.Properties), wireError)
}

// handleAdminPublish appends one record (spec A-06..A-09): the partition
// is chosen round-robin per topic (skipping offline partitions), the
// record goes to that partition's leader in-process wherever it is, acks=1,
// no idempotence. The reply is (offset, timestamp, partition).
func handleAdminPublish(r *request) {
	var req wire.AdminPublishRequest
	if !r.decode(&req) || !topicSessionOK(r, false) {
		return
	}
	e := r.c.e
	ts := e.topics
	t := ts.lookup(req.Topic)
	if t == nil {
		r.fail(&wire.ErrorBody{Name: wire.ErrUnknownTopic, Tail: req.Topic})
		return
	}
	if t.internal {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: internalTopicRefusal(t.name)})
		return
	}
	now := time.Now()
	nowMs := now.UnixMilli()
	bb := wire.NewBatchBuilder(-1, -1, -1)
	bb.Append(nowMs, req.Key, req.Value, req.Headers)
	batch, err := bb.Finish(wire.CodecNone)
	if err != nil {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: err.Error()})
		return
	}
	ps := t.partitions()
	n := uint32(len(ps))
	start := t.rr.Add(1) - 1
	for k := uint32(0); k < n; k++ {
		p := ps[(start+k)%n]
		out := ts.produceTo(p, r.c.nodeID(), 0, true, batch, nowMs, now.Unix())
		if out.err.Name == wire.ErrNoLeader {
			continue // offline: try the next partition
		}
		if out.err.Name != "" {
			r.fail(&wire.ErrorBody{Name: out.err.Name, Tail: out.err.Tail})
			return
		}
		r.reply(&wire.AdminPublishReply{Offset: out.base, TimestampMs: nowMs, Partition: p.id})
		return
	}
	r.fail(&wire.ErrorBody{Name: wire.ErrNoLeader, Tail: fmt.Sprintf("no partition of %s has a leader", req.Topic)})
}
