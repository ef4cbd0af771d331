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
	leader := 0
	for _, s := range st {
		if s.Leader {
			leader = s.ID
		}
	}
	b := make([]byte, 0, 4096)
	sep := func() { b = append(b, '|') }
	ms := func(t time.Time) {
		if t.IsZero() {
			b = append(b, '-')
		} else {
			b = strconv.AppendInt(b, t.UnixMilli(), 10)
		}
	}
	ids := func(v []int) {
		if len(v) == 0 {
			b = append(b, '-')
			return
		}
		for i, id := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(id), 10)
		}
	}
	b = append(b, wire.LeadTableFormat...)
	sep()
	b = append(b, e.cfg.Cluster...)
	sep()
	ms(time.Now())
	b = append(b, '\n')
	var members []int
	for _, s := range st {
		role, state := nodeRoleState(s, leader)
		b = append(b, "node|"...)
		b = strconv.AppendInt(b, int64(s.ID), 10)
		b = append(b, '|')
		b = append(b, role...)
		b = append(b, '|')
		b = append(b, state...)
		b = append(b, '|')
		b = strconv.AppendInt(b, int64(snap.epoch), 10)
		b = append(b, '\n')
		if s.Running && s.InSync {
			members = append(members, s.ID)
		}
	}
	var offlineParts []partLead
	e.adminPartitionLeads(func(p partLead) {
		b = append(b, "partition|"...)
		b = append(b, p.topic...)
		sep()
		b = strconv.AppendInt(b, int64(p.partition), 10)
		sep()
		b = strconv.AppendInt(b, int64(p.leader), 10)
		sep()
		b = strconv.AppendInt(b, int64(p.epoch), 10)
		sep()
		ids(p.replicas)
		sep()
		ids(p.inSync)
		b = append(b, '\n')
		if p.leader == 0 {
			offlineParts = append(offlineParts, p)
		}
	})
	bundle := e.cfg.QueueManager + ".QUEUES"
	b = append(b, "bundle|"...)
	b = append(b, bundle...)
	sep()
	b = strconv.AppendInt(b, int64(leader), 10)
	sep()
	b = strconv.AppendInt(b, int64(snap.epoch), 10)
	sep()
	ids(members)
	b = append(b, '\n')
	for _, r := range snap.elections {
		b = append(b, "election|"...)
		ms(r.at)
		sep()
		if r.forced {
			b = append(b, "forced"...)
		} else {
			b = append(b, "auto"...)
		}
		sep()
		b = append(b, r.scope...)
		sep()
		b = append(b, r.name...)
		sep()
		if r.partition < 0 {
			b = append(b, '-')
		} else {
			b = strconv.AppendInt(b, int64(r.partition), 10)
		}
		sep()
		b = strconv.AppendInt(b, int64(r.from), 10)
		sep()
		b = strconv.AppendInt(b, int64(r.to), 10)
		sep()
		b = append(b, cleanField(r.reason)...)
		b = append(b, '\n')
	}
	for i, since := range snap.offlineSince {
		if i < len(st) && !st[i].Running {
			b = append(b, "offline|node|"...)
			b = strconv.AppendInt(b, int64(i+1), 10)
			b = append(b, "|-|"...)
			ms(since)
			b = append(b, '\n')
		}
	}
	for _, p := range offlineParts {
		b = append(b, "offline|partition|"...)
		b = append(b, p.topic...)
		sep()
		b = strconv.AppendInt(b, int64(p.partition), 10)
		b = append(b, "|-\n"...)
	}
	if leader == 0 {
		b = append(b, "offline|bundle|"...)
		b = append(b, bundle...)
		b = append(b, "|-|"...)
		ms(snap.lostAt)
		b = append(b, '\n')
	}
	return string(b), nil
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
