package groups

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
)

// lagHistMsg is a read of the lag history for the detail's chart.
type lagHistMsg struct {
	group string
	span  time.Duration
	pts   []common.HistPoint
	err   error
	at    time.Time
}

// lagChart is what the detail's chart shows: the latest read.
type lagChart struct {
	pts  []common.HistPoint
	span time.Duration
	err  error
	at   time.Time // when it was read: the chart ends there
	read bool
}

// readLag reads the open group's lag history over the span chosen, in a
// command, addressed to this view and detail.
func (v *View) readLag() tea.Cmd {
	h, d := v.Ctx.History, v.Detail
	if h == nil || d == nil {
		return nil
	}
	name, span, now := d.Name, v.Ctx.Span(), v.Ctx.Now
	return common.Address(common.ViewGroups, v.Gen, func() any {
		pts, err := h.GroupLag(name, span)
		return lagHistMsg{group: name, span: span, pts: pts, err: err, at: now()}
	})
}

// lagReply takes a history read in, if it is of the detail shown.
func (v *View) lagReply(gen uint64, m lagHistMsg) {
	if gen != v.Gen || v.Detail == nil || v.Detail.Name != m.group {
		return
	}
	v.Detail.chart = lagChart{pts: m.pts, span: m.span, err: m.err, at: m.at, read: true}
}

// chartHeight is the rows of the chart (its title included), 0 without a
// history or room for one: at most 12, at most half of what the detail
// has below its header.
func (v *View) chartHeight(header int) int {
	if v.Ctx.History == nil {
		return 0
	}
	h := min(12, (v.H-header-2)/2)
	if h < 5 {
		return 0
	}
	return h
}

// chartLines are the lag chart of the detail: a title with the span
// choices, then the chart from the history.
func (v *View) chartLines(st *common.Styles, height int) []string {
	if height == 0 {
		return nil
	}
	c := v.Detail.chart
	span := v.Ctx.Span()
	title := st.Title.Render("Lag") + st.Muted.Render(" · last "+common.SpanName(span)+" · w: "+v.Ctx.SpanChoices())
	to := c.at
	if to.IsZero() {
		to = v.Ctx.Now()
	}
	empty := "no lag recorded for this group in the last " + common.SpanName(span)
	switch {
	case !c.read || c.span != span:
		empty = "reading the history…"
	case c.err != nil:
		empty = "history: " + sanitize.Error(c.err)
	}
	ch := components.Chart{
		Width: v.W, Height: height - 1, From: to.Add(-span), To: to, Points: c.pts,
		Gap:  3 * v.Ctx.History.Step(span),
		Line: st.Spark, Axis: st.Muted, Empty: empty,
	}
	if c.span != span {
		ch.Points = nil
	}
	return append([]string{title}, common.SplitLines(ch.Render())...)
}
