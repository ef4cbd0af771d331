// Package ui is ilinkdash's terminal dashboard: a Bubble Tea v2 root model
// that routes messages to its tabs (the packages under ui/views), owns the shared
// Context, polls the admin resources, and draws the tab bar, the hint line
// and the status bar.
//
// Running it:
//
//	ctx := ui.NewContext(resolved.Context, resolved.Embedded, os.Getenv)
//	m := ui.New(ctx, sources, ui.WithSwitcher(switchFn))
//	p := tea.NewProgram(m, tea.WithContext(cmdCtx), tea.WithFPS(ui.FPS))
//	_, err := p.Run()
//
// No program option is needed for the alternate screen or the mouse: the
// model's View sets AltScreen, MouseMode (cell motion) and the window title
// (Bubble Tea v2 declarative view). Tests use tea.WithWindowSize and
// tea.WithColorProfile. Nothing else may write to the terminal while the
// program runs (log to a file with --debug).
package ui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/cluster"
	"ilinkdash/ui/views/groups"
	"ilinkdash/ui/views/overview"
	"ilinkdash/ui/views/publish"
	"ilinkdash/ui/views/queues"
	"ilinkdash/ui/views/tab"
	"ilinkdash/ui/views/tail"
	"ilinkdash/ui/views/topics"
)

// Context is the shared program context (see common.Context).
type Context = common.Context

// Sources is everything the dashboard reads and calls (see tab.Sources).
type Sources = tab.Sources

// NewContext builds the Context from the effective configuration; demo
// marks the embedded demo engine; getenv is os.Getenv (NO_COLOR).
func NewContext(cfg config.Context, demo bool, getenv func(string) string) *Context {
	return common.NewContext(cfg, demo, getenv)
}

// Switcher connects to another configured context for `:ctx NAME`. It runs
// in a command (it may dial); the dashboard then drops everything it had
// from the old context. Closing the old connections is the switcher's job.
type Switcher func(ctx context.Context, name string) (Sources, config.Context, error)

// Option configures the root model.
type Option func(*Model)

// WithSwitcher enables `:ctx NAME`.
func WithSwitcher(s Switcher) Option { return func(m *Model) { m.switcher = s } }

// WithTailer enables the tail tab (records through a group consumer).
// Without it the tab explains that tailing is unavailable, unless the
// Sources also implement tail.Tailer. After `:ctx NAME` the new Sources'
// own Tailer (if any) is used.
func WithTailer(t tail.Tailer) Option { return func(m *Model) { m.tailer = t } }

// WithHistoryFile keeps the `:` history in path across runs
// (config.HistoryFile in the program; none by default).
func WithHistoryFile(path string) Option { return func(m *Model) { m.hist = newHistory(path) } }

// WithoutLinkProbe turns the link probe (LinkProbe) off: the dashboard
// then writes no cursor-position query (a test that proves no such query
// ever reaches the terminal from a record).
func WithoutLinkProbe() Option { return func(m *Model) { m.probe = nil } }

// WithPublisher enables the publish tab (hidden anyway in read-only
// contexts). Same rules as WithTailer.
func WithPublisher(p publish.Publisher) Option { return func(m *Model) { m.publisher = p } }

// FPS is the frame rate to give the program (tea.WithFPS(ui.FPS)).
// Bubble Tea's renderer ticks at its frame rate (60/s by default) even when
// nothing changes, and those wake-ups were most of an idle dashboard's CPU.
// 20 frames/s matches the fastest thing the dashboard redraws by itself,
// the tail's 50 ms drain (so a flooded tail still gets 20 frames/s, twice
// the 10 it needs), and a key still shows within 50 ms. Measured attached
// to an engine without traffic (screenshots/measure.sh idle, part c):
// 1.6–1.8 % of a core at 60 frames/s, about 1.0 % at 30, 0.8 % at 20.
//
// --max-fps (or a context's fps:) changes it, and --low-bandwidth lowers
// it to config.LowBandwidthFPS: config.Context.FrameRate is what the
// program uses.
const FPS = config.DefaultFPS

// flashFor is how long a flash message stays on the hint line.
const flashFor = 6 * time.Second

// Model is the root model.
type Model struct {
	ctx       *Context
	src       Sources
	views     [common.NumViews]common.View
	overview  *overview.View
	health    *tab.HealthTracker // one health evaluation: groups view and overview
	tail      *tail.Tabs         // the tails kept; they run while other tabs show
	publish   *publish.View
	tailer    tail.Tailer
	publisher publish.Publisher
	active    common.ViewID
	poll      *poller
	switcher  Switcher

	cmdOpen  bool
	cmd      components.Input
	cmdMatch []string
	cmdSel   int
	hist     *history

	helpOpen   bool
	helpScroll int

	flash      string
	flashLevel common.Level
	flashAt    time.Time

	nav []navEntry // the drill-downs that led to the tab shown (esc walks back)

	topicNames []string // safe topic names for completion
	switching  string
	clockArmed bool
	probe      *LinkProbe  // nil: WithoutLinkProbe
	lag        *lagHistory // nil: no lag history (WithLagHistory)
	lagOpen    LagOpener   // opens a switched-to context's history (nil: a switch detaches it)
	inFleet    bool        // one of a Fleet's clusters (NewFleet)
	fleetOpen  bool        // in a Fleet, its tabs show (Fleet.show)
}

// New returns the dashboard's root model.
func New(ctx *Context, src Sources, opts ...Option) *Model {
	m := &Model{ctx: ctx, src: src, active: common.ViewOverview, hist: newHistory(""), probe: &LinkProbe{}}
	setTarget(ctx, src)
	m.cmd = components.NewInput(":", "topics, groups, tail PATTERN, ctx NAME… (tab completes)")
	for _, o := range opts {
		o(m)
	}
	if m.tailer == nil {
		m.tailer, _ = src.(tail.Tailer)
	}
	if m.publisher == nil {
		m.publisher, _ = src.(publish.Publisher)
	}
	m.buildViews()
	m.poll = newPoller(ctx, tab.Fetchers(src), m.wanted)
	if m.probe != nil && !ctx.Pace.LowBandwidth {
		blocked := ctx.Pace.SlowTerminal // the Meter's blocking writes, when wired
		ctx.Pace.SlowTerminal = func() bool {
			return m.probe.Slow(ctx.Now()) || blocked != nil && blocked()
		}
	}
	return m
}

// probeMsg is the link probe's tick (LinkProbe).
type probeMsg struct{}

// probeLink sends the link probe's query when one is due, and arms its
// next tick. A low-bandwidth dashboard is already on the smallest budget:
// it does not probe.
func (m *Model) probeLink() tea.Cmd {
	if m.probe == nil || m.ctx.Pace.LowBandwidth {
		return nil
	}
	now := m.ctx.Now()
	due := m.probe.Due(now)
	if m.probe.GaveUp() {
		return nil
	}
	tick := m.ctx.Tick(ProbeEvery, func(time.Time) tea.Msg { return probeMsg{} })
	if !due {
		return tick
	}
	m.probe.Sent(now)
	return tea.Batch(tea.RequestCursorPosition, tick)
}

func (m *Model) buildViews() {
	ctx, src := m.ctx, m.src
	m.health = tab.NewHealthTracker(health.Config(ctx.Config.Health))
	m.overview = overview.New(ctx, m.health)
	m.tail = tail.NewTabs(ctx, m.tailer)
	m.publish = publish.New(ctx, m.publisher)
	m.publish.SetCreator(src) // a publish to a missing topic offers to create it
	m.views = [common.NumViews]common.View{
		common.ViewOverview: m.overview,
		common.ViewTopics:   topics.New(ctx, src),
		common.ViewGroups:   groups.New(ctx, src, m.health),
		common.ViewCluster:  cluster.New(ctx, src),
		common.ViewQueues:   queues.New(ctx, src),
		common.ViewTail:     m.tail,
		common.ViewPublish:  m.publish,
	}
	m.resize()
}

// setTarget names where the dashboard connects: the Sources' own word for
// it when they have one, else the configured admin address.
func setTarget(ctx *Context, src Sources) {
	if t, ok := src.(interface{ Target() string }); ok && t.Target() != "" {
		ctx.Target = t.Target()
		return
	}
	ctx.Target = ctx.Config.Admin
}

// clockMsg redraws the screen when time alone changes what it must say:
// once a second while a poll fails (the ages move), and otherwise at the
// moment the oldest polled data would turn stale (a hung engine answers
// nothing for up to the poll timeout, and the screen must say its data is
// old). One clock tick is pending at a time.
type clockMsg struct{}

func (m *Model) clock() tea.Cmd {
	if m.clockArmed {
		return nil
	}
	now := m.ctx.Now()
	d := time.Second
	if at, ok := m.staleAt(); ok && at.Sub(now) > d {
		d = at.Sub(now)
	}
	m.clockArmed = true
	return m.ctx.Tick(d, func(time.Time) tea.Msg { return clockMsg{} })
}

// staleAt is when the first polled data turns stale; false while a poll
// fails or data is stale already (the clock then ticks every second).
func (m *Model) staleAt() (time.Time, bool) {
	var first time.Time
	now := m.ctx.Now()
	for id := common.ResID(0); id < common.NumRes; id++ {
		s := m.poll.res[id]
		if s.fetch == nil || !m.wanted(id) {
			continue
		}
		if s.failing() || s.okAt.IsZero() {
			return time.Time{}, false
		}
		at := s.okAt.Add(m.ctx.StaleAfter(id))
		if !at.After(now) {
			return time.Time{}, false
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
	}
	return first, !first.IsZero()
}

// wanted: the node summary, the cluster definition, topics, groups and
// queues feed the overview's counts and alerts (overview.AlwaysPolled) and
// always poll, so every tab shows the same nodes and groups; the rest only
// while a view that shows them is active. A Fleet's cluster always polls
// its stat series (its row's in/out, as its Overview does), and while its
// tabs are hidden nothing more: its load is then a single dashboard's on
// its Overview, whichever tab it was left on.
func (m *Model) wanted(r common.ResID) bool {
	for _, w := range overview.AlwaysPolled {
		if w == r {
			return true
		}
	}
	if m.inFleet && r == common.ResStats {
		return true // the Fleet row's in/out, whichever tab shows
	}
	if m.inFleet && !m.fleetOpen {
		return false // its tabs hidden behind the Fleet tab or another cluster's
	}
	for _, w := range m.views[m.active].Wants() {
		if w == r {
			return true
		}
	}
	return false
}

// visible reports whether a tab is offered (publish is hidden read-only).
func (m *Model) visible(id common.ViewID) bool {
	return !(id == common.ViewPublish && m.ctx.ReadOnly)
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.poll.start(), m.clock(), m.hist.load(), m.probeLink()}
	if m.ctx.ThemeName == config.ThemeAuto || m.ctx.ThemeName == "" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	for _, v := range m.views {
		cmds = append(cmds, v.Init())
	}
	return tea.Batch(cmds...)
}

func (m *Model) bodyHeight() int { return max(m.ctx.Height-3, 0) }

func (m *Model) resize() {
	for _, v := range m.views {
		v.SetSize(m.ctx.Width, m.bodyHeight())
	}
	m.cmd.SetWidth(m.ctx.Width)
}

func (m *Model) setActive(id common.ViewID) tea.Cmd {
	if id < 0 || id >= common.NumViews || !m.visible(id) {
		return nil
	}
	var cmds []tea.Cmd
	if id != m.active {
		if f, ok := m.views[m.active].(common.Focuser); ok {
			cmds = append(cmds, f.Blur())
		}
		if f, ok := m.views[id].(common.Focuser); ok {
			cmds = append(cmds, f.Focus())
		}
	}
	m.active = id
	return tea.Batch(append(cmds, m.poll.wake())...)
}

// shutdownViews releases what the views hold (the tail's stream, a
// running publish) without blocking.
func (m *Model) shutdownViews() {
	for _, v := range m.views {
		if c, ok := v.(common.Closer); ok {
			c.Shutdown()
		}
	}
}

func (m *Model) setFlash(level common.Level, text string) {
	m.flash, m.flashLevel, m.flashAt = text, level, m.ctx.Now()
}

// ctxSwitchedMsg is the result of a :ctx switch.
type ctxSwitchedMsg struct {
	name string
	src  Sources
	cfg  config.Context
	err  error
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.ctx.Width, m.ctx.Height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case tea.ColorProfileMsg:
		m.onColorProfile(msg.Profile)
		return m, nil
	case tea.BackgroundColorMsg:
		if m.ctx.ThemeName == config.ThemeAuto || m.ctx.ThemeName == "" {
			m.ctx.Dark = msg.IsDark()
			m.ctx.Rebuild()
		}
		return m, nil
	case pollTickMsg:
		return m, m.poll.onTick(msg)
	case clockMsg:
		m.clockArmed = false
		return m, m.clock()
	case probeMsg:
		return m, m.probeLink()
	case tea.CursorPositionMsg:
		if m.probe != nil {
			m.probe.Answer(m.ctx.Now())
		}
		return m, nil
	case pollResultMsg:
		return m, m.onPollResult(msg)
	case common.ViewMsg:
		if msg.To >= 0 && msg.To < common.NumViews {
			return m, m.views[msg.To].Update(msg)
		}
		return m, nil
	case common.RefreshMsg:
		var cmds []tea.Cmd
		for _, r := range msg.Res {
			cmds = append(cmds, m.poll.refresh(r))
		}
		return m, tea.Batch(cmds...)
	case common.OpenTailMsg:
		cmd := m.setActive(common.ViewTail)
		return m, tea.Batch(cmd, m.tail.Open(msg.Pattern))
	case common.OpenPublishMsg:
		if m.ctx.ReadOnly {
			// The context, or a served session's key, is read-only (the
			// dashboard cannot tell which): the words of the refused key.
			m.setFlash(common.LevelError, "read-only: publishing is off")
			return m, nil
		}
		m.publish.SetTarget(msg.Topic)
		return m, m.setActive(common.ViewPublish)
	case common.OpenMsg:
		return m, m.openTarget(msg.Target)
	case common.SwitchViewMsg:
		return m, m.setActive(msg.To)
	case common.FlashMsg:
		m.setFlash(msg.Level, msg.Text)
		return m, nil
	case ctxSwitchedMsg:
		return m, m.applySwitch(msg)
	case lagOpenedMsg:
		return m, m.lagOpened(msg)
	case historyLoadedMsg:
		m.hist.loaded(msg.lines)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.PasteMsg:
		if m.cmdOpen {
			m.cmd.Update(msg)
			m.updateCompletion()
			return m, nil
		}
		return m, m.views[m.active].Update(msg)
	case tea.MouseClickMsg:
		return m, m.handleClick(msg)
	case tea.MouseWheelMsg:
		return m, m.handleWheel(msg)
	}
	return m, nil
}

// onColorProfile adapts the styles to what the terminal can show.
func (m *Model) onColorProfile(p colorprofile.Profile) {
	// TERM=dumb: the renderer strips every attribute, so the cursor
	// row and the active tab would not show; mark them in text.
	if p == colorprofile.NoTTY && m.ctx.Mode != common.Plain && m.ctx.Mode != common.Dumb {
		m.ctx.Mode = common.Dumb
		m.ctx.Rebuild()
	}
	// Sixteen colours (TERM=linux): the palette made for them.
	if ansi := p == colorprofile.ANSI; ansi != m.ctx.ANSI16 {
		m.ctx.ANSI16 = ansi
		m.ctx.Rebuild()
	}
}

// onPollResult takes a poll's answer: the poller decides what reaches the
// views, which all get it.
func (m *Model) onPollResult(msg pollResultMsg) tea.Cmd {
	out, next := m.poll.onResult(msg)
	if out == nil {
		return nil
	}
	if d, ok := out.(common.DataMsg); ok && d.Res == common.ResTopics {
		m.noteTopics(d.Data)
	}
	if d, ok := out.(common.DataMsg); ok && d.Res == common.ResSummary {
		m.noteFailovers()
	}
	return tea.Batch(next, m.fanOut(out), m.clock())
}

// handleWheel scrolls the help when open, else the active view (its rows
// start below the tab bar).
func (m *Model) handleWheel(msg tea.MouseWheelMsg) tea.Cmd {
	if m.helpOpen {
		if msg.Button == tea.MouseWheelDown {
			m.helpScroll++
		} else if msg.Button == tea.MouseWheelUp {
			m.helpScroll = max(0, m.helpScroll-1)
		}
		return nil
	}
	msg.Y--
	return m.views[m.active].Update(msg)
}

// fanOut sends a polled result to every view.
func (m *Model) fanOut(msg tea.Msg) tea.Cmd {
	// The one health tracker takes the list in once, before the views
	// that read it (overview, groups) see it.
	cmds := make([]tea.Cmd, 0, len(m.views)+1)
	if d, ok := msg.(common.DataMsg); ok {
		m.health.Observe(d)
		if m.lag != nil {
			cmds = append(cmds, m.lag.record(d, m.health)) // written in a command; a chart reads it on its next read
		}
	}
	for _, v := range m.views {
		cmds = append(cmds, v.Update(msg))
	}
	return tea.Batch(cmds...)
}

// failoverSource is a Sources whose admin client fails over to another
// node's admin address and keeps the switches (live.Sources).
type failoverSource interface {
	AdminFailovers() []admin.Failover
}

// noteFailovers says each new switch of the admin connection to another
// node once: in the status line, and as an event of the overview's alert
// list. It reads the adapter's memory, nothing on the network.
func (m *Model) noteFailovers() {
	fs, ok := m.src.(failoverSource)
	if !ok {
		return
	}
	if fresh := m.overview.NoteFailovers(fs.AdminFailovers()); len(fresh) > 0 {
		m.setFlash(common.LevelWarn, sanitize.String(fresh[len(fresh)-1].Text()))
	}
}

func (m *Model) noteTopics(data any) {
	m.topicNames = m.topicNames[:0]
	for _, name := range topicNamesOf(data) {
		// Only names that need no sanitizing are offered for completion:
		// the command line then carries the real name.
		if sanitize.String(name) == name && !strings.ContainsAny(name, " ") {
			m.topicNames = append(m.topicNames, name)
		}
	}
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.ctx.Keys
	if key.Matches(msg, k.ForceQuit) {
		return m.quit()
	}
	if m.helpOpen {
		switch {
		case key.Matches(msg, k.Help, k.Back, k.Quit):
			m.helpOpen = false
		case key.Matches(msg, k.Down, k.PageDown):
			m.helpScroll++
		case key.Matches(msg, k.Up, k.PageUp):
			m.helpScroll = max(0, m.helpScroll-1)
		}
		return nil
	}
	if m.cmdOpen {
		return m.cmdKey(msg)
	}
	v := m.views[m.active]
	if v.Capturing() {
		return v.Update(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.helpOpen, m.helpScroll = true, 0
		return nil
	case key.Matches(msg, k.Command):
		m.openCmd()
		return nil
	case key.Matches(msg, k.Redraw):
		return tea.ClearScreen
	case key.Matches(msg, k.Refresh):
		return m.refreshActive()
	case key.Matches(msg, k.NextTab):
		m.nav = nil
		return m.cycleTab(1)
	case key.Matches(msg, k.PrevTab):
		m.nav = nil
		return m.cycleTab(-1)
	case key.Matches(msg, k.Back):
		if cmd, ok := m.navBack(); ok {
			return cmd
		}
		v.Back()
		return nil
	}
	if why, ok := m.refusal(msg, v); ok {
		m.setFlash(common.LevelWarn, why) // the key does nothing here: say why
		return nil
	}
	for i, b := range k.Tabs {
		if key.Matches(msg, b) {
			m.nav = nil
			return m.setActive(common.ViewID(i))
		}
	}
	return v.Update(msg)
}

func (m *Model) quit() tea.Cmd {
	m.poll.stop()
	m.shutdownViews()
	// The history's last save may still be running in its command: write
	// the newest snapshot before the program ends.
	if save := m.hist.save(); save != nil {
		return tea.Sequence(save, tea.Quit)
	}
	return tea.Quit
}

func (m *Model) cycleTab(d int) tea.Cmd {
	id := m.active
	for i := 0; i < int(common.NumViews); i++ {
		id = (id + common.ViewID(d) + common.NumViews) % common.NumViews
		if m.visible(id) {
			return m.setActive(id)
		}
	}
	return nil
}

func (m *Model) refreshActive() tea.Cmd {
	v := m.views[m.active]
	res := append([]common.ResID{common.ResSummary}, v.Wants()...)
	if p := v.Primary(); p >= 0 {
		res = append(res, p)
	}
	var cmds []tea.Cmd
	seen := map[common.ResID]bool{}
	for _, r := range res {
		if !seen[r] {
			seen[r] = true
			cmds = append(cmds, m.poll.refresh(r))
		}
	}
	m.setFlash(common.LevelInfo, "refreshing…")
	return tea.Batch(cmds...)
}

func (m *Model) handleClick(msg tea.MouseClickMsg) tea.Cmd {
	if m.helpOpen || m.cmdOpen {
		return nil
	}
	if msg.Y == 0 && msg.Button == tea.MouseLeft {
		for _, t := range m.tabLayout(m.ctx.Width).tabs {
			if msg.X >= t.x0 && msg.X < t.x1 {
				m.nav = nil
				return m.setActive(t.id)
			}
		}
		return nil
	}
	if msg.Y >= 1 && msg.Y <= m.bodyHeight() {
		mm := msg
		mm.Y--
		return m.views[m.active].Update(mm)
	}
	return nil
}

func (m *Model) switchContext(name string) tea.Cmd {
	if m.switcher == nil {
		m.setFlash(common.LevelError, "switching contexts is not available here")
		return nil
	}
	m.switching = name
	m.setFlash(common.LevelInfo, "connecting to context "+sanitize.String(name)+"…")
	sw := m.switcher
	return func() tea.Msg {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		src, cfg, err := sw(c, name)
		return ctxSwitchedMsg{name: name, src: src, cfg: cfg, err: err}
	}
}

func (m *Model) applySwitch(msg ctxSwitchedMsg) tea.Cmd {
	if msg.name != m.switching {
		return nil // superseded by a later :ctx
	}
	m.switching = ""
	if msg.err != nil {
		m.setFlash(common.LevelError, "context "+sanitize.String(msg.name)+": "+sanitize.Error(msg.err))
		return nil
	}
	c := m.ctx
	c.Config = msg.cfg
	c.Name = msg.cfg.Name
	if c.Name == "" {
		c.Name = msg.name
	}
	c.ReadOnly = msg.cfg.ReadOnly
	c.Pace.LowBandwidth = msg.cfg.LowBandwidth
	c.Demo = false
	if msg.cfg.Theme != "" && msg.cfg.Theme != c.ThemeName {
		c.ThemeName = msg.cfg.Theme
		if c.ThemeName != config.ThemeAuto {
			c.Dark = c.ThemeName != config.ThemeLight
		}
	}
	c.Rebuild()
	m.shutdownViews()
	m.src = msg.src
	setTarget(c, msg.src)
	m.tailer, _ = msg.src.(tail.Tailer)
	m.publisher, _ = msg.src.(publish.Publisher)
	m.buildViews()
	if !m.visible(m.active) {
		m.active = common.ViewOverview
	}
	m.topicNames = nil
	m.nav = nil
	m.setFlash(common.LevelOK, "switched to context "+sanitize.String(c.Name))
	return tea.Batch(m.switchLag(c.Name), m.poll.reset(tab.Fetchers(msg.src)))
}

// maxNav bounds the navigation stack: a longer walk forgets its oldest
// steps.
const maxNav = 16

// navEntry is one drill-down: the tab it left, the tab it opened and the
// breadcrumb word of what it opened ("group analytics").
type navEntry struct {
	from, to  common.ViewID
	fromTitle string
	crumb     string
}

// navValid reports whether the stack still describes where the user is:
// the last drill-down led to the tab shown. Any other way of changing tab
// (a tab key, a click, `t` on a topic, :commands) leaves it behind.
func (m *Model) navValid() bool {
	return len(m.nav) > 0 && m.nav[len(m.nav)-1].to == m.active
}

// openTarget routes a drill-down (common.OpenMsg): it pushes the step,
// shows the target's tab and asks that view to reveal the target; a
// partition's tail opens in the tail tab from the offset.
func (m *Model) openTarget(t common.Target) tea.Cmd {
	to := t.View()
	if !m.visible(to) {
		return nil
	}
	if !m.navValid() {
		m.nav = m.nav[:0]
	}
	if len(m.nav) == maxNav {
		m.nav = append(m.nav[:0], m.nav[1:]...)
	}
	m.nav = append(m.nav, navEntry{from: m.active, to: to, fromTitle: m.views[m.active].Title(), crumb: t.Crumb()})
	cmd := m.setActive(to)
	if t.Kind == common.TargetTail {
		from := position.Position{Kind: position.Offset, Topic: t.Topic, Partition: t.Partition, Offset: t.Offset}
		return tea.Batch(cmd, m.tail.OpenSpec(tail.Spec{Target: t.Topic, From: from}))
	}
	if r, ok := m.views[to].(common.Revealer); ok {
		cmd = tea.Batch(cmd, r.Reveal(t))
	}
	return cmd
}

// navBack is esc after a drill-down: back to the tab it left, as it was.
func (m *Model) navBack() (tea.Cmd, bool) {
	if !m.navValid() {
		m.nav = nil
		return nil, false
	}
	e := m.nav[len(m.nav)-1]
	m.nav = m.nav[:len(m.nav)-1]
	return m.setActive(e.from), true
}

// breadcrumb is the way the drill-downs came ("Overview › group
// analytics › partition 3"), nil when the tab was not reached by one.
func (m *Model) breadcrumb() []string {
	if !m.navValid() {
		return nil
	}
	out := []string{m.nav[0].fromTitle}
	for _, e := range m.nav {
		out = append(out, e.crumb)
	}
	return out
}
