package ui

import (
	"reflect"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/fleet"
	"ilinkdash/ui/views/tab"
)

// Fleet is the dashboard watching several clusters (issue 27): one root
// Model per cluster, each with its own poller on its own context's
// intervals, its own health tracker and its own tabs, exactly as a
// single-cluster dashboard has them; and the Fleet tab, a summary of
// every cluster computed from those trackers. Every command a cluster's
// model returns is wrapped so that its message comes back addressed to
// that cluster (clusterMsg): an unreachable cluster's polls time out in
// their own commands and never hold the others' results. Enter on a row
// shows that cluster's tabs (the tab bar names it); KeyMap.Fleet (0)
// returns to the Fleet tab.
type Fleet struct {
	ctx      *Context // the Fleet tab's own: size, styles, keys
	clusters []*fleetCluster
	view     *fleet.View
	shown    int // the cluster whose tabs show; -1: the Fleet tab
	helpOpen bool
	armed    bool // a fleetClockMsg is pending
	// followers keep the rows of `spokes: all` contexts in step with
	// their hubs' spoke lists (WithSpokes).
	followers []*spokeFollower
	started   bool // Init ran: a cluster added later is started on its own
}

// fleetCluster is one watched cluster: its dashboard and what the Fleet
// row needs beyond the health tracker, taken from its accepted polls.
type fleetCluster struct {
	m                  *Model
	summary            tab.ClusterSummary
	summaryOK          bool
	underRepl, offline int
	in, out            float64
	inPts, outPts      []float64
	// hubWord is what the hub says of this spoke when not running
	// (hubNotRunning, hubNotListed; "" otherwise), since hubSince.
	hubWord  string
	hubSince time.Time
}

// clusterMsg is a message of cluster i's model (a command it returned).
type clusterMsg struct {
	i   int
	msg tea.Msg
}

// fleetClockMsg redraws the Fleet tab once a second: the ages and the
// staleness of each row move with time alone.
type fleetClockMsg struct{}

// NewFleet returns the dashboard over several clusters: ctx is the Fleet
// tab's context (its name is the window title's), models the clusters'
// dashboards (ui.New each, on its own Context and Sources), in the order
// the contexts were given.
func NewFleet(ctx *Context, models []*Model, opts ...FleetOption) *Fleet {
	f := &Fleet{ctx: ctx, view: fleet.New(ctx), shown: -1}
	ctx.Fleet = true
	ctx.Rebuild()
	for _, m := range models {
		f.addCluster(m) // not started: Init starts them all
	}
	for _, o := range opts {
		o(f)
	}
	f.refreshRows()
	return f
}

// Shown is the cluster whose tabs show, -1 for the Fleet tab (tests).
func (f *Fleet) Shown() int { return f.shown }

// Init implements tea.Model.
func (f *Fleet) Init() tea.Cmd {
	f.started = true
	cmds := append([]tea.Cmd{f.clock()}, f.followInit()...)
	for i, c := range f.clusters {
		cmds = append(cmds, wrapCmd(i, c.m.Init()))
	}
	return tea.Batch(cmds...)
}

func (f *Fleet) clock() tea.Cmd {
	if f.armed {
		return nil
	}
	f.armed = true
	return f.ctx.Tick(time.Second, func(time.Time) tea.Msg { return fleetClockMsg{} })
}

// Update implements tea.Model.
func (f *Fleet) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case clusterMsg:
		return f, f.onCluster(msg)
	case spokeTickMsg, spokeListMsg, SpokesMsg:
		return f, f.onSpokes(msg)
	case fleetClockMsg:
		f.armed = false
		f.refreshRows()
		return f, f.clock()
	case fleet.OpenMsg:
		if msg.Index >= 0 && msg.Index < len(f.clusters) {
			return f, f.show(msg.Index)
		}
		return f, nil
	case tea.WindowSizeMsg:
		f.ctx.Width, f.ctx.Height = msg.Width, msg.Height
		f.view.SetSize(msg.Width, max(msg.Height-3, 0))
		return f, f.broadcast(msg)
	case tea.BackgroundColorMsg:
		if f.ctx.ThemeName == config.ThemeAuto || f.ctx.ThemeName == "" {
			f.ctx.Dark = msg.IsDark()
			f.ctx.Rebuild()
		}
		return f, f.broadcast(msg)
	case tea.ColorProfileMsg, tea.CursorPositionMsg:
		return f, f.broadcast(msg)
	case tea.KeyPressMsg:
		return f, f.onKey(msg)
	case tea.MouseClickMsg:
		return f, f.onClick(msg)
	}
	if f.shown >= 0 {
		return f, f.toCluster(f.shown, msg)
	}
	return f, nil
}

// show shows cluster i's tabs (-1: the Fleet tab). Only the shown
// cluster polls what its active tab wants beyond its Overview (Model.wanted):
// a cluster left on its Cluster tab does not keep reading the replication
// status and the leadership table behind the Fleet tab. The one shown wakes
// those (once the Fleet started: before, Init's polls take them).
func (f *Fleet) show(i int) tea.Cmd {
	if f.shown >= 0 {
		f.clusters[f.shown].m.fleetOpen = false
	}
	f.shown = i
	if i < 0 {
		return nil
	}
	m := f.clusters[i].m
	m.fleetOpen = true
	if !f.started {
		return nil
	}
	return wrapCmd(i, m.poll.wake())
}

// toCluster hands msg to cluster i's model, its commands addressed back
// to it.
func (f *Fleet) toCluster(i int, msg tea.Msg) tea.Cmd {
	_, cmd := f.clusters[i].m.Update(msg)
	return wrapCmd(i, cmd)
}

func (f *Fleet) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(f.clusters))
	for i := range f.clusters {
		cmds = append(cmds, f.toCluster(i, msg))
	}
	return tea.Batch(cmds...)
}

// onCluster delivers a cluster's own message and, for an accepted poll,
// notes what its Fleet row shows.
func (f *Fleet) onCluster(cm clusterMsg) tea.Cmd {
	if cm.i < 0 || cm.i >= len(f.clusters) {
		return nil
	}
	c := f.clusters[cm.i]
	cmd := f.toCluster(cm.i, cm.msg)
	if pm, ok := cm.msg.(pollResultMsg); ok {
		if s := c.m.poll.res[pm.res]; pm.err == nil && s.okAt.Equal(pm.at) && s.err == nil {
			c.take(pm.data)
		}
		f.refreshRows()
	}
	return cmd
}

// take keeps what the row needs of an accepted poll: the summary, the
// partition counts of the topic list, the latest in/out rates.
func (c *fleetCluster) take(data any) {
	switch d := data.(type) {
	case tab.ClusterSummary:
		c.summary, c.summaryOK = d, true
	case []admin.TopicInfo:
		c.underRepl, c.offline = 0, 0
		for _, t := range d {
			c.underRepl += t.UnderReplicated
			c.offline += t.Offline
		}
	case admin.StatSeries:
		if d.Scope != "" {
			return
		}
		// The last point is the current second, still counting
		// (PROTOCOL.md, STAT SERIES): the rates are the complete seconds'.
		pts := tab.CompleteSeconds(d.Points)
		c.inPts, c.outPts = sparkPoints(pts, c.inPts[:0], c.outPts[:0])
		if n := len(pts); n > 0 {
			c.in, c.out = pts[n-1].RecordsIn, pts[n-1].RecordsOut
		}
	}
}

// sparkPoints are the last minute of a stat series as ten 6 s means, for
// the row's sparklines.
func sparkPoints(pts []admin.StatPoint, in, out []float64) ([]float64, []float64) {
	const cells, per = 10, 6
	if len(pts) > cells*per {
		pts = pts[len(pts)-cells*per:]
	}
	for len(pts) > 0 {
		n := min(per, len(pts))
		var si, so float64
		for _, p := range pts[:n] {
			si += p.RecordsIn
			so += p.RecordsOut
		}
		in, out = append(in, si/float64(n)), append(out, so/float64(n))
		pts = pts[n:]
	}
	return in, out
}

// refreshRows recomputes every row (each from its cluster's memory;
// nothing on the network).
func (f *Fleet) refreshRows() {
	now := f.ctx.Now()
	rows := make([]fleet.Row, len(f.clusters))
	for i, c := range f.clusters {
		rows[i] = c.row(i, now)
	}
	f.view.SetRows(rows, now)
	f.view.SetNotes(f.followNotes())
}

// fleetFeeds are the lists a row's verdict is made of: the health is
// never shown without them fresh (docs/HEALTH.md).
var fleetFeeds = []common.ResID{common.ResSummary, common.ResTopics, common.ResGroups, common.ResQueues}

// state is the row's reachability and freshness, from the cluster's
// poller: unreachable while a list's latest poll did not reach it (the
// summary's first); stale while a list's poll answers with an error or
// its data is older than three intervals.
func (c *fleetCluster) state(r *fleet.Row, now time.Time) {
	m := c.m
	// The summary's failure first, then any other list's: a poll that
	// did not reach the cluster is said as such (a cluster that does not
	// answer holds its summary's first poll for the whole timeout, and a
	// list failing first was read as "answers with an error").
	for _, id := range fleetFeeds {
		if s := m.poll.res[id]; s.err != nil && health.Unreachable(s.err) {
			r.State, r.Since, r.Reason = fleet.Unreachable, s.errSince, sanitize.String(health.ReachReason(s.err))
			return
		}
	}
	r.State = fleet.Fresh
	var oldest time.Time
	for _, id := range fleetFeeds {
		s := m.poll.res[id]
		if s.okAt.IsZero() {
			if s.err != nil {
				r.State, r.Reason = fleet.Stale, "answers with an error: "+sanitize.Error(s.err)
			} else if r.State == fleet.Fresh {
				r.State = fleet.Waiting
			}
			continue
		}
		if oldest.IsZero() || s.okAt.Before(oldest) {
			oldest = s.okAt
		}
		switch {
		case s.err != nil:
			r.State, r.Reason = fleet.Stale, "answers with an error: "+sanitize.Error(s.err)
		case now.Sub(s.okAt) > m.ctx.StaleAfter(id) && r.State != fleet.Stale:
			r.State, r.Reason = fleet.Stale, "no answer for "+common.Dur(now.Sub(s.okAt))
		}
	}
	if r.State == fleet.Stale {
		r.Since = oldest
	}
}

// row is the cluster's Fleet row as of now.
func (c *fleetCluster) row(i int, now time.Time) fleet.Row {
	m := c.m
	r := fleet.Row{Index: i, Name: sanitize.String(m.ctx.Name), Target: sanitize.String(m.ctx.Target)}
	if r.Target == "" {
		r.Target = "the cluster"
	}
	c.state(&r, now)
	if r.State != fleet.Fresh {
		r.Reason = c.hubReason(r.Reason)
	}
	if r.State != fleet.Fresh || !c.summaryOK {
		return r
	}
	r.Nodes = len(c.summary.Nodes)
	r.Leader = "none"
	for _, n := range c.summary.Nodes {
		if n.State != admin.NodeDown && n.State != admin.NodeStopped {
			r.NodesUp++
		}
		if n.ID == c.summary.Leader {
			r.Leader = "node " + strconv.Itoa(n.ID) + " (" + sanitize.String(n.QueueManager) + ")"
		}
	}
	r.UnderRepl, r.Offline = c.underRepl, c.offline
	r.In, r.Out, r.InPts, r.OutPts = c.in, c.out, c.inPts, c.outPts
	words := map[health.Word]int{}
	for _, g := range m.health.Groups() {
		words[g.St.Word]++
		if g.St.Lag.Known() && (r.WorstGroup == "" || g.St.Lag.Records > r.WorstLag) {
			r.WorstLag, r.WorstGroup = g.St.Lag.Records, g.Name
		}
	}
	for w := health.Dead; w >= health.Unknown; w-- {
		if n := words[w]; n > 0 {
			r.Words = append(r.Words, fleet.WordCount{Word: w, N: n})
		}
	}
	r.Alerts = m.health.Alerts()
	for _, a := range r.Alerts {
		switch a.Kind {
		case health.KindQueueFull, health.KindQueueDepth:
			r.QueueAlerts++
		case health.KindDLQGrowing:
			r.DLQ++
		}
	}
	return r
}

// onKey: on the Fleet tab the fleet's keys; on a cluster's tabs every key
// is that cluster's, but KeyMap.Fleet (while the cluster's view does not
// capture the keyboard) goes back to the Fleet tab, and quitting quits
// every cluster.
func (f *Fleet) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := f.ctx.Keys
	if key.Matches(msg, k.ForceQuit) {
		return f.quit()
	}
	if f.shown >= 0 {
		m := f.clusters[f.shown].m
		free := !m.helpOpen && !m.cmdOpen && !m.views[m.active].Capturing()
		switch {
		case free && key.Matches(msg, k.Fleet):
			f.show(-1)
			f.refreshRows()
			return nil
		case free && key.Matches(msg, k.Quit):
			return f.quit()
		}
		return f.toCluster(f.shown, msg)
	}
	if f.helpOpen {
		if key.Matches(msg, k.Help, k.Back, k.Quit) {
			f.helpOpen = false
		}
		return nil
	}
	if f.view.Capturing() {
		return f.view.Update(msg) // the filter input: q and ? are text
	}
	switch {
	case key.Matches(msg, k.Quit):
		return f.quit()
	case key.Matches(msg, k.Help):
		f.helpOpen = true
		return nil
	case key.Matches(msg, k.Redraw):
		return tea.ClearScreen
	}
	return f.view.Update(msg)
}

// onClick: the tab bar's Fleet label returns to the Fleet tab; a row
// selects (and, selected, opens) its cluster.
func (f *Fleet) onClick(msg tea.MouseClickMsg) tea.Cmd {
	if f.shown >= 0 {
		m := f.clusters[f.shown].m
		if msg.Y == 0 && msg.X < common.Width(m.fleetLabel()) && !m.helpOpen && !m.cmdOpen {
			f.show(-1)
			f.refreshRows()
			return nil
		}
		return f.toCluster(f.shown, msg)
	}
	if f.helpOpen || msg.Button != tea.MouseLeft || msg.Y < 1 {
		return nil
	}
	return f.view.Click(msg.Y - 1)
}

// quit stops every cluster's polls and views, saves the `:` history and
// ends the program.
func (f *Fleet) quit() tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(f.clusters)+1)
	for _, c := range f.clusters {
		c.m.poll.stop()
		c.m.shutdownViews()
		cmds = append(cmds, c.m.hist.save())
	}
	return tea.Sequence(append(cmds, tea.Quit)...)
}

// View implements tea.Model: a cluster's own dashboard, or the Fleet tab.
func (f *Fleet) View() tea.View {
	if f.shown >= 0 {
		return f.clusters[f.shown].m.View()
	}
	return screenView(f.render(), "ilinkdash — fleet")
}

func (f *Fleet) render() string {
	w, h := f.ctx.Width, f.ctx.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < 20 || h < 5 {
		return common.Frame([]string{"ilinkdash", "terminal too small"}, w, h)
	}
	st := f.ctx.Styles
	bar := st.TabActive.Render(" 0 Fleet ")
	for _, c := range f.view.Rows() {
		bar += st.TabInactive.Render(" " + c.Name + " ")
	}
	if f.ctx.Demo {
		bar += " " + st.BadgeDemo.Render(" DEMO ")
	}
	body := f.view.View()
	if f.helpOpen {
		body = f.helpView()
	}
	hints := f.view.ShortHelp()
	hints = append(hints, f.ctx.Keys.Help, f.ctx.Keys.Quit)
	if f.helpOpen {
		hints = []key.Binding{f.ctx.Keys.Back}
	}
	status := st.StatusBar.Render(" fleet ") + st.StatusMuted.Render(" "+common.Plural(len(f.clusters), "cluster")+" watched, each on its own poller · "+common.Clock(f.ctx.Now())+" ")
	var b strings.Builder
	b.WriteString(common.ClipStyled(common.PadStyled(bar, w), w))
	b.WriteByte('\n')
	b.WriteString(common.Frame(common.SplitLines(body), w, max(h-3, 0)))
	b.WriteByte('\n')
	b.WriteString(common.ClipStyled(shortHelp(st, hints, w), w))
	b.WriteByte('\n')
	b.WriteString(common.ClipStyled(common.PadStyled(status, w), w))
	return b.String()
}

func (f *Fleet) helpView() string {
	st := f.ctx.Styles
	k := f.ctx.Keys
	lines := []string{st.Title.Render("Keys") + st.Muted.Render(" — Fleet · esc or ? closes"), ""}
	binds := append(f.view.FullHelp()[0], k.Fleet, k.Help, k.Redraw, k.Quit, k.ForceQuit)
	for _, b := range binds {
		lines = append(lines, "  "+st.HelpKey.Render(common.Fit(b.Help().Key, 8))+"  "+st.HelpDesc.Render(b.Help().Desc))
	}
	lines = append(lines, "", st.Muted.Render("  On a cluster's tabs every key is that cluster's; "+k.Fleet.Help().Key+" comes back here."))
	return strings.Join(lines, "\n")
}

// fleetLabel is the tab bar's head on a cluster's tabs in a fleet: the way
// back and the cluster's name ("" outside a fleet).
func (m *Model) fleetLabel() string {
	if !m.inFleet {
		return ""
	}
	return " 0 Fleet › " + sanitize.String(m.ctx.Name) + " "
}

// wrapCmd addresses cmd's message to cluster i. Bubble Tea's own messages
// (quit, clear screen, terminal queries) go to the program as they are;
// its batches and sequences are rebuilt with each command wrapped.
func wrapCmd(i int, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg { return wrapMsg(i, cmd()) }
}

var (
	teaPkg  = reflect.TypeOf(tea.BatchMsg(nil)).PkgPath()
	cmdType = reflect.TypeOf(tea.Cmd(nil))
)

func wrapMsg(i int, msg tea.Msg) tea.Msg {
	if msg == nil {
		return nil
	}
	t := reflect.TypeOf(msg)
	if t.PkgPath() != teaPkg {
		return clusterMsg{i: i, msg: msg}
	}
	if t.Kind() == reflect.Slice && t.Elem() == cmdType {
		v := reflect.ValueOf(msg)
		out := reflect.MakeSlice(t, v.Len(), v.Len())
		for j := 0; j < v.Len(); j++ {
			c, _ := v.Index(j).Interface().(tea.Cmd)
			out.Index(j).Set(reflect.ValueOf(wrapCmd(i, c)))
		}
		return out.Interface()
	}
	return msg
}
