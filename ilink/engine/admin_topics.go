package engine

import (
	"time"

	"ilinkdash/ilink/wire"
)

// Topic administration over the admin listener. Writes go through the
// topic side's Go API (CreateTopic, DeleteTopic, FlushTopic, AlterTopic).
// Reads walk the topic snapshot directly, one partition lock at a time and
// without per-partition allocations, because a dashboard polls the whole
// list every few seconds (10,000 topics in the benchmark). The fields read here are the topic side's (topics.go,
// stats.go): topic.{name,internal,layout(),epoch,stats} (one layout load
// per topic, so its properties and partitions agree: topicLayout),
// partition.{mu,id,leader,leaderEpoch,isr,hw,reps}, replicaState.{node,
// log,caughtUp}, partLog.{start,end}, statRing buckets.

// rateWindow is the window of the rates in the topic list.
const rateWindow = 10

// recentRates averages the last n complete seconds of a stat ring.
func (s *statRing) recentRates(now time.Time, n int64) (recIn, recOut, bytesIn, bytesOut float64) {
	last := now.Unix() - 1
	var ri, ro, bi, bo int64
	for sec := last - n + 1; sec <= last; sec++ {
		b := &s.b[sec%StatSeconds]
		if b.sec.Load() == sec {
			ri += b.recIn.Load()
			ro += b.recOut.Load()
			bi += b.bytesIn.Load()
			bo += b.bytesOut.Load()
		}
	}
	d := float64(n)
	return float64(ri) / d, float64(ro) / d, float64(bi) / d, float64(bo) / d
}

// topicEntry summarises one topic as of layout lay.
func topicEntry(t *topic, lay *topicLayout, now time.Time) wire.TopicEntry {
	te := wire.TopicEntry{
		Name: t.name, Internal: t.internal, Partitions: len(lay.parts),
		Replicas: lay.cfg.replicas, MinSync: lay.cfg.minSync,
		RetentionMs: lay.cfg.retentionMs, RetentionBytes: lay.cfg.retentionBytes,
		Epoch: t.epoch.Load(),
	}
	for _, p := range lay.parts {
		p.mu.Lock()
		if p.leader == 0 {
			te.Offline++
		} else if l := p.leaderLogLocked(); l != nil {
			te.StartOffsetSum += l.start
			te.EndOffsetSum += l.end
		}
		if p.isr&p.mask != p.mask {
			te.UnderReplicated++
		}
		p.mu.Unlock()
	}
	if t.stats != nil {
		te.RecordsInPerSec, te.RecordsOutPerSec, te.BytesInPerSec, te.BytesOutPerSec = t.stats.recentRates(now, rateWindow)
	}
	return te
}

func handleTopicList(r *request) {
	var req wire.TopicListRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	list := r.c.e.topics.snap.Load().list
	now := time.Now()
	rep := &wire.TopicListReply{Topics: make([]wire.TopicEntry, 0, len(list))}
	for _, t := range list {
		if t.internal && !req.Internal {
			continue
		}
		rep.Topics = append(rep.Topics, topicEntry(t, t.layout(), now))
	}
	r.reply(rep)
}

func handleDescribeTopic(r *request) {
	var req wire.TopicRequest
	if r.decode(&req) {
		if t := r.qmgrTopic(req.Qmgr, req.Topic); t != nil {
			r.reply(describeTopic(r.c.e.topics, t))
		}
	}
}

// describeTopic is DESCRIBE TOPIC's answer.
func describeTopic(ts *topicStore, t *topic) *wire.TopicDescriptionReply {
	lay := t.layout() // the summary and the partition list agree
	rep := &wire.TopicDescriptionReply{Topic: topicEntry(t, lay, time.Now())}
	for _, pi := range ts.partitionInfos(lay.parts) {
		rep.Partitions = append(rep.Partitions, wire.PartitionEntry{
			Partition: pi.Partition, Leader: pi.Leader, LeaderEpoch: pi.LeaderEpoch,
			Replicas: pi.Replicas, InSync: pi.InSync,
			StartOffset: pi.StartOffset, EndOffset: pi.EndOffset, HighWatermark: pi.HighWatermark,
		})
	}
	return rep
}

// topicOf is the topic name names, or nil once r is answered
// MIMQE_UNKNOWN_TOPIC.
func (r *request) topicOf(name string) *topic {
	t := r.c.e.topics.lookup(name)
	if t == nil {
		r.fail(errUnknownTopic(name).body())
	}
	return t
}

// qmgrTopic is topicOf on a running queue manager qmgr (qmgrRunning).
func (r *request) qmgrTopic(qmgr, name string) *topic {
	if !r.qmgrRunning(qmgr) {
		return nil
	}
	return r.topicOf(name)
}

// replyEmpty answers r with an empty body, or with err's error body (as
// toBody makes it) when err is set.
func (r *request) replyEmpty(err error, toBody func(error) *wire.ErrorBody) {
	if err != nil {
		r.fail(toBody(err))
		return
	}
	r.reply(&wire.Empty{})
}

// topicWrite answers a topic change made through the Go API.
func topicWrite(r *request, qmgr string, fn func() error) {
	if r.qmgrRunning(qmgr) {
		r.replyEmpty(fn(), wireError)
	}
}

func handleAdminCreateTopic(r *request) { topicPropsWrite(r, (*Engine).CreateTopic) }
func handleAlterTopic(r *request)       { topicPropsWrite(r, (*Engine).AlterTopic) }
func handleDeleteTopic(r *request)      { topicNameWrite(r, (*Engine).DeleteTopic) }
func handleFlushTopic(r *request)       { topicNameWrite(r, (*Engine).FlushTopic) }

// topicPropsWrite decodes a request naming a topic and its properties and
// runs op on them through topicWrite.
func topicPropsWrite(r *request, op func(e *Engine, topic, props string) error) {
	var req wire.TopicPropsRequest
	if r.decode(&req) {
		topicWrite(r, req.Qmgr, func() error { return op(r.c.e, req.Topic, req.Properties) })
	}
}

// topicNameWrite is topicPropsWrite for a request naming only a topic.
func topicNameWrite(r *request, op func(e *Engine, topic string) error) {
	var req wire.TopicRequest
	if r.decode(&req) {
		topicWrite(r, req.Qmgr, func() error { return op(r.c.e, req.Topic) })
	}
}

func handleStatSeries(r *request) {
	var req wire.StatSeriesRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	e := r.c.e
	ring := e.topics.qmStats
	if req.Topic != "" {
		t := r.topicOf(req.Topic)
		if t == nil {
			return
		}
		ring = t.stats
	}
	now := time.Now()
	last := now.Unix()
	first := last - StatSeconds + 1
	rep := &wire.StatSeriesReply{Scope: req.Topic, ResolutionMs: 1000, StartMs: first * 1000, Points: make([]wire.StatPointEntry, StatSeconds)}
	for i := range rep.Points {
		sec := first + int64(i)
		b := &ring.b[sec%StatSeconds]
		if b.sec.Load() == sec {
			rep.Points[i] = wire.StatPointEntry{
				RecordsIn: float64(b.recIn.Load()), RecordsOut: float64(b.recOut.Load()),
				BytesIn: float64(b.bytesIn.Load()), BytesOut: float64(b.bytesOut.Load()),
			}
		}
	}
	r.reply(rep)
}

// handleForceElection moves a partition's leadership (forced election)
// through the topic side's MovePartitionLeader; node 0 picks the next
// running in-sync replica after the current leader.
func handleForceElection(r *request) {
	var req wire.ForceElectionRequest
	if !r.decode(&req) {
		return
	}
	t := r.qmgrTopic(req.Qmgr, req.Topic)
	if t == nil {
		return
	}
	e := r.c.e
	parts := t.partitions()
	if req.Partition < 0 || int(req.Partition) >= len(parts) {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "no partition " + itoa(int(req.Partition)) + " in " + req.Topic})
		return
	}
	p := parts[req.Partition]
	p.mu.Lock()
	from, target := p.leader, req.Node
	if target == 0 {
		target = e.topics.nextLeaderLocked(p)
	}
	p.mu.Unlock()
	if target == 0 {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "no other in-sync replica of " + req.Topic + "/" + itoa(int(req.Partition))})
		return
	}
	if err := e.MovePartitionLeader(req.Topic, int(req.Partition), target); err != nil {
		r.fail(wireError(err))
		return
	}
	if from != target {
		e.adm.leads.partitionElection(req.Topic, req.Partition, from, target, true, "admin forced election")
	}
	r.reply(&wire.Empty{})
}

// adminPartitionLeads feeds the lead table's partition rows (SYSTEM.
// topics included), in topic then partition order.
func (e *Engine) adminPartitionLeads(fn func(partLead)) {
	var reps, isr []int
	for _, t := range e.topics.snap.Load().list {
		for _, p := range t.partitions() {
			p.mu.Lock()
			reps, isr = reps[:0], isr[:0]
			for _, rs := range p.reps {
				reps = append(reps, rs.node)
				if p.isr&bit(rs.node) != 0 {
					isr = append(isr, rs.node)
				}
			}
			pl := partLead{topic: t.name, partition: p.id, leader: p.leader, epoch: p.leaderEpoch, replicas: reps, inSync: isr}
			p.mu.Unlock()
			fn(pl)
		}
	}
}
