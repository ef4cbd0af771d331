package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// View implements tea.Model. Layout, top to bottom: the tab bar (with the
// DEMO, RO and LOW-BW badges), the active view (or the help overlay), the hint line
// (command line, flash message or key hints) and the status bar. Every line
// is clipped to the width and the frame has exactly the terminal's height.
func (m *Model) View() tea.View {
	return screenView(m.render(), "ilinkdash — "+sanitize.String(m.ctx.Name))
}

// screenView is a frame as every root shows it (a cluster's dashboard or
// the Fleet tab): on the alternate screen, with cell-motion mouse reports,
// under the window title.
func screenView(frame, title string) tea.View {
	v := tea.NewView(frame)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = title
	return v
}

func (m *Model) render() string {
	w, h := m.ctx.Width, m.ctx.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < 20 || h < 5 {
		return common.Frame([]string{"ilinkdash", "terminal too small", strconv.Itoa(w) + "×" + strconv.Itoa(h)}, w, h)
	}
	var b strings.Builder
	b.WriteString(m.tabBar(w))
	b.WriteByte('\n')
	bh := m.bodyHeight()
	var body string
	if m.helpOpen {
		body = m.helpView(w, bh)
	} else {
		body = m.views[m.active].View()
		if m.cmdOpen && len(m.cmdMatch) > 1 {
			body = m.overlayCompletions(body, w, bh)
		}
	}
	b.WriteString(common.Frame(common.SplitLines(body), w, bh))
	b.WriteByte('\n')
	b.WriteString(common.ClipStyled(m.hintLine(w), w))
	b.WriteByte('\n')
	b.WriteString(m.statusBar(w))
	return b.String()
}

type tabSpan struct {
	id     common.ViewID
	x0, x1 int
	label  string
}

type tabBarLayout struct {
	tabs   []tabSpan
	badges []string // plain text of each badge
	crumb  string   // the breadcrumb after a drill-down ("Overview › group x"), sanitized
}

// tabLayout places the tabs for width w: full titles when they fit, else
// numbers with only the active title, else the active title alone. The
// same function serves drawing and mouse hit-testing.
func (m *Model) tabLayout(w int) tabBarLayout {
	var lay tabBarLayout
	if m.ctx.Demo {
		lay.badges = append(lay.badges, " DEMO ")
	}
	if m.ctx.ReadOnly {
		lay.badges = append(lay.badges, " RO ")
	}
	if m.ctx.Pace.Low() {
		// The low-bandwidth budget is on (asked for, or the terminal's
		// writes block): the operator should know why the tail moves by pages.
		lay.badges = append(lay.badges, " LOW-BW ")
	}
	badgeW := 0
	for _, bd := range lay.badges {
		badgeW += len(bd) + 1
	}
	avail := w - badgeW
	if bc := m.breadcrumb(); len(bc) > 0 {
		// The way the drill-downs came: the tabs give way to it (numbers
		// only) up to half the line.
		lay.crumb = strings.Join(bc, " › ")
		avail -= min(common.Width(lay.crumb)+2, w/2)
	}
	head := common.Width(m.fleetLabel()) // the cluster's name in a fleet
	for tier := 0; tier < 3; tier++ {
		lay.tabs = lay.tabs[:0]
		x := head
		for id := common.ViewID(0); id < common.NumViews; id++ {
			if !m.visible(id) {
				continue
			}
			num := strconv.Itoa(int(id) + 1)
			title := m.views[id].Title()
			// A tail runs while another tab shows: its tab says so
			// ("6 Tail ●", "⏸" paused or held); its own header does on it.
			badge := ""
			if b, ok := m.views[id].(interface{ Badge() string }); ok && id != m.active {
				if badge = b.Badge(); badge != "" {
					title += " " + badge
				}
			}
			var label string
			switch {
			case tier == 0, id == m.active:
				label = " " + num + " " + title + " "
			case tier == 1:
				label = " " + num + badge + " "
			default:
				continue
			}
			lw := common.Width(label)
			lay.tabs = append(lay.tabs, tabSpan{id: id, x0: x, x1: x + lw, label: label})
			x += lw
		}
		if x <= avail || tier == 2 {
			break
		}
	}
	return lay
}

func (m *Model) tabBar(w int) string {
	st := m.ctx.Styles
	lay := m.tabLayout(w)
	var b strings.Builder
	b.WriteString(st.BadgeRO.Render(m.fleetLabel()))
	x := common.Width(m.fleetLabel())
	for _, t := range lay.tabs {
		if t.id == m.active && st.Mode == common.Dumb {
			b.WriteString("[" + t.label[1:len(t.label)-1] + "]") // same width
		} else if t.id == m.active {
			b.WriteString(st.TabActive.Render(t.label))
		} else {
			b.WriteString(st.TabInactive.Render(t.label))
		}
		x = t.x1
	}
	var badges strings.Builder
	bw := 0
	for _, bd := range lay.badges {
		badges.WriteByte(' ')
		if strings.Contains(bd, "DEMO") {
			badges.WriteString(st.BadgeDemo.Render(bd))
		} else {
			badges.WriteString(st.BadgeRO.Render(bd))
		}
		bw += len(bd) + 1
	}
	if gap := w - x - bw; gap > 0 {
		fill := strings.Repeat(" ", gap)
		if lay.crumb != "" && gap > 4 {
			fill = common.Fit("  "+common.Trunc(lay.crumb, gap-3), gap)
		}
		b.WriteString(st.TabBar.Render(fill))
	}
	b.WriteString(badges.String())
	return common.ClipStyled(b.String(), w)
}

// hintLine: the command line when open, else a fresh flash message, else
// the key hints generated from the bindings.
func (m *Model) hintLine(w int) string {
	st := m.ctx.Styles
	if m.cmdOpen {
		m.cmd.SetWidth(min(w, max(w/2, 30)))
		line := m.cmd.View(st)
		if len(m.cmdMatch) == 1 && m.cmdMatch[0] != m.cmd.Value() {
			line += st.Faint.Render("  tab → " + m.cmdMatch[0])
		} else if len(m.cmdMatch) == 0 && m.cmd.Value() != "" {
			line += st.Faint.Render("  no match")
		}
		return line
	}
	if m.flash != "" && m.ctx.Now().Sub(m.flashAt) < flashFor {
		return st.ForLevel(m.flashLevel).Render(common.Trunc(m.flash, w))
	}
	return shortHelp(st, dedupe(m.hintBindings()), w)
}

// hintBindings are the keys that work now: the help overlay's, a view's
// own in its current mode (a dialog, a form navigated or edited: see
// common.KeyHinter), else the view's short help and, unless the view
// captures the keyboard, the global keys.
func (m *Model) hintBindings() []key.Binding {
	k := m.ctx.Keys
	if m.helpOpen {
		return []key.Binding{k.Down, k.Up, k.Back}
	}
	v := m.views[m.active]
	if kh, ok := v.(common.KeyHinter); ok {
		if bs, ok := kh.KeyHints(); ok {
			return bs
		}
	}
	bindings := append([]key.Binding(nil), v.ShortHelp()...)
	if !v.Capturing() {
		bindings = append(bindings, k.Help, k.Command, k.Quit)
	}
	return bindings
}

// dedupe drops bindings whose help key was already listed.
func dedupe(bs []key.Binding) []key.Binding {
	seen := map[string]bool{}
	out := bs[:0:0]
	for _, b := range bs {
		if k := b.Help().Key; !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	return out
}

// shortHelp renders "key desc · key desc", keeping whole items only.
func shortHelp(st *common.Styles, bs []key.Binding, w int) string {
	var b strings.Builder
	used := 0
	sep := st.Faint.Render(" · ")
	for _, kb := range bs {
		if !kb.Enabled() || kb.Help().Key == "" {
			continue
		}
		item := st.HelpKey.Render(kb.Help().Key) + " " + st.Muted.Render(kb.Help().Desc)
		iw := common.Width(kb.Help().Key) + 1 + common.Width(kb.Help().Desc)
		extra := iw
		if used > 0 {
			extra += 3
		}
		if used+extra > w {
			break
		}
		if used > 0 {
			b.WriteString(sep)
		}
		b.WriteString(item)
		used += extra
	}
	return b.String()
}

// statusBar: context · view status · age of the view's data, or the
// polling error with its age and the age of the last good data. The view's
// status gets the width the other parts leave (at least a third of the
// line, as errors give way to it up to there).
func (m *Model) statusBar(w int) string {
	st := m.ctx.Styles
	now := m.ctx.Now()
	v := m.views[m.active]
	name := st.StatusBar.Render(" " + sanitize.String(m.ctx.Name) + " ")
	status := v.Status()
	// What the status may take at least; an error text gives way to it.
	statusMin := 0
	if status != "" {
		statusMin = min(common.Width(status), max(w/3, 10)) + 1
	}
	// Errors: the active view's resources first.
	var errs []string
	mine := map[common.ResID]bool{}
	if p := v.Primary(); p >= 0 {
		mine[p] = true
	}
	for _, r := range v.Wants() {
		mine[r] = true
	}
	others := 0
	for id := common.ResID(0); id < common.NumRes; id++ {
		s := m.poll.res[id]
		if !s.failing() || s.idle() {
			// An idle resource (no view wants it) is not asked again, so
			// its last error says nothing about now: after an outage it
			// would stay "failing" while everything else works again.
			continue
		}
		if !mine[id] && len(errs) > 0 {
			others++
			continue
		}
		data := "no data yet"
		if !s.okAt.IsZero() {
			data = "data " + common.Ago(now, s.okAt)
		}
		msg := "⚠ " + id.String() + ": " + sanitize.Error(s.err)
		if health.Unreachable(s.err) {
			target := sanitize.String(m.ctx.Target)
			if target == "" {
				target = "the cluster"
			}
			msg = "✖ cannot reach " + target + ": " + sanitize.String(health.ReachReason(s.err))
		}
		age := " (failing for " + common.Dur(now.Sub(s.errSince)) + ", " + data + ")"
		if len(errs) == 0 {
			// The age must stay visible: a long error text gives way.
			room := w - common.Width(name) - statusMin - 2 - common.Width(age)
			msg = common.Trunc(msg, max(room, 12))
		}
		errs = append(errs, st.StatusErr.Render(msg)+st.StatusMuted.Render(age))
	}
	var right string
	switch {
	case len(errs) > 0:
		right = strings.Join(errs, " ")
		if others > 0 {
			right += st.StatusErr.Render(" +" + strconv.Itoa(others) + " more failing")
		}
	default:
		if p := v.Primary(); p >= 0 {
			s := m.poll.res[p]
			switch {
			case s.okAt.IsZero() && s.inFlight:
				right = st.StatusMuted.Render(p.String() + " loading…")
			case !s.okAt.IsZero() && now.Sub(s.okAt) > m.ctx.StaleAfter(p):
				// No reply for three intervals: the data on screen is old.
				right = st.StatusWarn.Render("● " + p.String() + " " + common.Ago(now, s.okAt) + " · stale")
			case !s.okAt.IsZero():
				right = st.StatusOK.Render("● ") + st.StatusMuted.Render(p.String()+" "+common.Ago(now, s.okAt))
			}
		}
	}
	line := name
	if status != "" {
		room := w - common.Width(name) - 1
		if right != "" {
			room -= 2 + common.Width(right)
		}
		room = max(room, statusMin-1)
		line += st.StatusBar.Render(" ") + st.StatusMuted.Render(common.Trunc(status, room))
	}
	if right != "" {
		line += st.StatusBar.Render("  ") + right
	}
	line = common.ClipStyled(line, w)
	if pad := w - common.Width(line); pad > 0 {
		line += st.StatusBar.Render(strings.Repeat(" ", pad))
	}
	return line
}

// overlayCompletions draws the command-line matches over the bottom of the
// body.
func (m *Model) overlayCompletions(body string, w, h int) string {
	st := m.ctx.Styles
	lines := common.SplitLines(body)
	for len(lines) < h {
		lines = append(lines, "")
	}
	n := min(len(m.cmdMatch), 6, h)
	start := 0
	if m.cmdSel > 0 {
		start = max(0, min(m.cmdSel-1, len(m.cmdMatch)-n))
	}
	for i := 0; i < n; i++ {
		idx := start + i
		text := common.Fit(" "+m.cmdMatch[idx], min(w, 40))
		if idx == (m.cmdSel-1+len(m.cmdMatch))%len(m.cmdMatch) && m.cmdSel > 0 {
			text = st.CursorRow(text, min(w, 40))
		} else {
			text = st.TabBar.Render(text)
		}
		lines[h-n+i] = text
	}
	return strings.Join(lines[:h], "\n")
}

// helpView is the `?` overlay, generated from the key bindings: global keys,
// then the active view's columns. Disabled bindings (read-only) are left
// out.
func (m *Model) helpView(w, h int) string {
	st := m.ctx.Styles
	k := m.ctx.Keys
	v := m.views[m.active]
	type col struct {
		title string
		binds []key.Binding
	}
	cols := []col{{"Global", k.GlobalHelp()}}
	var titles []string
	if ht, ok := v.(common.HelpTitler); ok {
		titles = ht.HelpTitles()
	}
	for i, g := range v.FullHelp() {
		title := v.Title()
		if i == 0 && len(v.FullHelp()) > 1 {
			title = "Navigation"
		}
		if i < len(titles) && titles[i] != "" {
			title = titles[i]
		}
		cols = append(cols, col{title, g})
	}
	// Render each column to lines.
	var blocks [][]string
	widths := []int{}
	for _, c := range cols {
		var lines []string
		kw := 0
		for _, b := range c.binds {
			if b.Enabled() {
				kw = max(kw, common.Width(b.Help().Key))
			}
		}
		for _, b := range c.binds {
			if !b.Enabled() {
				continue
			}
			lines = append(lines, st.HelpKey.Render(common.Fit(b.Help().Key, kw))+"  "+st.HelpDesc.Render(b.Help().Desc))
		}
		if len(lines) == 0 {
			continue
		}
		lines = append([]string{st.HelpTitle.Render(c.title)}, lines...)
		cw := 0
		for _, l := range lines {
			cw = max(cw, common.Width(l))
		}
		blocks = append(blocks, lines)
		widths = append(widths, cw)
	}
	head := st.Title.Render("Keys") + st.Muted.Render(" — "+v.Title()+" · esc or ? closes · j/k scroll")
	out := []string{head}
	if m.ctx.ReadOnly {
		out = append(out, st.Warn.Render("read-only: actions that change the cluster are hidden"))
	}
	out = append(out, "")
	// Lay blocks out in rows of columns that fit the width.
	const gap = 4
	for i := 0; i < len(blocks); {
		j, used := i, 0
		for j < len(blocks) && (j == i || used+gap+widths[j] <= w) {
			if j > i {
				used += gap
			}
			used += widths[j]
			j++
		}
		rows := 0
		for _, bl := range blocks[i:j] {
			rows = max(rows, len(bl))
		}
		for r := 0; r < rows; r++ {
			var b strings.Builder
			for c := i; c < j; c++ {
				cell := ""
				if r < len(blocks[c]) {
					cell = blocks[c][r]
				}
				if c < j-1 {
					cell = common.PadStyled(cell, widths[c]+gap)
				}
				b.WriteString(cell)
			}
			out = append(out, b.String())
		}
		out = append(out, "")
		i = j
	}
	// Scroll.
	m.helpScroll = min(m.helpScroll, max(len(out)-h, 0))
	return common.Frame(out[m.helpScroll:], w, h)
}
