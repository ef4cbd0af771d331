package engine

import (
	"slices"
	"sort"
	"time"

	"ilinkdash/ilink/wire"
)

// Group membership, assignment, expiry and topic wipes (the rules of
// groups.go's coordinator state; every function runs under the shard's
// lock).

// ---- membership and assignment ----

// targetLocked computes the assignment the group converges to: for each
// subscribed topic (sorted), its partitions round-robin over the members
// subscribed to it, sorted by member id, with one counter across topics.
func (gc *groupCoord) targetLocked(g *group) map[string]map[gtp]bool {
	ids := make([]string, 0, len(g.members))
	var topics []string
	for id, m := range g.members {
		ids = append(ids, id)
		topics = append(topics, m.topics...)
	}
	sort.Strings(ids)
	slices.Sort(topics)
	topics = slices.Compact(topics)
	target := make(map[string]map[gtp]bool, len(ids))
	for _, id := range ids {
		target[id] = map[gtp]bool{}
	}
	ts := gc.e.topics
	i := 0
	var subs []string
	for _, name := range topics {
		t := ts.lookup(name)
		if t == nil {
			continue
		}
		subs = subs[:0]
		for _, id := range ids {
			if _, ok := slices.BinarySearch(g.members[id].topics, name); ok {
				subs = append(subs, id)
			}
		}
		for p := range t.partitions() {
			target[subs[i%len(subs)]][gtp{name, int32(p)}] = true
			i++
		}
	}
	g.snap = ts.snap.Load()
	return target
}

// flagLocked sets each member's rebalance flags against target: a member
// must rejoin when it holds a partition of another member's target (it
// releases it at its rejoin) or when a partition of its own target is free
// (its rejoin takes it). A partition held by another member is not "free"
// for the new owner until the holder rejoined (spec C-26).
func flagLocked(g *group, target map[string]map[gtp]bool) {
	for _, m := range g.members {
		m.release, m.receive = false, false
	}
	for k, o := range g.owner {
		if m := g.members[o]; m != nil && !target[o][k] {
			m.release = true
		}
	}
	for id, set := range target {
		m := g.members[id]
		for k := range set {
			if _, held := g.owner[k]; !held {
				m.receive = true
				break
			}
		}
	}
}

// rebalanceLocked recomputes the flags (after a membership change, or
// when the topic set changed since the last computation).
func (gc *groupCoord) rebalanceLocked(g *group) {
	flagLocked(g, gc.targetLocked(g))
}

// refreshLocked recomputes the flags if topics were created or deleted
// since they were computed.
func (gc *groupCoord) refreshLocked(g *group) {
	if len(g.members) > 0 && g.snap != gc.e.topics.snap.Load() {
		gc.rebalanceLocked(g)
	}
}

// joinLocked adds (or rejoins) a member: it releases what it holds
// outside its target and takes the free partitions of its target.
func (gc *groupCoord) joinLocked(g *group, m *gmember) []wire.TopicPartitions {
	g.gen++
	m.gen = g.gen
	g.orphanUntil = time.Time{}
	target := gc.targetLocked(g)
	mine := target[m.id]
	for k, o := range g.owner {
		if o == m.id && !mine[k] {
			delete(g.owner, k)
		}
	}
	for k := range mine {
		if _, held := g.owner[k]; !held {
			g.owner[k] = m.id
		}
	}
	flagLocked(g, target)
	return g.owned(m.id)
}

// removeMemberLocked removes a member (LEAVE, expiry). A temporary group
// left without members is deleted with its commits (spec C-16); a durable
// one without members or commits is forgotten. It returns the records to
// append.
func (gc *groupCoord) removeMemberLocked(s *groupShard, g *group, id string) []grec {
	delete(g.members, id)
	for k, o := range g.owner {
		if o == id {
			delete(g.owner, k)
		}
	}
	if len(g.members) > 0 {
		gc.rebalanceLocked(g)
		return []grec{membersRec(g)}
	}
	if !g.durable {
		gc.e.logf("engine: temporary group %s deleted with its last member", g.name)
		return gc.deleteGroupLocked(s, g)
	}
	if !g.hasCommits() {
		s.forgetLocked(g)
	}
	return []grec{membersRec(g)} // a tombstone: no members
}

// forgetLocked drops a durable group without members or commits from
// memory, keeping its generation.
func (s *groupShard) forgetLocked(g *group) {
	delete(s.groups, g.name)
	if s.gens == nil {
		s.gens = map[string]int32{}
	}
	s.gens[g.name] = g.gen
}

// newGroupLocked creates a group in the shard; a durable group forgotten
// before goes on with its generation.
func (s *groupShard) newGroupLocked(name string, durable bool) *group {
	g := newGroup(name, durable)
	if gen, ok := s.gens[name]; ok {
		if durable {
			g.gen = gen
		}
		delete(s.gens, name)
	}
	s.groups[name] = g
	return g
}

// deleteGroupLocked forgets a group and returns the tombstones of its
// commits and of the group record.
func (gc *groupCoord) deleteGroupLocked(s *groupShard, g *group) []grec {
	var recs []grec
	for topic, parts := range g.commits {
		for part := range parts {
			recs = append(recs, grec{key: commitKey(g.name, topic, part)})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].key < recs[j].key })
	recs = append(recs, grec{key: membersRecKey(g.name)}, grec{key: g.name})
	delete(s.groups, g.name)
	return recs
}

// expireLocked removes the members of g silent for longer than their
// timeout (spec C-46) and deletes g if it is an orphaned temporary group.
func (gc *groupCoord) expireLocked(s *groupShard, g *group, now time.Time) []grec {
	var recs []grec
	for id, m := range g.members {
		if now.Sub(m.lastSeen) > m.timeout {
			gc.e.logf("engine: group %s: member %s expired after %v of silence", g.name, id, m.timeout)
			recs = append(recs, gc.removeMemberLocked(s, g, id)...)
		}
	}
	if s.groups[g.name] == g && !g.durable && len(g.members) == 0 && !g.orphanUntil.IsZero() && now.After(g.orphanUntil) {
		gc.e.logf("engine: temporary group %s deleted: no member joined after the coordinator moved", g.name)
		recs = append(recs, gc.deleteGroupLocked(s, g)...)
	}
	return recs
}

// ---- topic delete / flush (spec T-08, T-09) ----

// topicWiped removes every group's commits on a deleted or flushed topic
// (those made before its latest creation or FLUSH) and, for a deleted
// topic, the partitions members held of it. Shards without a coordinator
// are skipped: their next load drops the void commits.
func (gc *groupCoord) topicWiped(name string) {
	if gc == nil {
		return
	}
	if name == wire.GroupsTopic {
		// SYSTEM.GROUPS itself was flushed: every group went with its
		// records. Reload the (now empty) partitions.
		for _, s := range gc.shards {
			s.mu.Lock()
			s.epoch = -1
			gc.syncLocked(s, true)
			s.mu.Unlock()
		}
		return
	}
	t := gc.e.topics.lookup(name)
	var wipe int32
	if t != nil {
		wipe = t.wipeEpoch.Load()
	}
	for _, s := range gc.shards {
		s.mu.Lock()
		gc.syncLocked(s, true)
		if s.node == 0 {
			s.mu.Unlock()
			continue
		}
		var recs []grec
		for _, g := range s.groupList() {
			if parts := g.commits[name]; parts != nil {
				for part, c := range parts {
					if t == nil || c.epoch < wipe {
						delete(parts, part)
						recs = append(recs, grec{key: commitKey(g.name, name, part)})
					}
				}
				if len(parts) == 0 {
					delete(g.commits, name)
				}
			}
			if t == nil {
				dropped := false
				for k := range g.owner {
					if k.topic == name {
						delete(g.owner, k)
						dropped = true
					}
				}
				if dropped || len(g.members) > 0 {
					gc.rebalanceLocked(g)
				}
				if dropped {
					recs = append(recs, membersRec(g))
				}
			}
			if g.durable && len(g.members) == 0 && !g.hasCommits() {
				s.forgetLocked(g)
			}
		}
		if len(recs) > 0 {
			end, f := gc.appendLocked(s, recs)
			epoch := s.epoch
			s.mu.Unlock()
			if f == nil {
				gc.waitReplicated(s.p, end, epoch, gc.done)
			}
			continue
		}
		s.mu.Unlock()
	}
}
