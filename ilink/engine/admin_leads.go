package engine

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// The leadership log feeds VIEW CLUSTER LEADERS (3423). The cluster calls
// its hooks under cluster.mu; leadLog.mu is a leaf.
//
// Text format ILLT1 (docs/PROTOCOL.md "Admin", lead table): one row per
// line, fields separated by '|', lists comma-separated, "-" for none:
//
//	ILLT1|<cluster>|<generated unix ms>
//	node|<id>|<role>|<state>|<epoch>
//	partition|<topic>|<partition>|<leader>|<leader epoch>|<replicas>|<in-sync>
//	bundle|<name>|<leader>|<epoch>|<members>
//	election|<unix ms>|<auto|forced>|<scope>|<name>|<partition>|<from>|<to>|<reason>
//	offline|<scope>|<name>|<partition>|<since unix ms>
//
// A bundle is state replicated as one unit with one leader: the queue
// manager's queues (<QMGR>.QUEUES) follow the cluster leader.

const maxElectionRecords = 64

type electionRecord struct {
	at        time.Time
	forced    bool
	scope     string // "cluster" or "partition"
	name      string // cluster name or topic
	partition int32  // -1 unless scope is partition
	from, to  int
	reason    string
}

type leadLog struct {
	mu           sync.Mutex
	epoch        int32 // cluster leadership epoch: 1 at start, +1 per elected leader
	lostLeader   int
	lostAt       time.Time
	offlineSince []time.Time // per node (index id-1); zero while online
	elections    []electionRecord
}

func (l *leadLog) init(nodes int) {
	l.epoch = 1
	l.offlineSince = make([]time.Time, nodes)
}

// nodeLost: node id stopped or died (wasLeader: it led).
func (l *leadLog) nodeLost(id int, wasLeader bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if id >= 1 && id <= len(l.offlineSince) {
		l.offlineSince[id-1] = now
	}
	if wasLeader {
		l.lostLeader, l.lostAt = id, now
	}
}

// nodeBack: node id runs again.
func (l *leadLog) nodeBack(id int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id >= 1 && id <= len(l.offlineSince) {
		l.offlineSince[id-1] = time.Time{}
	}
}

// elected: the cluster elected leader id.
func (l *leadLog) elected(cluster string, id int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.epoch++
	reason := "no leader"
	if l.lostLeader != 0 {
		reason = "leader node " + strconv.Itoa(l.lostLeader) + " lost"
	}
	l.addLocked(electionRecord{at: time.Now(), scope: "cluster", name: cluster, partition: -1, from: l.lostLeader, to: id, reason: reason})
	l.lostLeader, l.lostAt = 0, time.Time{}
}

// partitionElection records a partition leadership change made through
// the admin surface (FORCE ELECTION).
func (l *leadLog) partitionElection(topic string, p int32, from, to int, forced bool, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addLocked(electionRecord{at: time.Now(), forced: forced, scope: "partition", name: topic, partition: p, from: from, to: to, reason: reason})
}

func (l *leadLog) addLocked(r electionRecord) {
	if len(l.elections) == maxElectionRecords {
		copy(l.elections, l.elections[1:])
		l.elections = l.elections[:maxElectionRecords-1]
	}
	l.elections = append(l.elections, r)
}

type leadSnapshot struct {
	epoch        int32
	lostAt       time.Time
	offlineSince []time.Time
	elections    []electionRecord
}

func (l *leadLog) snapshot() leadSnapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return leadSnapshot{
		epoch:        l.epoch,
		lostAt:       l.lostAt,
		offlineSince: append([]time.Time(nil), l.offlineSince...),
		elections:    append([]electionRecord(nil), l.elections...),
	}
}

// leaderID is the id of the cluster leader among st, 0 when there is none.
func leaderID(st []NodeStatus) int {
	for _, s := range st {
		if s.Leader {
			return s.ID
		}
	}
	return 0
}

// nodeRoleState maps a node's status to the admin vocabulary.
func nodeRoleState(s NodeStatus, leader int) (role, state string) {
	switch {
	case !s.Up:
		state = "down"
	case !s.Running:
		state = "stopped"
	case !s.InSync:
		state = "syncing"
	default:
		state = "running"
	}
	switch {
	case s.Leader:
		role = "leader"
	case s.Running && leader != 0:
		role = "follower"
	default:
		role = "none"
	}
	return role, state
}

// leadTable renders VIEW CLUSTER LEADERS for the engine's own cluster.
func (e *Engine) leadTable(cluster string) (string, *wire.ErrorBody) {
	if cluster != "" && cluster != e.cfg.Cluster {
		return "", errUnknownCluster(cluster)
	}
	st := e.Nodes()
	snap := e.adm.leads.snapshot()
	leader := leaderID(st)
	w := &leadRows{b: make([]byte, 0, 4096)}
	w.b = append(w.b, wire.LeadTableFormat...)
	w.sep()
	w.b = append(w.b, e.cfg.Cluster...)
	w.sep()
	w.ms(time.Now())
	w.b = append(w.b, '\n')
	members := w.nodes(st, leader, snap.epoch)
	var offlineParts []partLead
	e.adminPartitionLeads(func(p partLead) {
		w.partition(p)
		if p.leader == 0 {
			offlineParts = append(offlineParts, p)
		}
	})
	bundle := e.cfg.QueueManager + ".QUEUES"
	w.bundle(bundle, leader, snap.epoch, members)
	for _, r := range snap.elections {
		w.election(r)
	}
	w.offline(st, snap, offlineParts, bundle, leader)
	return string(w.b), nil
}

// leadRows appends the rows of an ILLT1 lead table to b.
type leadRows struct{ b []byte }

func (w *leadRows) sep() { w.b = append(w.b, '|') }

func (w *leadRows) num(n int) { w.b = strconv.AppendInt(w.b, int64(n), 10) }

// ms appends t in unix ms, "-" for the zero time.
func (w *leadRows) ms(t time.Time) {
	if t.IsZero() {
		w.b = append(w.b, '-')
	} else {
		w.b = strconv.AppendInt(w.b, t.UnixMilli(), 10)
	}
}

// ids appends v comma-separated, "-" for none.
func (w *leadRows) ids(v []int) {
	if len(v) == 0 {
		w.b = append(w.b, '-')
		return
	}
	for i, id := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.num(id)
	}
}

// nodes appends a node row per node of st and returns the bundle's
// members: the nodes running and in sync.
func (w *leadRows) nodes(st []NodeStatus, leader int, epoch int32) (members []int) {
	for _, s := range st {
		role, state := nodeRoleState(s, leader)
		w.b = append(w.b, "node|"...)
		w.num(s.ID)
		w.b = append(w.b, '|')
		w.b = append(w.b, role...)
		w.b = append(w.b, '|')
		w.b = append(w.b, state...)
		w.b = append(w.b, '|')
		w.num(int(epoch))
		w.b = append(w.b, '\n')
		if s.Running && s.InSync {
			members = append(members, s.ID)
		}
	}
	return members
}

// partition appends p's partition row.
func (w *leadRows) partition(p partLead) {
	w.b = append(w.b, "partition|"...)
	w.b = append(w.b, p.topic...)
	w.sep()
	w.num(int(p.partition))
	w.sep()
	w.num(p.leader)
	w.sep()
	w.num(int(p.epoch))
	w.sep()
	w.ids(p.replicas)
	w.sep()
	w.ids(p.inSync)
	w.b = append(w.b, '\n')
}

// bundle appends the queue manager's bundle row (it follows the cluster
// leader).
func (w *leadRows) bundle(name string, leader int, epoch int32, members []int) {
	w.b = append(w.b, "bundle|"...)
	w.b = append(w.b, name...)
	w.sep()
	w.num(leader)
	w.sep()
	w.num(int(epoch))
	w.sep()
	w.ids(members)
	w.b = append(w.b, '\n')
}

// election appends r's election row.
func (w *leadRows) election(r electionRecord) {
	w.b = append(w.b, "election|"...)
	w.ms(r.at)
	w.sep()
	if r.forced {
		w.b = append(w.b, "forced"...)
	} else {
		w.b = append(w.b, "auto"...)
	}
	w.sep()
	w.b = append(w.b, r.scope...)
	w.sep()
	w.b = append(w.b, r.name...)
	w.sep()
	if r.partition < 0 {
		w.b = append(w.b, '-')
	} else {
		w.num(int(r.partition))
	}
	w.sep()
	w.num(r.from)
	w.sep()
	w.num(r.to)
	w.sep()
	w.b = append(w.b, cleanField(r.reason)...)
	w.b = append(w.b, '\n')
}

// offline appends the offline rows: the nodes not running, the
// partitions without a leader (parts) and the bundle while the cluster
// has no leader.
func (w *leadRows) offline(st []NodeStatus, snap leadSnapshot, parts []partLead, bundle string, leader int) {
	for i, since := range snap.offlineSince {
		if i < len(st) && !st[i].Running {
			w.b = append(w.b, "offline|node|"...)
			w.num(i + 1)
			w.b = append(w.b, "|-|"...)
			w.ms(since)
			w.b = append(w.b, '\n')
		}
	}
	for _, p := range parts {
		w.b = append(w.b, "offline|partition|"...)
		w.b = append(w.b, p.topic...)
		w.sep()
		w.num(int(p.partition))
		w.b = append(w.b, "|-\n"...)
	}
	if leader == 0 {
		w.b = append(w.b, "offline|bundle|"...)
		w.b = append(w.b, bundle...)
		w.b = append(w.b, "|-|"...)
		w.ms(snap.lostAt)
		w.b = append(w.b, '\n')
	}
}

// partLead is one partition's leadership for the lead table.
type partLead struct {
	topic     string
	partition int32
	leader    int
	epoch     int32
	replicas  []int
	inSync    []int
}

func cleanField(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '|' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

func handleViewClusterLeaders(r *request) {
	var req wire.ClusterRequest
	if !r.decode(&req) {
		return
	}
	text, eb := r.c.e.leadTable(req.Cluster)
	if eb != nil {
		r.fail(eb)
		return
	}
	r.reply(&wire.TextReply{Text: text})
}
