package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// The group coordinator (docs/DESIGN.md §3.6, docs/PROTOCOL.md
// §10, spec §3.6).
//
// SYSTEM.GROUPS is a real topic, created at Start with
// Config.GroupPartitions partitions and replicated like any other. Group g
// lives in partition toPositive(murmur2(g)) % n and its coordinator is that
// partition's leader. Everything that must survive a failover is a record
// of that partition:
//
//	key group|topic|partition  value "<next offset>"          header epoch=<topic epoch>
//	key group                   value "durable" | "temporary"  header generation=<n>
//	key group|                  value members (JSON, groups_persist.go)
//
// and a nil value (tombstone) deletes. The group record is written when
// the group appears and at every join, so a new coordinator continues the
// generation numbers and a generation never names two different
// assignments. The membership record (member ids, generations, subscribed
// topics, the partitions each holds) is written at every membership change:
// a new coordinator knows the members, so a coordinator move keeps the
// group Stable, with no rejoin and no partition changing hands. The log is
// compacted (groups_compact.go), so its length follows the number of groups,
// not the number of commits ever made.
//
// Each SYSTEM.GROUPS partition has one groupShard: the coordinator state
// that the partition's current leader holds. When the leader (or its
// leader epoch) changes, the shard drops its state and rebuilds it by
// replaying the new leader's log, then answers REPORT 4176 for
// Config.CoordinatorLoadTime (the LOADING window, spec C-36); a node that
// does not lead the partition answers REPORT 4175 (C-35). The change is
// noticed by the next request of one of the shard's groups, by
// MoveCoordinator, or by the housekeeping tick, whichever comes first.
//
// A commit is appended to the leader's log under the shard's lock, applied
// to the state, and answered once the partition's high watermark covers it
// (every in-sync replica has it), so an acknowledged commit survives the
// loss of the leader (C-48).
//
// Commit records carry the topic epoch they were made at. Deleting or
// flushing a topic writes tombstones for its commits in every group
// (T-08); a commit older than the topic's latest creation or FLUSH that
// escaped them (a coordinator was offline) is dropped when the state is
// replayed, so a recreated topic is read from the beginning (T-09).
//
// Ownership: groupShard.mu guards its groups and everything in them. It is
// taken before partition.mu (one partition at a time) and never while a
// topic lock is held.

// Group states (GROUP LIST, DESCRIBE GROUP, getSubscriptionList).
const (
	GroupStable              = "Stable"
	GroupPreparingRebalance  = "PreparingRebalance"
	GroupCompletingRebalance = "CompletingRebalance"
	GroupEmpty               = "Empty"
	GroupDead                = "Dead"
)

const (
	maxGroupName      = 1024
	groupsTick        = 100 * time.Millisecond // expiry sweep and leader-change check
	commitWaitMax     = 10 * time.Second       // longest wait for a commit to replicate
	groupRecDurable   = "durable"
	groupRecTemporary = "temporary"
	groupRecEpochHdr  = "epoch"
	groupRecGenHdr    = "generation"
)

// groupCoord is the engine's coordinator side.
type groupCoord struct {
	e         *Engine
	t         *topic // SYSTEM.GROUPS
	shards    []*groupShard
	memberSeq atomic.Uint64
	done      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// groupShard is the coordinator state of one SYSTEM.GROUPS partition.
type groupShard struct {
	gc  *groupCoord
	p   *partition
	idx int

	mu        sync.Mutex
	node      int   // leader whose log the state was loaded from; 0 = offline
	epoch     int32 // its leader epoch; -1 forces a reload
	loadUntil time.Time
	groups    map[string]*group
	// gens keeps the generation of durable groups forgotten for having
	// neither members nor commits, so that a later join goes on from it.
	gens map[string]int32
	// snapBase..snapEnd is the snapshot of a compaction waiting to be
	// replicated (groups_compact.go); snapEnd 0 = none.
	snapBase, snapEnd int64
	liveHint          int64 // live records at the last count: the next count is due past twice it
	// lastEnd is the log end after the state's last record (loaded or
	// appended): reads of the state wait until the high watermark covers
	// it, so they never show a commit that a leader change could undo.
	lastEnd int64
}

// gtp names one partition of one topic.
type gtp struct {
	topic string
	part  int32
}

// commitVal is one stored commit.
type commitVal struct {
	off   int64 // the next offset to read
	epoch int32 // topic epoch when committed
}

type group struct {
	name    string
	durable bool
	gen     int32 // bumped by every join
	members map[string]*gmember
	owner   map[gtp]string // partition → member holding it
	commits map[string]map[int32]commitVal
	snap    *topicSnap // topic set the rebalance flags were computed against
	// orphanUntil: a temporary group loaded without members is deleted if
	// none joins by then (its members were lost with the old coordinator).
	orphanUntil time.Time
}

type gmember struct {
	id, client, host string
	topics           []string // sorted, unique
	gen              int32
	lastSeen         time.Time
	timeout          time.Duration // subGroupTimeoutSec at its last join (spec C-47)
	release          bool          // holds a partition that now belongs to another member
	receive          bool          // a partition of its target is free: its rejoin gets it
}

func newGroup(name string, durable bool) *group {
	return &group{name: name, durable: durable, members: map[string]*gmember{}, owner: map[gtp]string{}, commits: map[string]map[int32]commitVal{}}
}

func (g *group) hasCommits() bool { return len(g.commits) > 0 }

func (g *group) state() string {
	if len(g.members) == 0 {
		return GroupEmpty
	}
	receive := false
	for _, m := range g.members {
		if m.release {
			return GroupPreparingRebalance
		}
		receive = receive || m.receive
	}
	if receive {
		return GroupCompletingRebalance
	}
	return GroupStable
}

// owned returns the partitions member id holds, sorted.
func (g *group) owned(id string) []wire.TopicPartitions {
	var ks []gtp
	for k, o := range g.owner {
		if o == id {
			ks = append(ks, k)
		}
	}
	return groupTPs(ks)
}

func groupTPs(ks []gtp) []wire.TopicPartitions {
	sortGTPs(ks)
	var out []wire.TopicPartitions
	for _, k := range ks {
		if n := len(out); n == 0 || out[n-1].Topic != k.topic {
			out = append(out, wire.TopicPartitions{Topic: k.topic})
		}
		out[len(out)-1].Partitions = append(out[len(out)-1].Partitions, k.part)
	}
	return out
}

func sortGTPs(ks []gtp) {
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].topic != ks[j].topic {
			return ks[i].topic < ks[j].topic
		}
		return ks[i].part < ks[j].part
	})
}

// ---- start, stop ----

// startGroups creates SYSTEM.GROUPS and loads the (empty) coordinator
// state of each partition; the first load has no LOADING window.
func (e *Engine) startGroups() error {
	props := fmt.Sprintf("partitions=%d,retention.ms=0", e.cfg.GroupPartitions)
	if err := e.createInternal(wire.GroupsTopic, props); err != nil {
		return fmt.Errorf("engine: %s: %w", wire.GroupsTopic, err)
	}
	gc := &groupCoord{e: e, t: e.topics.lookup(wire.GroupsTopic), done: make(chan struct{})}
	for i, p := range gc.t.partitions() {
		s := &groupShard{gc: gc, p: p, idx: i, epoch: -1}
		s.mu.Lock()
		gc.syncLocked(s, false)
		s.mu.Unlock()
		gc.shards = append(gc.shards, s)
	}
	e.groups = gc
	gc.wg.Add(1)
	go gc.housekeeping()
	return nil
}

// shutdown stops the housekeeping goroutine; async commit waits end with
// their connections. Safe on a nil coordinator (Start failed early).
func (gc *groupCoord) shutdown() {
	if gc == nil {
		return
	}
	gc.closeOnce.Do(func() { close(gc.done) })
	gc.wg.Wait()
}

func (gc *groupCoord) housekeeping() {
	defer gc.wg.Done()
	t := time.NewTicker(groupsTick)
	defer t.Stop()
	for {
		select {
		case <-gc.done:
			return
		case <-t.C:
			gc.sweep(time.Now())
		}
	}
}

// sweep notices leader changes (starting loads) and removes members that
// stayed silent for their timeout (spec C-46) and orphaned temporary
// groups.
func (gc *groupCoord) sweep(now time.Time) {
	for _, s := range gc.shards {
		s.synced(func() {
			if s.node == 0 || now.Before(s.loadUntil) {
				return
			}
			var recs []grec
			for _, g := range s.groupList() {
				recs = append(recs, gc.expireLocked(s, g, now)...)
			}
			if len(recs) > 0 {
				gc.appendLocked(s, recs)
			}
			gc.compactLocked(s)
		})
	}
}

// groupList returns the shard's groups (a copy, so callers may delete).
func (s *groupShard) groupList() []*group {
	out := make([]*group, 0, len(s.groups))
	for _, g := range s.groups {
		out = append(out, g)
	}
	return out
}

// ---- placement ----

// groupPartition is the SYSTEM.GROUPS partition of a group.
func groupPartition(group string, n int) int {
	return wire.KeyPartition([]byte(group), n)
}

func (gc *groupCoord) shardOf(group string) *groupShard {
	return gc.shards[groupPartition(group, len(gc.shards))]
}

// validGroupName applies the group-name rule (spec C-39..C-42): no empty
// name, no control byte, none of | , : ; — UTF-8 letters are fine.
func validGroupName(g string) *wire.ErrorBody {
	if g == "" {
		return &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "Group : empty name not allowed"}
	}
	for i := 0; i < len(g); i++ {
		if b := g[i]; b < 0x20 || b == 0x7f || b == '|' || b == ',' || b == ':' || b == ';' {
			return &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("Group : byte 0x%02x not allowed (|,:; ctrl)", b)}
		}
	}
	if len(g) > maxGroupName {
		return &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("Group : name of %d bytes not allowed (max %d)", len(g), maxGroupName)}
	}
	return nil
}

// ---- loading ----

// syncLocked makes the shard's state that of the partition's current
// leader: when the leader or its epoch changed, the old state is dropped
// and the new leader's log replayed; with window, a LOADING window starts.
func (gc *groupCoord) syncLocked(s *groupShard, window bool) {
	p := s.p
	p.mu.Lock()
	leader, epoch := p.leader, p.leaderEpoch
	if p.deleted {
		leader = 0
	}
	if leader == s.node && epoch == s.epoch {
		p.mu.Unlock()
		return
	}
	s.snapBase, s.snapEnd, s.liveHint = 0, 0, 0
	var batches [][]byte
	var logEnd int64
	if leader != 0 {
		for _, en := range p.rep(leader).log.live() {
			batches = append(batches, en.b) // immutable once stored
		}
		logEnd = p.rep(leader).log.end
	}
	p.mu.Unlock()
	e := gc.e
	if leader == 0 {
		if s.node != 0 {
			e.logf("engine: %s/%d offline: groups of node %d dropped", wire.GroupsTopic, s.idx, s.node)
		}
		s.node, s.epoch, s.groups, s.gens = 0, epoch, nil, nil
		return
	}
	groups, gens, stale := gc.replay(batches)
	s.node, s.epoch, s.groups, s.gens, s.lastEnd = leader, epoch, groups, gens, logEnd
	now := time.Now()
	s.loadUntil = time.Time{}
	if window {
		s.loadUntil = now.Add(e.cfg.CoordinatorLoadTime)
	}
	orphan := s.loadUntil.Add(e.SubGroupTimeout())
	if orphan.Before(now) {
		orphan = now
	}
	seen := now
	if s.loadUntil.After(seen) {
		seen = s.loadUntil
	}
	for _, g := range groups {
		if gc.loadedMembersLocked(g, seen) {
			stale = append(stale, membersRec(g))
		}
		if !g.durable && len(g.members) == 0 {
			g.orphanUntil = orphan
		}
	}
	if window || len(groups) > 0 {
		e.logf("engine: node %d coordinates %s/%d (leader epoch %d): %d groups loaded from %d batches", leader, wire.GroupsTopic, s.idx, epoch, len(groups), len(batches))
	}
	if len(stale) > 0 {
		gc.appendLocked(s, stale)
	}
}

// replay rebuilds the groups from a log. It returns them, the generations
// of the durable groups left with nothing to remember, and tombstones for
// the commits it found void (topic gone or wiped since).
func (gc *groupCoord) replay(batches [][]byte) (map[string]*group, map[string]int32, []grec) {
	groups := map[string]*group{}
	var recs []wire.Record
	for _, b := range batches {
		var err error
		recs, err = wire.DecodeBatch(b, gc.e.cfg.MaxFrame, recs[:0])
		if err != nil {
			gc.e.logf("engine: BUG: %s: stored batch: %v", wire.GroupsTopic, err)
			continue
		}
		for i := range recs {
			applyGroupRecord(groups, &recs[i])
		}
	}
	var stale []grec
	ts := gc.e.topics
	for name, g := range groups {
		for topic, parts := range g.commits {
			t := ts.lookup(topic)
			for part, c := range parts {
				if t == nil || int(part) >= len(t.partitions()) || c.epoch < t.wipeEpoch.Load() {
					delete(parts, part)
					stale = append(stale, grec{key: commitKey(name, topic, part)})
				}
			}
			if len(parts) == 0 {
				delete(g.commits, topic)
			}
		}
	}
	gens := map[string]int32{}
	for name, g := range groups {
		if g.durable && !g.hasCommits() && len(g.members) == 0 {
			gens[name] = g.gen
			delete(groups, name) // nothing left to remember
		}
	}
	return groups, gens, stale
}

// applyGroupRecord applies one SYSTEM.GROUPS record to the groups.
func applyGroupRecord(groups map[string]*group, r *wire.Record) {
	key := string(r.Key)
	name, rest, isCommit := strings.Cut(key, "|")
	if !isCommit {
		if r.Value == nil {
			delete(groups, name)
			return
		}
		g := groups[name]
		if g == nil {
			g = newGroup(name, true)
			groups[name] = g
		}
		g.durable = string(r.Value) != groupRecTemporary
		if gen, ok := recordHeaderInt(r, groupRecGenHdr); ok {
			g.gen = int32(gen)
		}
		return
	}
	if rest == "" { // "group|": the membership record (groups_persist.go)
		g := groups[name]
		if g == nil {
			if r.Value == nil {
				return
			}
			g = newGroup(name, true)
			groups[name] = g
		}
		applyMembers(g, r.Value)
		return
	}
	topic, ps, ok := strings.Cut(rest, "|")
	part, err := strconv.ParseInt(ps, 10, 32)
	if !ok || err != nil {
		return
	}
	g := groups[name]
	if r.Value == nil {
		if g != nil {
			if parts := g.commits[topic]; parts != nil {
				delete(parts, int32(part))
				if len(parts) == 0 {
					delete(g.commits, topic)
				}
			}
		}
		return
	}
	off, err := strconv.ParseInt(string(r.Value), 10, 64)
	if err != nil {
		return
	}
	epoch, _ := recordHeaderInt(r, groupRecEpochHdr)
	if g == nil {
		g = newGroup(name, true)
		groups[name] = g
	}
	g.setCommit(topic, int32(part), commitVal{off: off, epoch: int32(epoch)})
}

func recordHeaderInt(r *wire.Record, key string) (int64, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			v, err := strconv.ParseInt(string(h.Value), 10, 32)
			return v, err == nil
		}
	}
	return 0, false
}

func (g *group) setCommit(topic string, part int32, c commitVal) {
	parts := g.commits[topic]
	if parts == nil {
		parts = map[int32]commitVal{}
		g.commits[topic] = parts
	}
	parts[part] = c
}

func (g *group) commit(topic string, part int32) (commitVal, bool) {
	c, ok := g.commits[topic][part]
	return c, ok
}

// ---- records ----

// grec is one record to append to a SYSTEM.GROUPS partition.
type grec struct {
	key  string
	val  []byte // nil = tombstone
	hkey string // header: epoch (commits) or generation (group records)
	hval int32
}

func commitKey(group, topic string, part int32) string {
	return group + "|" + topic + "|" + strconv.Itoa(int(part))
}

func commitRec(group, topic string, part int32, c commitVal) grec {
	return grec{key: commitKey(group, topic, part), val: strconv.AppendInt(nil, c.off, 10), hkey: groupRecEpochHdr, hval: c.epoch}
}

func groupMetaRec(g *group) grec {
	v := groupRecDurable
	if !g.durable {
		v = groupRecTemporary
	}
	return grec{key: g.name, val: []byte(v), hkey: groupRecGenHdr, hval: g.gen}
}

// appendLocked appends records to the shard's partition on its leader
// and returns the offset after them. It fails with REPORT 4175 when the
// partition's leadership moved away from the loaded state.
func (gc *groupCoord) appendLocked(s *groupShard, recs []grec) (int64, *gfail) {
	_, end, f := gc.appendSpanLocked(s, recs)
	return end, f
}

// appendSpanLocked is appendLocked that also returns the offset of the
// first record. The records go in batches of at most snapshotBatchRecords,
// appended back to back under one partition lock.
func (gc *groupCoord) appendSpanLocked(s *groupShard, recs []grec) (int64, int64, *gfail) {
	now := time.Now()
	nowMs := now.UnixMilli()
	var bs [][]byte
	var hdr [1]wire.RecordHeader
	for len(recs) > 0 {
		chunk := recs[:min(len(recs), snapshotBatchRecords)]
		recs = recs[len(chunk):]
		bb := wire.NewBatchBuilder(-1, -1, -1)
		for _, r := range chunk {
			var hs []wire.RecordHeader
			if r.hkey != "" {
				hdr[0] = wire.RecordHeader{Key: r.hkey, Value: strconv.AppendInt(nil, int64(r.hval), 10)}
				hs = hdr[:]
			}
			bb.Append(nowMs, []byte(r.key), r.val, hs)
		}
		b, err := bb.Finish(wire.CodecNone)
		if err != nil {
			return 0, 0, &gfail{eb: &wire.ErrorBody{Name: wire.ErrInternal, Tail: err.Error()}}
		}
		bs = append(bs, b)
	}
	ts := gc.e.topics
	p := s.p
	p.mu.Lock()
	if p.deleted || p.leader == 0 || p.leader != s.node || p.leaderEpoch != s.epoch {
		p.mu.Unlock()
		return 0, 0, failNotCoordinator()
	}
	L := p.rep(p.leader).log
	start := L.end
	var records, nbytes int64
	for _, b := range bs {
		wire.SetBatchBaseOffset(b, L.end)
		wire.SetBatchLeaderEpoch(b, p.leaderEpoch)
		h, err := wire.ParseBatchHeader(b)
		if err != nil {
			p.mu.Unlock()
			return 0, 0, &gfail{eb: &wire.ErrorBody{Name: wire.ErrInternal, Tail: err.Error()}}
		}
		L.add(logEntry{b: b, base: L.end, next: L.end + int64(h.RecordCount), appendMs: nowMs, tEpoch: p.tEpoch}, &h)
		records += int64(h.RecordCount)
		nbytes += int64(len(b))
	}
	ts.appendedLocked(p, start)
	ts.advanceHWLocked(p)
	end := L.end
	p.mu.Unlock()
	s.lastEnd = end
	p.t.stats.addIn(now.Unix(), records, nbytes)
	return start, end, nil
}

// replicated reports whether the records up to end are in every in-sync
// replica; a failure when the leadership moved meanwhile.
func (gc *groupCoord) replicatedLocked(p *partition, end int64, epoch int32) (bool, *gfail) {
	switch {
	case p.deleted || p.leaderEpoch != epoch:
		return false, failNotCoordinator()
	case p.hw >= end:
		return true, nil
	}
	return false, nil
}

// waitReplicated blocks until the records up to end are replicated, the
// leadership moves (REPORT 4175), commitWaitMax passes or stop closes.
func (gc *groupCoord) waitReplicated(p *partition, end int64, epoch int32, stop <-chan struct{}) *gfail {
	w := newPWaiter()
	defer p.removeWaiter(w)
	t := time.NewTimer(commitWaitMax)
	defer t.Stop()
	for {
		p.mu.Lock()
		ok, f := gc.replicatedLocked(p, end, epoch)
		if !ok && f == nil {
			p.addWaiterLocked(w)
		}
		hw := p.hw
		p.mu.Unlock()
		if ok || f != nil {
			return f
		}
		select {
		case <-w.ch:
		case <-t.C:
			return &gfail{eb: &wire.ErrorBody{Name: wire.ErrNotEnoughReplicas, Tail: fmt.Sprintf("%s/%d: high watermark %d below %d after %v", wire.GroupsTopic, p.id, hw, end, commitWaitMax)}}
		case <-stop:
			return &gfail{eb: &wire.ErrorBody{Name: wire.ErrInternal, Tail: "engine closing"}}
		case <-gc.done:
			return &gfail{eb: &wire.ErrorBody{Name: wire.ErrInternal, Tail: "engine closing"}}
		}
	}
}

// gfail is a coordinator refusal: an error body and its REPORT code.
type gfail struct {
	report uint16
	eb     *wire.ErrorBody
}

func (f *gfail) err() error { return &Error{Name: f.eb.Name, Tail: f.eb.Tail} }

func (r *request) failWith(f *gfail) { r.failReport(f.report, f.eb) }

func failNotCoordinator() *gfail {
	return &gfail{report: wire.ReportNotCoordinator, eb: &wire.ErrorBody{Name: wire.ErrNotCoordinator, Tail: "this node follows"}}
}

func failLoading(s *groupShard) *gfail {
	return &gfail{report: wire.ReportLoading, eb: &wire.ErrorBody{Name: wire.ErrLoading, Tail: fmt.Sprintf("coordinator loading %s/%d", wire.GroupsTopic, s.idx)}}
}

func failGroupNotEmpty(n int) *gfail {
	return &gfail{eb: &wire.ErrorBody{Name: wire.ErrGroupNotEmpty, Tail: fmt.Sprintf("%d active members", n)}}
}

func failUnknownMember(id string) *gfail {
	return &gfail{eb: &wire.ErrorBody{Name: wire.ErrUnknownMember, Tail: fmt.Sprintf("member %q is not in the group", id)}}
}

// replyAfterReplication answers r with m once the records up to end are
// replicated: at once when they already are, else from the connection's
// async goroutine. Call it after releasing the shard lock.
func (gc *groupCoord) replyAfterReplication(r *request, s *groupShard, end int64, epoch int32, m wire.Message) {
	p := s.p
	p.mu.Lock()
	ok, f := gc.replicatedLocked(p, end, epoch)
	p.mu.Unlock()
	switch {
	case f != nil:
		r.failWith(f)
	case ok:
		r.reply(m)
	default:
		r.async(func() {
			if f := gc.waitReplicated(p, end, epoch, r.closing()); f != nil {
				r.failWith(f)
				return
			}
			r.reply(m)
		})
	}
}
