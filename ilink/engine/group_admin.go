package engine

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"ilinkdash/ilink/wire"
)

// Group administration (spec §3.7, A-10..A-20): GROUP LIST, DESCRIBE
// GROUP, SEEK GROUP, ADMIN DELETE GROUP and SUBSCRIPTION LIST. The admin
// client sends the first four over a short consumer-mode connection to a
// data listener and SUBSCRIPTION LIST on its admin connection; the
// engine accepts all five on both, from any node: the node forwards to the
// group's coordinator state in-process. Describe, seek and delete answer
// REPORT 4176 while that coordinator loads and 4175 while it has none; the
// list calls show what the coordinators hold and never fail for that.
func init() {
	for code, fn := range map[wire.Code]handlerFunc{
		wire.CodeGroupList:        handleGroupList,
		wire.CodeDescribeGroup:    handleDescribeGroup,
		wire.CodeSeekGroup:        handleSeekGroup,
		wire.CodeAdminDeleteGroup: handleAdminDeleteGroup,
		wire.CodeSubscriptionList: handleSubscriptionList,
	} {
		register(code, route{fn: fn, modes: groupModes})
	}
}

// GroupInfo is one group of Engine.Groups (a row of GROUP LIST).
type GroupInfo struct {
	Name        string
	State       string // Stable, PreparingRebalance, CompletingRebalance, Empty
	Members     int
	Topics      []string // topics it has commits on or its members subscribe to
	Durable     bool
	Generation  int32
	Coordinator int // node
	// Offsets are, per topic of Topics, every partition of the topic with
	// its commit (-1: none), log start and high watermark: what a lag is
	// computed from (the admin client computes it: admin.PartitionLag).
	Offsets []wire.GroupTopicOffsets
}

// partOffsets are what a group's lag needs of a partition: its log start
// (-1 while it has no leader) and its high watermark.
type partOffsets struct{ start, hw int64 }

// endCache reads each topic's log starts and high watermarks once per
// call. It also holds the arrays a GROUP LIST's entries are cut from.
type endCache struct {
	ts     *topicStore
	offs   map[string][]partOffsets // nil slice: unknown topic
	topics []wire.GroupTopicOffsets
	parts  []wire.GroupPartitionOffsets
}

func newEndCache(ts *topicStore) *endCache {
	return &endCache{ts: ts, offs: map[string][]partOffsets{}}
}

func (c *endCache) of(topic string) []partOffsets {
	if offs, ok := c.offs[topic]; ok {
		return offs
	}
	var offs []partOffsets
	if t := c.ts.lookup(topic); t != nil {
		ps := t.partitions() // one load: offs has one slot per partition
		offs = make([]partOffsets, len(ps))
		for i, p := range ps {
			p.mu.Lock()
			offs[i] = partOffsets{start: -1, hw: p.hw}
			if l := p.leaderLogLocked(); l != nil {
				offs[i].start = l.start
			}
			p.mu.Unlock()
		}
	}
	c.offs[topic] = offs
	return offs
}

// at returns a partition's offsets, -1 for what is unknown.
func (c *endCache) at(topic string, part int32) partOffsets {
	offs := c.of(topic)
	if part < 0 || int(part) >= len(offs) {
		return partOffsets{-1, -1}
	}
	return offs[part]
}

// end returns the high watermark of a partition, -1 if unknown.
func (c *endCache) end(topic string, part int32) int64 { return c.at(topic, part).hw }

// lagOf is the lag of a committed partition in SUBSCRIPTION LIST, whose
// text format is iLink's (-1 without a commit, spec A-19). Everything else
// leaves lag to the admin client (admin.PartitionLag).
func lagOf(end, commit int64) int64 {
	if commit < 0 || end < 0 {
		return -1
	}
	return max(end-commit, 0)
}

// topicsLocked is every topic of the group: commits and subscriptions.
func (g *group) topicsLocked() []string {
	var out []string
	for t := range g.commits {
		out = append(out, t)
	}
	for _, m := range g.members {
		out = append(out, m.topics...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (gc *groupCoord) infoLocked(s *groupShard, g *group, ec *endCache) GroupInfo {
	gc.refreshLocked(g)
	gi := GroupInfo{Name: g.name, State: g.state(), Members: len(g.members), Topics: g.topicsLocked(),
		Durable: g.durable, Generation: g.gen, Coordinator: s.node}
	// The entries are cut from arrays shared by the whole list: it is
	// polled every few seconds, for every group.
	flat := ec.parts
	t0 := len(ec.topics)
	for _, topic := range gi.Topics {
		first := len(flat)
		offs := ec.of(topic)
		for part := range offs {
			flat = append(flat, g.partOffsets(topic, int32(part), offs[part]))
		}
		for part := range g.commits[topic] { // commits beyond the partition count (a deleted topic)
			if int(part) >= len(offs) {
				flat = append(flat, g.partOffsets(topic, part, partOffsets{-1, -1}))
			}
		}
		ps := flat[first:len(flat):len(flat)]
		if len(ps) > len(offs) {
			slices.SortFunc(ps[len(offs):], func(a, b wire.GroupPartitionOffsets) int { return int(a.Partition - b.Partition) })
		}
		ec.topics = append(ec.topics, wire.GroupTopicOffsets{Topic: topic, Partitions: ps})
	}
	ec.parts = flat
	gi.Offsets = ec.topics[t0:len(ec.topics):len(ec.topics)]
	return gi
}

// partOffsets is one partition of a GROUP LIST entry.
func (g *group) partOffsets(topic string, part int32, po partOffsets) wire.GroupPartitionOffsets {
	o := wire.GroupPartitionOffsets{Partition: part, Committed: -1, LogStart: po.start, End: po.hw}
	if c, ok := g.commit(topic, part); ok {
		o.Committed = c.off
	}
	return o
}

// Groups lists every group the coordinators hold, sorted by name (groups
// of a SYSTEM.GROUPS partition without a leader are missing until a new
// coordinator loaded them).
func (e *Engine) Groups() []GroupInfo {
	gc := e.groups
	ec := newEndCache(e.topics)
	var out []GroupInfo
	for _, s := range gc.shards {
		s.synced(func() {
			for _, g := range s.groups {
				out = append(out, gc.infoLocked(s, g, ec))
			}
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func handleGroupList(r *request) {
	if !r.decode(&wire.Empty{}) || !topicSessionOK(r, false) {
		return
	}
	gs := r.c.e.Groups()
	rep := &wire.GroupListReply{Groups: make([]wire.GroupEntry, len(gs))}
	for i, g := range gs {
		rep.Groups[i] = wire.GroupEntry{Name: g.Name, State: g.State, Members: g.Members,
			Durable: g.Durable, Generation: g.Generation, Offsets: g.Offsets}
	}
	r.reply(rep)
}

// describeLocked describes g (nil = unknown: state Dead, spec A-11). The
// offsets cover every partition of every topic the group has commits on,
// subscribes to or holds.
func (gc *groupCoord) describeLocked(s *groupShard, name string, g *group) wire.GroupDescriptionReply {
	d := wire.GroupDescriptionReply{Name: name, State: GroupDead, Coordinator: s.node}
	if g == nil {
		return d
	}
	gc.refreshLocked(g)
	d.State, d.Generation, d.Durable = g.state(), g.gen, g.durable
	ids := make([]string, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		m := g.members[id]
		d.Members = append(d.Members, wire.GroupMemberEntry{MemberID: id, ClientName: m.client, Host: m.host,
			Assignment: g.owned(id), LastSeenMs: m.lastSeen.UnixMilli()})
	}
	topics := g.topicsLocked()
	for k := range g.owner {
		topics = append(topics, k.topic)
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)
	ec := newEndCache(gc.e.topics)
	for _, topic := range topics {
		for _, part := range partsOf(ec, g, topic) {
			po := ec.at(topic, part)
			o := wire.GroupOffsetEntry{Topic: topic, Partition: part, Committed: -1, LogStart: po.start, EndOffset: po.hw,
				MemberID: g.owner[gtp{topic, part}]}
			if c, ok := g.commit(topic, part); ok {
				o.Committed = c.off
			}
			d.Offsets = append(d.Offsets, o)
		}
	}
	return d
}

// partsOf lists the partitions of topic a group's rows cover: every
// partition of the topic, plus any committed or held one beyond them.
func partsOf(ec *endCache, g *group, topic string) []int32 {
	n := int32(len(ec.of(topic)))
	parts := make([]int32, 0, n)
	for p := int32(0); p < n; p++ {
		parts = append(parts, p)
	}
	extra := false
	for p := range g.commits[topic] {
		if p >= n {
			parts, extra = append(parts, p), true
		}
	}
	for k := range g.owner {
		if k.topic == topic && k.part >= n && !slices.Contains(parts, k.part) {
			parts, extra = append(parts, k.part), true
		}
	}
	if extra {
		slices.Sort(parts)
		parts = slices.Compact(parts)
	}
	return parts
}

// DescribeGroup describes a group as its coordinator holds it: members
// (client name, host, assignment) and per partition the commit, the end
// offset (high watermark) and the lag. An unknown group is state Dead,
// not an error (spec A-11).
func (e *Engine) DescribeGroup(group string) (wire.GroupDescriptionReply, error) {
	return adminCall(e.groups, group, func(s *groupShard) shardOp[wire.GroupDescriptionReply] {
		return shardOp[wire.GroupDescriptionReply]{res: e.groups.describeLocked(s, group, s.groups[group])}
	})
}

func handleDescribeGroup(r *request) {
	var req wire.GroupRequest
	if !r.decode(&req) || !topicSessionOK(r, false) {
		return
	}
	answer(r, administer(r.c.e.groups, req.Group, false, func(s *groupShard) msgOp {
		d := s.gc.describeLocked(s, req.Group, s.groups[req.Group])
		return msgOp{res: &d}
	}))
}

// seekLocked computes a SEEK GROUP and, unless it is a dry run, applies it
// to the state and returns the records to append. Applying is refused,
// changing nothing, while the group has an active member (spec A-15).
func (gc *groupCoord) seekLocked(s *groupShard, req *wire.SeekGroupRequest) ([]wire.OffsetChangeEntry, []grec, *gfail) {
	g := s.groups[req.Group]
	if f := checkSeekLocked(g, req); f != nil {
		return nil, nil, f
	}
	topics, f := gc.seekTopicsLocked(g, req)
	if f != nil {
		return nil, nil, f
	}
	sel, f := gc.seekSelection(req, topics)
	if f != nil {
		return nil, nil, f
	}
	changes, epochs, f := gc.seekChangesLocked(g, sel)
	if f != nil {
		return nil, nil, f
	}
	if req.DryRun || len(changes) == 0 {
		return changes, nil, nil
	}
	return changes, applySeekLocked(s, g, req.Group, changes, epochs), nil
}

// checkSeekLocked refuses a SEEK GROUP of group g (nil: none yet) that
// would apply while it has members, or whose mode's argument or
// partitions are invalid. With the shard's lock held.
func checkSeekLocked(g *group, req *wire.SeekGroupRequest) *gfail {
	if !req.DryRun && g != nil && len(g.members) > 0 {
		return failGroupNotEmpty(len(g.members))
	}
	if req.Mode == wire.SeekToTime && req.TimeMs < 0 {
		return &gfail{eb: &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("seek to time %d", req.TimeMs)}}
	}
	if req.Mode == wire.SeekToOffset && req.Offset < 0 {
		return &gfail{eb: &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("seek to offset %d", req.Offset)}}
	}
	if len(req.Partitions) > 0 && req.Topic == "" {
		return invalidSeek("seek of partitions %v: name their topic", req.Partitions)
	}
	return nil
}

// seekTopicsLocked is the topics whose partitions a SEEK GROUP moves: none
// for a preview's (Planned), else the one named, else every topic group g
// has commits on or holds partitions of. With the shard's lock held.
func (gc *groupCoord) seekTopicsLocked(g *group, req *wire.SeekGroupRequest) ([]string, *gfail) {
	var topics []string
	switch {
	case len(req.Planned) > 0: // the preview's partitions, in seekSelection
	case req.Topic != "":
		if gc.e.topics.lookup(req.Topic) == nil {
			return nil, &gfail{eb: &wire.ErrorBody{Name: wire.ErrUnknownTopic, Tail: req.Topic}}
		}
		topics = []string{req.Topic}
	case g != nil:
		// Every topic the group has commits on or holds partitions of.
		for t := range g.commits {
			topics = append(topics, t)
		}
		for k := range g.owner {
			topics = append(topics, k.topic)
		}
		slices.Sort(topics)
		topics = slices.Compact(topics)
	}
	return topics, nil
}

// seekSelection is the partitions to move and where: the preview's
// (Planned), else the topics' partitions (or those named) resolved by the
// mode. It reads only the topics, though seekLocked calls it with the
// shard's lock held.
func (gc *groupCoord) seekSelection(req *wire.SeekGroupRequest, topics []string) ([]seekPart, *gfail) {
	ts := gc.e.topics
	var sel []seekPart
	if len(req.Planned) > 0 {
		var f *gfail
		if sel, f = plannedParts(ts, req); f != nil {
			return nil, f
		}
		slices.SortFunc(sel, func(a, b seekPart) int { // the reply's order
			if c := strings.Compare(a.p.t.name, b.p.t.name); c != 0 {
				return c
			}
			return int(a.p.id - b.p.id)
		})
	}
	for _, name := range topics {
		t := ts.lookup(name)
		if t == nil {
			continue
		}
		parts := t.partitions()
		if len(req.Partitions) == 0 {
			for _, p := range parts {
				sel = append(sel, seekPart{p, req})
			}
			continue
		}
		ids := slices.Clone(req.Partitions)
		slices.Sort(ids)
		for _, id := range slices.Compact(ids) {
			if id < 0 || int(id) >= len(parts) {
				return nil, invalidSeek("topic %s has %d partitions: no partition %d", name, len(parts), id)
			}
			sel = append(sel, seekPart{parts[id], req})
		}
	}
	return sel, nil
}

// seekChangesLocked resolves each selected partition's new offset: the
// change from group g's commit (nil: none yet) with the log's bounds, and
// the topic epoch the new commit carries. With the shard's lock held.
func (gc *groupCoord) seekChangesLocked(g *group, sel []seekPart) ([]wire.OffsetChangeEntry, []int32, *gfail) {
	var changes []wire.OffsetChangeEntry
	var epochs []int32
	for _, sp := range sel {
		p, t, name := sp.p, sp.p.t, sp.p.t.name
		to, f := gc.seekTarget(p, sp.to)
		if f != nil {
			return nil, nil, f
		}
		old := int64(-1)
		if g != nil {
			if c, ok := g.commit(name, p.id); ok {
				old = c.off
			}
		}
		p.mu.Lock()
		start, hw := int64(-1), p.hw
		if l := p.leaderLogLocked(); l != nil {
			start = l.start
		}
		p.mu.Unlock()
		changes = append(changes, wire.OffsetChangeEntry{Topic: name, Partition: p.id, Old: old, New: to, LogStart: start, End: hw})
		epochs = append(epochs, t.epoch.Load())
	}
	return changes, epochs, nil
}

// applySeekLocked sets the changes' commits on group g, created (named
// name) if it is nil, and returns the records that replicate them. With
// the shard's lock held.
func applySeekLocked(s *groupShard, g *group, name string, changes []wire.OffsetChangeEntry, epochs []int32) []grec {
	var recs []grec
	if g == nil {
		g = s.newGroupLocked(name, true)
		recs = append(recs, groupMetaRec(g))
	}
	for i, c := range changes {
		v := commitVal{off: c.New, epoch: epochs[i]}
		g.setCommit(c.Topic, c.Partition, v)
		recs = append(recs, commitRec(g.name, c.Topic, c.Partition, v))
	}
	return recs
}

// seekPart is one partition a SEEK GROUP moves and the request whose
// mode resolves its new offset.
type seekPart struct {
	p  *partition
	to *wire.SeekGroupRequest
}

// plannedParts resolves a SEEK GROUP's Planned offsets: each names a
// partition that exists (of the request's topic and partitions, when
// given), once, at an offset that is not negative; each resolves as a
// seek to that offset (clamped to the log as it is now).
func plannedParts(ts *topicStore, req *wire.SeekGroupRequest) (sel []seekPart, f *gfail) {
	seen := map[string]bool{}
	for _, c := range req.Planned {
		key := c.Topic + "/" + strconv.Itoa(int(c.Partition))
		switch {
		case seen[key]:
			return nil, invalidSeek("planned offset of %s given twice", key)
		case c.New < 0:
			return nil, invalidSeek("planned offset %d of %s is negative", c.New, key)
		case req.Topic != "" && c.Topic != req.Topic:
			return nil, invalidSeek("planned offset of %s is not on topic %s", key, req.Topic)
		case len(req.Partitions) > 0 && !slices.Contains(req.Partitions, c.Partition):
			return nil, invalidSeek("planned offset of %s is not of partitions %v", key, req.Partitions)
		}
		seen[key] = true
		t := ts.lookup(c.Topic)
		if t == nil {
			return nil, &gfail{eb: &wire.ErrorBody{Name: wire.ErrUnknownTopic, Tail: c.Topic}}
		}
		parts := t.partitions()
		if c.Partition < 0 || int(c.Partition) >= len(parts) {
			return nil, invalidSeek("topic %s has %d partitions: no partition %d", c.Topic, len(parts), c.Partition)
		}
		sel = append(sel, seekPart{parts[c.Partition], &wire.SeekGroupRequest{Mode: wire.SeekToOffset, Offset: c.New}})
	}
	return sel, nil
}

func invalidSeek(format string, args ...any) *gfail {
	return &gfail{eb: &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf(format, args...)}}
}

// seekTarget resolves a seek mode for one partition: an offset (clamped to
// the log start and the high watermark), the earliest or latest offset,
// or the first offset at or after a time (LIST_OFFSETS rules, spec A-13).
func (gc *groupCoord) seekTarget(p *partition, req *wire.SeekGroupRequest) (int64, *gfail) {
	if req.Mode == wire.SeekToTime {
		var res wire.ListOffsetsPartitionResult
		gc.e.topics.listOffset(p, 0, true, req.TimeMs, gc.e.cfg.MaxFrame, &res)
		if res.Err.Name != "" {
			return 0, &gfail{eb: &wire.ErrorBody{Name: wire.ErrNoLeader, Tail: res.Err.Tail}}
		}
		return res.Offset, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.leaderLogLocked()
	if l == nil || p.deleted {
		return 0, &gfail{eb: &wire.ErrorBody{Name: wire.ErrNoLeader, Tail: fmt.Sprintf("%s/%d has no leader", p.t.name, p.id)}}
	}
	switch req.Mode {
	case wire.SeekToEarliest:
		return l.start, nil
	case wire.SeekToLatest:
		return p.hw, nil
	}
	return min(max(req.Offset, l.start), p.hw), nil
}

// SeekGroup moves a group's commits (see wire.SeekGroupRequest) and returns
// the changes; a dry run changes nothing. Refused with
// MIMQE_GROUP_NOT_EMPTY (N active members) while the group has an active
// member (spec ).
func (e *Engine) SeekGroup(req wire.SeekGroupRequest) ([]wire.OffsetChangeEntry, error) {
	return adminCall(e.groups, req.Group, func(s *groupShard) shardOp[[]wire.OffsetChangeEntry] {
		changes, recs, f := s.gc.seekLocked(s, &req)
		return shardOp[[]wire.OffsetChangeEntry]{res: changes, recs: recs, f: f}
	})
}

func handleSeekGroup(r *request) {
	var req wire.SeekGroupRequest
	if !r.decode(&req) || !topicSessionOK(r, false) {
		return
	}
	answer(r, administer(r.c.e.groups, req.Group, false, func(s *groupShard) msgOp {
		changes, recs, f := s.gc.seekLocked(s, &req)
		if f == nil && len(recs) > 0 {
			s.gc.e.logf("engine: group %s: %d commits moved by SEEK GROUP", req.Group, len(changes))
		}
		return msgOp{res: &wire.SeekGroupReply{Changes: changes}, recs: recs, f: f}
	}))
}

// deleteLocked is the admin delete: refused while the group has an
// active member (spec A-15); an unknown group is not an error.
func (gc *groupCoord) adminDeleteLocked(s *groupShard, group string) ([]grec, *gfail) {
	g := s.groups[group]
	switch {
	case g == nil:
		return nil, nil
	case len(g.members) > 0:
		return nil, failGroupNotEmpty(len(g.members))
	}
	gc.e.logf("engine: group %s deleted by the admin", group)
	return gc.deleteGroupLocked(s, g), nil
}

// DeleteGroup deletes a group and its commits (spec A-14); refused with
// MIMQE_GROUP_NOT_EMPTY (N active members) while it has an active member
//
func (e *Engine) DeleteGroup(group string) error {
	_, err := adminCall(e.groups, group, func(s *groupShard) msgOp {
		recs, f := s.gc.adminDeleteLocked(s, group)
		return msgOp{recs: recs, f: f}
	})
	return err
}

func handleAdminDeleteGroup(r *request) {
	var req wire.GroupRequest
	if !r.decode(&req) || !topicSessionOK(r, false) {
		return
	}
	answer(r, administer(r.c.e.groups, req.Group, false, func(s *groupShard) msgOp {
		recs, f := s.gc.adminDeleteLocked(s, req.Group)
		return msgOp{res: &wire.Empty{}, recs: recs, f: f}
	}))
}

// SubscriptionList is getSubscriptionList(topic): one line
// group|state|partition|commit|lag|members=N per partition of the topic
// for each group that has a commit on it or a member holding one of its
// partitions (spec ); commit and lag are -1 for a partition
// without a commit; lines sorted by group then partition, joined by
// "\n"; the empty string when no group qualifies.
func (e *Engine) SubscriptionList(topic string) string {
	gc := e.groups
	ec := newEndCache(e.topics)
	var blocks []subscriptionBlock
	for _, s := range gc.shards {
		s.synced(func() { blocks = append(blocks, gc.subscriptionBlocksLocked(s, ec, topic)...) })
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].group < blocks[j].group })
	var out []byte
	for _, b := range blocks {
		if len(out) > 0 && len(b.lines) > 0 {
			out = append(out, '\n')
		}
		out = append(out, b.lines...)
	}
	return string(out)
}

// subscriptionBlock is one group's lines of a SUBSCRIPTION LIST.
type subscriptionBlock struct {
	group string
	lines []byte
}

// subscriptionBlocksLocked is the lines of s's groups for topic.
func (gc *groupCoord) subscriptionBlocksLocked(s *groupShard, ec *endCache, topic string) []subscriptionBlock {
	var blocks []subscriptionBlock
	for _, g := range s.groups {
		held := false
		for k := range g.owner {
			if k.topic == topic {
				held = true
				break
			}
		}
		if !held && len(g.commits[topic]) == 0 {
			continue
		}
		gc.refreshLocked(g)
		state, members := g.state(), len(g.members)
		var lines []byte
		for _, part := range partsOf(ec, g, topic) {
			commit, lag := int64(-1), int64(-1)
			if c, ok := g.commit(topic, part); ok {
				commit, lag = c.off, lagOf(ec.end(topic, part), c.off)
			}
			if len(lines) > 0 {
				lines = append(lines, '\n')
			}
			lines = wire.AppendSubscriptionLine(lines, g.name, state, part, commit, lag, members)
		}
		blocks = append(blocks, subscriptionBlock{g.name, lines})
	}
	return blocks
}

func handleSubscriptionList(r *request) {
	var req wire.SubscriptionListRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	r.reply(&wire.TextReply{Text: r.c.e.SubscriptionList(req.Topic)})
}
