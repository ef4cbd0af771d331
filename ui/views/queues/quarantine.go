package queues

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/listdetail"
	"ilinkdash/ui/views/tab"
)

// The quarantine pane (Q on the queues list): getQuarantineList as a
// table of directories × queues and scanQuarantine's entries of the
// selected one. R reinjects: the operator chooses NEW only or NEW and OLD,
// sees what it takes — and, for OLD entries, the duplicate warning of
// spec Q-23 — before it runs, then the result: count, leader, stop reason.
// The entries of the selected one are a second pane (enter or v goes to
// it); enter on an entry opens it: its headers and body, read from the
// engine (a scan naming it), before anything is reinjected.

type quarantinePane struct {
	panes   listdetail.Panes // dirs, then entries
	dirs    *components.Table[admin.QuarantineDir]
	entries *components.Table[admin.QuarantineEntry]
	shown   string // the dir × queue whose entries the entries table holds
	scan    admin.QuarantineScan
	loaded  bool
	err     error
	listing tab.Fetch
	flow    reinjectFlow
}

type reinjectFlow struct {
	stage      int
	dir, queue string
	plan       admin.ReinjectPlan // what the preview showed: run by id
}

const (
	rflowNone = iota
	rflowForm
	rflowPreview
	rflowResult
	rflowEntry // an opened entry is shown
)

type (
	quarantineMsg struct {
		dirs []admin.QuarantineDir
		scan admin.QuarantineScan
		err  error
		// open is the entry asked for when this answers an open (entry is
		// then what the engine returned: nil = no longer quarantined).
		open   *admin.QuarantineEntry
		entry  *admin.QuarantineEntry
		dec    components.Decoded // the entry's body decoded (its queue's codec)
		dlgGen uint64
	}
	reinjectMsg struct {
		res    admin.QuarantineReinjectResult
		plan   admin.ReinjectPlan
		err    error
		dlgGen uint64
	}
)

func newQuarantinePane(ctx *common.Context) *quarantinePane {
	type D = components.Column[admin.QuarantineDir]
	t := components.NewTable(ctx, func(d admin.QuarantineDir) string { return d.Dir + "\x00" + d.Queue },
		D{Title: "DIR", Width: 12, Min: 6, Flex: true, Max: 30,
			Text: func(d admin.QuarantineDir) string { return common.S(d.Dir) },
			Cmp:  func(a, b admin.QuarantineDir) int { return cmp.Compare(a.Dir+"\x00"+a.Queue, b.Dir+"\x00"+b.Queue) }},
		D{Title: "QUEUE", Width: 16, Min: 8, Flex: true, Max: 40,
			Text: func(d admin.QuarantineDir) string { return common.S(d.Queue) }},
		D{Title: "ENTRIES", Width: 7, Right: true,
			Text: func(d admin.QuarantineDir) string { return common.Thousands(int64(d.Entries)) },
			Cmp:  func(a, b admin.QuarantineDir) int { return cmp.Compare(a.Entries, b.Entries) }},
		D{Title: "NEW", Width: 5, Right: true,
			Text: func(d admin.QuarantineDir) string { return common.Thousands(int64(d.New)) }},
		D{Title: "OLD", Width: 5, Right: true,
			Text: func(d admin.QuarantineDir) string { return common.Thousands(int64(d.Old)) },
			Paint: func(d admin.QuarantineDir, st *common.Styles) common.Style {
				if d.Old > 0 {
					return st.Warn
				}
				return common.Style{}
			}},
		D{Title: "OLDEST", Width: 19, Drop: 2,
			Text: func(d admin.QuarantineDir) string { return d.Oldest.Format("2006-01-02 15:04:05") }},
		D{Title: "NEWEST", Width: 19, Drop: 1,
			Text: func(d admin.QuarantineDir) string { return d.Newest.Format("2006-01-02 15:04:05") }},
	)
	t.Empty = "nothing is quarantined"
	t.SetSort(0, false)
	type E = components.Column[admin.QuarantineEntry]
	et := components.NewTable(ctx, func(e admin.QuarantineEntry) string { return hex.EncodeToString(e.MsgID) },
		E{Title: "QUARANTINED", Width: 19,
			Text: func(e admin.QuarantineEntry) string { return e.Time.Format("2006-01-02 15:04:05") }},
		E{Title: "KIND", Width: 4,
			Text: func(e admin.QuarantineEntry) string {
				if e.Old {
					return "OLD"
				}
				return "NEW"
			},
			Paint: func(e admin.QuarantineEntry, st *common.Styles) common.Style {
				if e.Old {
					return st.Warn
				}
				return common.Style{}
			}},
		E{Title: "ID", Width: 32, Min: 9, Flex: true,
			Text: func(e admin.QuarantineEntry) string { return hex.EncodeToString(e.MsgID) }},
		E{Title: "BYTES", Width: 7, Right: true,
			Text: func(e admin.QuarantineEntry) string { return common.Bytes(int64(e.Bytes)) }},
	)
	et.Empty = "no entry"
	q := &quarantinePane{dirs: t, entries: et}
	q.panes.Add("quarantine", listdetail.TableOps(t))
	q.panes.Add("entries", listdetail.TableOps(et))
	return q
}

// syncEntries puts the entries of the selected directory × queue in the
// entries table when the selection or the scan changed.
func (q *quarantinePane) syncEntries() {
	d, ok := q.dirs.Selected()
	key := ""
	if ok {
		key = d.Dir + "\x00" + d.Queue
	}
	if key == q.shown {
		return
	}
	q.shown = key
	q.entries.SetItems(q.entriesOf(d.Dir, d.Queue))
}

func (v *View) openQuarantine() tea.Cmd {
	v.Gen++
	v.qq = newQuarantinePane(v.Ctx)
	v.sizeQuarantine()
	return v.fetchQuarantine()
}

func (v *View) sizeQuarantine() {
	if v.qq != nil {
		h := max((v.H-2)/2, 3)
		v.qq.dirs.SetSize(v.W, h)
		v.qq.entries.SetSize(v.W, max(v.H-h-2, 3))
	}
}

func (v *View) fetchQuarantine() tea.Cmd {
	q := v.qq
	if q == nil || v.src == nil || !q.listing.Start() {
		return nil
	}
	src := v.src
	return v.Call(func(ctx context.Context) any {
		dirs, err := src.QuarantineList(ctx)
		var scan admin.QuarantineScan
		if err == nil {
			scan, err = src.ScanQuarantine(ctx, "", "")
		}
		return quarantineMsg{dirs: dirs, scan: scan, err: err}
	})
}

func (v *View) quarantineReply(m quarantineMsg) tea.Cmd {
	q := v.qq
	if q == nil {
		return nil
	}
	if m.open != nil {
		v.entryOpened(m)
		return nil
	}
	again := q.listing.Done()
	if m.err != nil {
		q.err = m.err
	} else {
		q.err, q.loaded, q.scan = nil, true, m.scan
		q.dirs.SetItems(m.dirs)
		q.shown = "\x01" // the scan is new: show its entries
		q.syncEntries()
	}
	if again { // a reinject answered while this list was out
		return v.fetchQuarantine()
	}
	return nil
}

// entriesOf returns the scanned entries of one directory × queue.
func (q *quarantinePane) entriesOf(dir, queue string) (out []admin.QuarantineEntry) {
	for _, e := range q.scan.Entries {
		if e.Dir == dir && e.Queue == queue {
			out = append(out, e)
		}
	}
	return out
}

func (v *View) quarantineView(st *common.Styles) string {
	q := v.qq
	lines := []string{st.Title.Render("Quarantine") + st.Muted.Render("  messages a queue manager set aside; OLD ones were already delivered (reinjecting them duplicates them)")}
	switch {
	case q.err != nil:
		lines = append(lines, st.Err.Render(common.Trunc("quarantine: "+sanitize.Error(q.err), v.W)))
		return common.Frame(lines, v.W, v.H)
	case !q.loaded:
		lines = append(lines, st.Muted.Render("reading the quarantine…"))
		return common.Frame(lines, v.W, v.H)
	}
	lines = append(lines, q.dirs.Lines()...)
	q.syncEntries() // the dirs table moved since the last frame
	if d, ok := q.dirs.Selected(); ok {
		hint := "  enter: the entries · R reinject"
		if q.panes.Cur == 1 {
			hint = "  enter opens the entry (headers, body) · R reinject · v back to the directories"
		}
		lines = append(lines, tab.SectionTitle(st, "Entries of "+common.S(d.Dir)+" / "+common.S(d.Queue))+st.Muted.Render(hint))
		lines = append(lines, q.entries.Lines()...)
	}
	return common.Frame(lines, v.W, v.H)
}

// quarantineKey handles the keys of the quarantine pane; false leaves the
// key to its table.
func (v *View) quarantineKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := v.Ctx.Keys
	switch {
	case key.Matches(msg, k.QueueRefresh):
		return v.fetchQuarantine(), true
	case key.Matches(msg, k.Open):
		q := v.qq
		if q.panes.Cur == 0 {
			q.syncEntries()
			q.panes.Cur = 1 // enter on a directory goes to its entries
			return nil, true
		}
		if e, ok := q.entries.Selected(); ok {
			return v.openEntry(e), true
		}
		return nil, true
	case key.Matches(msg, k.Reinject):
		if d, ok := v.qq.dirs.Selected(); ok {
			v.openReinject(d)
		}
		return nil, true
	}
	return nil, false
}

// openEntry reads a quarantined entry's headers and body and shows them.
func (v *View) openEntry(e admin.QuarantineEntry) tea.Cmd {
	v.OpenDialog(&components.Dialog{Title: "Quarantined entry " + hex.EncodeToString(e.MsgID), Busy: "reading the entry…"})
	v.qq.flow = reinjectFlow{stage: rflowEntry}
	src, gen, codec := v.src, v.DlgGen, v.codec(e.Queue)
	return v.Call(func(ctx context.Context) any {
		got, err := src.OpenQuarantineEntry(ctx, e.Dir, e.Queue, e.MsgID)
		var dec components.Decoded
		if got != nil && got.HasBody {
			dec = decodePage(codec, []admin.QueueMessage{{ID: got.MsgID, Payload: got.Payload}})[string(got.MsgID)]
		}
		return quarantineMsg{open: &e, entry: got, dec: dec, err: err, dlgGen: gen}
	})
}

// entryOpened shows the entry read: where it is, its headers and body.
func (v *View) entryOpened(m quarantineMsg) {
	if !v.DialogOpen(m.dlgGen) {
		return // closed meanwhile
	}
	st := v.Ctx.Styles
	w := min(max(v.W-10, 10), 100)
	var body []string
	switch {
	case m.err != nil:
		body = []string{st.Err.Render("reading the entry failed: " + sanitize.Error(m.err))}
	case m.entry == nil || !m.entry.HasBody:
		body = []string{st.Warn.Render("The entry is no longer quarantined (reinjected or removed since the scan); r reads the quarantine again.")}
	default:
		e := m.entry
		kind := "NEW"
		if e.Old {
			kind = st.Warn.Render("OLD (already delivered: reinjecting it duplicates it)")
		}
		body = append(body, fmt.Sprintf("%s / %s · %s · quarantined %s · %s", common.S(e.Dir), common.S(e.Queue), kind,
			e.Time.Format("2006-01-02 15:04:05"), common.Bytes(int64(len(e.Payload)))), "")
		if len(e.Headers) == 0 {
			body = append(body, st.Muted.Render("no header"))
		}
		for _, h := range e.Headers {
			body = append(body, st.Muted.Render(common.S(h.Key)+": ")+sanitize.Bytes(h.Value))
		}
		format, what := components.FormatText, "body (text)"
		if m.dec.Has() {
			format, what = components.FormatDecoded, "body (decoded: "+sanitize.String(m.dec.Schema)+")"
		}
		body = append(body, "", st.Muted.Render(common.Trunc(what, w)))
		body = append(body, components.DecodedLines(st, e.Payload, m.dec, format, w)...)
		body = append(body, "", st.Muted.Render("R on the entries reinjects them, with a preview first."))
	}
	v.Dlg.Busy, v.Dlg.Body, v.Dlg.SubmitLabel = "", body, "close"
}

func (v *View) openReinject(d admin.QuarantineDir) {
	body := []string{fmt.Sprintf("Appends the entries of %s to the tail of %s as committed puts and removes them from the quarantine.", common.S(d.Dir), common.S(d.Queue))}
	choices := []string{fmt.Sprintf("NEW entries only (%d)", d.New)}
	if d.Old > 0 {
		choices = append(choices, fmt.Sprintf("NEW and OLD entries (%d, duplicates)", d.Entries))
	}
	dlg := &components.Dialog{Title: "Reinject " + common.S(d.Dir) + " into " + common.S(d.Queue), Body: body, SubmitLabel: "preview",
		Fields: []*components.Field{components.ChoiceField("Take", choices...)}}
	dlg.Fields[0].Hint = "←/→"
	v.OpenDialog(dlg)
	v.qq.flow = reinjectFlow{stage: rflowForm, dir: d.Dir, queue: d.Queue}
}

// reinjectPreview shows what the reinjection takes — the entries of the
// scan shown, by id — with the duplicate warning first when OLD entries
// are in it (spec Q-23). The reinjection then names exactly these ids.
func (v *View) reinjectPreview() {
	f := &v.qq.flow
	includeOld := strings.HasPrefix(v.Dlg.Fields[0].Value(), "NEW and OLD")
	p := admin.PlanReinject(v.qq.scan, f.dir, f.queue, includeOld)
	f.plan = p
	st := v.Ctx.Styles
	var body []string
	take := p.New + p.Old
	if w := admin.DuplicateWarning(p.Old, common.S(f.queue)); w != "" {
		body = append(body, st.Err.Render("⚠ "+w), "")
	}
	body = append(body, fmt.Sprintf("Reinject %s into %s: %s appended at the tail of %s (nothing is reinjected yet):",
		common.S(f.dir), common.S(f.queue), common.PluralOf(take, "entry", "entries"), common.S(f.queue)))
	ids := newIDForm(p.IDs)
	old := map[string]bool{}
	for _, e := range v.qq.entriesOf(f.dir, f.queue) {
		old[string(e.MsgID)] = e.Old
	}
	for i, id := range p.IDs {
		if i == previewLines {
			body = append(body, st.Muted.Render(fmt.Sprintf("… %d more", len(p.IDs)-previewLines)))
			break
		}
		kind := "NEW"
		if old[string(id)] {
			kind = st.Warn.Render("OLD")
		}
		body = append(body, ids.of(id)+"  "+kind)
	}
	if p.OldLeft > 0 {
		body = append(body, st.Muted.Render(fmt.Sprintf("%d OLD %s stay in the quarantine.", p.OldLeft, common.Agree(p.OldLeft, "entry", "entries"))))
	}
	if p.Beyond > 0 {
		body = append(body, st.Warn.Render(fmt.Sprintf("%s beyond the first %s stay (reinject again after).", common.PluralOf(p.Beyond, "entry", "entries"), common.Thousands(admin.MaxMoveIDs))))
	}
	if take > 0 {
		body = append(body, st.Muted.Render("Enter reinjects exactly these entries; any quarantined meanwhile stay."))
	}
	d := &components.Dialog{Title: "Reinject — preview", Danger: p.Old > 0, Body: body}
	if take > 0 {
		d.SubmitLabel = "reinject"
	}
	v.OpenDialog(d)
	f.stage = rflowPreview
}

func (v *View) runReinject() tea.Cmd {
	plan := v.qq.flow.plan
	v.Dlg.Busy = "reinjecting…"
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		res, err := src.ReinjectQuarantine(ctx, plan)
		return reinjectMsg{res: res, plan: plan, err: err, dlgGen: gen}
	})
}

// reinjectReport is the result read against the plan: "3 planned, 3
// reinjected into Q; 1 quarantined after the plan left in the quarantine".
func reinjectReport(plan admin.ReinjectPlan, res admin.QuarantineReinjectResult) string {
	text := fmt.Sprintf("%d planned, %d reinjected into %s", len(plan.IDs), res.Count, common.S(plan.Queue))
	if n := len(res.Missing); n > 0 {
		text += fmt.Sprintf("; %d planned no longer quarantined", n)
	}
	if res.Left > 0 {
		text += fmt.Sprintf("; %d not in the plan left in the quarantine", res.Left)
	}
	return text
}

func (v *View) reinjectReply(m reinjectMsg) tea.Cmd {
	current := v.DialogOpen(m.dlgGen) && v.qq != nil
	if !current {
		if m.err != nil {
			return common.Flash(common.LevelError, "reinject failed: "+sanitize.Error(m.err))
		}
		return common.Flash(common.LevelOK, reinjectReport(m.plan, m.res))
	}
	st := v.Ctx.Styles
	var body []string
	if m.err != nil {
		body = []string{"The engine refused: " + sanitize.Error(m.err)}
	} else {
		body = []string{fmt.Sprintf("%s appended to %s; the queue state is led by node %d.", common.Plural(m.res.Count, "message"), common.S(m.plan.Queue), m.res.Leader),
			reinjectReport(m.plan, m.res) + "."}
		if len(m.res.Missing) > 0 {
			ids := newIDForm(m.res.Missing)
			for i, id := range m.res.Missing {
				if i == previewLines {
					body = append(body, st.Muted.Render(fmt.Sprintf("… %d more", len(m.res.Missing)-previewLines)))
					break
				}
				body = append(body, ids.of(id)+"  no longer quarantined (reinjected or removed since the preview)")
			}
		}
		switch {
		case m.res.StopReason != "":
			body = append(body, "", st.Warn.Render("Stopped early: "+common.S(m.res.StopReason)))
		case m.res.Count == int64(len(m.plan.IDs)):
			body = append(body, "", st.OK.Render("Every selected entry was reinjected."))
		}
	}
	v.OpenDialog(&components.Dialog{Title: "Reinject — result", Danger: m.err != nil, Body: body, SubmitLabel: "close"})
	v.qq.flow.stage = rflowResult
	return tea.Batch(v.fetchQuarantine(), common.Refresh(common.ResQueues))
}

func (v *View) quarantineDialogKey(msg tea.KeyPressMsg) tea.Cmd {
	f := &v.qq.flow
	return v.DialogFlow(msg, func() { *f = reinjectFlow{} }, func(end func()) tea.Cmd {
		switch f.stage {
		case rflowForm:
			v.reinjectPreview()
		case rflowPreview:
			if len(f.plan.IDs) > 0 {
				return v.runReinject()
			}
			end()
		case rflowResult, rflowEntry:
			end()
		}
		return nil
	}, nil)
}
