package engine

import (
	"fmt"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// cluster owns membership and leadership. It is a locked struct rather than
// an event loop because every transition is short and synchronous, and the
// HELLO handler must decide admission and open the session's transaction in
// one critical section (admit), so that leadership cannot change between
// the check and the registration.
//
// Lock order: cluster.mu, then queueStore.mu or topicStore.mu (cluster
// calls into the stores; the stores never call back). Partition leadership
// of topics is separate from cluster leadership: topics.go moves the
// partitions of a lost node after ElectionDelay (nodeLost, nodeBack).
//
// Election rules (spec K-20, K-21, §3.8):
//   - node 1 leads at start;
//   - when the leader is killed or stopped, no node leads until
//     ElectionDelay has passed; then the lowest-id running node whose
//     replica is in sync leads (all in-sync replicas are identical because
//     replication is synchronous). If no running replica is in sync (every
//     node lost its state), the one with the most committed changes wins,
//     lowest id on ties;
//   - the new leader's out-of-date followers resync from it at once;
//   - a node that comes back while a leader exists is a follower and
//     resyncs; one that comes back while nobody leads and no election is
//     pending starts an election (after ElectionDelay).
type cluster struct {
	e *Engine

	mu         sync.Mutex
	members    []member // index id-1
	leader     int      // 0 = none
	electGen   uint64   // bumped on every schedule; a stale timer does nothing
	electTimer *time.Timer
	// electGate, when set (tests only), holds every election until it is
	// closed: a test checks the no-leader window without racing the
	// ElectionDelay timer on a loaded machine.
	electGate chan struct{}
	changed   chan struct{} // closed and replaced on every change (WaitLeader)
	down      bool          // engine closed
}

// member is one node's membership state.
type member struct {
	alive   bool // process up (KillNode clears, RestartNode sets)
	running bool // queue manager running (StopNode clears, StartNode sets); implies alive
}

func newCluster(e *Engine, n int) *cluster {
	return &cluster{e: e, members: make([]member, n), changed: make(chan struct{})}
}

// notifyLocked wakes WaitLeader callers.
func (c *cluster) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// bootstrap marks every node alive and running, gives each an empty
// in-sync replica and makes node 1 the leader.
func (c *cluster) bootstrap() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.members {
		c.members[i] = member{alive: true, running: true}
		c.e.queues.addReplica(i + 1)
	}
	c.leader = 1
	c.e.queues.promote(1)
	c.notifyLocked()
}

func (c *cluster) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = true
	if c.electTimer != nil {
		c.electTimer.Stop()
	}
	c.electGen++
}

func (c *cluster) leaderNow() (int, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leader, c.changed
}

// kill marks node id dead (its queue state is lost).
func (c *cluster) kill(id int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := &c.members[id-1]
	if !m.alive {
		return fmt.Errorf("engine: node %d is already down", id)
	}
	*m = member{}
	c.e.queues.dropReplica(id)
	c.e.topics.nodeLost(id, true)
	c.lostNodeLocked(id)
	return nil
}

// stop stops node id's queue manager; its replica keeps its data but stops
// receiving changes until the node starts again.
func (c *cluster) stop(id int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := &c.members[id-1]
	switch {
	case !m.alive:
		return fmt.Errorf("engine: node %d is down", id)
	case !m.running:
		return fmt.Errorf("engine: node %d is already stopped", id)
	}
	m.running = false
	c.e.queues.suspendReplica(id)
	c.e.topics.nodeLost(id, false)
	c.lostNodeLocked(id)
	return nil
}

// lostNodeLocked handles the loss of a node that may have led.
func (c *cluster) lostNodeLocked(id int) {
	c.e.adm.leads.nodeLost(id, c.leader == id)
	if c.leader == id {
		c.leader = 0
		c.e.logf("engine: leader node %d lost; election in %v", id, c.e.cfg.ElectionDelay)
		c.scheduleElectionLocked()
	}
	c.notifyLocked()
}

// checkRestart reports whether node id may be restarted (it must be down).
func (c *cluster) checkRestart(id int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.members[id-1].alive {
		return fmt.Errorf("engine: node %d is not down", id)
	}
	return nil
}

// checkStart reports whether node id's queue manager may be started.
func (c *cluster) checkStart(id int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := c.members[id-1]; {
	case !m.alive:
		return fmt.Errorf("engine: node %d is down (use RestartNode)", id)
	case m.running:
		return fmt.Errorf("engine: node %d is already running", id)
	}
	return nil
}

// restarted brings a killed node back with an empty replica.
func (c *cluster) restarted(id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.members[id-1] = member{alive: true, running: true}
	c.e.queues.addReplica(id)
	c.e.topics.nodeBack(id)
	c.nodeBackLocked(id)
}

// started brings a stopped queue manager back with the data it had.
func (c *cluster) started(id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.members[id-1].running = true
	c.e.queues.resumeReplica(id)
	c.e.topics.nodeBack(id)
	c.nodeBackLocked(id)
}

func (c *cluster) nodeBackLocked(id int) {
	c.e.adm.leads.nodeBack(id)
	switch {
	case c.leader != 0:
		c.e.queues.resync(id, c.leader)
	case c.electTimer == nil:
		c.scheduleElectionLocked()
	}
	c.notifyLocked()
}

func (c *cluster) scheduleElectionLocked() {
	if c.down {
		return
	}
	if c.electTimer != nil {
		c.electTimer.Stop()
	}
	c.electGen++
	gen := c.electGen
	c.electTimer = time.AfterFunc(c.e.cfg.ElectionDelay, func() {
		c.mu.Lock()
		gate := c.electGate
		c.mu.Unlock()
		if gate != nil {
			<-gate
		}
		c.elect(gen)
	})
}

// elect runs when the election delay has passed.
func (c *cluster) elect(gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.electGen || c.down {
		return // rescheduled or closed meanwhile
	}
	c.electTimer = nil
	if c.leader != 0 {
		return
	}
	best, bestSync, bestLSN := 0, false, uint64(0)
	for i, m := range c.members {
		if !m.running {
			continue
		}
		id := i + 1
		inSync, lsn, ok := c.e.queues.replicaInfo(id)
		if !ok {
			continue
		}
		var better bool
		switch {
		case best == 0:
			better = true
		case inSync != bestSync:
			better = inSync
		case !inSync:
			better = lsn > bestLSN
		default: // both in sync: identical state, keep the lower id
		}
		if better {
			best, bestSync, bestLSN = id, inSync, lsn
		}
	}
	if best == 0 {
		c.e.logf("engine: election found no running node; waiting for one")
		return
	}
	c.leader = best
	c.e.adm.leads.elected(c.e.cfg.Cluster, best)
	c.e.queues.promote(best)
	c.e.logf("engine: node %d elected leader", best)
	c.notifyLocked()
}

// admission is the cluster's answer to a HELLO.
type admission struct {
	gone   bool            // the node is going away: close without a reply
	refuse *wire.ErrorBody // refusal to send before closing
	txn    *txn            // queue sessions: the transaction opened on the leader
	nodes  []wire.NodeInfo // node list for the reply (spec S-03)
}

// admit decides a HELLO in mode on node id, arriving on a listener of kind.
func (c *cluster) admit(id int, kind listenerKind, mode wire.SessionMode, sessionID uint64) admission {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.members[id-1]
	if !m.alive || (kind == dataListener && !m.running) || c.down {
		return admission{gone: true}
	}
	if mode.IsQueueSession() {
		switch {
		case c.leader == 0:
			return admission{refuse: errNoLeader()}
		case c.leader != id:
			addr := c.e.nodes[c.leader-1].data.addr
			return admission{refuse: &wire.ErrorBody{
				Name: wire.ErrNotLeader,
				Tail: fmt.Sprintf("leader is node %d at %s", c.leader, addr),
				Hint: addr,
			}}
		}
		t := c.e.queues.openSession(id, mode, sessionID)
		if t == nil { // cannot happen while the leader is running; be safe
			return admission{refuse: errNoLeader()}
		}
		return admission{txn: t, nodes: c.nodeInfosLocked()}
	}
	return admission{nodes: c.nodeInfosLocked()}
}

func errNoLeader() *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrNoLeader, Tail: "election in progress"}
}

func (c *cluster) nodeInfosLocked() []wire.NodeInfo {
	out := make([]wire.NodeInfo, len(c.members))
	for i, m := range c.members {
		n := c.e.nodes[i]
		out[i] = wire.NodeInfo{
			ID:     uint16(i + 1),
			Addr:   n.data.addr,
			Admin:  n.admin.addr,
			Leader: c.leader == i+1,
			Up:     m.running,
		}
	}
	return out
}

func (c *cluster) statuses() []NodeStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]NodeStatus, len(c.members))
	for i, m := range c.members {
		id := i + 1
		n := c.e.nodes[i]
		inSync, _, _ := c.e.queues.replicaInfo(id)
		out[i] = NodeStatus{
			ID:        id,
			DataAddr:  n.data.addr,
			AdminAddr: n.admin.addr,
			Up:        m.alive,
			Running:   m.running,
			Leader:    c.leader == id,
			InSync:    inSync && m.running,
		}
	}
	return out
}

// leaderDepth reads a queue's committed depth on the leader.
func (c *cluster) leaderDepth(name string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.leader == 0 {
		return 0, ErrNoLeader
	}
	return c.e.queues.depthOn(c.leader, name)
}
