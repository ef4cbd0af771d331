package tail

import (
	"strings"
	"time"

	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// spaces returns n spaces.
func spaces(n int) string {
	const s = "                                "
	if n <= len(s) {
		return s[:max(n, 0)]
	}
	return strings.Repeat(" ", n)
}

type tailCols struct {
	gap, time, topic, part, off, key, val int
}

func (v *View) columns(w int) tailCols {
	gap := 1
	if w >= 100 {
		gap = 2
	}
	c := tailCols{gap: gap, time: 12, topic: v.topicW, part: 3, off: v.offW, key: min(16, max(8, w/5))}
	if w >= 140 {
		c.key = 24
	}
	multi := v.topics > 1 || strings.ContainsAny(v.spec.Target, "*?")
	if !multi && w < 120 {
		c.topic = 0
	}
	valW := func() int {
		n := 0
		for _, x := range []int{c.time, c.topic, c.part, c.off, c.key} {
			if x > 0 {
				n += x + gap
			}
		}
		return w - n
	}
	// Narrow: the least useful column goes first. On a pattern the
	// topic says which stream a record is of, so it goes last.
	order := []*int{&c.topic, &c.time, &c.part}
	if multi {
		order = []*int{&c.time, &c.part, &c.topic}
	}
	for _, drop := range order {
		if valW() >= 24 {
			break
		}
		*drop = 0
	}
	if valW() < 16 {
		c.key = 8
	}
	c.val = max(valW(), 1)
	return c
}

// header lines above the list: title, state, optional filter line(s).
func (v *View) headLines(st *common.Styles) []string {
	lines := []string{v.titleLine(st)}
	lines = append(lines, v.searchLines(st)...)
	lines = append(lines, v.stateLine(st))
	return append(lines, v.filterLines(st)...)
}

// titleLine names the tail: target, group, where it reads from.
func (v *View) titleLine(st *common.Styles) string {
	title := st.Title.Render("Tail " + common.S(v.spec.Target))
	group := "temporary group"
	switch {
	case v.spec.From.OnePartition():
		group = "one partition, no group" // consumer.Assign: nothing joins or commits
	case v.spec.Group != "":
		group = "group " + common.S(v.spec.Group)
	}
	head := group + " · " + v.from
	if v.pattern() && v.topicsNow > 0 && v.srch == nil {
		head += " · " + common.Plural(v.topicsNow, "topic")
	}
	if v.slot != "" {
		head = v.slot + " · " + head
	}
	return title + st.Muted.Render("  "+head)
}

// stateLine says what the stream does, the counters as last let
// through, and where the list stands.
func (v *View) stateLine(st *common.Styles) string {
	c := v.shown
	parts := v.streamState(st)
	if v.vp.paused {
		// Back pressure: the consumer fetches nothing while paused; what
		// arrived before it stopped is in the buffer, the rest waits in
		// the cluster (counted from its end offsets).
		waiting := "⏸ PAUSED · " + common.Thousands(c.newer+max(c.waiting, 0)) + " newer waiting"
		if c.waiting < 0 && v.Running() {
			waiting += " (counting…)"
		}
		parts = append(parts, st.Warn.Render(waiting))
	} else if v.held {
		// Back pressure after a jump: the buffer holds what was jumped
		// to; the rest waits in the cluster, counted from end offsets.
		waiting := "⏸ HELD at the jump · " + common.Thousands(max(c.waiting, 0)) + " newer waiting"
		if c.waiting < 0 && v.Running() {
			waiting += " (counting…)"
		}
		parts = append(parts, st.Warn.Render(waiting+" · space resumes · G: end"))
	} else if v.state == tailClosed {
		parts = append(parts, "— rec/s") // nothing is read: no rate, not the last one
	} else {
		parts = append(parts, common.Rate(c.rate)+" rec/s")
	}
	parts = append(parts, common.Thousands(c.total)+" total")
	if c.dropped > 0 {
		parts = append(parts, st.Warn.Render("dropped "+common.Thousands(c.dropped)))
	}
	parts = append(parts, "buffer "+common.Thousands(int64(c.buffered))+"/"+common.Thousands(int64(v.capacity)))
	if !v.vp.follow && v.rowCount() > 0 {
		note := "scrolled (G follows)"
		if v.held {
			note = "scrolled" // G goes to the end, said above
		}
		if v.vp.detail && v.vp.pin.on {
			note = "◆ detail pinned"
			if newer := v.vp.newerThanPin(v.rowSet()); newer > 0 {
				note += " · " + common.Thousands(newer) + " newer"
			}
			note += " (G follows)"
		}
		parts = append(parts, st.Muted.Render(note))
	}
	return strings.Join(parts, st.Faint.Render(" · "))
}

// streamState is the state line's first part: connecting, live,
// reconnecting, jumping, stopped… (none while paused or held: the
// pause's part says so).
func (v *View) streamState(st *common.Styles) []string {
	switch v.state {
	case tailStarting:
		return []string{st.Info.Render("◌ connecting…")}
	case tailLive:
		switch since, stalled := v.truth.stalled(v.Ctx.Now()); {
		case v.vp.paused, v.held:
		case v.noTopic():
			// The consumer keeps looking; say that nothing matches
			// rather than "live", which would wait for records forever.
			return []string{st.Warn.Render("◌ no topic matches " + common.S(v.spec.Target) + " — watching for one")}
		case stalled:
			// The consumer retries by itself: say so, and for how long
			// nothing was fetched, rather than "live".
			return []string{st.Warn.Render("◌ reconnecting · no fetch for " + common.Dur(v.Ctx.Now().Sub(since)))}
		case v.filling:
			return []string{st.OK.Render("● reading from the jump · holds when the buffer is full")}
		default:
			return []string{st.OK.Render("● live")}
		}
	case tailSeeking:
		return []string{st.Info.Render("◌ jumping…")}
	case tailClosed:
		if v.err != nil {
			return []string{st.Err.Render("■ stopped: " + sanitize.Error(v.err))}
		}
		return []string{st.Warn.Render("■ " + v.note)}
	}
	return nil
}

// filterLines are the filter's input and help while typing, or the
// filter in force and its count.
func (v *View) filterLines(st *common.Styles) []string {
	switch {
	case v.filtering:
		count := st.Muted.Render("  " + common.Thousands(int64(v.matches.len())) + " match")
		if v.filter == nil {
			count = ""
		}
		lines := []string{v.filterIn.View(st) + count}
		if v.filterErr != "" {
			return append(lines, st.Err.Render(common.Trunc(sanitize.String(v.filterErr), v.W)))
		}
		return append(lines, st.Faint.Render(common.Trunc(FilterHelp+" · enter keeps · esc clears", v.W)))
	case v.filter != nil:
		shown := ""
		if v.vp.paused {
			shown = " (" + common.Thousands(int64(v.rowCount())) + " before the pause)"
		}
		return []string{st.Filter.Render("/"+common.Trunc(common.S(v.filter.src), max(v.W-30, 8))) +
			st.Muted.Render("  "+common.Thousands(int64(v.matches.len()))+" of "+common.Thousands(int64(v.ring.n))+" "+common.Agree(v.matches.len(), "matches", "match")+shown+" · esc clears")}
	}
	return nil
}

// listRowsFor is the number of record rows the current layout shows.
func (v *View) listRowsFor() int {
	rows, _ := v.split(len(v.headLines(v.Ctx.Styles)))
	return rows
}

// split divides the body below the head lines between the list (rows,
// table header excluded) and the detail pane (its lines, title included).
func (v *View) split(head int) (rows, detail int) {
	avail := max(v.H-head, 0)
	if !v.vp.detail {
		return max(avail-1, 0), 0
	}
	if avail < 14 {
		return 0, avail
	}
	detail = avail / 2
	return max(avail-detail-1, 0), detail
}

func (v *View) detailRows() int {
	_, d := v.split(len(v.headLines(v.Ctx.Styles)))
	return max(d-1, 1)
}

// View implements common.View.
func (v *View) View() string {
	if v.Dlg != nil {
		return v.DialogView()
	}
	st := v.Ctx.Styles
	if v.tailer == nil {
		lines := []string{st.Title.Render("Tail"), ""}
		lines = append(lines, common.Wrap("Tailing is not available in this session: no consumer is configured for this context. The other tabs work as usual.", v.W)...)
		return common.Frame(lines, v.W, v.H)
	}
	if v.spec.Target == "" {
		return common.Frame([]string{
			st.Title.Render("Tail"),
			"",
			"Nothing tailed yet.",
			st.Muted.Render("t here, t on a topic (tab 2) or :tail PATTERN starts a tail;"),
			st.Muted.Render("a pattern such as ORDER.* tails every matching topic."),
		}, v.W, v.H)
	}
	lines := make([]string, 0, v.H)
	lines = append(lines, v.headLines(st)...)
	rows, detailH := v.split(len(lines))
	v.listTop, v.listRows = len(lines)+1, rows
	top, cur, n := v.settle(max(rows, 1))
	if rows > 0 || detailH == 0 {
		cols := v.columns(v.W)
		lines = append(lines, v.tableHeader(st, cols))
		if n == 0 {
			msg := "waiting for records…"
			switch {
			case v.noTopic():
				msg = "no topic matches " + common.S(v.spec.Target) + " yet: the tail starts on one as soon as it exists"
			case v.filter != nil && v.ring.n > 0:
				msg = "no record in the buffer matches the filter"
			case v.vp.paused && v.ring.n > 0:
				msg = "the records shown when you paused were dropped from the buffer"
			case v.state == tailClosed:
				msg = "no record"
			}
			lines = append(lines, st.Muted.Render(common.Trunc("  "+msg, v.W)))
		}
		loc := v.Ctx.Now().Location()
		rs := v.rowSet()
		for r := 0; r < rows && top+r < n; r++ {
			seq := rs.seq(top + r)
			lines = append(lines, v.row(st, cols, v.ring.at(seq), top+r == cur, loc))
		}
		for len(lines) < v.H-detailH {
			lines = append(lines, "")
		}
	}
	if detailH > 0 {
		if e, seq, ok := v.pinned(); ok {
			lines = append(lines, v.detailView(st, e, seq, detailH)...)
		}
	}
	return common.Frame(lines, v.W, v.H)
}

func (v *View) tableHeader(st *common.Styles, c tailCols) string {
	var b strings.Builder
	cell := func(title string, w int, right bool) {
		if w <= 0 {
			return
		}
		if right {
			b.WriteString(st.Header.Render(common.FitRight(title, w)))
		} else {
			b.WriteString(st.Header.Render(common.Fit(title, w)))
		}
		b.WriteString(spaces(c.gap))
	}
	cell("TIME", c.time, false)
	cell("TOPIC", c.topic, false)
	cell("P", c.part, true)
	cell("OFFSET", c.off, true)
	cell("KEY", c.key, false)
	b.WriteString(st.Header.Render(common.Trunc("VALUE", c.val)))
	return b.String()
}

func (v *View) row(st *common.Styles, c tailCols, e *tailEntry, selected bool, loc *time.Location) string {
	mode := previewRaw
	if v.format == components.FormatDecoded {
		mode = previewDecoded
	}
	e.ensurePreview(mode, v.keyHex)
	var b strings.Builder
	b.Grow(v.W + 64)
	// Low bandwidth: one colour change per row (the time), not one per
	// column; a page of rows then costs about half the bytes.
	plain := v.Ctx.Pace.Low()
	paint := func(s common.Style, text string) {
		if selected || (plain && s != st.Muted) {
			b.WriteString(text)
		} else {
			b.WriteString(s.Render(text))
		}
	}
	gap := spaces(c.gap)
	if c.time > 0 {
		ts := "-"
		if e.ts != 0 {
			ts = time.Unix(0, e.ts).In(loc).Format("15:04:05.000")
		}
		paint(st.Muted, common.Fit(ts, c.time))
		b.WriteString(gap)
	}
	if c.topic > 0 {
		paint(st.Accent2, common.Fit(sanitize.String(e.topic), c.topic))
		b.WriteString(gap)
	}
	if c.part > 0 {
		paint(st.Muted, common.FitRight(tab.Itoa(int64(e.part)), c.part))
		b.WriteString(gap)
	}
	paint(st.Text, common.FitRight(tab.Itoa(e.off), c.off))
	b.WriteString(gap)
	keyStyle := st.Accent
	if e.k == nil {
		keyStyle = st.Faint
	}
	paint(keyStyle, common.Fit(e.keyS, c.key))
	b.WriteString(gap)
	valStyle := st.Text
	switch {
	case e.v == nil:
		valStyle = st.Faint
	case mode == previewDecoded && e.verr != "":
		valStyle = st.Err // it did not decode: the row says why
	}
	paint(valStyle, common.Trunc(e.valS, c.val))
	line := b.String()
	if selected {
		return st.CursorRow(line, v.W)
	}
	return line
}

// detailView renders the detail pane (h lines, title included).
func (v *View) detailView(st *common.Styles, e *tailEntry, seq uint64, h int) []string {
	w := v.W
	if !v.dcache.ok || v.dcache.seq != seq || v.dcache.format != v.format || v.dcache.width != w {
		v.dcache = detailCache{ok: true, seq: seq, format: v.format, width: w, lines: v.detailLines(st, e, w)}
	}
	loc := v.Ctx.Now().Location()
	when := "no timestamp"
	if e.ts != 0 {
		when = time.Unix(0, e.ts).In(loc).Format("2006-01-02 15:04:05.000 MST")
	}
	mark := ""
	if _, ok := v.vp.pinned(); ok {
		mark = " ◆ pinned ·"
		if v.vp.pinLeft(v.ring.first()) {
			mark = " ◆ pinned (left the buffer) ·"
		}
	}
	title := mark + " " + common.Trunc(common.S(e.topic), max(w/3, 12)) + " · P" + tab.Itoa(int64(e.part)) + " @ " + common.Thousands(e.off) + " · " + when + " "
	title = common.Trunc(title, max(w-4, 1))
	fill := max(w-2-common.Width(title), 0)
	out := []string{st.Faint.Render("──") + st.Title.Render(title) + st.Faint.Render(strings.Repeat("─", fill))}
	body := v.dcache.lines
	room := max(h-1, 0)
	v.dscroll = max(0, min(v.dscroll, len(body)-room))
	end := min(len(body), v.dscroll+room)
	out = append(out, body[v.dscroll:end]...)
	if end < len(body) && room > 1 {
		out[len(out)-1] = st.Faint.Render(common.Trunc("… "+common.Plural(len(body)-end+1, "more line")+" (pgdn)", w))
	}
	return out
}

func (v *View) detailLines(st *common.Styles, e *tailEntry, w int) []string {
	label := func(s string) string { return st.Muted.Render(common.Fit(s, 8)) }
	vw := max(w-8, 1)
	var out []string
	k := e.key()
	switch {
	case k == nil:
		out = append(out, label("key")+st.Faint.Render("null"))
	case v.formatOf(e) == components.FormatDecoded && v.decodedKey(e).Has() && e.kd == nil:
		out = append(out, label("key")+st.Err.Render(common.Trunc("does not decode: "+sanitize.String(e.kerr)+" · hex "+components.HexPreview(k), max(vw, 1))))
	default:
		ks := sanitize.Bytes(k)
		switch {
		case v.formatOf(e) == components.FormatDecoded && e.kd != nil:
			ks = sanitize.Bytes(e.kd)
		case e.kd == nil && v.keyHex(e.topic):
			ks = components.HexPreview(k)
		}
		out = append(out, label("key")+common.Trunc(ks, max(vw-12, 1))+st.Muted.Render("  "+common.Bytes(int64(len(k)))))
	}
	hs := e.headers()
	if len(hs) == 0 {
		out = append(out, label("headers")+st.Faint.Render("none"))
	}
	for i, h := range hs {
		l := label("")
		if i == 0 {
			l = label("headers")
		}
		val := st.Faint.Render("null")
		if h.Value != nil {
			val = sanitize.Bytes(h.Value)
		}
		out = append(out, common.ClipStyled(l+st.Accent.Render(sanitize.String(h.Key))+st.Muted.Render(" = ")+val, w))
	}
	format, dec := v.formatOf(e), v.decodedValue(e)
	var fm []string
	for _, i := range components.Formats(v.decodes(e.topic)) {
		n := components.FormatNames[i]
		if i == format {
			fm = append(fm, st.TabActive.Render("["+n+"]"))
		} else {
			fm = append(fm, st.Muted.Render(" "+n+" "))
		}
	}
	size := "null"
	if val := e.value(); val != nil {
		size = common.Bytes(int64(len(val)))
	}
	out = append(out, label("value")+size+"  "+strings.Join(fm, "")+st.Faint.Render("  f switches · c copies"))
	if format == components.FormatDecoded && dec.Has() {
		out = append(out, st.Muted.Render(common.Trunc(sanitize.String(dec.Schema), w)))
	}
	out = append(out, components.DecodedLines(st, e.value(), dec, format, w)...)
	return out
}

// formatOf is the format the detail shows e in: the view's, but text for
// the decoded format on a record without a schema (a pattern's other
// topics).
// keyHex reports whether topic's decode rule shows keys as hex.
func (v *View) keyHex(topic string) bool {
	return v.Ctx.Schemas.Topic(topic).Key.Format == schema.KindHex
}

func (v *View) formatOf(e *tailEntry) int {
	if v.format == components.FormatDecoded && !v.decodes(e.topic) {
		return components.FormatText
	}
	return v.format
}
