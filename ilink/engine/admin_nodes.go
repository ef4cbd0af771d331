package engine

import (
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/wire"
)

func itoa(n int) string { return strconv.Itoa(n) }

// ---- replication scan ----

// nodeAgg is what the replication scan adds up per node (index id-1).
type nodeAgg struct {
	led        []int
	lagRecords []int64
	lag        []time.Duration
}

// replicationScan walks every partition once (one partition lock at a
// time). With parts it also returns the per-partition replication rows,
// carved out of a few large backing arrays instead of small allocations
// per partition.
func (e *Engine) replicationScan(parts bool) (nodeAgg, []wire.TopicReplicationEntry) {
	n := len(e.nodes)
	agg := nodeAgg{led: make([]int, n), lagRecords: make([]int64, n), lag: make([]time.Duration, n)}
	ts := e.topics
	list := ts.snap.Load().list
	var out []wire.TopicReplicationEntry
	var pbuf []wire.PartitionReplicationEntry
	var fbuf []wire.FollowerEntry
	var ibuf []int
	if parts {
		np, nr := 0, 0
		for _, t := range list {
			ps := t.partitions()
			np += len(ps)
			for _, p := range ps {
				nr += len(p.reps)
			}
		}
		out = make([]wire.TopicReplicationEntry, len(list))
		pbuf = make([]wire.PartitionReplicationEntry, np)
		fbuf = make([]wire.FollowerEntry, 0, nr)
		ibuf = make([]int, 0, nr)
	}
	now := ts.mono()
	for ti, t := range list {
		var tparts []wire.PartitionReplicationEntry
		ps := t.partitions() // one load per topic (topicLayout)
		if parts {
			if len(ps) > len(pbuf) {
				// AlterTopic grew a topic since the sizing pass.
				pbuf = make([]wire.PartitionReplicationEntry, len(ps))
			}
			tparts, pbuf = pbuf[:len(ps):len(ps)], pbuf[len(ps):]
			out[ti] = wire.TopicReplicationEntry{Topic: t.name, Partitions: tparts}
		}
		for pi, p := range ps {
			p.mu.Lock()
			leader := p.leader
			var lend int64
			if l := p.leaderLogLocked(); l != nil {
				lend = l.end
			} else {
				for _, rs := range p.reps {
					lend = max(lend, rs.log.end)
				}
			}
			if leader != 0 && leader <= n {
				agg.led[leader-1]++
			}
			i0, f0 := len(ibuf), len(fbuf)
			for _, rs := range p.reps {
				in := p.isr&bit(rs.node) != 0
				if parts && in {
					ibuf = append(ibuf, rs.node)
				}
				if rs.node == leader {
					continue
				}
				lagRec := max(0, lend-rs.log.end)
				var lag time.Duration
				if lagRec > 0 {
					lag = max(0, now-rs.caughtUp)
				}
				if rs.node <= n {
					agg.lagRecords[rs.node-1] += lagRec
					agg.lag[rs.node-1] = max(agg.lag[rs.node-1], lag)
				}
				if parts {
					fbuf = append(fbuf, wire.FollowerEntry{Node: rs.node, InSync: in, LagRecords: lagRec, LagMs: lag.Milliseconds()})
				}
			}
			if parts {
				tparts[pi] = wire.PartitionReplicationEntry{
					Partition: p.id, Leader: leader,
					InSync:    ibuf[i0:len(ibuf):len(ibuf)],
					Followers: fbuf[f0:len(fbuf):len(fbuf)],
				}
			}
			p.mu.Unlock()
		}
	}
	return agg, out
}

func handleReplicationStatus(r *request) {
	var req wire.QmgrRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	e := r.c.e
	st := e.Nodes()
	agg, topics := e.replicationScan(true)
	rep := &wire.ReplicationStatusReply{Cluster: e.cfg.Cluster, Topics: topics, Leader: leaderID(st)}
	for _, s := range st {
		role, state := nodeRoleState(s, rep.Leader)
		rep.Nodes = append(rep.Nodes, wire.NodeReplicationEntry{
			ID: s.ID, QueueManager: e.cfg.QueueManager, Role: role, State: state,
			LagRecords: agg.lagRecords[s.ID-1], LagMs: agg.lag[s.ID-1].Milliseconds(),
		})
	}
	r.reply(rep)
}

func handleNodeList(r *request) {
	var req wire.QmgrRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	e := r.c.e
	st := e.Nodes()
	agg, _ := e.replicationScan(false)
	leader := leaderID(st)
	rep := &wire.NodeListReply{}
	for _, s := range st {
		role, state := nodeRoleState(s, leader)
		rep.Nodes = append(rep.Nodes, wire.NodeEntry{
			ID: s.ID, QueueManager: e.cfg.QueueManager, DataAddr: s.DataAddr, AdminAddr: s.AdminAddr,
			Role: role, State: state, Partitions: agg.led[s.ID-1],
			LagRecords: agg.lagRecords[s.ID-1], LagMs: agg.lag[s.ID-1].Milliseconds(),
		})
	}
	r.reply(rep)
}

// ---- node control, shutdown, patch ----

func nodeStateError(err error) *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrNodeState, Tail: strings.TrimPrefix(err.Error(), "engine: ")}
}

// afterReply runs fn once the connection closed after this request's
// reply was written (closeAfterReply), off every engine goroutine, so fn
// may use the fault API on the connection's own node.
func afterReply(r *request, fn func()) {
	c := r.c
	go func() {
		<-c.closing
		fn()
	}()
}

// handleNodeControl is node stop/start/kill/restart (fault injection over
// the admin protocol). Killing the node that serves this connection
// answers first and then closes the connection with the node.
func handleNodeControl(r *request) {
	var req wire.NodeControlRequest
	if !r.decode(&req) {
		return
	}
	e := r.c.e
	if req.Qmgr != "" && req.Qmgr != e.cfg.QueueManager {
		r.fail(&wire.ErrorBody{Name: wire.ErrUnknownQmgr, Tail: req.Qmgr})
		return
	}
	if req.Node < 1 || req.Node > len(e.nodes) {
		r.fail(&wire.ErrorBody{Name: wire.ErrUnknownNode, Tail: fmt.Sprintf("node %d (the cluster has %d)", req.Node, len(e.nodes))})
		return
	}
	var do func() error
	switch req.Action {
	case wire.NodeActionStop:
		do = func() error { return e.StopNode(req.Node) }
	case wire.NodeActionStart:
		do = func() error {
			if !e.cl.memberOf(req.Node).alive {
				return e.RestartNode(req.Node)
			}
			return e.StartNode(req.Node)
		}
	case wire.NodeActionKill:
		if req.Node == r.c.nodeID() {
			r.closeAfterReply()
			r.reply(&wire.Empty{})
			afterReply(r, func() { _ = e.KillNode(req.Node) })
			return
		}
		do = func() error { return e.KillNode(req.Node) }
	case wire.NodeActionRestart:
		do = func() error { return e.RestartNode(req.Node) }
	default:
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("node action %d", req.Action)})
		return
	}
	// The fault API waits for connections to finish; run it off the reader.
	go func() { r.replyEmpty(do(), nodeStateError) }()
}

// handleShutdown is SHUTDOWN (3002). A node shutdown answers, then the node
// goes down (like a kill). A cluster-wide shutdown closes the whole engine
// without answering: the connection just closes (the client's
// shutdownService returns false, spec A-24).
func handleShutdown(r *request) {
	var req wire.ShutdownRequest
	if !r.decode(&req) {
		return
	}
	e, self := r.c.e, r.c.nodeID()
	if req.ClusterWide {
		e.logf("engine: cluster-wide SHUTDOWN requested on node %d", self)
		r.slot.drop = true // close without the reply
		r.reply(&wire.Empty{})
		afterReply(r, func() { _ = e.Close() })
		return
	}
	e.logf("engine: SHUTDOWN of node %d requested", self)
	r.closeAfterReply()
	r.reply(&wire.Empty{})
	afterReply(r, func() { _ = e.KillNode(self) })
}

// maxPatchSize bounds a PATCH body kept in memory.
const maxPatchSize = 64 << 20

// handlePatch is PATCH (3335): the file is recorded (this engine has no
// binary to patch), the answer sent, and the node restarts, which closes
// the connection (spec A-26).
func handlePatch(r *request) {
	var req wire.PatchRequest
	if !r.decode(&req) {
		return
	}
	name := req.FileName
	switch {
	case strings.TrimSpace(name) == "":
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "empty patch file name"})
		return
	case strings.ContainsAny(name, `/\`) || name != path.Base(name) || name == "." || name == "..":
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("patch file name %q must be a plain file name", name)})
		return
	case req.Data == nil:
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "patch without data"})
		return
	case len(req.Data) > maxPatchSize:
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("patch of %d bytes exceeds %d", len(req.Data), maxPatchSize)})
		return
	}
	e, self := r.c.e, r.c.nodeID()
	a := &e.adm
	a.patchMu.Lock()
	a.patches = append(a.patches, patchRecord{Node: self, FileName: name, Size: len(req.Data), At: time.Now()})
	a.patchMu.Unlock()
	e.logf("engine: node %d patched with %s (%d bytes); restarting", self, name, len(req.Data))
	r.closeAfterReply()
	r.reply(&wire.Empty{})
	afterReply(r, func() {
		if err := e.KillNode(self); err == nil {
			_ = e.RestartNode(self)
		}
	})
}

// Patches lists the PATCH requests the engine received, oldest first.
func (e *Engine) Patches() []string {
	a := &e.adm
	a.patchMu.Lock()
	defer a.patchMu.Unlock()
	out := make([]string, len(a.patches))
	for i, p := range a.patches {
		out[i] = fmt.Sprintf("node %d %s %d bytes", p.Node, p.FileName, p.Size)
	}
	return out
}

// ---- VIEW LOAD ----

func handleViewLoad(r *request) {
	var req wire.ViewLoadRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	e := r.c.e
	now := time.Now()
	st := e.Nodes()
	agg, _ := e.replicationScan(false)
	cur := make([]int64, len(e.adm.reqs))
	for i := range cur {
		cur[i] = e.adm.reqs[i].Load()
	}
	rates := e.adm.load.sample(now, cur)
	rep := &wire.ViewLoadReply{Level: req.Level, AtMs: now.UnixMilli()}
	for _, t := range e.topics.snap.Load().list {
		rep.Topics++
		rep.Partitions += len(t.partitions())
	}
	for i, s := range st {
		n := e.nodes[i]
		ds, as := n.data.count(), n.admin.count()
		rep.Sessions += ds + as
		rep.Requests += cur[i]
		rep.RequestsPerSec += rates[i]
		if req.Level >= 1 {
			rep.Nodes = append(rep.Nodes, wire.NodeLoadEntry{
				ID: s.ID, Up: s.Up, Running: s.Running, Leader: s.Leader,
				DataSessions: ds, AdminSessions: as, Requests: cur[i], RequestsPerSec: rates[i],
				PartitionsLed: agg.led[i],
			})
		}
	}
	for _, q := range e.queueSnapshot(now) {
		rep.Queues++
		rep.QueueDepth += q.depth
		if req.Level >= 2 {
			rep.QueueLoad = append(rep.QueueLoad, wire.QueueLoadEntry{Name: q.name, Depth: q.depth, InFlight: q.inFlight, PutRate: q.putRate, GetRate: q.getRate})
		}
	}
	r.reply(rep)
}
