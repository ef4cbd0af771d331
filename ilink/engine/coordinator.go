package engine

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// The group protocol (PROTOCOL.md §10): FIND COORDINATOR, JOIN GROUP,
// HEARTBEAT, LEAVE GROUP, OFFSET COMMIT, OFFSET FETCH, DELETE GROUP and
// MIMQ_TOPIC_LEAVE 3401, on consumer connections speaking consumer
// protocol 2 (a protocol-1 client gets REPORT 4157, spec C-43). FIND
// COORDINATOR is answered by any node; the others only by the group's
// coordinator (REPORT 4175 elsewhere, 4176 while it loads).
func init() {
	for code, fn := range map[wire.Code]handlerFunc{
		wire.CodeFindCoordinator: handleFindCoordinator,
		wire.CodeJoinGroup:       handleJoinGroup,
		wire.CodeHeartbeat:       handleHeartbeat,
		wire.CodeLeaveGroup:      handleLeaveGroup,
		wire.CodeOffsetCommit:    handleOffsetCommit,
		wire.CodeOffsetFetch:     handleOffsetFetch,
		wire.CodeDeleteGroup:     handleDeleteGroup,
		wire.CodeTopicLeave:      handleTopicLeave,
	} {
		register(code, route{fn: fn, modes: groupModes})
	}
}

// groupModes may send group requests: consumers, and admin connections
// (their subscriptions, spec A-05).
var groupModes = []wire.SessionMode{wire.ModeConsumer, wire.ModeAdmin}

func handleFindCoordinator(r *request) {
	var req wire.GroupRequest
	if !r.decode(&req) || !topicSessionOK(r, true) {
		return
	}
	if eb := validGroupName(req.Group); eb != nil {
		r.fail(eb)
		return
	}
	e := r.c.e
	s := e.groups.shardOf(req.Group)
	node := leaderOf(s.p)
	if node == 0 {
		r.fail(&wire.ErrorBody{Name: wire.ErrNoLeader, Tail: fmt.Sprintf("no coordinator for group %s: %s/%d has no leader", req.Group, wire.GroupsTopic, s.idx)})
		return
	}
	n := e.nodes[node-1]
	addr := n.data.addr
	if r.c.sess.mode == wire.ModeAdmin {
		addr = n.admin.addr
	}
	r.reply(&wire.CoordinatorReply{NodeID: uint16(node), Addr: addr})
}

func handleJoinGroup(r *request) {
	var req wire.JoinGroupRequest
	if !r.decode(&req) {
		return
	}
	coordinate(r, req.Group, func(s *groupShard) msgOp { return joinGroupLocked(s, &req) })
}

// joinGroupLocked is JOIN GROUP on the group's shard, held.
func joinGroupLocked(s *groupShard, req *wire.JoinGroupRequest) msgOp {
	gc := s.gc
	e := gc.e
	g := s.groups[req.Group]
	var m *gmember
	if req.MemberID != "" {
		if g != nil {
			m = g.members[req.MemberID]
		}
		if m == nil {
			return msgOp{f: failUnknownMember(req.MemberID)}
		}
	}
	if g == nil {
		g = s.newGroupLocked(req.Group, req.Durable)
	}
	if m == nil {
		m = &gmember{id: fmt.Sprintf("member-%08d", gc.memberSeq.Add(1))}
		g.members[m.id] = m
	}
	topics := slices.Clone(req.Topics)
	slices.Sort(topics)
	m.topics = slices.Compact(topics)
	m.client, m.host = req.ClientName, req.Host
	m.lastSeen = time.Now()
	m.timeout = e.SubGroupTimeout() // read at every join (spec C-47)
	assignment := gc.joinLocked(g, m)
	rep := &wire.JoinGroupReply{
		MemberID:            m.id,
		Generation:          m.gen,
		Assignment:          assignment,
		HeartbeatIntervalMs: int32(e.cfg.HeartbeatInterval / time.Millisecond),
		SessionTimeoutMs:    int32(m.timeout / time.Millisecond),
	}
	e.logf("engine: group %s: member %s (%s) joined, generation %d, assigned %v", g.name, m.id, m.client, m.gen, assignment)
	// The group record carries the generation and the membership record
	// the members and what they hold: answered once replicated, both
	// survive a coordinator move.
	return msgOp{res: rep, recs: []grec{groupMetaRec(g), membersRec(g)}}
}

// memberLocked finds the request's member and marks it seen; a stale
// generation is REPORT 4178 (spec C-37).
func memberLocked(s *groupShard, group, id string, gen int32, now time.Time) (*group, *gmember, *gfail) {
	g := s.groups[group]
	if g == nil || g.members[id] == nil {
		return nil, nil, failUnknownMember(id)
	}
	m := g.members[id]
	m.lastSeen = now
	if gen != m.gen {
		return g, m, &gfail{report: wire.ReportGenerationMismatch, eb: &wire.ErrorBody{Name: wire.ErrGenerationMismatch,
			Tail: fmt.Sprintf("generation %d of member %s is stale (current %d)", gen, id, m.gen)}}
	}
	return g, m, nil
}

func handleHeartbeat(r *request) {
	var req wire.MemberRequest
	if !r.decode(&req) {
		return
	}
	coordinate(r, req.Group, func(s *groupShard) msgOp {
		g, m, f := memberLocked(s, req.Group, req.MemberID, req.Generation, time.Now())
		if f != nil {
			return msgOp{f: f}
		}
		s.gc.refreshLocked(g)
		if m.release || m.receive {
			what := "its assignment changes"
			if m.release {
				what = "a partition it holds moves to another member"
			}
			return msgOp{f: &gfail{report: wire.ReportRebalanced, eb: &wire.ErrorBody{Name: wire.ErrRebalanceInProgress,
				Tail: fmt.Sprintf("member %s must rejoin: %s", m.id, what)}}}
		}
		return msgOp{res: &wire.Empty{}}
	})
}

func handleLeaveGroup(r *request) {
	var req wire.MemberRequest
	if !r.decode(&req) {
		return
	}
	coordinate(r, req.Group, func(s *groupShard) msgOp {
		g := s.groups[req.Group]
		if g == nil || g.members[req.MemberID] == nil {
			return msgOp{res: &wire.Empty{}} // already gone: a LEAVE is idempotent
		}
		s.gc.e.logf("engine: group %s: member %s left", g.name, req.MemberID)
		return msgOp{res: &wire.Empty{}, recs: s.gc.removeMemberLocked(s, g, req.MemberID)}
	})
}

func handleOffsetCommit(r *request) {
	var req wire.OffsetCommitRequest
	if !r.decode(&req) {
		return
	}
	coordinate(r, req.Group, func(s *groupShard) msgOp {
		rep, recs, f := s.gc.commitLocked(s, &req, time.Now())
		if f != nil {
			return msgOp{f: f}
		}
		return msgOp{res: rep, recs: recs}
	})
}

// commitLocked validates an OFFSET COMMIT, applies the accepted entries to
// the state and returns the reply and the records to append. The stored
// value is what the client sent: the next offset to read (spec C-04).
func (gc *groupCoord) commitLocked(s *groupShard, req *wire.OffsetCommitRequest, now time.Time) (*wire.OffsetsReply, []grec, *gfail) {
	g := s.groups[req.Group]
	member := req.MemberID != ""
	if !member {
		// Outside membership (manual Assign, admin tools): only while the
		// group has no active member.
		if req.Generation != -1 {
			return nil, nil, &gfail{eb: &wire.ErrorBody{Name: wire.ErrInvalidArgument,
				Tail: fmt.Sprintf("commit without a member id needs generation -1, got %d", req.Generation)}}
		}
		if g != nil && len(g.members) > 0 {
			return nil, nil, failGroupNotEmpty(len(g.members))
		}
	} else {
		var f *gfail
		if g, _, f = memberLocked(s, req.Group, req.MemberID, req.Generation, now); f != nil {
			return nil, nil, f
		}
	}
	ts := gc.e.topics
	rep := &wire.OffsetsReply{Offsets: make([]wire.OffsetEntry, len(req.Offsets))}
	var recs []grec
	var vals []commitVal
	notOwned := 0
	for i, o := range req.Offsets {
		res := &rep.Offsets[i]
		res.Topic, res.Partition, res.Offset = o.Topic, o.Partition, o.Offset
		p, perr := partitionOf(ts.lookup(o.Topic), o.Topic, o.Partition)
		switch {
		case perr.Name != "":
			res.Err = perr
		case o.Offset < 0:
			res.Err = wire.PartError{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("offset %d", o.Offset)}
		case member && g.owner[gtp{o.Topic, o.Partition}] != req.MemberID:
			// spec C-38: reassigned since the member's join (REPORT 4161).
			notOwned++
			res.Err = wire.PartError{Name: wire.ErrRebalanceInProgress,
				Tail: fmt.Sprintf("partition %d of %s is not owned by member %s", o.Partition, o.Topic, req.MemberID)}
		default:
			c := commitVal{off: o.Offset, epoch: p.t.epoch.Load()}
			recs = append(recs, commitRec(req.Group, o.Topic, o.Partition, c))
			vals = append(vals, c)
		}
	}
	if member && notOwned > 0 && notOwned == len(req.Offsets) {
		return nil, nil, &gfail{report: wire.ReportRebalanced, eb: &wire.ErrorBody{Name: wire.ErrRebalanceInProgress,
			Tail: rep.Offsets[0].Err.Tail}}
	}
	if len(recs) == 0 {
		return rep, nil, nil
	}
	if g == nil {
		g = s.newGroupLocked(req.Group, true)
		recs = append([]grec{groupMetaRec(g)}, recs...)
	}
	j := 0
	for _, o := range rep.Offsets {
		if o.Err.Name == "" {
			g.setCommit(o.Topic, o.Partition, vals[j])
			j++
		}
	}
	return rep, recs, nil
}

func handleOffsetFetch(r *request) {
	var req wire.OffsetFetchRequest
	if !r.decode(&req) {
		return
	}
	coordinate(r, req.Group, func(s *groupShard) msgOp { return fetchOffsetsLocked(s, &req) })
}

// fetchOffsetsLocked is OFFSET FETCH on the group's shard, held.
func fetchOffsetsLocked(s *groupShard, req *wire.OffsetFetchRequest) msgOp {
	rep := &wire.OffsetsReply{}
	g := s.groups[req.Group]
	add := func(topic string, part int32) {
		off := int64(-1)
		if g != nil {
			if c, ok := g.commit(topic, part); ok {
				off = c.off
			}
		}
		rep.Offsets = append(rep.Offsets, wire.OffsetEntry{Topic: topic, Partition: part, Offset: off})
	}
	allOf := func(topic string) {
		if g == nil {
			return
		}
		var ks []gtp
		for part := range g.commits[topic] {
			ks = append(ks, gtp{topic, part})
		}
		sortGTPs(ks)
		for _, k := range ks {
			add(k.topic, k.part)
		}
	}
	switch {
	case req.Topics == nil && g != nil:
		topics := make([]string, 0, len(g.commits))
		for t := range g.commits {
			topics = append(topics, t)
		}
		slices.Sort(topics)
		for _, t := range topics {
			allOf(t)
		}
	default:
		for _, tp := range req.Topics {
			if len(tp.Partitions) == 0 {
				allOf(tp.Topic)
			}
			for _, p := range tp.Partitions {
				add(tp.Topic, p)
			}
		}
	}
	// Only durable commits are shown: the reply waits (usually not at all)
	// until every record of the state is replicated.
	return msgOp{res: rep, durable: true}
}

func handleDeleteGroup(r *request) {
	var req wire.DeleteGroupRequest
	if !r.decode(&req) {
		return
	}
	coordinate(r, req.Group, func(s *groupShard) msgOp {
		g := s.groups[req.Group]
		if g == nil {
			return msgOp{res: &wire.Empty{}}
		}
		others := 0
		for id := range g.members {
			if id != req.MemberID {
				others++
			}
		}
		if others > 0 {
			return msgOp{f: failGroupNotEmpty(others)} // spec C-25: nothing is deleted
		}
		s.gc.e.logf("engine: group %s deleted (unsubscribe)", g.name)
		return msgOp{res: &wire.Empty{}, recs: s.gc.deleteGroupLocked(s, g)}
	})
}

// handleTopicLeave is MIMQ_TOPIC_LEAVE (3401): a pattern subscription
// drops one topic. Refused with MIMQE_READ_IN_PROGRESS while a fetch
// covering that topic is pending on this connection (spec T-22).
func handleTopicLeave(r *request) {
	var req wire.TopicLeaveRequest
	if !r.decode(&req) {
		return
	}
	reads := &r.c.sess.reads
	coordinate(r, req.Group, func(s *groupShard) msgOp {
		if reads.covers(req.Topic) { // a leaf lock (pendingReads.mu)
			return msgOp{f: &gfail{eb: &wire.ErrorBody{Name: wire.ErrReadInProgress, Tail: req.Topic}}}
		}
		g := s.groups[req.Group]
		if g == nil || g.members[req.MemberID] == nil {
			return msgOp{f: failUnknownMember(req.MemberID)}
		}
		m := g.members[req.MemberID]
		m.lastSeen = time.Now()
		i, ok := slices.BinarySearch(m.topics, req.Topic)
		if !ok {
			return msgOp{res: &wire.Empty{}}
		}
		m.topics = slices.Delete(m.topics, i, i+1)
		for k, o := range g.owner {
			if o == m.id && k.topic == req.Topic {
				delete(g.owner, k)
			}
		}
		s.gc.rebalanceLocked(g)
		s.gc.e.logf("engine: group %s: member %s left topic %s", g.name, m.id, req.Topic)
		return msgOp{res: &wire.Empty{}, recs: []grec{membersRec(g)}}
	})
}

// ---- Go API ----

// CoordinatorOf returns the node coordinating group (the leader of its
// SYSTEM.GROUPS partition), or 0 while that partition has no leader.
func (e *Engine) CoordinatorOf(group string) int {
	return leaderOf(e.groups.shardOf(group).p)
}

// MoveCoordinator moves group's coordinator: the leadership of its
// SYSTEM.GROUPS partition goes to the next in-sync running replica, which
// loads the partition's groups (LOADING window, REPORT 4176) while the
// old coordinator answers REPORT 4175. Every group of that partition moves
// with it, members and assignments included (groups_persist.go).
func (e *Engine) MoveCoordinator(group string) (int, error) {
	if eb := validGroupName(group); eb != nil {
		return 0, &Error{Name: eb.Name, Tail: eb.Tail}
	}
	gc := e.groups
	s := gc.shardOf(group)
	p := s.p
	p.mu.Lock()
	from, to := p.leader, 0
	if from != 0 {
		to = e.topics.nextLeaderLocked(p)
	}
	p.mu.Unlock()
	if to == 0 {
		return 0, errorf(wire.ErrNotAvailable, "group %s: %s/%d (leader %d) has no other in-sync replica", group, wire.GroupsTopic, s.idx, from)
	}
	if err := e.MovePartitionLeader(wire.GroupsTopic, s.idx, to); err != nil {
		return 0, err
	}
	s.synced(func() {}) // the new coordinator's state, loaded
	e.logf("engine: coordinator of group %s (%s/%d) moved from node %d to node %d", group, wire.GroupsTopic, s.idx, from, to)
	return to, nil
}

// GroupCommits returns a group's commits (next offsets) by topic and
// partition as its coordinator holds them once they are durable (it waits
// for their replication, as OFFSET FETCH does), or nil for an unknown group
// or while its coordinator is offline.
func (e *Engine) GroupCommits(group string) map[string]map[int32]int64 {
	type commits = map[string]map[int32]int64
	s := e.groups.shardOf(group)
	out, f := await(withShard(s, nil, func() shardOp[commits] {
		g := s.groups[group]
		if g == nil || !g.hasCommits() || s.node == 0 {
			return shardOp[commits]{}
		}
		out := make(commits, len(g.commits))
		for t, parts := range g.commits {
			m := make(map[int32]int64, len(parts))
			for p, c := range parts {
				m[p] = c.off
			}
			out[t] = m
		}
		return shardOp[commits]{res: out, durable: true}
	}))
	if f != nil {
		return nil
	}
	return out
}

// ---- pending reads (spec T-22) ----

// pendingReads counts, per topic, the long-poll fetches pending on one
// connection. Its mutex is a leaf.
type pendingReads struct {
	mu     sync.Mutex
	topics map[string]int
}

func (pr *pendingReads) add(req *wire.FetchRequest) {
	pr.mu.Lock()
	if pr.topics == nil {
		pr.topics = map[string]int{}
	}
	for i := range req.Topics {
		pr.topics[req.Topics[i].Topic]++
	}
	pr.mu.Unlock()
}

func (pr *pendingReads) remove(req *wire.FetchRequest) {
	pr.mu.Lock()
	for i := range req.Topics {
		t := req.Topics[i].Topic
		if pr.topics[t]--; pr.topics[t] <= 0 {
			delete(pr.topics, t)
		}
	}
	pr.mu.Unlock()
}

func (pr *pendingReads) covers(topic string) bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.topics[topic] > 0
}
