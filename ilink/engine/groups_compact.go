package engine

import "sort"

// Compaction of SYSTEM.GROUPS (groups.go). Without it a partition grows
// with every commit ever made, and a new coordinator replays all of them.
//
// The coordinator compacts its partition by snapshot: once the log holds
// at least Config.GroupCompactMin records and more than twice the records
// of its live state, it appends the live state (per group: the group
// record, the membership record, the latest commit of every topic and
// partition; the group records of forgotten durable groups, which carry
// their generations) at the end of the log, through the normal append, so
// followers replicate it like any batch. Once the high watermark covers
// the snapshot, every running replica that holds all of it drops the
// batches before it (the log start moves up, as with retention). Replaying
// a log that still has its old head before the snapshot gives the same
// state, because the snapshot is exactly that head's state; so a
// coordinator move between the append and the drop loses nothing. A
// replica that was behind the snapshot and did not drop then drops at a
// later compaction, so every replica stays bounded.
//
// Every coordinator write and the sweep (groupsTick) check the shard under
// its lock, so the log never runs far past its bound however fast commits
// come; nothing else appends to the partition meanwhile.

// snapshotBatchRecords bounds the records of one snapshot batch.
const snapshotBatchRecords = 500

// liveRecordsLocked is the number of records a snapshot of s holds.
func (s *groupShard) liveRecordsLocked() int64 {
	n := int64(len(s.gens))
	for _, g := range s.groups {
		n++ // the group record
		if len(g.members) > 0 {
			n++
		}
		for _, parts := range g.commits {
			n += int64(len(parts))
		}
	}
	return n
}

// snapshotLocked returns the records of s's live state, groups in name
// order.
func (s *groupShard) snapshotLocked() []grec {
	names := make([]string, 0, len(s.groups))
	for name := range s.groups {
		names = append(names, name)
	}
	sort.Strings(names)
	var recs []grec
	for _, name := range names {
		g := s.groups[name]
		recs = append(recs, groupMetaRec(g))
		if len(g.members) > 0 {
			recs = append(recs, membersRec(g))
		}
		topics := make([]string, 0, len(g.commits))
		for t := range g.commits {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		for _, t := range topics {
			parts := make([]int32, 0, len(g.commits[t]))
			for p := range g.commits[t] {
				parts = append(parts, p)
			}
			sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
			for _, p := range parts {
				recs = append(recs, commitRec(name, t, p, g.commits[t][p]))
			}
		}
	}
	forgotten := make([]string, 0, len(s.gens))
	for name := range s.gens {
		forgotten = append(forgotten, name)
	}
	sort.Strings(forgotten)
	for _, name := range forgotten {
		recs = append(recs, grec{key: name, val: []byte(groupRecDurable), hkey: groupRecGenHdr, hval: s.gens[name]})
	}
	return recs
}

// compactLocked starts a compaction of s when its log is due for one, or
// finishes the pending one once its snapshot is replicated.
func (gc *groupCoord) compactLocked(s *groupShard) {
	if s.node == 0 {
		return
	}
	p := s.p
	if s.snapEnd > 0 {
		p.mu.Lock()
		switch {
		case p.deleted || p.leader != s.node || p.leaderEpoch != s.epoch:
			s.snapBase, s.snapEnd = 0, 0 // the new leader compacts on its own
		case p.hw >= s.snapEnd:
			dropped := 0
			for _, r := range p.reps {
				if !gc.e.topics.isRunning(r.node) || r.log.end < s.snapEnd {
					continue
				}
				if i := r.log.boundary(s.snapBase); i > 0 {
					r.log.dropHead(i)
					dropped++
				}
			}
			gc.e.logf("engine: %s/%d compacted: log starts at the snapshot %d..%d on %d replicas", p.t.name, s.idx, s.snapBase, s.snapEnd, dropped)
			s.snapBase, s.snapEnd = 0, 0
		}
		p.mu.Unlock()
		return
	}
	p.mu.Lock()
	L := p.rep(p.leader).log
	held := L.end - L.start
	p.mu.Unlock()
	if held < int64(gc.e.cfg.GroupCompactMin) || held <= 2*s.liveHint {
		return
	}
	live := s.liveRecordsLocked() // O(groups): only when the log may be due
	s.liveHint = live
	if held <= 2*live {
		return
	}
	recs := s.snapshotLocked()
	if len(recs) == 0 {
		// Nothing left to remember: the whole log goes.
		p.mu.Lock()
		s.snapBase = p.rep(p.leader).log.end
		s.snapEnd = s.snapBase
		p.mu.Unlock()
		return
	}
	base, end, f := gc.appendSpanLocked(s, recs)
	if f != nil {
		return
	}
	s.snapBase, s.snapEnd = base, end
}
