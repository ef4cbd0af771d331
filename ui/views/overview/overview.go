package overview

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// leaderEventWindow is how long leader changes stay in the alert list;
// maxLeaderEvents bounds how many (the latest): a leader flapping at every
// poll would otherwise keep one per poll for the whole window.
const (
	leaderEventWindow = 15 * time.Minute
	maxLeaderEvents   = 32
)

// Alert is one line of the overview's alert list.
type Alert struct {
	Level common.Level
	At    time.Time // when the condition was first seen (or the event happened)
	Text  string    // sanitized
	// Target is what enter on the alert opens (Opens false: nothing).
	Target common.Target
	Opens  bool
}

type leaderEvent struct {
	at       time.Time
	from, to int
	fromQM   string
	toQM     string
}

// feed is what the overview knows of one polled resource: when its data
// was last good, and its failure if the latest poll failed.
type feed struct {
	okAt     time.Time
	err      error
	errSince time.Time
}

// feeds are the resources the alerts are computed from: the overview
// says "nothing to report" only when every one of them is fresh.
var feeds = []common.ResID{common.ResSummary, common.ResTopics, common.ResGroups, common.ResQueues}

// View is the first tab: the cluster at a glance (name, engine
// version, leader, counts), cluster-wide records in/out sparklines, the
// nodes, and the alert list: first whether the cluster can be reached at
// all, then the health alerts (health.Monitor, the rules `ilinkdash check`
// applies: nodes, partitions, queues, dead-letter queues, groups), then
// leader changes of the last 15 minutes.
type View struct {
	tab.Base

	summary   tab.ClusterSummary
	summaryOK bool
	def       admin.ClusterProperty // the cluster definition, set against the node list (tab.MergeNodes)
	defOK     bool
	nodeFeed  tab.NodeFeed // the node list's freshness
	stale     bool         // the node rows were built stale
	nodeViews []tab.NodeView
	stats     admin.StatSeries
	statsOK   bool
	rates     rateHist // the cluster's in/out from the history

	topics, internal, queues int
	topicsOK, queuesOK       bool
	groupsOK                 bool
	groups                   tab.GroupCounts // the tracker's: the groups tab says the same

	feeds       map[common.ResID]*feed
	tracker     *tab.HealthTracker
	ownTracker  bool // made here (no shared one): fed here, not by the root
	lastLeader  int
	lastQM      string
	leaderKnown bool
	events      []leaderEvent // leader changes seen: within leaderEventWindow, at most maxLeaderEvents
	failovers   []Alert       // the admin client's switches to another node (NoteFailovers), within leaderEventWindow
	lastFail    time.Time     // the latest switch noted

	alerts []Alert
	nodes  *components.Table[tab.NodeView]
	scroll int
	// sel is the alert under the cursor; onNodes: j/k and enter act on
	// the node table instead (v switches). selMoved: the operator moved
	// it, so it follows its alert as the list changes; until then it
	// stays on the first, the most severe, which enter opens.
	sel      int
	selMoved bool
	onNodes  bool
}

// New returns the overview. tracker is the dashboard's one health
// tracker, shared with the groups view (nil: a tracker of its own).
func New(ctx *common.Context, tracker *tab.HealthTracker) *View {
	own := tracker == nil
	if own {
		tracker = tab.NewHealthTracker(health.Config(ctx.Config.Health))
	}
	v := &View{
		Base:       tab.New(ctx, common.ViewOverview),
		tracker:    tracker,
		ownTracker: own,
		feeds:      map[common.ResID]*feed{},
	}
	for _, r := range feeds {
		v.feeds[r] = &feed{}
	}
	type N = components.Column[tab.NodeView]
	plain := func(n tab.NodeView, st *common.Styles) common.Style { return n.Paint(st, common.Style{}) }
	v.nodes = components.NewTable(ctx, func(n tab.NodeView) string { return strconv.Itoa(n.ID) },
		N{Title: "NODE", Width: 5, Right: true,
			Text:  func(n tab.NodeView) string { return strconv.Itoa(n.ID) },
			Cmp:   func(a, b tab.NodeView) int { return cmp.Compare(a.ID, b.ID) },
			Paint: plain},
		N{Title: "QMGR", Width: 10, Min: 5, Flex: true, Max: 16,
			Text: func(n tab.NodeView) string { return n.QM }, Paint: plain},
		N{Title: "ADDRESS", Width: 21, Min: 10, Drop: 3,
			Text: func(n tab.NodeView) string { return n.Addr }, Paint: plain},
		N{Title: "ROLE", Width: 8,
			Text: func(n tab.NodeView) string { return n.Role() },
			Paint: func(n tab.NodeView, st *common.Styles) common.Style {
				if n.Info.Role == admin.RoleLeader {
					return n.Paint(st, st.Accent)
				}
				return n.Paint(st, common.Style{})
			}},
		N{Title: "STATE", Width: 8, Min: 7,
			Text:  func(n tab.NodeView) string { return n.State() },
			Paint: func(n tab.NodeView, st *common.Styles) common.Style { return n.StateStyle(st) }},
		N{Title: "LEADS", Width: 5, Right: true, Drop: 4,
			Text: func(n tab.NodeView) string { return strconv.Itoa(n.Info.Partitions) }, Paint: plain},
		N{Title: "REPL LAG", Width: 8, Right: true, Drop: 2,
			Text: func(n tab.NodeView) string { return common.Count(n.Info.LagRecords) }, Paint: plain},
		N{Title: "LAG", Width: 6, Right: true, Drop: 1,
			Text: func(n tab.NodeView) string { return common.Dur(n.Info.Lag) }, Paint: plain},
	)
	v.nodes.Empty = "waiting for the node list…"
	v.nodes.SetSort(0, false)
	return v
}

// AlwaysPolled are the resources the overview's counts and alerts come
// from, polled whatever tab is shown: the node list, the cluster
// definition (set against it: a node added or removed shows in every tab
// at once), topics, groups, queues.
var AlwaysPolled = []common.ResID{common.ResSummary, common.ResCluster, common.ResTopics, common.ResGroups, common.ResQueues}

func (v *View) Title() string         { return "Overview" }
func (v *View) Primary() common.ResID { return common.ResSummary }
func (v *View) Wants() []common.ResID { return []common.ResID{common.ResStats} }

func (v *View) Capturing() bool  { return false }
func (v *View) Back() bool       { return false }
func (v *View) SetSize(w, h int) { v.W, v.H = w, h }

// Alerts returns the health alerts and leader changes (the connection
// line, whose age changes every second, is drawn by View).
func (v *View) Alerts() []Alert { return v.alerts }

func (v *View) ShortHelp() []key.Binding {
	k := v.Ctx.Keys
	return []key.Binding{k.Open, k.Pane, k.NextTab, k.TabsHelp, k.Refresh, k.Down}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	if v.Ctx.History != nil {
		return [][]key.Binding{{k.Up, k.Down, k.Open, k.Pane, k.ChartSpan}}
	}
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Pane}}
}

// moveSel moves the alert cursor by d.
func (v *View) moveSel(d int) {
	v.sel = max(0, min(v.sel+d, len(v.alerts)-1))
	v.selMoved = true
}

// open is enter: the node row or the alert under the cursor, as a
// drill-down the root routes (common.OpenMsg).
func (v *View) open() tea.Cmd {
	if v.onNodes {
		if n, ok := v.nodes.Selected(); ok {
			return common.Open(common.Target{Kind: common.TargetNode, Node: n.ID})
		}
		return nil
	}
	if v.sel < len(v.alerts) && v.alerts[v.sel].Opens {
		return common.Open(v.alerts[v.sel].Target)
	}
	return nil
}

// SelectedAlert returns the alert under the cursor.
func (v *View) SelectedAlert() (Alert, bool) {
	if v.onNodes || v.sel >= len(v.alerts) {
		return Alert{}, false
	}
	return v.alerts[v.sel], true
}

func (v *View) Status() string {
	n := len(v.alerts)
	if v.failing() != nil {
		n++
	}
	if n > 0 {
		return common.Plural(n, "alert")
	}
	return ""
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.DataMsg:
		v.setData(msg)
		if msg.Res == common.ResTopics {
			return v.readRates() // the history the topic list was recorded into
		}
	case common.ViewMsg:
		if m, ok := msg.Msg.(rateHistMsg); ok && msg.Gen == v.Gen {
			v.rates = rateHist(m)
		}
	case common.PollErrMsg:
		if f := v.feeds[msg.Res]; f != nil {
			if f.err == nil {
				f.errSince = msg.At
			}
			f.err = msg.Err
		}
		v.nodeFeed.Update(msg)
		if msg.Res == common.ResSummary {
			v.rebuildNodes()
		}
	case tea.KeyPressMsg:
		k := v.Ctx.Keys
		switch {
		case key.Matches(msg, k.Open):
			return v.open()
		case key.Matches(msg, k.Pane):
			v.onNodes = !v.onNodes
		case key.Matches(msg, k.ChartSpan) && v.Ctx.History != nil:
			v.Ctx.NextSpan()
			return v.readRates()
		case v.onNodes:
			v.nodes.Update(msg)
		case key.Matches(msg, k.Down):
			v.moveSel(1)
		case key.Matches(msg, k.Up):
			v.moveSel(-1)
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			v.moveSel(1)
		case tea.MouseWheelUp:
			v.moveSel(-1)
		}
	}
	return nil
}

func (v *View) setData(msg common.DataMsg) {
	if f := v.feeds[msg.Res]; f != nil {
		f.okAt, f.err = msg.At, nil
	}
	v.nodeFeed.Update(msg)
	switch d := msg.Data.(type) {
	case tab.ClusterSummary:
		v.observeSummary(d, msg.At)
	case admin.ClusterProperty:
		v.def, v.defOK = d, true
		v.rebuildNodes()
	case admin.StatSeries:
		if msg.Res == common.ResStats {
			v.stats, v.statsOK = d, true
		}
		return
	case []admin.TopicInfo:
		v.topics, v.internal, v.topicsOK = 0, 0, true
		for _, t := range d {
			v.topics++
			if t.Internal || strings.HasPrefix(t.Name, "SYSTEM.") {
				v.internal++
			}
		}
	case []admin.GroupInfo:
		v.groupsOK = true
	case []admin.QueueInfo:
		v.queues, v.queuesOK = len(d), true
	default:
		return
	}
	// The verdicts are the groups view's: one tracker, shared, which the
	// root fed before this view saw the list.
	if v.ownTracker {
		v.tracker.Observe(msg)
	}
	v.buildAlerts(msg.At)
}

// rebuildNodes makes the node rows from the node list and the definition
// (tab.MergeNodes: the cluster tab's rows too), greyed while the node list is
// not fresh.
func (v *View) rebuildNodes() {
	v.stale = v.nodeFeed.Stale(v.Ctx, v.Ctx.Now())
	v.nodeViews = tab.MergeNodes(v.summary.Nodes, v.summaryOK, v.def, v.defOK, v.stale)
	v.nodes.SetItems(v.nodeViews)
}

// NoteFailovers takes in the admin client's latest switches to another
// node (oldest first; live.Sources.AdminFailovers) and reports the ones
// not noted before: each is an event of the alert list for 15 minutes.
func (v *View) NoteFailovers(fs []admin.Failover) []admin.Failover {
	var fresh []admin.Failover
	for _, f := range fs {
		if !f.At.After(v.lastFail) {
			continue
		}
		v.lastFail = f.At
		fresh = append(fresh, f)
		if len(v.failovers) == maxLeaderEvents {
			v.failovers = append(v.failovers[:0], v.failovers[1:]...)
		}
		v.failovers = append(v.failovers, Alert{Level: common.LevelWarn, At: f.At, Text: common.Clock(f.At) + " " + common.S(f.Text())})
	}
	if len(fresh) > 0 {
		v.buildAlerts(v.Ctx.Now())
	}
	return fresh
}

func (v *View) observeSummary(s tab.ClusterSummary, at time.Time) {
	v.summary, v.summaryOK = s, true
	v.rebuildNodes()
	qm := func(id int) string {
		for _, n := range s.Nodes {
			if n.ID == id {
				return common.S(n.QueueManager)
			}
		}
		return ""
	}
	if v.leaderKnown && s.Leader != v.lastLeader {
		if len(v.events) == maxLeaderEvents {
			v.events = append(v.events[:0], v.events[1:]...)
		}
		v.events = append(v.events, leaderEvent{at: at, from: v.lastLeader, to: s.Leader, fromQM: v.lastQM, toQM: qm(s.Leader)})
	}
	v.lastLeader, v.leaderKnown, v.lastQM = s.Leader, true, qm(s.Leader)
}

// buildAlerts recomputes the alert list; it runs when data arrives, never
// per frame.
func (v *View) buildAlerts(now time.Time) {
	var out []Alert
	v.groups = v.tracker.Counts()
	for _, a := range v.tracker.Alerts() {
		t, ok := v.alertTarget(a)
		out = append(out, Alert{Level: alertLevel(a.Level), At: a.Since, Text: common.S(a.Text), Target: t, Opens: ok})
	}
	keepF := v.failovers[:0]
	for _, f := range v.failovers {
		if now.Sub(f.At) <= leaderEventWindow {
			keepF = append(keepF, f)
		}
	}
	v.failovers = keepF
	out = append(out, v.failovers...)
	// Leader changes in the last 15 minutes.
	keep := v.events[:0]
	for _, e := range v.events {
		if now.Sub(e.at) <= leaderEventWindow {
			keep = append(keep, e)
		}
	}
	v.events = keep
	for _, e := range v.events {
		from, to := "none", "none"
		if e.from != 0 {
			from = fmt.Sprintf("node %d (%s)", e.from, e.fromQM)
		}
		if e.to != 0 {
			to = fmt.Sprintf("node %d (%s)", e.to, e.toQM)
		}
		out = append(out, Alert{Level: common.LevelInfo, At: e.at, Text: fmt.Sprintf("%s leader changed: %s → %s", common.Clock(e.at), from, to),
			Target: common.Target{Kind: common.TargetNode, Node: e.to}, Opens: true})
	}
	slices.SortStableFunc(out, func(a, b Alert) int {
		if a.Level != b.Level {
			return cmp.Compare(b.Level, a.Level)
		}
		return b.At.Compare(a.At)
	})
	// A cursor the operator moved stays on its alert when the list is
	// rebuilt (a poll), as far as it is still there; one not moved, or
	// whose alert is gone, is on the first. It stayed on whichever alert
	// came first (a growing DLQ before a group stalled), so enter opened
	// that, not the most severe.
	found := false
	if v.selMoved && v.sel < len(v.alerts) {
		cur := v.alerts[v.sel]
		for i, a := range out {
			if a.Text == cur.Text || a.Opens && cur.Opens && a.Target == cur.Target {
				v.sel, found = i, true
				break
			}
		}
	}
	if !found {
		v.sel, v.selMoved = 0, false
	}
	v.alerts = out
}

// alertTarget is what enter on a health alert opens: a group's detail at
// the partition the alert is about, a queue's detail, a node's row on the
// Cluster tab, or the (first) topic an alert about partitions names.
func (v *View) alertTarget(a health.Alert) (common.Target, bool) {
	switch a.Kind {
	case health.KindNodeDown, health.KindNodeSyncing, health.KindNodeAbsent, health.KindNodeRemoved:
		n, err := strconv.Atoi(a.Subject)
		return common.Target{Kind: common.TargetNode, Node: n}, err == nil
	case health.KindNoLeader:
		return common.Target{Kind: common.TargetNode}, true
	case health.KindQueueFull, health.KindQueueDepth, health.KindDLQGrowing:
		return common.Target{Kind: common.TargetQueue, Name: a.Subject}, a.Subject != ""
	case health.KindOffline, health.KindUnderReplicated:
		first, _, _ := strings.Cut(a.Subject, ",")
		return common.Target{Kind: common.TargetTopic, Name: first}, first != ""
	case health.KindUnreachable:
		return common.Target{}, false
	}
	if !strings.HasPrefix(string(a.Kind), "group-") || a.Subject == "" {
		return common.Target{}, false
	}
	t := common.Target{Kind: common.TargetGroup, Name: a.Subject, Partition: -1}
	if r := v.tracker.Row(a.Subject); r != nil {
		if p, ok := alertPartition(r.St); ok {
			t.Topic, t.Partition = p.Topic, p.Partition
		}
	}
	return t, true
}

// alertPartition is the partition a group's alert is about: the one with
// the most lag among those given the group's word (a stalled, lagging or
// rewound partition), else the one with the most lag; none without lag.
func alertPartition(g health.GroupStatus) (admin.PartitionOffsets, bool) {
	best := -1
	bestOwn := false
	for i, p := range g.Partitions {
		if p.Lag.Unknown || i >= len(g.Info.Partitions) {
			continue
		}
		own := p.Word == g.Word
		switch {
		case best < 0, own && !bestOwn, own == bestOwn && p.Lag.Records > g.Partitions[best].Lag.Records:
			best, bestOwn = i, own
		}
	}
	if best < 0 || g.Partitions[best].Lag.Records <= 0 && !bestOwn {
		return admin.PartitionOffsets{}, false
	}
	return g.Info.Partitions[best], true
}

// failing returns the feed whose latest poll failed, the one failing the
// longest (nil when every latest poll answered).
func (v *View) failing() *feed {
	var worst *feed
	for _, r := range feeds {
		f := v.feeds[r]
		if f.err != nil && (worst == nil || f.errSince.Before(worst.errSince)) {
			worst = f
		}
	}
	return worst
}

// freshness says whether every feed has data younger than three polling
// intervals; otherwise the age of the oldest (zero when one never
// answered).
func (v *View) freshness(now time.Time) (fresh bool, oldest time.Time) {
	fresh = true
	for _, r := range feeds {
		f := v.feeds[r]
		if f.okAt.IsZero() {
			return false, time.Time{}
		}
		if now.Sub(f.okAt) > v.Ctx.StaleAfter(r) {
			fresh = false
		}
		if oldest.IsZero() || f.okAt.Before(oldest) {
			oldest = f.okAt
		}
	}
	return fresh, oldest
}

// target names where the dashboard connects.
func (v *View) target() string {
	if t := common.S(v.Ctx.Target); t != "" {
		return t
	}
	return "the cluster"
}

// ConnectionLine is the connection's state in words, or "" when the
// latest polls answered: "cannot reach <addr>: <reason> (for 12s, data
// 10:02:03)" after a failure to connect, the engine's error otherwise.
func (v *View) ConnectionLine(now time.Time) string {
	f := v.failing()
	if f == nil {
		return ""
	}
	what := "cannot reach " + v.target() + ": " + sanitize.String(health.ReachReason(f.err))
	if !health.Unreachable(f.err) {
		what = "the cluster answers with an error: " + sanitize.Error(f.err)
	}
	age := "for " + common.Dur(now.Sub(f.errSince))
	if _, oldest := v.freshness(now); !oldest.IsZero() {
		age += ", data from " + common.Clock(oldest)
	} else {
		age += ", no data yet"
	}
	return what + " (" + age + ")"
}

// ---- rendering ----

// headLines are the cluster line (or why there is none) and the counts.
func (v *View) headLines(st *common.Styles, w int) []string {
	var head []string
	s := v.summary
	name := common.S(s.Cluster)
	if name == "" {
		name = common.S(s.QueueManager)
	}
	if !v.summaryOK {
		if v.failing() != nil {
			head = append(head, st.Err.Render(common.Trunc("not connected: cannot reach "+v.target(), w)))
		} else {
			head = append(head, st.Muted.Render(common.Trunc("connecting to "+v.target()+"…", w)))
		}
	} else {
		leader := st.Err.Render("none")
		for _, n := range s.Nodes {
			if n.ID == s.Leader {
				leader = fmt.Sprintf("node %d (%s)", n.ID, common.S(n.QueueManager))
			}
		}
		if v.stale {
			leader += st.Faint.Render(" (stale since " + common.Clock(v.nodeFeed.OKAt) + ")")
		}
		first := st.Title.Render(name)
		rest := common.Pairs(st, w, "queue manager", common.S(s.QueueManager), "engine", common.S(s.EngineVersion), "leader", leader)
		if len(rest) > 0 && common.Width(first)+2+common.Width(rest[0]) <= w {
			rest[0] = first + "  " + rest[0]
		} else {
			rest = append([]string{first}, rest...)
		}
		head = append(head, rest...)
	}
	if v.nodeFeed.Stale(v.Ctx, v.Ctx.Now()) != v.stale {
		v.rebuildNodes() // the node list turned stale (or fresh) since the rows were made
	}
	counts := []string{tab.NodeCounts(st, v.nodeViews)}
	if v.topicsOK {
		counts = append(counts, common.Plural(v.topics-v.internal, "topic"))
	}
	if v.queuesOK {
		counts = append(counts, common.Plural(v.queues, "queue"))
	}
	if v.groupsOK {
		g := v.groups.Text()
		if n := v.groups.Attention; n > 0 {
			g += " " + st.Warn.Render("("+strconv.Itoa(n)+" "+common.Agree(n, "needs", "need")+" attention)")
		}
		counts = append(counts, g)
	}
	if v.summaryOK {
		head = append(head, strings.Join(counts, st.Faint.Render(" · ")))
	}

	return head
}

// View implements common.View.
func (v *View) View() string {
	st := v.Ctx.Styles
	w, h := v.W, v.H
	head := v.headLines(st, w)
	var rates []string
	if h >= 14 {
		rates = v.rateLines(st, w)
	}
	// Height budget: head, rates, a blank, the nodes table, a blank,
	// alerts. When space is short the alerts are served first: they are
	// what needs attention.
	used := len(head) + len(rates)
	if len(rates) > 0 {
		used++
	}
	remain := h - used
	alertWant := len(v.alerts) + 2
	if len(v.alerts) == 0 {
		alertWant = 2
	}
	alertMin := min(alertWant, max(remain/2, 3))
	nodeWant := len(v.nodeViews) + 1
	if v.stale {
		nodeWant++ // the stale marker
	}
	nodeH := min(nodeWant, remain-alertMin-2)
	if nodeH < 2 {
		nodeH = 0
	}
	lines := append(make([]string, 0, h), head...)
	if len(rates) > 0 {
		lines = append(lines, "")
		lines = append(lines, rates...)
	}
	if nodeH > 0 {
		lines = append(lines, "")
		if v.stale {
			lines = append(lines, v.nodeFeed.Marker(st, w))
			nodeH--
		}
		v.nodes.SetSize(w, nodeH)
		v.nodes.NoCursor = !v.onNodes
		lines = append(lines, v.nodes.Lines()...)
	}
	alertH := h - len(lines) - 1
	if alertH > 0 {
		lines = append(lines, "")
		lines = append(lines, v.alertLines(st, w, alertH)...)
	}
	return common.Frame(lines, w, h)
}

func (v *View) rateLines(st *common.Styles, w int) []string {
	if lines, ok := v.histRateLines(st, w); ok {
		return lines
	}
	if !v.statsOK || len(v.stats.Points) == 0 {
		return []string{st.Muted.Render("records in/out: waiting for statistics…")}
	}
	points := recentActivity(tab.CompleteSeconds(v.stats.Points), 60)
	in := make([]float64, len(points))
	out := make([]float64, len(points))
	var pin, pout float64
	for i, p := range points {
		in[i], out[i] = p.RecordsIn, p.RecordsOut
		pin, pout = max(pin, p.RecordsIn), max(pout, p.RecordsOut)
	}
	last := points[len(points)-1]
	span := common.Dur(last.Time.Sub(points[0].Time).Round(time.Second))
	pw := peakWidth(pin, pout)
	line := func(label string, now, peak float64, vals []float64, sty common.Style) string {
		return rateLine(st, w, label, now, peak, pw, func(sw int) []float64 { return resample(vals, sw) }, sty)
	}
	return []string{
		line("records in", last.RecordsIn, pin, in, st.Spark),
		line("records out", last.RecordsOut, pout, out, st.SparkOut),
		st.Faint.Render("last "+span+", oldest left") + v.historyHint(st),
	}
}

// rateLine is one in/out line: the label, the rate now, a sparkline of
// cols(width) scaled to peak, and the peak, right-aligned in peakW
// (peakWidth: the in and out lines' sparklines are then as wide, their
// columns the same seconds).
func rateLine(st *common.Styles, w int, label string, now, peak float64, peakW int, cols func(int) []float64, sty common.Style) string {
	left := fmt.Sprintf("%-11s %7s/s ", label, common.Rate(now))
	right := fmt.Sprintf(" peak %*s/s", peakW, common.Rate(peak))
	sw := w - common.Width(left) - common.Width(right)
	if sw < 8 {
		right = ""
		sw = w - common.Width(left)
	}
	if sw < 4 {
		return left
	}
	return left + sty.Render(components.SparklineMax(cols(sw), sw, peak)) + st.Muted.Render(right)
}

// peakWidth is the width of the longest of the peaks' figures.
func peakWidth(peaks ...float64) int {
	w := 0
	for _, p := range peaks {
		w = max(w, common.Width(common.Rate(p)))
	}
	return w
}

// recentActivity drops the leading seconds in which nothing moved (an engine
// that started a minute ago reports 15 minutes of zeros), keeping at least
// the last minSeconds, so a young cluster's sparkline is not a flat line
// with a blip at its right end.
func recentActivity(points []admin.StatPoint, minSeconds int) []admin.StatPoint {
	first := len(points)
	for i, p := range points {
		if p.RecordsIn != 0 || p.RecordsOut != 0 {
			first = i
			break
		}
	}
	return points[max(min(first, len(points)-minSeconds), 0):]
}

// resample averages vals into at most w buckets.
func resample(vals []float64, w int) []float64 {
	if len(vals) <= w || w <= 0 {
		return vals
	}
	out := make([]float64, w)
	for i := range out {
		lo := i * len(vals) / w
		hi := (i + 1) * len(vals) / w
		var sum float64
		for _, x := range vals[lo:hi] {
			sum += x
		}
		out[i] = sum / float64(hi-lo)
	}
	return out
}

// alertLines draws the alert list: the connection line first (red), then
// the alerts. "Nothing to report" needs fresh data from every feed; stale
// data is said so in the title.
func (v *View) alertLines(st *common.Styles, w, h int) []string {
	now := v.Ctx.Now()
	title := tab.SectionTitle(st, "Alerts")
	conn := v.ConnectionLine(now)
	fresh, oldest := v.freshness(now)
	var note string
	switch {
	case fresh:
	case oldest.IsZero() && conn == "":
		note = "waiting for the first data"
	case oldest.IsZero():
		note = "no data"
	default:
		note = "stale: data from " + common.Clock(oldest) + ", " + common.Ago(now, oldest)
	}
	n := len(v.alerts)
	if conn != "" {
		n++
	}
	if n > 0 {
		title += st.Muted.Render(" (" + strconv.Itoa(n) + ")")
	}
	if note != "" {
		title += " " + st.Warn.Render(note)
	}
	lines := []string{title}
	if conn != "" {
		lines = append(lines, st.Err.Render("✖ "+common.Trunc(conn, max(w-2, 1))))
	}
	if n == 0 {
		switch {
		case !fresh:
			// Never "nothing to report" without fresh data.
		case v.groups.Judging > 0:
			lines = append(lines, st.OK.Render("✓ nothing to report so far")+st.Muted.Render(" · "+common.Plural(v.groups.Judging, "group")+" not judged yet (the health window is "+common.Dur(v.tracker.Config().Window)+")"))
		default:
			lines = append(lines, st.OK.Render("✓ nothing to report"))
		}
		return lines
	}
	rows := h - len(lines)
	// The cursor's alert stays in sight (the last row may say "… more").
	shown := rows
	if len(v.alerts) > rows {
		shown = max(rows-1, 1)
	}
	v.scroll = min(v.scroll, v.sel)
	if v.sel >= v.scroll+shown {
		v.scroll = v.sel - shown + 1
	}
	v.scroll = max(0, min(v.scroll, max(len(v.alerts)-rows, 0), v.sel))
	first := len(lines)
	for i := v.scroll; i < len(v.alerts) && len(lines) < h; i++ {
		a := v.alerts[i]
		var mark string
		var sty common.Style
		switch a.Level {
		case common.LevelError:
			mark, sty = "✖ ", st.Err
		case common.LevelWarn:
			mark, sty = "▲ ", st.Warn
		default:
			mark, sty = "● ", st.Info
		}
		text := common.Trunc(a.Text, max(w-2, 1))
		var line string
		if i == v.sel && !v.onNodes {
			// Unstyled inside the cursor row, as a table's cursor row is:
			// the mark's own reset would end the highlight after it.
			line = st.CursorRow(mark+text, w)
		} else {
			line = sty.Render(mark) + text
		}
		lines = append(lines, line)
	}
	if rest := len(v.alerts) - v.scroll - (len(lines) - first); rest > 0 && len(lines) > first {
		lines[len(lines)-1] = st.Muted.Render(fmt.Sprintf("  … %d more (j/k scroll)", rest+1))
	}
	return lines
}

// alertLevel maps a health alert to the overview's levels.
func alertLevel(l health.Level) common.Level {
	if l == health.LevelCritical {
		return common.LevelError
	}
	return common.LevelWarn
}
