package health

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/numfmt"
)

// Monitor keeps the history the rules need and judges on every
// observation. It is not safe for concurrent use (the dashboard calls it
// from its update loop, `check` from one goroutine).
type Monitor struct {
	cfg Config

	groups   map[string]*groupTrack
	groupOut []GroupStatus
	groupsAt time.Time
	groupsOK bool
	noParts  bool // NoPartitionStatuses
	// epoch is the first group list's time: the partitions' histories
	// keep their times as stamps from it.
	epoch    time.Time
	epochSet bool

	nodes      []admin.NodeInfo
	nodesOK    bool
	downSince  map[int]time.Time
	syncSince  map[int]time.Time
	noLeader   time.Time
	firstNodes time.Time

	// The cluster definition (ObserveDefinition), set against the node
	// list: a node defined but not listed is absent, a node listed but not
	// defined was removed. Keyed by node number (the node list's ID).
	def           admin.ClusterProperty
	defOK         bool
	absentSince   map[int]time.Time
	removedSince  map[int]time.Time
	firstDefCheck time.Time

	topicsOK   bool
	offline    map[string]topicCond
	underRepl  map[string]topicCond
	firstTopic time.Time

	queuesOK bool
	queuesAt time.Time
	queues   map[string]*queueTrack
}

type topicCond struct {
	since time.Time
	n     int
}

type queueTrack struct {
	depth    int64
	maxDepth int64
	dlq      bool
	overAt   time.Time // deeper than the limit since
	fullAt   time.Time
	// DLQ growth: the last rise and the depth before the current run of
	// rises began.
	lastRise  time.Time
	riseStart time.Time
	riseBase  int64
}

// New returns a Monitor with cfg (zero fields take the defaults).
func New(cfg Config) *Monitor {
	d := DefaultConfig()
	if cfg.Window <= 0 {
		cfg.Window = d.Window
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = d.StallAfter
	}
	if cfg.DLQWindow <= 0 {
		cfg.DLQWindow = d.DLQWindow
	}
	return &Monitor{cfg: cfg, groups: map[string]*groupTrack{}, downSince: map[int]time.Time{},
		syncSince: map[int]time.Time{}, absentSince: map[int]time.Time{}, removedSince: map[int]time.Time{}, offline: map[string]topicCond{}, underRepl: map[string]topicCond{},
		queues: map[string]*queueTrack{}}
}

// stamp is t as the partitions' histories keep it.
func (m *Monitor) stamp(t time.Time) stamp {
	if !m.epochSet {
		m.epoch, m.epochSet = t, true
	}
	return stamp(t.Sub(m.epoch))
}

// timeOf is the time of stamp s (zero for noStamp).
func (m *Monitor) timeOf(s stamp) time.Time {
	if s == noStamp {
		return time.Time{}
	}
	return m.epoch.Add(time.Duration(s))
}

// Config returns the thresholds in use.
func (m *Monitor) Config() Config { return m.cfg }

// ObserveNodes takes in the node list (the leader is the node whose role
// is leader).
func (m *Monitor) ObserveNodes(nodes []admin.NodeInfo, at time.Time) {
	if !m.nodesOK {
		m.firstNodes = at
	}
	m.nodes, m.nodesOK = slices.Clone(nodes), true
	leader := false
	for _, n := range nodes {
		leader = leader || n.Role == admin.RoleLeader
		down := n.State == admin.NodeDown || n.State == admin.NodeStopped
		setSince(m.downSince, n.ID, down, at)
		setSince(m.syncSince, n.ID, n.State == admin.NodeSyncing, at)
	}
	for id := range m.downSince {
		if !hasNode(nodes, id) {
			delete(m.downSince, id)
		}
	}
	for id := range m.syncSince {
		if !hasNode(nodes, id) {
			delete(m.syncSince, id)
		}
	}
	switch {
	case leader || len(nodes) <= 1:
		m.noLeader = time.Time{}
	case m.noLeader.IsZero():
		m.noLeader = at
	}
	m.checkDefinition(at)
}

// ObserveDefinition takes in the cluster definition (getClusterProperty):
// its nodes are set against the node list's (node-absent, node-removed).
// A definition without nodes (a standalone queue manager) checks nothing.
func (m *Monitor) ObserveDefinition(def admin.ClusterProperty, at time.Time) {
	m.def, m.defOK = def, true
	m.def.Nodes = slices.Clone(def.Nodes)
	m.checkDefinition(at)
}

// checkDefinition notes since when each node is defined but not listed,
// or listed but not defined.
func (m *Monitor) checkDefinition(at time.Time) {
	if !m.nodesOK || !m.defOK || len(m.def.Nodes) == 0 {
		clear(m.absentSince)
		clear(m.removedSince)
		return
	}
	if m.firstDefCheck.IsZero() {
		m.firstDefCheck = at
	}
	defined := map[int]bool{}
	for _, n := range m.def.Nodes {
		defined[n.Number] = true
		setSince(m.absentSince, n.Number, !hasNode(m.nodes, n.Number), at)
	}
	for id := range m.absentSince {
		if !defined[id] {
			delete(m.absentSince, id)
		}
	}
	for _, n := range m.nodes {
		setSince(m.removedSince, n.ID, !defined[n.ID], at)
	}
	for id := range m.removedSince {
		if !hasNode(m.nodes, id) {
			delete(m.removedSince, id)
		}
	}
}

// NodeDefinition says how a node stands against the cluster definition:
// Absent (defined, not in the node list), Removed (in the node list, not
// defined), since when; both false while either list is unknown.
func (m *Monitor) NodeDefinition(id int) (absent, removed bool, since time.Time) {
	if t, ok := m.absentSince[id]; ok {
		return true, false, t
	}
	if t, ok := m.removedSince[id]; ok {
		return false, true, t
	}
	return false, false, time.Time{}
}

func hasNode(ns []admin.NodeInfo, id int) bool {
	for _, n := range ns {
		if n.ID == id {
			return true
		}
	}
	return false
}

func setSince[K comparable](m map[K]time.Time, k K, on bool, at time.Time) {
	if !on {
		delete(m, k)
		return
	}
	if _, ok := m[k]; !ok {
		m[k] = at
	}
}

// ObserveTopics takes in the topic list (offline and under-replicated
// partitions).
func (m *Monitor) ObserveTopics(ts []admin.TopicInfo, at time.Time) {
	if !m.topicsOK {
		m.firstTopic = at
	}
	m.topicsOK = true
	off, ur := make(map[string]topicCond), make(map[string]topicCond)
	for _, t := range ts {
		if t.Offline > 0 {
			off[t.Name] = carryCond(m.offline, t.Name, t.Offline, at)
		}
		if t.UnderReplicated > 0 {
			ur[t.Name] = carryCond(m.underRepl, t.Name, t.UnderReplicated, at)
		}
	}
	m.offline, m.underRepl = off, ur
}

// carryCond is topic's condition now that n of its partitions are in it:
// since stays from the earlier observations in prev, or starts at at.
func carryCond(prev map[string]topicCond, topic string, n int, at time.Time) topicCond {
	c, ok := prev[topic]
	if !ok {
		c.since = at
	}
	c.n = n
	return c
}

// IsDLQ reports whether a queue is a dead-letter queue: another queue
// names it as its dead-letter queue, or its name is DLQ or ends in .DLQ.
func IsDLQ(name string, named map[string]bool) bool {
	return named[name] || name == "DLQ" || strings.HasSuffix(name, ".DLQ")
}

// ObserveQueues takes in the queue list (depth over the limit, full
// queues, growing dead-letter queues).
func (m *Monitor) ObserveQueues(qs []admin.QueueInfo, at time.Time) {
	m.queuesOK = true
	named := map[string]bool{}
	for _, q := range qs {
		if d := q.Property.DeadLetterQueue; d != "" {
			named[d] = true
		}
	}
	next := make(map[string]*queueTrack, len(qs))
	for _, q := range qs {
		t := m.queues[q.Name]
		if t == nil {
			t = &queueTrack{depth: q.Depth}
		}
		t.dlq = IsDLQ(q.Name, named)
		if q.Depth > t.depth {
			if !t.growing(at, m.cfg.DLQWindow) {
				t.riseStart, t.riseBase = at, t.depth
			}
			t.lastRise = at
		}
		t.depth, t.maxDepth = q.Depth, q.Property.MaxDepth
		over := m.cfg.QueueDepth > 0 && q.Depth > m.cfg.QueueDepth
		switch {
		case !over:
			t.overAt = time.Time{}
		case t.overAt.IsZero():
			t.overAt = at
		}
		full := q.Property.MaxDepth > 0 && q.Depth >= q.Property.MaxDepth
		switch {
		case !full:
			t.fullAt = time.Time{}
		case t.fullAt.IsZero():
			t.fullAt = at
		}
		next[q.Name] = t
	}
	m.queues = next
	m.queuesAt = at
}

// growing: the queue's depth rose within w of at and is still above the
// depth before the rises began (drained back, it is not growing).
func (t *queueTrack) growing(at time.Time, w time.Duration) bool {
	return t.depth > t.riseBase && !t.lastRise.IsZero() && at.Sub(t.lastRise) <= w
}

// Kind names what an alert is about.
type Kind string

// Alert kinds.
const (
	KindUnreachable     Kind = "unreachable"
	KindNodeDown        Kind = "node-down"
	KindNodeSyncing     Kind = "node-syncing"
	KindNodeAbsent      Kind = "node-absent"
	KindNodeRemoved     Kind = "node-removed"
	KindNoLeader        Kind = "no-leader"
	KindOffline         Kind = "partitions-offline"
	KindUnderReplicated Kind = "under-replicated"
	KindQueueFull       Kind = "queue-full"
	KindQueueDepth      Kind = "queue-depth"
	KindDLQGrowing      Kind = "dlq-growing"
	KindGroupDead       Kind = "group-dead"
	KindGroupStopped    Kind = "group-stopped"
	KindGroupStalled    Kind = "group-stalled"
	KindGroupRewound    Kind = "group-rewound"
	KindGroupLagging    Kind = "group-lagging"
	KindGroupUnlisted   Kind = "group-unlisted"
	KindGroupChurn      Kind = "group-churn"
)

// Alert is one condition that needs attention. It lasts exactly as long as
// its condition: every observation recomputes the list.
type Alert struct {
	Level   Level
	Kind    Kind
	Subject string    // the node id, queue, group or topic list it is about
	Since   time.Time // when the condition was first observed
	// SinceEarlier: the condition held at the first observation already.
	SinceEarlier bool
	Lag          int64 // group alerts: the group's lag
	Text         string
}

// clock formats an alert time.
func clock(t time.Time) string { return t.Format("15:04:05") }

func sinceText(t time.Time, earlier bool) string {
	if earlier {
		return clock(t) + " or earlier"
	}
	return clock(t)
}

// Alerts returns the alerts of the latest observations, most severe first,
// then the most recent first.
func (m *Monitor) Alerts() []Alert {
	var out []Alert
	add := func(a Alert) { out = append(out, a) }
	if m.nodesOK {
		for _, n := range m.nodes {
			if since, ok := m.downSince[n.ID]; ok {
				add(Alert{Level: LevelCritical, Kind: KindNodeDown, Subject: strconv.Itoa(n.ID), Since: since,
					SinceEarlier: since.Equal(m.firstNodes),
					Text:         fmt.Sprintf("node %d (%s) %s since %s", n.ID, n.QueueManager, n.State, sinceText(since, since.Equal(m.firstNodes)))})
			} else if since, ok := m.syncSince[n.ID]; ok {
				add(Alert{Level: LevelWarning, Kind: KindNodeSyncing, Subject: strconv.Itoa(n.ID), Since: since,
					Text: fmt.Sprintf("node %d (%s) syncing since %s, %s behind", n.ID, n.QueueManager, clock(since), numfmt.Plural(n.LagRecords, "record"))})
			}
		}
		for _, n := range m.def.Nodes {
			if since, ok := m.absentSince[n.Number]; ok {
				earlier := since.Equal(m.firstDefCheck)
				add(Alert{Level: LevelWarning, Kind: KindNodeAbsent, Subject: strconv.Itoa(n.Number), Since: since, SinceEarlier: earlier,
					Text: fmt.Sprintf("node %d (%s) is in the cluster definition but not in the node list since %s: not started, or not joined yet",
						n.Number, n.QueueManager, sinceText(since, earlier))})
			}
		}
		for _, n := range m.nodes {
			if since, ok := m.removedSince[n.ID]; ok {
				earlier := since.Equal(m.firstDefCheck)
				what := fmt.Sprintf("still listed (%s, %s)", n.Role, n.State)
				if n.Role == admin.RoleLeader {
					what = "still the leader: no other node was elected"
				}
				add(Alert{Level: LevelWarning, Kind: KindNodeRemoved, Subject: strconv.Itoa(n.ID), Since: since, SinceEarlier: earlier,
					Text: fmt.Sprintf("node %d (%s) removed from the cluster definition (%s) but %s", n.ID, n.QueueManager, sinceText(since, earlier), what)})
			}
		}
		if !m.noLeader.IsZero() {
			add(Alert{Level: LevelCritical, Kind: KindNoLeader, Since: m.noLeader,
				Text: fmt.Sprintf("no cluster leader since %s: no node accepts sessions until one is elected", clock(m.noLeader))})
		}
	}
	if m.topicsOK {
		if a, ok := topicAlert(m.offline, LevelCritical, KindOffline, "offline (no leader)"); ok {
			add(a)
		}
		if a, ok := topicAlert(m.underRepl, LevelWarning, KindUnderReplicated, "under-replicated"); ok {
			add(a)
		}
	}
	if m.queuesOK {
		names := make([]string, 0, len(m.queues))
		for n := range m.queues {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			q := m.queues[n]
			switch {
			case !q.fullAt.IsZero():
				add(Alert{Level: LevelCritical, Kind: KindQueueFull, Subject: n, Since: q.fullAt,
					Text: fmt.Sprintf("queue %s full since %s: depth %s of max %s, puts are refused", n, clock(q.fullAt), numfmt.Thousands(q.depth), numfmt.Thousands(q.maxDepth))})
			case !q.overAt.IsZero():
				add(Alert{Level: LevelWarning, Kind: KindQueueDepth, Subject: n, Since: q.overAt,
					Text: fmt.Sprintf("queue %s depth %s over the limit %s since %s", n, numfmt.Thousands(q.depth), numfmt.Thousands(m.cfg.QueueDepth), clock(q.overAt))})
			}
			if q.dlq && q.growing(m.queuesAt, m.cfg.DLQWindow) {
				add(Alert{Level: LevelWarning, Kind: KindDLQGrowing, Subject: n, Since: q.riseStart,
					Text: fmt.Sprintf("dead-letter queue %s growing: depth %s (+%s since %s)", n, numfmt.Thousands(q.depth), numfmt.Thousands(q.depth-q.riseBase), clock(q.riseStart))})
			}
		}
	}
	if m.groupsOK {
		for _, g := range m.Groups() {
			if a, ok := m.groupAlert(g); ok {
				add(a)
			}
			if g.Rebalances >= ChurnRebalances && g.Unlisted.IsZero() {
				add(Alert{Level: LevelWarning, Kind: KindGroupChurn, Subject: g.Info.Name, Since: g.At, Lag: g.Lag.Records,
					Text: fmt.Sprintf("group %s rebalanced %d times in %s: members keep joining and leaving", g.Info.Name, g.Rebalances, roundDur(m.cfg.Window))})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Alert) int {
		if a.Level != b.Level {
			return cmp.Compare(b.Level, a.Level)
		}
		return b.Since.Compare(a.Since)
	})
	return out
}

func topicAlert(conds map[string]topicCond, l Level, k Kind, what string) (Alert, bool) {
	if len(conds) == 0 {
		return Alert{}, false
	}
	names := make([]string, 0, len(conds))
	var since time.Time
	n := 0
	for name, c := range conds {
		names = append(names, name)
		n += c.n
		if since.IsZero() || c.since.Before(since) {
			since = c.since
		}
	}
	slices.Sort(names)
	list := strings.Join(names, ", ")
	if len(names) > 3 {
		list = strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return Alert{Level: l, Kind: k, Subject: strings.Join(names, ","), Since: since,
		Text: fmt.Sprintf("%s %s in %s since %s", numfmt.Plural(int64(n), "partition"), what, list, clock(since))}, true
}

// groupAlert is the alert a group's word raises, if any.
func (m *Monitor) groupAlert(g GroupStatus) (Alert, bool) {
	name, lag := g.Info.Name, g.Lag.Records
	a := Alert{Subject: name, Since: g.Since, SinceEarlier: g.SinceEarlier, Lag: lag}
	if !g.Unlisted.IsZero() {
		a.Level, a.Kind, a.Since = LevelWarning, KindGroupUnlisted, g.Unlisted
		a.Text = fmt.Sprintf("group %s missing from the group list since %s (its coordinator may be moving); lag %s when last listed", name, clock(g.Unlisted), numfmt.Thousands(lag))
		return a, true
	}
	switch g.Word {
	case Dead:
		a.Level, a.Kind = LevelCritical, KindGroupDead
		a.Text = fmt.Sprintf("group %s is unknown to the cluster", name)
	case Stopped:
		a.Level, a.Kind = LevelCritical, KindGroupStopped
		a.Text = fmt.Sprintf("group %s stopped: no member since %s, lag %s", name, sinceText(g.Since, g.SinceEarlier), numfmt.Thousands(lag))
	case Stalled:
		a.Level, a.Kind = LevelCritical, KindGroupStalled
		a.Text = fmt.Sprintf("group %s stalled: lag %s, no commit advanced since %s", name, numfmt.Thousands(lag), sinceText(g.Since, g.SinceEarlier))
	case Rewound:
		a.Level, a.Kind = LevelWarning, KindGroupRewound
		a.Text = fmt.Sprintf("group %s rewound at %s: %s; lag %s", name, clock(g.Since), g.Reason, numfmt.Thousands(lag))
	case Lagging:
		c := m.cfg
		switch {
		case c.MaxLagCritical > 0 && lag >= c.MaxLagCritical:
			a.Level = LevelCritical
		case lag >= c.MaxLagWarning:
			a.Level = LevelWarning
		default:
			return Alert{}, false
		}
		a.Kind = KindGroupLagging
		a.Text = fmt.Sprintf("group %s lagging since %s: lag %s", name, sinceText(g.Since, g.SinceEarlier), numfmt.Thousands(lag))
		if g.Growth > 0 && g.GrowthSpan > 0 {
			a.Text += fmt.Sprintf(" (+%s in %s)", numfmt.Thousands(g.Growth), roundDur(g.GrowthSpan))
		}
	default:
		return Alert{}, false
	}
	return a, true
}

// UnreachableAlert is the alert of a cluster the client cannot reach: addr and
// the error's reason (raw: sanitize to display), failing since `since`.
func UnreachableAlert(addr, reason string, since time.Time) Alert {
	return Alert{Level: LevelCritical, Kind: KindUnreachable, Subject: addr, Since: since,
		Text: fmt.Sprintf("cannot reach %s: %s", addr, reason)}
}

// Summary is `check`'s first line: the worst level and what raised it,
// e.g. "CRITICAL: 2 groups stopped, 1 node down"; "OK: " + okText
// without alerts.
func Summary(alerts []Alert, okText string) (Level, string) {
	if len(alerts) == 0 {
		return LevelOK, "OK: " + okText
	}
	worst := LevelOK
	counts := map[Kind]int{}
	var kinds []Kind
	for _, a := range alerts {
		worst = max(worst, a.Level)
		if counts[a.Kind] == 0 {
			kinds = append(kinds, a.Kind)
		}
		counts[a.Kind]++
	}
	slices.SortStableFunc(kinds, func(a, b Kind) int { return cmp.Compare(kindOrder(a), kindOrder(b)) })
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, kindPhrase(k, counts[k]))
	}
	return worst, worst.String() + ": " + strings.Join(parts, ", ")
}

// kinds is every alert kind in the order check's summary names them, with
// its phrase there: one and many ("1 node down", "2 nodes down"), or one
// phrase whatever the count (many "").
var kinds = []kindInfo{
	{KindUnreachable, "cluster unreachable", ""},
	{KindNoLeader, "no cluster leader", ""},
	{KindNodeDown, "node down", "nodes down"},
	{KindOffline, "partitions offline", ""},
	{KindGroupStopped, "group stopped", "groups stopped"},
	{KindGroupStalled, "group stalled", "groups stalled"},
	{KindGroupDead, "group unknown", "groups unknown"},
	{KindQueueFull, "queue full", "queues full"},
	{KindGroupLagging, "group lagging", "groups lagging"},
	{KindGroupRewound, "group rewound", "groups rewound"},
	{KindGroupChurn, "group rebalancing repeatedly", "groups rebalancing repeatedly"},
	{KindGroupUnlisted, "group missing from the group list", "groups missing from the group list"},
	{KindNodeSyncing, "node syncing", "nodes syncing"},
	{KindNodeAbsent, "defined node not in the node list", "defined nodes not in the node list"},
	{KindNodeRemoved, "removed node still listed", "removed nodes still listed"},
	{KindUnderReplicated, "partitions under-replicated", ""},
	{KindQueueDepth, "queue over its depth limit", "queues over their depth limit"},
	{KindDLQGrowing, "dead-letter queue growing", "dead-letter queues growing"},
}

type kindInfo struct {
	kind      Kind
	one, many string
}

func kindOrder(k Kind) int {
	return slices.IndexFunc(kinds, func(e kindInfo) bool { return e.kind == k })
}

// kindPhrase is n alerts of kind k in check's summary.
func kindPhrase(k Kind, n int) string {
	i := kindOrder(k)
	switch {
	case i < 0:
		return string(k)
	case kinds[i].many == "":
		return kinds[i].one
	case n == 1:
		return "1 " + kinds[i].one
	}
	return strconv.Itoa(n) + " " + kinds[i].many
}
