package tail

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"context"

	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

func (v *View) filterKey(msg tea.Msg) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "enter":
			v.filtering = false
			v.filterIn.Blur()
			if v.filterErr != "" {
				// Keep the last valid filter; show what is in force.
				v.filterErr = ""
			}
			return
		case "esc":
			v.filtering = false
			v.filterIn.Blur()
			v.filterErr = ""
			v.setFilter(nil)
			return
		}
	}
	if !v.filterIn.Update(msg) {
		return
	}
	f, err := parseTailFilter(v.filterIn.Value())
	if err != nil {
		v.filterErr = err.Error()
		return
	}
	v.filterErr = ""
	if f != nil {
		v.filterErr = f.needsSchema(v.defaultFormat(v.spec.Target) == components.FormatDecoded)
	}
	v.setFilter(f)
}

// ShortHelp implements common.View.
func (v *View) ShortHelp() []key.Binding {
	k := v.Ctx.Keys
	if v.tailer == nil {
		return nil
	}
	if v.spec.Target == "" {
		return []key.Binding{k.Tail}
	}
	if v.vp.detail {
		return []key.Binding{k.Back, k.TailFormat, k.TailCopy, k.Up, k.Down, k.TailPause}
	}
	return []key.Binding{k.TailPause, k.Filter, k.TailDetail, k.TailJump, k.TailSearch, k.TailSave, k.TailCopy, k.Tail}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.TailFollow},
		{k.TailDetail, k.TailFormat, k.TailPause, k.Filter, k.TailJump, k.TailSearch, k.TailSave, k.TailCopy, k.Tail, k.TailRestart, k.TailStop, k.TailPrev, k.TailNext},
		k.TailFilterSyntax,
	}
}

// HelpTitles implements common.HelpTitler.
func (v *View) HelpTitles() []string { return []string{"Navigation", "Tail", "Tail filter (/)"} }

// Back implements common.View.
func (v *View) Back() bool {
	switch {
	case v.vp.detail:
		v.closeDetail()
		return true
	case v.filter != nil || v.filterErr != "":
		v.filterErr = ""
		v.setFilter(nil)
		v.filterIn.Reset()
		return true
	}
	return false
}

// Status implements common.View.
func (v *View) Status() string {
	if v.spec.Target == "" {
		return ""
	}
	parts := []string{common.S(v.spec.Target)}
	if v.state == tailLive && !v.vp.paused {
		parts = append(parts, common.Rate(v.shown.rate)+" rec/s")
	}
	parts = append(parts, common.Count(v.shown.total)+" total")
	switch {
	case v.vp.paused:
		parts = append(parts, "paused")
	case v.held:
		parts = append(parts, "held at the jump")
	}
	return tab.Words(parts...)
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	if v.DialogInput(msg) {
		return nil
	}
	switch msg := msg.(type) {
	case common.PollErrMsg, common.DataMsg:
		v.truth.observe(msg)
		return nil
	case common.ViewMsg:
		return v.handleViewMsg(msg)
	case tea.KeyPressMsg:
		return v.handleKey(msg)
	case tea.PasteMsg:
		if v.filtering {
			v.filterKey(msg)
		}
		return nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.move(-3)
		case tea.MouseWheelDown:
			v.move(3)
		}
		return nil
	case tea.MouseClickMsg:
		if msg.Button != tea.MouseLeft || v.listRows == 0 {
			return nil
		}
		if y := msg.Y - v.listTop; y >= 0 && y < v.listRows {
			top, cur, n := v.settle(v.listRows)
			if i := top + y; i < n {
				v.vp.pick(v.rowSet(), i)
				v.dscroll = 0
				switch {
				case i == cur && v.vp.detail:
					v.closeDetail()
				case i == cur || v.vp.detail:
					v.openDetail()
				}
			}
		}
		return nil
	}
	return nil
}

func (v *View) handleViewMsg(msg common.ViewMsg) tea.Cmd {
	if cmd, ok := v.searchMsg(msg); ok {
		return cmd
	}
	switch m := msg.Msg.(type) {
	case tailSavedMsg:
		return v.saved(m)
	case tailStartedMsg:
		return v.started(msg.Gen, m)
	case tailPauseMsg:
		if m.err != nil && msg.Gen == v.Gen {
			what := "pause"
			if !m.paused {
				what = "resume"
			}
			return common.Flash(common.LevelWarn, "tail "+what+": "+sanitize.Error(m.err))
		}
		return nil
	}
	if msg.Gen != v.Gen {
		return nil
	}
	switch m := msg.Msg.(type) {
	case tailTickMsg:
		return v.ticked(m)
	case tailSeekMsg:
		return v.sought(m)
	}
	return nil
}

func (v *View) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := v.Ctx.Keys
	if v.Dlg != nil {
		return v.dialogKey(msg)
	}
	if v.filtering {
		v.filterKey(msg)
		return nil
	}
	if v.tailer == nil {
		return nil
	}
	if v.navKey(msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.TailFollow):
		if v.held && v.state == tailLive && v.stream != nil {
			// Held after a jump: G goes to the end of the log, live.
			return v.seekTo(fromLatest, Fill{}, 0)
		}
		v.vp.follow = true
		v.tableGate.Reset()
		v.pace(v.Ctx.Now())
	case key.Matches(msg, k.TailDetail):
		if v.vp.detail {
			v.closeDetail()
		} else {
			v.openDetail()
		}
	case key.Matches(msg, k.TailPause):
		return v.togglePause()
	case key.Matches(msg, k.TailFormat):
		v.cycleFormat()
		v.dscroll = 0
		if !v.vp.detail {
			v.openDetail()
		}
	case key.Matches(msg, k.Filter):
		v.filtering = true
		v.filterIn.SetValue(v.filterText())
		v.filterIn.Focus()
	case key.Matches(msg, k.TailJump):
		v.openJump()
	case key.Matches(msg, k.TailSave):
		v.openSave()
	case key.Matches(msg, k.TailCopy):
		v.openCopy()
	case key.Matches(msg, k.Tail):
		v.openNew()
	case key.Matches(msg, k.TailRestart):
		return v.restart()
	case key.Matches(msg, k.TailSearch):
		v.openSearch()
	case key.Matches(msg, k.TailStop):
		if v.srch.running() {
			return v.cancelSearch()
		}
		return v.stop("closed · r reopens it")
	}
	return nil
}

// navKey moves the cursor (up, down, the page keys, g) or, with the
// detail pane open, scrolls the pane (the page keys); it reports whether
// msg was one of those keys.
func (v *View) navKey(msg tea.KeyPressMsg) bool {
	k := v.Ctx.Keys
	rows := max(v.listRowsFor(), 1)
	switch {
	case key.Matches(msg, k.Up):
		v.move(-1)
	case key.Matches(msg, k.Down):
		v.move(1)
	case key.Matches(msg, k.PageUp):
		if v.vp.detail {
			v.dscroll = max(0, v.dscroll-max(v.detailRows()-1, 1))
		} else {
			v.move(-rows)
		}
	case key.Matches(msg, k.PageDown):
		if v.vp.detail {
			v.dscroll += max(v.detailRows()-1, 1)
		} else {
			v.move(rows)
		}
	case key.Matches(msg, k.HalfUp):
		if v.vp.detail {
			v.dscroll = max(0, v.dscroll-max(v.detailRows()/2, 1))
		} else {
			v.move(-max(rows/2, 1))
		}
	case key.Matches(msg, k.HalfDown):
		if v.vp.detail {
			v.dscroll += max(v.detailRows()/2, 1)
		} else {
			v.move(max(rows/2, 1))
		}
	case key.Matches(msg, k.Top):
		if v.vp.home(v.rowSet()) {
			v.repin()
		}
	default:
		return false
	}
	return true
}

// restart (r) reopens a closed tail from the latest records.
func (v *View) restart() tea.Cmd {
	if v.spec.Target == "" || v.Running() {
		return nil
	}
	spec := v.spec
	spec.From = fromLatest
	// Search results are their own list: the live tail after one
	// starts empty, never mixed with them. A tail closed by hand
	// or by leaving the tab keeps its records.
	keep := v.srch == nil
	return tea.Batch(v.start(spec, keep), common.Flash(common.LevelInfo, "reopening the tail of "+common.S(spec.Target)+" from the latest records"))
}

func (v *View) filterText() string {
	if v.filter == nil {
		return ""
	}
	return v.filter.src
}

// togglePause freezes (or unfreezes) the screen at once and asks the
// stream to stop (or resume) fetching.
func (v *View) togglePause() tea.Cmd {
	if !v.Running() {
		// Nothing fetches: a closed tail is never paused.
		if v.spec.Target == "" {
			return nil
		}
		return common.Flash(common.LevelInfo, "the tail is closed: r reopens it")
	}
	var flash tea.Cmd
	switch {
	case v.vp.paused:
		v.vp.resume()
		v.waiting = -1
		v.truth.since = v.Ctx.Now()      // nothing was fetched while paused
		v.filling, v.held = false, false // resuming lifts the jump's bound
	case v.held:
		// Held after a jump: space resumes from where the buffer ends;
		// from then on the oldest records leave the buffer as usual.
		v.held, v.waiting = false, -1
		v.truth.since = v.Ctx.Now()
		flash = common.Flash(common.LevelInfo, "tail resumed after the jump: the records after the buffer arrive, the oldest leave it")
		s := v.stream
		if s == nil || !v.Running() {
			return flash
		}
		return tea.Batch(flash, v.Call(func(ctx context.Context) any {
			return tailPauseMsg{paused: false, err: s.Pause(ctx, false)}
		}))
	default:
		v.vp.pause(v.ring.next)
		v.waiting = -1
	}
	v.tableGate.Reset()
	v.countGate.Reset()
	v.pace(v.Ctx.Now())
	s := v.stream
	if s == nil || !v.Running() {
		return nil
	}
	paused := v.vp.paused
	return v.Call(func(ctx context.Context) any {
		return tailPauseMsg{paused: paused, err: s.Pause(ctx, paused)}
	})
}
