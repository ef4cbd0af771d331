package consumer

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// fakeCluster is a scripted iLink cluster on loopback, kept for what the
// in-process engine cannot be made to do: a topic left out of metadata
// while its fetches still long-poll (so a TOPIC LEAVE races a pending
// fetch, TestPatternSubscription) and a log start at an exact offset
// (TestOutOfRangeOffsetIsReset). Every other test runs on the engine
// (testEngine). Its group coordinator (node 1) follows the issue-4
// contract only as far as those tests and the conformance test go
// (conformance_test.go runs the same group scenarios here and on the
// engine, so the two cannot drift apart unseen): the assignment is handed
// over only after the holder rejoins, 4161 / 4178, commits = next offset.
type fakeCluster struct {
	t     testing.TB
	nodes []*fakeNode

	mu          sync.Mutex
	topics      map[string]*fakeTopic
	hidden      map[string]bool // left out of metadata, still served by fetches
	groups      map[string]*fakeGroup
	nextMember  int
	gen         int32
	hooks       []reqHook
	events      []string
	violations  []string
	dataCh      chan struct{} // closed on every append
	pendingRead map[*fakeConnState][]string
	requests    map[wire.Code]int
}

// The coordinator node of every group, and the timings its JOIN replies
// give members.
const (
	fakeCoord       = 1
	fakeHeartbeatMs = 50
	fakeSessionMs   = 5000
)

type fakeNode struct {
	id    uint16
	ln    net.Listener
	addr  string
	mu    sync.Mutex
	conns map[net.Conn]bool
}

type fakeTopic struct {
	name  string
	epoch int32
	parts []*fakePart
}

type fakePart struct {
	leader   uint16
	batches  [][]byte
	bases    []int64
	logStart int64
	end      int64
}

type fakeGroup struct {
	name    string
	members map[string]*fakeMember
	owner   map[tp]string
	commits map[tp]int64
}

type fakeMember struct {
	id         string
	topics     []string
	gen        int32
	mustRejoin bool
}

type fakeConnState struct {
	node *fakeNode
	nc   net.Conn
}

func newFakeCluster(t testing.TB, n int) *fakeCluster {
	t.Helper()
	fc := &fakeCluster{
		t:           t,
		topics:      map[string]*fakeTopic{},
		hidden:      map[string]bool{},
		groups:      map[string]*fakeGroup{},
		dataCh:      make(chan struct{}),
		pendingRead: map[*fakeConnState][]string{},
		requests:    map[wire.Code]int{},
	}
	for i := 1; i <= n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		nd := &fakeNode{id: uint16(i), ln: ln, addr: ln.Addr().String(), conns: map[net.Conn]bool{}}
		fc.nodes = append(fc.nodes, nd)
		go fc.accept(nd)
	}
	t.Cleanup(fc.close)
	return fc
}

func (fc *fakeCluster) addr() string { return fc.nodes[0].addr }

func (fc *fakeCluster) close() {
	for _, n := range fc.nodes {
		n.ln.Close()
		n.mu.Lock()
		for c := range n.conns {
			c.Close()
		}
		n.mu.Unlock()
	}
}

func (fc *fakeCluster) accept(nd *fakeNode) {
	for {
		nc, err := nd.ln.Accept()
		if err != nil {
			return
		}
		nd.mu.Lock()
		nd.conns[nc] = true
		nd.mu.Unlock()
		go fc.serve(&fakeConnState{node: nd, nc: nc})
	}
}

func (fc *fakeCluster) hook(h reqHook) func() {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.hooks = append(fc.hooks, h)
	i := len(fc.hooks) - 1
	return func() {
		fc.mu.Lock()
		fc.hooks[i] = nil
		fc.mu.Unlock()
	}
}

func (fc *fakeCluster) event(format string, args ...any) {
	fc.events = append(fc.events, fmt.Sprintf(format, args...))
}

func (fc *fakeCluster) eventLog() []string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return slices.Clone(fc.events)
}

// fetchPending reports whether a fetch covering topic waits at the fake.
func (fc *fakeCluster) fetchPending(topic string) bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, topics := range fc.pendingRead {
		if slices.Contains(topics, topic) {
			return true
		}
	}
	return false
}

func (fc *fakeCluster) requestCount(code wire.Code) int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.requests[code]
}

// createTopic creates a topic whose partition p is led by node p%N+1.
func (fc *fakeCluster) createTopic(name string, parts int) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	t := &fakeTopic{name: name, epoch: 1}
	for p := 0; p < parts; p++ {
		t.parts = append(t.parts, &fakePart{leader: uint16(p%len(fc.nodes) + 1)})
	}
	fc.topics[name] = t
}

// hideTopic takes a topic out of metadata (it stops matching patterns)
// while fetches of it still long-poll.
func (fc *fakeCluster) hideTopic(name string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fc.hidden[name] = true
}

func (fc *fakeCluster) deleteTopic(name string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	delete(fc.topics, name)
	for _, g := range fc.groups {
		for k := range g.commits {
			if k.topic == name {
				delete(g.commits, k)
			}
		}
	}
}

// produce appends one batch of n records with values "<prefix>-<offset>".
func (fc *fakeCluster) produce(topic string, p int32, n int, codec wire.Codec) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	part := fc.topics[topic].parts[p]
	bb := wire.NewBatchBuilder(-1, -1, -1)
	now := time.Now().UnixMilli()
	for i := 0; i < n; i++ {
		off := part.end + int64(i)
		bb.Append(now, []byte(fmt.Sprintf("k%d", off)), []byte(fmt.Sprintf("%s/%d/%d", topic, p, off)), []wire.RecordHeader{{Key: "h", Value: []byte("v")}})
	}
	fc.appendLocked(part, bb, codec, n)
}

func (fc *fakeCluster) appendLocked(part *fakePart, bb *wire.BatchBuilder, codec wire.Codec, n int) {
	b, err := bb.Finish(codec)
	if err != nil {
		fc.t.Fatal(err)
	}
	wire.SetBatchBaseOffset(b, part.end)
	part.batches = append(part.batches, b)
	part.bases = append(part.bases, part.end)
	part.end += int64(n)
	close(fc.dataCh)
	fc.dataCh = make(chan struct{})
}

// truncate drops whole batches below offset (retention).
func (fc *fakeCluster) truncate(topic string, p int32, below int64) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	part := fc.topics[topic].parts[p]
	for len(part.batches) > 1 && part.bases[1] <= below {
		part.batches = part.batches[1:]
		part.bases = part.bases[1:]
		part.logStart = part.bases[0]
	}
}

func (fc *fakeCluster) commit(group string, topic string, p int32) (int64, bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	g := fc.groups[group]
	if g == nil {
		return 0, false
	}
	o, ok := g.commits[tp{topic, p}]
	return o, ok
}

func (fc *fakeCluster) memberCount(group string) int {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if g := fc.groups[group]; g != nil {
		return len(g.members)
	}
	return 0
}

func (fc *fakeCluster) groupLocked(name string) *fakeGroup {
	g := fc.groups[name]
	if g == nil {
		g = &fakeGroup{name: name, members: map[string]*fakeMember{}, owner: map[tp]string{}, commits: map[tp]int64{}}
		fc.groups[name] = g
	}
	return g
}

// ---- serving ---------------------------------------------------------------

func (fc *fakeCluster) serve(cs *fakeConnState) {
	defer func() {
		cs.nc.Close()
		cs.node.mu.Lock()
		delete(cs.node.conns, cs.nc)
		cs.node.mu.Unlock()
	}()
	fr := wire.NewFrameReader(cs.nc, wire.HardMaxFrame)
	for {
		h, body, err := fr.Next()
		if err != nil {
			return
		}
		body = slices.Clone(body)
		if !fc.handle(cs, h, body) {
			return
		}
	}
}

func (fc *fakeCluster) write(cs *fakeConnState, h wire.Header, m wire.Message) bool {
	var enc func(*wire.Writer)
	if m != nil {
		enc = m.Encode
	}
	_, err := cs.nc.Write(wire.AppendFrame(nil, h, enc))
	return err == nil
}

func (fc *fakeCluster) reply(cs *fakeConnState, req wire.Header, m wire.Message) bool {
	return fc.write(cs, wire.Header{Flags: wire.FlagResponse, Code: req.Code, Corr: req.Corr}, m)
}

func (fc *fakeCluster) replyErr(cs *fakeConnState, req wire.Header, report uint16, name, tail string) bool {
	return fc.write(cs, wire.Header{Flags: wire.FlagResponse | wire.FlagError, Code: req.Code, Corr: req.Corr, Status: report}, &wire.ErrorBody{Name: name, Tail: tail})
}

func (fc *fakeCluster) nodeInfos() []wire.NodeInfo {
	var out []wire.NodeInfo
	for _, n := range fc.nodes {
		out = append(out, wire.NodeInfo{ID: n.id, Addr: n.addr, Leader: n.id == 1, Up: true})
	}
	return out
}

func (fc *fakeCluster) handle(cs *fakeConnState, h wire.Header, body []byte) bool {
	fc.mu.Lock()
	fc.requests[h.Code]++
	hooks := slices.Clone(fc.hooks)
	fc.mu.Unlock()
	ev := &reqEvent{Node: cs.node.id, Code: h.Code, Body: body, Member: memberOf(h.Code, body)}
	for _, hk := range hooks {
		if hk == nil {
			continue
		}
		if a := hk(ev); a != nil {
			return fc.replyErr(cs, h, a.Report, a.Name, a.Tail)
		}
	}
	switch h.Code {
	case wire.CodePing:
		return fc.reply(cs, h, &wire.Empty{})
	case wire.CodeHello:
		return fc.reply(cs, h, &wire.HelloReply{NodeID: cs.node.id, QueueManager: "QM1", Cluster: "C1", EngineVersion: "fake", Nodes: fc.nodeInfos()})
	case wire.CodeMetadata:
		var req wire.MetadataRequest
		if wire.Decode(body, &req) != nil {
			return false
		}
		return fc.reply(cs, h, fc.metadata(&req))
	case wire.CodeFetch:
		var req wire.FetchRequest
		if wire.Decode(body, &req) != nil {
			return false
		}
		return fc.reply(cs, h, fc.fetch(cs, &req, time.Duration(h.TimeoutMs)*time.Millisecond))
	case wire.CodeListOffsets:
		var req wire.ListOffsetsRequest
		if wire.Decode(body, &req) != nil {
			return false
		}
		return fc.reply(cs, h, fc.listOffsets(cs, &req))
	case wire.CodeFindCoordinator:
		var req wire.GroupRequest
		if wire.Decode(body, &req) != nil {
			return false
		}
		return fc.reply(cs, h, &wire.CoordinatorReply{NodeID: fakeCoord, Addr: fc.nodes[fakeCoord-1].addr})
	case wire.CodeJoinGroup, wire.CodeHeartbeat, wire.CodeLeaveGroup, wire.CodeOffsetCommit,
		wire.CodeOffsetFetch, wire.CodeTopicLeave:
		if cs.node.id != fakeCoord {
			return fc.replyErr(cs, h, wire.ReportNotCoordinator, wire.ErrNotCoordinator, "this node follows")
		}
		resp, report, name, tail := fc.groupRequest(cs, h.Code, body)
		if name != "" {
			return fc.replyErr(cs, h, report, name, tail)
		}
		return fc.reply(cs, h, resp)
	}
	return fc.replyErr(cs, h, 0, wire.ErrInvalidReqCode, fmt.Sprintf("request code %d", uint16(h.Code)))
}

func (fc *fakeCluster) metadata(req *wire.MetadataRequest) *wire.MetadataReply {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	rep := &wire.MetadataReply{Nodes: fc.nodeInfos()}
	names := req.Topics
	if names == nil {
		for n := range fc.topics {
			if !fc.hidden[n] {
				names = append(names, n)
			}
		}
		sort.Strings(names)
	}
	for _, n := range names {
		t := fc.topics[n]
		if t == nil || fc.hidden[n] {
			rep.Topics = append(rep.Topics, wire.TopicMeta{Name: n, Err: wire.PartError{Name: wire.ErrUnknownTopic, Tail: n}})
			continue
		}
		tm := wire.TopicMeta{Name: n, Epoch: t.epoch}
		for i, p := range t.parts {
			tm.Partitions = append(tm.Partitions, wire.PartitionMeta{ID: int32(i), Leader: p.leader})
		}
		rep.Topics = append(rep.Topics, tm)
	}
	return rep
}

func (fc *fakeCluster) fetch(cs *fakeConnState, req *wire.FetchRequest, wait time.Duration) *wire.FetchReply {
	deadline := time.Now().Add(wait)
	var topics []string
	for _, t := range req.Topics {
		topics = append(topics, t.Topic)
	}
	fc.mu.Lock()
	fc.pendingRead[cs] = topics
	fc.event("fetch-start node %d %v", cs.node.id, topics)
	fc.mu.Unlock()
	defer func() {
		fc.mu.Lock()
		delete(fc.pendingRead, cs)
		fc.event("fetch-end node %d %v", cs.node.id, topics)
		fc.mu.Unlock()
	}()
	for {
		fc.mu.Lock()
		rep, bytes, errs := fc.fetchLocked(cs, req)
		ch := fc.dataCh
		fc.mu.Unlock()
		left := time.Until(deadline)
		if bytes > 0 || errs || left <= 0 {
			return rep
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

func (fc *fakeCluster) fetchLocked(cs *fakeConnState, req *wire.FetchRequest) (*wire.FetchReply, int, bool) {
	rep := &wire.FetchReply{}
	total, errs := 0, false
	for _, ft := range req.Topics {
		tr := wire.FetchTopicResult{Topic: ft.Topic}
		t := fc.topics[ft.Topic]
		for _, fp := range ft.Partitions {
			pr := wire.FetchPartitionResult{Partition: fp.Partition}
			switch {
			case t == nil || int(fp.Partition) >= len(t.parts):
				pr.Err = wire.PartError{Name: wire.ErrUnknownTopic, Tail: ft.Topic}
				errs = true
			case t.parts[fp.Partition].leader != cs.node.id:
				pr.Err = wire.PartError{Name: wire.ErrFollowerNode, Tail: "not the leader"}
				pr.LeaderHint = t.parts[fp.Partition].leader
				errs = true
			default:
				p := t.parts[fp.Partition]
				pr.HighWatermark, pr.LogStart = p.end, p.logStart
				if fp.Offset < p.logStart || fp.Offset > p.end {
					pr.Err = wire.PartError{Name: wire.ErrOffsetOutOfRange, Tail: fmt.Sprintf("offset %d", fp.Offset)}
					errs = true
					break
				}
				var buf []byte
				for i, b := range p.batches {
					last := p.end - 1
					if i+1 < len(p.bases) {
						last = p.bases[i+1] - 1
					}
					if last < fp.Offset {
						continue
					}
					if len(buf) > 0 && len(buf)+len(b) > int(fp.MaxBytes) {
						break
					}
					buf = append(buf, b...)
				}
				pr.Batches = buf
				total += len(buf)
			}
			tr.Partitions = append(tr.Partitions, pr)
		}
		rep.Topics = append(rep.Topics, tr)
	}
	return rep, total, errs
}

func (fc *fakeCluster) listOffsets(cs *fakeConnState, req *wire.ListOffsetsRequest) *wire.ListOffsetsReply {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	rep := &wire.ListOffsetsReply{}
	for _, lt := range req.Topics {
		tr := wire.ListOffsetsTopicResult{Topic: lt.Topic}
		t := fc.topics[lt.Topic]
		for _, lp := range lt.Partitions {
			pr := wire.ListOffsetsPartitionResult{Partition: lp.Partition}
			switch {
			case t == nil:
				pr.Err = wire.PartError{Name: wire.ErrUnknownTopic, Tail: lt.Topic}
			case t.parts[lp.Partition].leader != cs.node.id:
				pr.Err = wire.PartError{Name: wire.ErrFollowerNode}
				pr.LeaderHint = t.parts[lp.Partition].leader
			default:
				p := t.parts[lp.Partition]
				// Earliest or latest: no test of the fake seeks by time.
				pr.Offset = p.end
				if lp.Timestamp == wire.ListEarliest {
					pr.Offset = p.logStart
				}
			}
			tr.Partitions = append(tr.Partitions, pr)
		}
		rep.Topics = append(rep.Topics, tr)
	}
	fc.event("list-offsets node %d", cs.node.id)
	return rep
}

// ---- the fake coordinator --------------------------------------------------

func (fc *fakeCluster) groupRequest(cs *fakeConnState, code wire.Code, body []byte) (wire.Message, uint16, string, string) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	switch code {
	case wire.CodeJoinGroup:
		return decodeThen(body, fc.joinGroupLocked)
	case wire.CodeHeartbeat:
		return decodeThen(body, fc.heartbeatLocked)
	case wire.CodeLeaveGroup:
		return decodeThen(body, fc.leaveGroupLocked)
	case wire.CodeOffsetCommit:
		return decodeThen(body, fc.offsetCommitLocked)
	case wire.CodeOffsetFetch:
		return decodeThen(body, fc.offsetFetchLocked)
	case wire.CodeTopicLeave:
		return decodeThen(body, fc.topicLeaveLocked)
	}
	return nil, 0, wire.ErrInvalidReqCode, "?"
}

// decodeThen decodes body as the request handle takes and hands it over;
// a body that does not decode is the coordinator's INVALID_ARGUMENT.
func decodeThen[R any, PR interface {
	*R
	wire.Message
}](body []byte, handle func(PR) (wire.Message, uint16, string, string)) (wire.Message, uint16, string, string) {
	req := PR(new(R))
	if wire.Decode(body, req) != nil {
		return nil, 0, wire.ErrInvalidArgument, "decode"
	}
	return handle(req)
}

// member is the member id of g; nil when there is no such member or no g.
func (g *fakeGroup) member(id string) *fakeMember {
	if g == nil {
		return nil
	}
	return g.members[id]
}

// liveMember is the member id of g at generation gen, or nil and the
// coordinator's error for an unknown member or a stale generation.
func liveMember(g *fakeGroup, id string, gen int32) (*fakeMember, uint16, string, string) {
	m := g.member(id)
	if m == nil {
		return nil, 0, wire.ErrUnknownMember, id
	}
	if gen != m.gen {
		return nil, wire.ReportGenerationMismatch, wire.ErrGenerationMismatch, "stale generation"
	}
	return m, 0, "", ""
}

func (fc *fakeCluster) joinGroupLocked(req *wire.JoinGroupRequest) (wire.Message, uint16, string, string) {
	g := fc.groupLocked(req.Group)
	m := g.members[req.MemberID]
	if req.MemberID != "" && m == nil {
		return nil, 0, wire.ErrUnknownMember, req.MemberID
	}
	if m == nil {
		fc.nextMember++
		m = &fakeMember{id: fmt.Sprintf("m%d", fc.nextMember)}
		g.members[m.id] = m
	}
	m.topics = slices.Clone(req.Topics)
	fc.gen++
	m.gen = fc.gen
	m.mustRejoin = false
	target := fc.targetLocked(g)
	for k, o := range g.owner {
		if o == m.id && !slices.Contains(target[m.id], k) {
			delete(g.owner, k)
		}
	}
	var mine []tp
	for _, k := range target[m.id] {
		if g.owner[k] == "" {
			g.owner[k] = m.id
		}
		if g.owner[k] == m.id {
			mine = append(mine, k)
		}
	}
	fc.flagRejoinsLocked(g, target)
	m.mustRejoin = false // the joiner waits for its next 4161
	fc.event("join %s %s gen %d -> %v", req.Group, m.id, m.gen, mine)
	return &wire.JoinGroupReply{MemberID: m.id, Generation: m.gen, Assignment: groupTPs(mine), HeartbeatIntervalMs: fakeHeartbeatMs, SessionTimeoutMs: fakeSessionMs}, 0, "", ""
}

func (fc *fakeCluster) heartbeatLocked(req *wire.MemberRequest) (wire.Message, uint16, string, string) {
	m, report, name, tail := liveMember(fc.groups[req.Group], req.MemberID, req.Generation)
	if m == nil {
		return nil, report, name, tail
	}
	if m.mustRejoin {
		return nil, wire.ReportRebalanced, wire.ErrRebalanceInProgress, "rejoin"
	}
	return &wire.Empty{}, 0, "", ""
}

func (fc *fakeCluster) leaveGroupLocked(req *wire.MemberRequest) (wire.Message, uint16, string, string) {
	if g := fc.groups[req.Group]; g.member(req.MemberID) != nil {
		fc.removeMemberLocked(g, req.MemberID)
		fc.event("leave %s %s", req.Group, req.MemberID)
	}
	return &wire.Empty{}, 0, "", ""
}

func (fc *fakeCluster) offsetCommitLocked(req *wire.OffsetCommitRequest) (wire.Message, uint16, string, string) {
	g := fc.groupLocked(req.Group)
	if m, report, name, tail := liveMember(g, req.MemberID, req.Generation); m == nil {
		return nil, report, name, tail
	}
	rep := &wire.OffsetsReply{}
	for _, e := range req.Offsets {
		k := tp{e.Topic, e.Partition}
		if g.owner[k] != req.MemberID {
			e.Err = wire.PartError{Name: wire.ErrRebalanceInProgress, Tail: "partition not owned"}
		} else {
			if old, ok := g.commits[k]; ok && e.Offset < old {
				fc.violations = append(fc.violations, fmt.Sprintf("commit %v went back %d -> %d", k, old, e.Offset))
			}
			g.commits[k] = e.Offset
			fc.event("commit %s %v %d by %s", req.Group, k, e.Offset, req.MemberID)
		}
		rep.Offsets = append(rep.Offsets, e)
	}
	return rep, 0, "", ""
}

func (fc *fakeCluster) offsetFetchLocked(req *wire.OffsetFetchRequest) (wire.Message, uint16, string, string) {
	g := fc.groups[req.Group]
	rep := &wire.OffsetsReply{}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			o := int64(-1)
			if g != nil {
				if v, ok := g.commits[tp{t.Topic, p}]; ok {
					o = v
				}
			}
			rep.Offsets = append(rep.Offsets, wire.OffsetEntry{Topic: t.Topic, Partition: p, Offset: o})
		}
	}
	return rep, 0, "", ""
}

func (fc *fakeCluster) topicLeaveLocked(req *wire.TopicLeaveRequest) (wire.Message, uint16, string, string) {
	for other, topics := range fc.pendingRead {
		if slices.Contains(topics, req.Topic) {
			fc.violations = append(fc.violations, fmt.Sprintf("LEAVE %s while a fetch covering it is pending on node %d", req.Topic, other.node.id))
			return nil, 0, wire.ErrReadInProgress, req.Topic
		}
	}
	g := fc.groups[req.Group]
	m := g.member(req.MemberID)
	if m == nil {
		return nil, 0, wire.ErrUnknownMember, req.MemberID
	}
	m.topics = slices.DeleteFunc(m.topics, func(s string) bool { return s == req.Topic })
	for k, o := range g.owner {
		if o == m.id && k.topic == req.Topic {
			delete(g.owner, k)
		}
	}
	fc.flagRejoinsLocked(g, fc.targetLocked(g))
	fc.event("topic-leave %s %s %s", req.Group, req.MemberID, req.Topic)
	return &wire.Empty{}, 0, "", ""
}

// targetLocked spreads the partitions of each topic round-robin over the
// members subscribed to it, sorted by member id.
func (fc *fakeCluster) targetLocked(g *fakeGroup) map[string][]tp {
	out := map[string][]tp{}
	var ids []string
	for id := range g.members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	topicSet := map[string]bool{}
	for _, m := range g.members {
		for _, t := range m.topics {
			topicSet[t] = true
		}
	}
	var topics []string
	for t := range topicSet {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	i := 0
	for _, t := range topics {
		ft := fc.topics[t]
		if ft == nil {
			continue
		}
		var subs []string
		for _, id := range ids {
			if slices.Contains(g.members[id].topics, t) {
				subs = append(subs, id)
			}
		}
		for p := range ft.parts {
			id := subs[i%len(subs)]
			out[id] = append(out[id], tp{t, int32(p)})
			i++
		}
	}
	return out
}

// flagRejoinsLocked marks the members whose owned partitions differ from
// their target.
func (fc *fakeCluster) flagRejoinsLocked(g *fakeGroup, target map[string][]tp) {
	for id, m := range g.members {
		var owned []tp
		for k, o := range g.owner {
			if o == id {
				owned = append(owned, k)
			}
		}
		want := target[id]
		if len(owned) != len(want) {
			m.mustRejoin = true
			continue
		}
		for _, k := range want {
			if g.owner[k] != id {
				m.mustRejoin = true
			}
		}
	}
}

func (fc *fakeCluster) removeMemberLocked(g *fakeGroup, id string) {
	delete(g.members, id)
	for k, o := range g.owner {
		if o == id {
			delete(g.owner, k)
		}
	}
	fc.flagRejoinsLocked(g, fc.targetLocked(g))
}

// checkViolations fails the test for each breach of the contract the fake
// saw: a commit going back, a TOPIC LEAVE while a fetch of the topic waits.
func (fc *fakeCluster) checkViolations(t testing.TB) {
	t.Helper()
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, v := range fc.violations {
		t.Error(v)
	}
}
