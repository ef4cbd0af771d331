// Package engine is an iLink cluster in one process: N nodes, each with a
// data listener and an admin listener on loopback, a cluster leader that
// accepts queue sessions, queues with transactions and synchronous
// replication to the followers, and fault injection (kill, restart, stop,
// start, sever, per-request control hooks). It is the embedded default of
// the dashboard, the server of every integration test and the place where
// faults are injected (docs/DESIGN.md §3).
//
// The model is franz-go's kfake (one reader and one writer goroutine per
// connection, replies strictly in request order, control hooks), with real
// leadership and replication instead of kfake's "writes are immediate".
//
// # Ownership and lock order
//
// Every piece of state has one owner:
//   - Engine.faultMu serialises the fault-injection API and Close, so two
//     topology changes never interleave (they are rare and slow anyway).
//   - cluster.mu owns membership (alive/running per node), the leader and
//     the election timer (cluster.go).
//   - queueStore.mu owns every node's queue replica, every session's
//     transaction and every GET waiter (queues.go, replication.go). One lock
//     for all replicas makes synchronous replication trivially ordered: the
//     leader applies a change and ships it to its followers inside the same
//     critical section, so no follower can see changes out of order.
//   - topicStore.mu owns the topic registry, the topic side's view of node
//     liveness and partition elections (topics.go), and is held to publish
//     a topic's new layout (settings + partition list, swapped atomically
//     and never mutated, so readers take no lock: topics_alter.go); partition.mu owns one
//     partition: every replica's log of it, its leader, in-sync set, high
//     watermark and waiters (partition_log.go, replication_topics.go). The
//     produce and fetch paths take only partition.mu (topics are found in an
//     immutable snapshot), so partitions never contend with each other.
//   - groupShard.mu owns the group coordinator state of one SYSTEM.GROUPS
//     partition: its groups, members, assignments and commits (groups.go).
//     It is taken before partition.mu (the coordinator appends commit
//     records and reads end offsets under it), never under a topic lock,
//     and only through synced or withShard (group_shard.go), which release
//     it by a defer before any answer is sent.
//   - endpoint.mu owns a listener and its set of connections (node.go).
//   - A connection's session is touched only by its reader goroutine
//     (handlers run there), and its write side only by its writer goroutine
//     (conn.go).
//
// Locks are taken in the order faultMu → cluster.mu → queueStore.mu, and
// faultMu → cluster.mu → topicStore.mu → partition.mu (never two partitions
// at once), and groupShard.mu → partition.mu (one shard at a time). endpoint.mu, controls.mu, the stats rings' mutexes and the
// topic followers' dirty-list mutexes are leaves: nothing else is taken
// while they are held. Closing a connection never happens under cluster.mu or
// queueStore.mu, because a closing connection rolls its transaction back
// (queueStore.mu).
package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"ilinkdash/ilink/wire"
)

// EngineVersion is reported in every HELLO reply.
const EngineVersion = "7.0.1.3512-ilinkdash"

// Config configures an engine. The zero value is a usable three-node cluster
// on ephemeral loopback ports.
type Config struct {
	Nodes         int           // default 3
	Host          string        // default "127.0.0.1"
	DataPort      int           // 0 = ephemeral; else node i listens on DataPort+i-1
	AdminPort     int           // same rule for admin listeners
	QueueManager  string        // default "QM1"
	Cluster       string        // default "C1"
	ElectionDelay time.Duration // default 3s; time with no leader after a leader dies
	MaxFrame      int           // default wire.DefaultMaxFrame
	Logf          func(format string, args ...any)

	// ReplicaLagMax (default 2s): a follower replica that has not reached
	// its leader's log end for this long leaves the partition's in-sync set.
	ReplicaLagMax time.Duration
	// RetentionInterval (default 1s) is the period of the retention sweep.
	RetentionInterval time.Duration

	// Spokes makes this engine a hub and starts these spoke engines in this
	// process; they dial the hub and close with it (admin_spoke.go).
	Spokes []SpokeConfig

	// GroupPartitions (default 3) is the partition count of SYSTEM.GROUPS,
	// the internal topic holding group commits (groups.go).
	GroupPartitions int
	// CoordinatorLoadTime (default 1s) is the LOADING window of a new group
	// coordinator: it answers REPORT 4176 while it replays its partition.
	CoordinatorLoadTime time.Duration
	// HeartbeatInterval (default 1s) is the heartbeat period the coordinator
	// gives group members in the JOIN reply.
	HeartbeatInterval time.Duration
	// GroupCompactMin (default 1000) is the number of records a
	// SYSTEM.GROUPS partition must hold before it is compacted (and more
	// than twice its live state; groups_compact.go).
	GroupCompactMin int

	// IdleTimeout (default 60s) closes a connection on which no byte
	// arrived for this long, whatever it waits for: a half-open connection
	// (the client vanished without a FIN) does not live forever. Clients
	// send a PING after KeepAlive (15s) without a write
	// (ilink.ConnConfig), so a healthy idle client is never cut. It also
	// bounds a reply write that makes no progress (a client that stopped
	// reading).
	IdleTimeout time.Duration
	// FrameTimeout (default 10s) closes a connection whose frame stalls:
	// once a frame has begun, its next bytes must come within this time
	// (a client that sent 3 header bytes and went silent is dropped).
	FrameTimeout time.Duration
	// MaxConnections (default 1024) caps the open connections of each
	// listener (data and admin, per node). A connection over the cap
	// closes the oldest of the listener's connections without a session,
	// if it has one (MaxPreHello); else it gets its first request answered
	// with MIMQE_TOO_MANY_CONNECTIONS and is closed.
	MaxConnections int
	// HelloTimeout (default 10s) closes a connection that has not opened a
	// session (a HELLO answered with a HelloReply) this long after it was
	// accepted, whatever it sent meanwhile (PINGs before HELLO included):
	// a socket that never says HELLO cannot hold a connection slot for
	// IdleTimeout.
	HelloTimeout time.Duration
	// MaxPreHello (default 128) caps, per listener, the accepted
	// connections that have not opened a session yet. A connection
	// accepted over it closes the oldest of them (logged), so idle sockets
	// cannot keep out a client that says HELLO as soon as it connects;
	// together they hold at most MaxPreHello of the MaxConnections slots.
	MaxPreHello int

	// PlantedBugNoDedup turns idempotent de-duplication off: every batch
	// is appended, resends included. For the chaos checker's self-test
	// only (a checker that cannot fail proves nothing); never set it
	// otherwise.
	PlantedBugNoDedup bool
}

// maxNodes bounds Config.Nodes; node ids travel as u16 and a cluster of
// more than a few nodes in one process is of no use.
const maxNodes = 64

func (c *Config) applyDefaults() error {
	if c.Nodes == 0 {
		c.Nodes = 3
	}
	if c.Nodes < 1 || c.Nodes > maxNodes {
		return fmt.Errorf("engine: Nodes %d out of range 1..%d", c.Nodes, maxNodes)
	}
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	for _, p := range []struct {
		name string
		port int
	}{{"DataPort", c.DataPort}, {"AdminPort", c.AdminPort}} {
		if p.port < 0 || (p.port > 0 && p.port+c.Nodes-1 > 65535) {
			return fmt.Errorf("engine: %s %d: ports %d..%d do not fit in 1..65535", p.name, p.port, p.port, p.port+c.Nodes-1)
		}
	}
	if c.QueueManager == "" {
		c.QueueManager = "QM1"
	}
	if c.Cluster == "" {
		c.Cluster = "C1"
	}
	if c.ElectionDelay == 0 {
		c.ElectionDelay = 3 * time.Second
	}
	if c.ElectionDelay < 0 {
		return fmt.Errorf("engine: ElectionDelay %v must not be negative", c.ElectionDelay)
	}
	if c.MaxFrame == 0 {
		c.MaxFrame = wire.DefaultMaxFrame
	}
	if c.ReplicaLagMax == 0 {
		c.ReplicaLagMax = 2 * time.Second
	}
	if c.RetentionInterval == 0 {
		c.RetentionInterval = time.Second
	}
	if c.ReplicaLagMax < 0 || c.RetentionInterval < 0 {
		return fmt.Errorf("engine: ReplicaLagMax %v and RetentionInterval %v must not be negative", c.ReplicaLagMax, c.RetentionInterval)
	}
	if err := wire.ValidateMaxFrame(c.MaxFrame); err != nil {
		return fmt.Errorf("engine: MaxFrame: %w", err)
	}
	if c.GroupPartitions == 0 {
		c.GroupPartitions = 3
	}
	if c.GroupPartitions < 1 || c.GroupPartitions > maxPartitions {
		return fmt.Errorf("engine: GroupPartitions %d out of range 1..%d", c.GroupPartitions, maxPartitions)
	}
	if c.CoordinatorLoadTime == 0 {
		c.CoordinatorLoadTime = time.Second
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 60 * time.Second
	}
	if c.FrameTimeout == 0 {
		c.FrameTimeout = 10 * time.Second
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = 1024
	}
	if c.HelloTimeout == 0 {
		c.HelloTimeout = 10 * time.Second
	}
	if c.MaxPreHello == 0 {
		c.MaxPreHello = 128
	}
	if c.IdleTimeout < 0 || c.FrameTimeout < 0 || c.MaxConnections < 0 {
		return fmt.Errorf("engine: IdleTimeout %v, FrameTimeout %v and MaxConnections %d must not be negative", c.IdleTimeout, c.FrameTimeout, c.MaxConnections)
	}
	if c.HelloTimeout < 0 || c.MaxPreHello < 0 {
		return fmt.Errorf("engine: HelloTimeout %v and MaxPreHello %d must not be negative", c.HelloTimeout, c.MaxPreHello)
	}
	if c.GroupCompactMin == 0 {
		c.GroupCompactMin = 1000 // a snapshot is a few records per group: cheap to write often
	}
	if c.GroupCompactMin < 0 {
		return fmt.Errorf("engine: GroupCompactMin %d must not be negative", c.GroupCompactMin)
	}
	if c.CoordinatorLoadTime < 0 || c.HeartbeatInterval < 0 {
		return fmt.Errorf("engine: CoordinatorLoadTime %v and HeartbeatInterval %v must not be negative", c.CoordinatorLoadTime, c.HeartbeatInterval)
	}
	return nil
}

// NodeStatus describes one node as the engine sees it.
type NodeStatus struct {
	ID        int
	DataAddr  string
	AdminAddr string
	Up        bool // the node's process is alive (not killed): its admin listener is open
	Running   bool // its queue manager runs (Up and not stopped): its data listener is open
	Leader    bool // it is the cluster leader
	InSync    bool // its queue replica holds every committed change (the leader always does)
}

// Engine is a running in-process cluster. Its methods are safe for
// concurrent use.
type Engine struct {
	cfg    Config
	nodes  []*node // index id-1; fixed at Start, nodes are never added or removed
	cl     *cluster
	queues *queueStore
	topics *topicStore
	groups *groupCoord // groups.go
	ctl    controls
	adm    adminState // admin surface (admin_*.go, clusterdef.go)

	faultMu sync.Mutex   // serialises the fault API and Close (see package doc)
	closed  bool         // guarded by faultMu
	outage  map[int]bool // guarded by faultMu: during an Outage, the nodes it took down (value: it was running)

	sessionIDs atomic.Uint64
}

// Start brings every node's listeners up; node 1 leads at once.
func Start(cfg Config) (*Engine, error) {
	if err := cfg.applyDefaults(); err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, queues: newQueueStore()}
	e.topics = newTopicStore(e)
	e.cl = newCluster(e, cfg.Nodes)
	e.nodes = make([]*node, cfg.Nodes)
	for i := range e.nodes {
		id := i + 1
		n := newNode(e, id, portAddr(cfg.Host, cfg.DataPort, id), portAddr(cfg.Host, cfg.AdminPort, id))
		if err := n.data.listen(); err != nil {
			e.closeListeners()
			return nil, fmt.Errorf("engine: node %d data listener: %w", id, err)
		}
		e.nodes[i] = n
		if err := n.admin.listen(); err != nil {
			e.closeListeners()
			return nil, fmt.Errorf("engine: node %d admin listener: %w", id, err)
		}
	}
	// State first, then accept: a HELLO can only arrive once the cluster
	// knows its nodes and its leader.
	e.initAdmin()
	e.cl.bootstrap()
	e.topics.start()
	if err := e.startGroups(); err != nil {
		e.Close()
		return nil, err
	}
	for _, n := range e.nodes {
		n.data.serve()
		n.admin.serve()
	}
	e.logf("engine: %d nodes up, node 1 leads, queue manager %s, cluster %s", cfg.Nodes, cfg.QueueManager, cfg.Cluster)
	if err := e.startAdmin(); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

func portAddr(host string, base, id int) string {
	port := 0
	if base > 0 {
		port = base + id - 1
	}
	return joinHostPort(host, port)
}

func (e *Engine) closeListeners() {
	for _, n := range e.nodes {
		if n != nil {
			n.data.close()
			n.admin.close()
		}
	}
}

// Close stops every listener, closes every connection and stops the
// election timer. It is idempotent.
func (e *Engine) Close() error {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.cl.shutdown()
	e.closeListeners()
	e.groups.shutdown()
	e.topics.shutdown()
	e.closeAdmin()
	e.logf("engine: closed")
	return nil
}

// Config returns the effective configuration (defaults applied).
func (e *Engine) Config() Config { return e.cfg }

// Nodes returns every node's status in id order.
func (e *Engine) Nodes() []NodeStatus { return e.cl.statuses() }

// DataAddrs returns the data listener addresses in node order. They stay the
// same across kills and restarts.
func (e *Engine) DataAddrs() []string {
	out := make([]string, len(e.nodes))
	for i, n := range e.nodes {
		out[i] = n.data.addr
	}
	return out
}

// AdminAddrs returns the admin listener addresses in node order.
func (e *Engine) AdminAddrs() []string {
	out := make([]string, len(e.nodes))
	for i, n := range e.nodes {
		out[i] = n.admin.addr
	}
	return out
}

// Leader returns the leading node's id, or 0 while no leader exists.
func (e *Engine) Leader() int {
	l, _ := e.cl.leaderNow()
	return l
}

// WaitLeader blocks until a leader exists or ctx ends.
func (e *Engine) WaitLeader(ctx context.Context) (int, error) {
	for {
		l, changed := e.cl.leaderNow()
		if l != 0 {
			return l, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// SessionCount is the number of open client connections (data and admin)
// on node id; 0 for an unknown id.
func (e *Engine) SessionCount(id int) int {
	n, err := e.node(id)
	if err != nil {
		return 0
	}
	return n.data.count() + n.admin.count()
}

// CreateQueue creates a queue on every replica that holds the committed
// state (the leader and its in-sync followers). Creating an existing queue
// is a no-op.
func (e *Engine) CreateQueue(name string) error {
	if err := validQueueName(name); err != nil {
		return err
	}
	return e.queues.createQueue(name)
}

// QueueDepth is the committed depth of a queue on the leader: committed
// messages not yet removed by a committed get. Messages locked by an open
// transaction still count; uncommitted puts do not.
func (e *Engine) QueueDepth(name string) (int, error) {
	return e.cl.leaderDepth(name)
}

// WaitingGets is how many GETs wait for a message of queue name on the
// leader (0 without a leader or such a queue): what a test waits for
// before the put that must wake a waiting GET.
func (e *Engine) WaitingGets(name string) int {
	s := e.queues
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.leaderLocked(); l != nil && l.queues[name] != nil {
		return len(l.queues[name].waiters)
	}
	return 0
}

// ErrNoLeader is returned by engine calls that need a leader while an
// election is in progress.
var ErrNoLeader = errors.New("engine: no cluster leader (election in progress)")

func validQueueName(name string) error {
	if name == "" {
		return errors.New("engine: empty queue name")
	}
	if len(name) > 255 {
		return fmt.Errorf("engine: queue name of %d bytes (max 255)", len(name))
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("engine: queue name %q is not valid UTF-8", name)
	}
	for i := 0; i < len(name); i++ {
		if b := name[i]; b < 0x20 || b == 0x7f {
			return fmt.Errorf("engine: queue name %q: control byte 0x%02x not allowed", name, b)
		}
	}
	return nil
}

func (e *Engine) node(id int) (*node, error) {
	if id < 1 || id > len(e.nodes) {
		return nil, fmt.Errorf("engine: no node %d (cluster has %d)", id, len(e.nodes))
	}
	return e.nodes[id-1], nil
}

func (e *Engine) logf(format string, args ...any) {
	if e.cfg.Logf != nil {
		e.cfg.Logf(format, args...)
	}
}
