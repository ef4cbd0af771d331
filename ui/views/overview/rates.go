package overview

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// rateHistMsg is a read of the cluster's in/out history.
type rateHistMsg struct {
	span    time.Duration
	in, out []common.HistPoint
	err     error
	at      time.Time
}

// rateHist is the latest read: the Overview's in/out over the span
// chosen, once the history has points.
type rateHist struct {
	span    time.Duration
	in, out []common.HistPoint
	err     error
	at      time.Time
}

// readRates reads the cluster's in/out history over the span chosen, in
// a command addressed to the Overview.
func (v *View) readRates() tea.Cmd {
	h := v.Ctx.History
	if h == nil {
		return nil
	}
	span, now := v.Ctx.Span(), v.Ctx.Now
	return v.Address(v.Gen, func() any {
		in, out, err := h.ClusterInOut(span)
		return rateHistMsg{span: span, in: in, out: out, err: err, at: now()}
	})
}

// minHistoryCover is how much of the span the history must hold before
// the Overview draws it: a new history file (a first run, a new context)
// has a point or two, which over an hour are one column at the right
// edge, while the live statistics show the last minute in full.
const minHistoryCover = 2 * time.Minute

// histRateLines are the in/out sparklines over the history span, false
// while the history holds less than minHistoryCover of it (the live
// statistics then show).
func (v *View) histRateLines(st *common.Styles, w int) ([]string, bool) {
	r := v.rates
	span := v.Ctx.Span()
	if !v.historyCovers() {
		return nil, false
	}
	from := r.at.Add(-span)
	peak := func(pts []common.HistPoint) float64 {
		var top float64
		for _, p := range pts {
			top = max(top, p.V)
		}
		return top
	}
	pw := peakWidth(peak(r.in), peak(r.out))
	line := func(label string, pts []common.HistPoint, sty common.Style) string {
		return rateLine(st, w, label, pts[len(pts)-1].V, peak(pts), pw, func(sw int) []float64 { return columns(pts, from, span, sw) }, sty)
	}
	return []string{
		line("records in", r.in, st.Spark),
		line("records out", r.out, st.SparkOut),
		st.Faint.Render("last "+common.SpanName(span)+" from the history, oldest left") + st.Muted.Render(" · w: "+v.Ctx.SpanChoices()),
	}, true
}

// columns puts points into w columns over from..from+span: a column's
// largest value, -1 (blank) where nothing was recorded.
func columns(pts []common.HistPoint, from time.Time, span time.Duration, w int) []float64 {
	out := make([]float64, w)
	for i := range out {
		out[i] = -1
	}
	for _, p := range pts {
		x := int(float64(p.At.Sub(from)) / float64(span) * float64(w))
		if x >= 0 && x < w {
			out[x] = max(out[x], p.V)
		}
	}
	return out
}

// historyCovers says whether the latest history read, of the span chosen,
// reaches minHistoryCover back.
func (v *View) historyCovers() bool {
	r := v.rates
	if v.Ctx.History == nil || r.span != v.Ctx.Span() || len(r.in) == 0 || len(r.out) == 0 {
		return false
	}
	return r.at.Sub(r.oldest()) >= minHistoryCover
}

// oldest is the first point of the read, in or out (zero without points).
func (r rateHist) oldest() time.Time {
	if len(r.in) == 0 || len(r.out) == 0 {
		return time.Time{}
	}
	if r.out[0].At.Before(r.in[0].At) {
		return r.out[0].At
	}
	return r.in[0].At
}

// historyHint follows the live statistics' caption while a history is
// kept but does not cover enough yet: since when it records, and the span
// key.
func (v *View) historyHint(st *common.Styles) string {
	if v.Ctx.History == nil {
		return ""
	}
	hint := " · w: " + v.Ctx.SpanChoices()
	if r := v.rates; r.span == v.Ctx.Span() && !r.oldest().IsZero() {
		hint = " · history since " + common.Clock(r.oldest()) + hint
	}
	return st.Muted.Render(hint)
}
