package views

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
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

// leaderEventWindow is how long leader changes stay in the alert list.
const leaderEventWindow = 15 * time.Minute

// Alert is one line of the overview's alert list.
type Alert struct {
	Level common.Level
	At    time.Time // when the condition was first seen (or the event happened)
	Text  string    // sanitized
}

type leaderEvent struct {
	at       time.Time
	from, to int
	fromQM   string
	toQM     string
}

// Overview is the first tab: the cluster at a glance (name, engine
// version, leader, counts), cluster-wide records in/out sparklines, the
// nodes, and an alert list derived from the history of the polled data:
// nodes down, partitions offline or under-replicated, groups lagging or
// stalled, leader changes in the last 15 minutes.
type Overview struct {
	base

	summary   ClusterSummary
	summaryOK bool
	summaryAt time.Time
	stats     admin.StatSeries
	statsOK   bool

	topics, internal, queues int
	topicsOK, queuesOK       bool
	underRepl, offline       int
	urTopics, offTopics      []string
	groupsOK                 bool
	groupCount               int

	tracker     *GroupHealth
	groupSince  map[string]groupAlertState
	downSince   map[int]time.Time
	noLeader    time.Time
	lastLeader  int
	lastQM      string
	leaderKnown bool
	events      []leaderEvent

	alerts []Alert
	nodes  *components.Table[admin.NodeInfo]
	scroll int
}

// groupAlertState is a group the shared GroupHealth judges LAGGING or
// STALLED, with the figures its alert shows.
type groupAlertState struct {
	h    Health
	seen time.Time // when this verdict was first given (orders the alerts)
	// since is when a STALLED group's progress stopped, as far as the
	// dashboard can tell: the start of the window it was first judged on.
	since time.Time
	lag   int64
	// growth and span: a LAGGING group's lag growth over the window it is
	// judged on (positive: LAGGING requires the newest lag above the
	// oldest) and that window's length.
	growth int64
	span   time.Duration
}

// NewOverview returns the overview. health is the dashboard's one group
// health tracker, shared with the groups view, whose verdicts the group
// alerts report (nil: a tracker of its own).
func NewOverview(ctx *common.Context, health *GroupHealth) *Overview {
	if health == nil {
		health = NewGroupHealth()
	}
	v := &Overview{
		base:       base{ctx: ctx, id: common.ViewOverview},
		tracker:    health,
		groupSince: map[string]groupAlertState{},
		downSince:  map[int]time.Time{},
	}
	type N = components.Column[admin.NodeInfo]
	v.nodes = components.NewTable(ctx, func(n admin.NodeInfo) string { return strconv.Itoa(n.ID) },
		N{Title: "NODE", Width: 5, Right: true,
			Text: func(n admin.NodeInfo) string { return strconv.Itoa(n.ID) },
			Cmp:  func(a, b admin.NodeInfo) int { return cmp.Compare(a.ID, b.ID) }},
		N{Title: "QMGR", Width: 10, Min: 5, Flex: true, Max: 16,
			Text: func(n admin.NodeInfo) string { return common.S(n.QueueManager) }},
		N{Title: "ADDRESS", Width: 21, Min: 10, Drop: 3,
			Text: func(n admin.NodeInfo) string { return common.S(n.DataAddr) }},
		N{Title: "ROLE", Width: 8,
			Text: func(n admin.NodeInfo) string { return common.S(string(n.Role)) },
			Paint: func(n admin.NodeInfo, st *common.Styles) common.Style {
				if n.Role == admin.RoleLeader {
					return st.Accent
				}
				return common.Style{}
			}},
		N{Title: "STATE", Width: 8, Min: 7,
			Text:  func(n admin.NodeInfo) string { return common.S(string(n.State)) },
			Paint: func(n admin.NodeInfo, st *common.Styles) common.Style { return nodeStateStyle(st, n.State) }},
		N{Title: "LEADS", Width: 5, Right: true, Drop: 4,
			Text: func(n admin.NodeInfo) string { return strconv.Itoa(n.Partitions) }},
		N{Title: "REPL LAG", Width: 8, Right: true, Drop: 2,
			Text: func(n admin.NodeInfo) string { return common.Count(n.LagRecords) }},
		N{Title: "LAG", Width: 6, Right: true, Drop: 1,
			Text: func(n admin.NodeInfo) string { return common.Dur(n.Lag) }},
	)
	v.nodes.Empty = "waiting for the node list…"
	v.nodes.SetSort(0, false)
	return v
}

func (v *Overview) Title() string         { return "Overview" }
func (v *Overview) Primary() common.ResID { return common.ResSummary }
func (v *Overview) Wants() []common.ResID { return []common.ResID{common.ResStats} }
func (v *Overview) Capturing() bool       { return false }
func (v *Overview) Back() bool            { return false }
func (v *Overview) SetSize(w, h int)      { v.w, v.h = w, h }
func (v *Overview) Alerts() []Alert       { return v.alerts }
func (v *Overview) ShortHelp() []key.Binding {
	k := v.ctx.Keys
	return []key.Binding{k.NextTab, k.TabsHelp, k.Refresh, k.Down}
}

// FullHelp implements common.View.
func (v *Overview) FullHelp() [][]key.Binding {
	k := v.ctx.Keys
	return [][]key.Binding{{k.Up, k.Down}}
}

func (v *Overview) Status() string {
	if n := len(v.alerts); n > 0 {
		return common.Plural(n, "alert")
	}
	return ""
}

// Update implements common.View.
func (v *Overview) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.DataMsg:
		v.setData(msg)
	case tea.KeyPressMsg:
		k := v.ctx.Keys
		switch {
		case key.Matches(msg, k.Down):
			v.scroll++
		case key.Matches(msg, k.Up):
			v.scroll = max(0, v.scroll-1)
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelDown:
			v.scroll++
		case tea.MouseWheelUp:
			v.scroll = max(0, v.scroll-1)
		}
	}
	return nil
}

func (v *Overview) setData(msg common.DataMsg) {
	switch d := msg.Data.(type) {
	case ClusterSummary:
		v.observeSummary(d, msg.At)
	case admin.StatSeries:
		if msg.Res == common.ResStats {
			v.stats, v.statsOK = d, true
		}
		return
	case []admin.TopicInfo:
		v.tracker.observeTopics(d, msg.At)
		v.topics, v.internal, v.underRepl, v.offline, v.topicsOK = 0, 0, 0, 0, true
		v.urTopics, v.offTopics = v.urTopics[:0], v.offTopics[:0]
		for _, t := range d {
			v.topics++
			if t.Internal || strings.HasPrefix(t.Name, "SYSTEM.") {
				v.internal++
			}
			if t.Offline > 0 {
				v.offline += t.Offline
				v.offTopics = append(v.offTopics, common.S(t.Name))
			}
			if t.UnderReplicated > 0 {
				v.underRepl += t.UnderReplicated
				v.urTopics = append(v.urTopics, common.S(t.Name))
			}
		}
		slices.Sort(v.urTopics)
		slices.Sort(v.offTopics)
	case []admin.GroupInfo:
		// The verdicts are the groups view's: one GroupHealth, shared.
		rows := v.tracker.observe(d, msg.At)
		v.groupsOK, v.groupCount = true, len(d)
		seen := map[string]bool{}
		for _, r := range rows {
			if r.health != HealthLagging && r.health != HealthStalled {
				continue
			}
			seen[r.info.Name] = true
			s, ok := v.groupSince[r.info.Name]
			if !ok || s.h != r.health {
				s = groupAlertState{h: r.health, seen: msg.At, since: r.from}
			}
			s.lag = r.info.TotalLag
			s.growth, s.span = r.info.TotalLag-max(r.lag0, 0), msg.At.Sub(r.from) // lag0 -1: no commit yet
			v.groupSince[r.info.Name] = s
		}
		for name := range v.groupSince {
			if !seen[name] {
				delete(v.groupSince, name)
			}
		}
	case []admin.QueueInfo:
		v.queues, v.queuesOK = len(d), true
	default:
		return
	}
	v.buildAlerts(msg.At)
}

func (v *Overview) observeSummary(s ClusterSummary, at time.Time) {
	v.summary, v.summaryOK, v.summaryAt = s, true, at
	v.nodes.SetItems(s.Nodes)
	for _, n := range s.Nodes {
		if n.State == admin.NodeDown || n.State == admin.NodeStopped {
			if _, ok := v.downSince[n.ID]; !ok {
				v.downSince[n.ID] = at
			}
		} else {
			delete(v.downSince, n.ID)
		}
	}
	qm := func(id int) string {
		for _, n := range s.Nodes {
			if n.ID == id {
				return common.S(n.QueueManager)
			}
		}
		return ""
	}
	if v.leaderKnown && s.Leader != v.lastLeader {
		v.events = append(v.events, leaderEvent{at: at, from: v.lastLeader, to: s.Leader, fromQM: v.lastQM, toQM: qm(s.Leader)})
	}
	if s.Leader == 0 {
		if v.noLeader.IsZero() {
			v.noLeader = at
		}
	} else {
		v.noLeader = time.Time{}
	}
	v.lastLeader, v.leaderKnown, v.lastQM = s.Leader, true, qm(s.Leader)
}

// buildAlerts recomputes the alert list; it runs when data arrives, never
// per frame.
func (v *Overview) buildAlerts(now time.Time) {
	var out []Alert
	add := func(l common.Level, at time.Time, format string, args ...any) {
		out = append(out, Alert{Level: l, At: at, Text: fmt.Sprintf(format, args...)})
	}
	if v.summaryOK {
		for _, n := range v.summary.Nodes {
			if since, ok := v.downSince[n.ID]; ok {
				add(common.LevelError, since, "node %d (%s) %s since %s", n.ID, common.S(n.QueueManager), n.State, common.Clock(since))
			} else if n.State == admin.NodeSyncing {
				add(common.LevelWarn, now, "node %d (%s) syncing, %s behind", n.ID, common.S(n.QueueManager), common.Plural(n.LagRecords, "record"))
			}
		}
		if !v.noLeader.IsZero() && len(v.summary.Nodes) > 1 {
			add(common.LevelError, v.noLeader, "no cluster leader since %s: no node accepts sessions until one is elected", common.Clock(v.noLeader))
		}
	}
	if v.offline > 0 {
		add(common.LevelError, now, "%s offline (no leader) in %s", common.Plural(v.offline, "partition"), listSome(v.offTopics, 3))
	}
	if v.underRepl > 0 {
		add(common.LevelWarn, now, "%s under-replicated in %s", common.Plural(v.underRepl, "partition"), listSome(v.urTopics, 3))
	}
	names := make([]string, 0, len(v.groupSince))
	for n := range v.groupSince {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := v.groupSince[n]
		switch {
		case s.h == HealthStalled:
			add(common.LevelError, s.seen, "group %s stalled at lag %s (no progress since %s)", common.S(n), common.Thousands(s.lag), common.Clock(s.since))
		case s.h == HealthLagging && s.growth > 0:
			add(common.LevelWarn, s.seen, "group %s lag growing: %s (+%s in %s)", common.S(n), common.Thousands(s.lag), common.Thousands(s.growth), common.Dur(s.span))
		case s.h == HealthLagging:
			// Not reached (LAGGING means the lag grew over the window);
			// worded so that it cannot contradict itself if it were.
			add(common.LevelWarn, s.seen, "group %s lagging: lag %s", common.S(n), common.Thousands(s.lag))
		}
	}
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
		add(common.LevelInfo, e.at, "%s leader changed: %s → %s", common.Clock(e.at), from, to)
	}
	slices.SortStableFunc(out, func(a, b Alert) int {
		if a.Level != b.Level {
			return cmp.Compare(b.Level, a.Level)
		}
		return b.At.Compare(a.At)
	})
	v.alerts = out
}

func listSome(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

// ---- rendering ----

// View implements common.View.
func (v *Overview) View() string {
	st := v.ctx.Styles
	w, h := v.w, v.h
	var head []string
	s := v.summary
	name := common.S(s.Cluster)
	if name == "" {
		name = common.S(s.QueueManager)
	}
	if !v.summaryOK {
		head = append(head, st.Muted.Render("connecting…"))
	} else {
		leader := st.Err.Render("none")
		for _, n := range s.Nodes {
			if n.ID == s.Leader {
				leader = fmt.Sprintf("node %d (%s)", n.ID, common.S(n.QueueManager))
			}
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
	var counts []string
	down := len(v.downSince)
	nodes := common.Plural(len(s.Nodes), "node")
	if down > 0 {
		nodes += " " + st.Err.Render("("+strconv.Itoa(down)+" down)")
	}
	counts = append(counts, nodes)
	if v.topicsOK {
		counts = append(counts, common.Plural(v.topics-v.internal, "topic"))
	}
	if v.queuesOK {
		counts = append(counts, common.Plural(v.queues, "queue"))
	}
	if v.groupsOK {
		g := common.Plural(v.groupCount, "group")
		if n := len(v.groupSince); n > 0 {
			g += " " + st.Warn.Render("("+strconv.Itoa(n)+" "+common.Agree(n, "needs", "need")+" attention)")
		}
		counts = append(counts, g)
	}
	if v.summaryOK {
		head = append(head, strings.Join(counts, st.Faint.Render(" · ")))
	}

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
	alertWant := len(v.alerts) + 1
	if len(v.alerts) == 0 {
		alertWant = 2
	}
	alertMin := min(alertWant, max(remain/2, 3))
	nodeWant := len(s.Nodes) + 1
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
		v.nodes.SetSize(w, nodeH)
		lines = append(lines, v.nodes.Lines()...)
	}
	alertH := h - len(lines) - 1
	if alertH > 0 {
		lines = append(lines, "")
		lines = append(lines, v.alertLines(st, w, alertH)...)
	}
	return common.Frame(lines, w, h)
}

func (v *Overview) rateLines(st *common.Styles, w int) []string {
	if !v.statsOK || len(v.stats.Points) == 0 {
		return []string{st.Muted.Render("records in/out: waiting for statistics…")}
	}
	points := recentActivity(v.stats.Points, 60)
	in := make([]float64, len(points))
	out := make([]float64, len(points))
	var pin, pout float64
	for i, p := range points {
		in[i], out[i] = p.RecordsIn, p.RecordsOut
		pin, pout = max(pin, p.RecordsIn), max(pout, p.RecordsOut)
	}
	last := points[len(points)-1]
	span := common.Dur(last.Time.Sub(points[0].Time).Round(time.Second))
	line := func(label string, now, peak float64, vals []float64, sty common.Style) string {
		left := fmt.Sprintf("%-11s %7s/s ", label, common.Rate(now))
		right := fmt.Sprintf(" peak %s/s", common.Rate(peak))
		sw := w - common.Width(left) - common.Width(right)
		if sw < 8 {
			right = ""
			sw = w - common.Width(left)
		}
		if sw < 4 {
			return left
		}
		return left + sty.Render(components.SparklineMax(resample(vals, sw), sw, peak)) + st.Muted.Render(right)
	}
	return []string{
		line("records in", last.RecordsIn, pin, in, st.Spark),
		line("records out", last.RecordsOut, pout, out, st.SparkOut),
		st.Faint.Render("last " + span + ", oldest left"),
	}
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

func (v *Overview) alertLines(st *common.Styles, w, h int) []string {
	title := sectionTitle(st, "Alerts")
	if len(v.alerts) == 0 {
		return []string{title, st.OK.Render("✓ nothing to report")}
	}
	title += st.Muted.Render(" (" + strconv.Itoa(len(v.alerts)) + ")")
	lines := []string{title}
	rows := h - 1
	v.scroll = min(v.scroll, max(len(v.alerts)-rows, 0))
	for i := v.scroll; i < len(v.alerts) && len(lines) < h; i++ {
		a := v.alerts[i]
		var mark string
		switch a.Level {
		case common.LevelError:
			mark = st.Err.Render("✖ ")
		case common.LevelWarn:
			mark = st.Warn.Render("▲ ")
		default:
			mark = st.Info.Render("● ")
		}
		lines = append(lines, mark+common.Trunc(a.Text, max(w-2, 1)))
	}
	if rest := len(v.alerts) - v.scroll - (len(lines) - 1); rest > 0 && len(lines) > 1 {
		lines[len(lines)-1] = st.Muted.Render(fmt.Sprintf("  … %d more (j/k scroll)", rest+1))
	}
	return lines
}
