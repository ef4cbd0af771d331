// Package fleet is the Fleet tab: one row per watched cluster (issue 27),
// worst first, and the alerts of every cluster labelled with their
// context. It draws what the root computes from each cluster's own
// poller and health tracker (Row); it reads nothing itself and imports no
// other tab. Enter opens the selected cluster's tabs (OpenMsg).
package fleet

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

// State is a cluster's reachability and freshness, which decides what its
// row may say: health words only from fresh lists (docs/HEALTH.md).
type State int

const (
	// Waiting: no answer yet.
	Waiting State = iota
	// Fresh: every list the health reads is younger than three intervals.
	Fresh
	// Stale: the cluster answers, but a list is older than three
	// intervals (or its poll answers with an error): its words are not
	// shown.
	Stale
	// Unreachable: the latest poll of a list (the summary's first) could
	// not reach the cluster.
	Unreachable
)

// Row is one cluster as the Fleet tab shows it. Text fields are
// sanitized by the root.
type Row struct {
	Index  int    // the cluster's position in the list given (its identity)
	Name   string // the context
	Target string // where it connects
	State  State
	// Since: Unreachable, when the failures began; Stale, when the oldest
	// list was last good (zero: never).
	Since  time.Time
	Reason string // Unreachable or Stale: why, in few words

	NodesUp, Nodes     int
	Leader             string // "node 1 (QM1)", "none"
	UnderRepl, Offline int    // partitions
	Words              []WordCount
	WorstLag           int64
	WorstGroup         string
	QueueAlerts, DLQ   int
	In, Out            float64   // records per second, the latest point
	InPts, OutPts      []float64 // the recent points, oldest first
	Alerts             []health.Alert
}

// WordCount is how many groups have a health word.
type WordCount struct {
	Word health.Word
	N    int
}

// Level is the row's worst alert level (OK without alerts; only
// meaningful when Fresh).
func (r Row) Level() health.Level {
	l := health.LevelOK
	for _, a := range r.Alerts {
		l = max(l, a.Level)
	}
	return l
}

// rank orders the rows worst first: unreachable, critical, warning, stale
// or waiting (nothing known), OK.
func (r Row) rank() int {
	switch r.State {
	case Unreachable:
		return 0
	case Stale, Waiting:
		return 3
	}
	switch r.Level() {
	case health.LevelCritical:
		return 1
	case health.LevelWarning:
		return 2
	}
	return 4
}

// OpenMsg asks the root to show cluster Index's tabs.
type OpenMsg struct{ Index int }

// View is the Fleet tab.
type View struct {
	ctx  *common.Context
	w, h int
	all  []Row // every cluster, worst first
	rows []Row // those the filter keeps, worst first
	sel  int   // index into rows
	// filter keeps the rows whose name or address holds it (any case;
	// !text keeps those that do not), for a fleet of many clusters; the
	// title still counts every cluster's trouble, hidden or not.
	filter string
	input  components.Input
	typing bool // the filter input has the keyboard
	// moved: the user moved the selection or opened its cluster, which
	// the selection then follows as the rows resort; until then it stays
	// on the worst.
	moved bool
	top   int // the first row shown: the table scrolls to keep sel in view
	now   time.Time
	notes []string // the title's notes (SetNotes)
}

// New returns the Fleet tab drawn with ctx's styles and keys.
func New(ctx *common.Context) *View {
	return &View{ctx: ctx, input: components.NewInput("/", "filter clusters (!text excludes)")}
}

// Title is the tab's name.
func (v *View) Title() string { return "Fleet" }

// SetSize sets the body's size.
func (v *View) SetSize(w, h int) { v.w, v.h = w, h }

// SetRows takes the clusters as of now, sorts them worst first (ties in
// the order given) and keeps the selection on the same cluster.
func (v *View) SetRows(rows []Row, now time.Time) {
	v.all, v.now = rows, now
	slices.SortStableFunc(v.all, func(a, b Row) int {
		if c := cmp.Compare(a.rank(), b.rank()); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	v.refilter()
}

// refilter keeps the rows the filter keeps, the selection on the same
// cluster once the operator moved it (else on the worst row).
func (v *View) refilter() {
	selected := -1
	if v.moved {
		selected = v.Selected()
	}
	f, neg := strings.ToLower(v.filter), false
	if rest, ok := strings.CutPrefix(f, "!"); ok && rest != "" {
		f, neg = rest, true
	}
	v.rows = v.rows[:0]
	for _, r := range v.all {
		if f == "" || (strings.Contains(strings.ToLower(r.Name), f) || strings.Contains(strings.ToLower(r.Target), f)) != neg {
			v.rows = append(v.rows, r)
		}
	}
	v.sel = 0
	for i, r := range v.rows {
		if r.Index == selected {
			v.sel = i
		}
	}
}

// setFilter sets the filter and keeps the rows it keeps.
func (v *View) setFilter(f string) {
	v.filter = f
	v.refilter()
}

// Capturing reports that the filter input has the keyboard: the root
// then sends it every key (q and 0 are text there).
func (v *View) Capturing() bool { return v.typing }

// SetNotes sets what the title line says beyond the rows, such as the
// spokes of a hub not shown (sanitized by the root).
func (v *View) SetNotes(notes []string) { v.notes = notes }

// Rows returns the rows in display order (shared: read only).
func (v *View) Rows() []Row { return v.rows }

// Selected returns the selected row's cluster index, -1 with none.
func (v *View) Selected() int {
	if v.sel >= len(v.rows) {
		return -1
	}
	return v.rows[v.sel].Index
}

// ShortHelp is the hint line's keys.
func (v *View) ShortHelp() []key.Binding {
	k := v.ctx.Keys
	return []key.Binding{k.Up, k.Down, k.Open, k.Filter}
}

// FullHelp is the tab's column of `?` help.
func (v *View) FullHelp() [][]key.Binding {
	k := v.ctx.Keys
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom, k.Open, k.Filter, k.Back}}
}

// Update moves the selection and opens the selected cluster.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	k := v.ctx.Keys
	switch {
	case v.typing:
		v.filterKey(km)
		return nil
	case key.Matches(km, k.Filter):
		v.typing = true
		v.input.SetValue(v.filter)
		v.input.Focus()
		return nil
	case key.Matches(km, k.Back) && v.filter != "":
		v.setFilter("")
		return nil
	case len(v.rows) == 0:
		return nil
	}
	if key.Matches(km, k.Up, k.Down, k.Top, k.Bottom, k.Open) {
		v.moved = true // the selection now follows its cluster: back from it (0), it is still there
	}
	switch {
	case key.Matches(km, k.Up):
		v.sel = max(0, v.sel-1)
	case key.Matches(km, k.Down):
		v.sel = min(len(v.rows)-1, v.sel+1)
	case key.Matches(km, k.Top):
		v.sel = 0
	case key.Matches(km, k.Bottom):
		v.sel = len(v.rows) - 1
	case key.Matches(km, k.Open):
		i := v.rows[v.sel].Index
		return func() tea.Msg { return OpenMsg{Index: i} }
	}
	return nil
}

// filterKey edits the filter as it is typed: enter keeps it, esc clears
// it.
func (v *View) filterKey(km tea.KeyPressMsg) {
	switch km.String() {
	case "enter":
		v.typing = false
		v.input.Blur()
		v.setFilter(strings.TrimSpace(v.input.Value()))
	case "esc":
		v.typing = false
		v.input.Blur()
		v.setFilter("")
	default:
		v.input.Update(km)
		v.setFilter(v.input.Value())
	}
}

// Click selects the row at body line y and opens it on a second click.
func (v *View) Click(y int) tea.Cmd {
	first, n := v.window()
	i := y - 2 // the title and the header
	if i < 0 || i >= n {
		return nil
	}
	i += first
	if i == v.sel {
		idx := v.rows[i].Index
		v.moved = true
		return func() tea.Msg { return OpenMsg{Index: idx} }
	}
	v.sel, v.moved = i, true
	return nil
}

// columns are the table's fixed widths; the groups cell takes what is
// left, and the rate cells go first on a narrow terminal.
const (
	wName  = 12
	wState = 9
	wNodes = 6
	wLead  = 14
	wParts = 8
	wLag   = 20
	wQueue = 9
	wRate  = 8
	wSpark = 10
)

// View draws the tab: a title line, the table, then the alerts of every
// cluster labelled with their context.
func (v *View) View() string {
	st := v.ctx.Styles
	withRates := v.w >= wName+wState+wNodes+wLead+wParts+wLag+wQueue+20+2*(wRate+wSpark)
	first, n := v.window()
	title := v.titleLine(st)
	if n < len(v.rows) {
		title += st.Muted.Render(fmt.Sprintf(" · rows %d–%d of %d", first+1, first+n, len(v.rows)))
	}
	lines := []string{title, v.header(st, withRates)}
	if len(v.rows) == 0 && len(v.all) > 0 {
		lines = append(lines, st.Muted.Render("  no cluster matches the filter (esc clears it)"))
	}
	for i := first; i < first+n; i++ {
		r := v.rows[i]
		line := v.row(st, r, withRates)
		if i == v.sel {
			line = st.Selected.Render(common.PadStyled(common.ClipStyled("▸ "+line, v.w), v.w))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	lines = append(lines, "")
	lines = append(lines, v.alertLines(st, max(0, v.h-len(lines)))...)
	return strings.Join(lines, "\n")
}

// window is the rows the table shows, first and how many: all of them
// when they fit the body with the alerts, else as many as leave the
// alerts a third of it (their title and a few), scrolled so that the
// selection is in view.
func (v *View) window() (first, n int) {
	room := v.h - 2 // the title and the header
	if len(v.rows) == 0 || len(v.rows)+1+2 <= room {
		return 0, len(v.rows)
	}
	n = max(1, min(len(v.rows), room-max(0, room/3)))
	v.top = min(max(v.top, v.sel-n+1, 0), v.sel, len(v.rows)-n)
	return v.top, n
}

func (v *View) titleLine(st *common.Styles) string {
	var down, alerting int
	for _, r := range v.all { // hidden by the filter or not
		switch {
		case r.State == Unreachable:
			down++
		case r.State == Fresh && r.Level() > health.LevelOK:
			alerting++
		}
	}
	count := common.Plural(len(v.all), "cluster")
	if len(v.rows) < len(v.all) {
		count = strconv.Itoa(len(v.rows)) + " of " + count
	}
	s := st.Title.Render("Fleet") + st.Muted.Render(" · "+count)
	if down > 0 {
		s += st.Err.Render(" · " + strconv.Itoa(down) + " unreachable")
	}
	if alerting > 0 {
		s += st.Warn.Render(" · " + strconv.Itoa(alerting) + " with alerts")
	}
	for _, n := range v.notes {
		s += st.Muted.Render(" · " + n)
	}
	switch {
	case v.typing:
		s += st.Muted.Render(" · ") + v.input.View(st)
	case v.filter != "":
		s += st.Muted.Render(" · ") + st.Filter.Render("/"+common.S(v.filter)) + st.Muted.Render(" (esc clears)")
	}
	return s
}

func (v *View) header(st *common.Styles, withRates bool) string {
	cells := []string{
		common.Fit("CONTEXT", wName), common.Fit("STATE", wState), common.Fit("NODES", wNodes),
		common.Fit("LEADER", wLead), common.Fit("UR/OFF", wParts), common.Fit("WORST LAG", wLag),
		common.Fit("Q/DLQ", wQueue),
	}
	if withRates {
		cells = append(cells, common.Fit("IN/s", wRate+wSpark), common.Fit("OUT/s", wRate+wSpark))
	}
	cells = append(cells, "GROUPS")
	return st.Header.Render("  " + strings.Join(cells, " "))
}

// row is a cluster's line. An unreachable, stale or waiting cluster shows
// its state and nothing it last knew: old words would read as current.
func (v *View) row(st *common.Styles, r Row, withRates bool) string {
	name := common.Fit(r.Name, wName)
	if r.State != Fresh {
		return name + " " + v.stateCell(st, r)
	}
	cells := []string{
		name,
		v.stateCell(st, r),
		common.Fit(fmt.Sprintf("%d/%d", r.NodesUp, r.Nodes), wNodes),
		common.Fit(r.Leader, wLead),
		common.Fit(fmt.Sprintf("%d/%d", r.UnderRepl, r.Offline), wParts),
		common.Fit(lagCell(r), wLag),
		common.Fit(fmt.Sprintf("%d/%d", r.QueueAlerts, r.DLQ), wQueue),
	}
	if r.NodesUp < r.Nodes {
		cells[2] = st.Err.Render(cells[2])
	}
	if r.Leader == "none" {
		cells[3] = st.Err.Render(cells[3])
	}
	if r.Offline > 0 {
		cells[4] = st.Err.Render(cells[4])
	} else if r.UnderRepl > 0 {
		cells[4] = st.Warn.Render(cells[4])
	}
	if r.QueueAlerts+r.DLQ > 0 {
		cells[6] = st.Warn.Render(cells[6])
	}
	if withRates {
		cells = append(cells, rateCell(st.Spark, r.In, r.InPts), rateCell(st.SparkOut, r.Out, r.OutPts))
	}
	cells = append(cells, wordsCell(st, r.Words))
	return strings.Join(cells, " ")
}

// stateCell is the STATE column: the worst level, or why there is no
// verdict ("cannot reach ilink-1.example:5000 since 10:01:40").
func (v *View) stateCell(st *common.Styles, r Row) string {
	switch r.State {
	case Waiting:
		return st.Faint.Render("connecting to " + r.Target + "…")
	case Unreachable:
		s := "cannot reach " + r.Target + " since " + common.Clock(r.Since)
		if r.Reason != "" {
			s += ": " + r.Reason
		}
		return st.Err.Render(s)
	case Stale:
		s := "stale: no fresh data"
		if !r.Since.IsZero() {
			s += " since " + common.Clock(r.Since)
		}
		if r.Reason != "" {
			s += " (" + r.Reason + ")"
		}
		return st.Warn.Render(s)
	}
	l := r.Level()
	text := common.Fit(l.String(), wState)
	switch l {
	case health.LevelCritical:
		return st.Err.Render(text)
	case health.LevelWarning:
		return st.Warn.Render(text)
	}
	return st.OK.Render(text)
}

func lagCell(r Row) string {
	if r.WorstGroup == "" {
		return "-"
	}
	return common.Count(r.WorstLag) + " " + r.WorstGroup
}

func rateCell(sty common.Style, v float64, pts []float64) string {
	return common.FitRight(common.Rate(v), wRate-1) + " " + sty.Render(components.Sparkline(pts, wSpark))
}

// wordsCell counts the groups by health word, the most in need of
// attention first: "1 STOPPED · 3 OK".
func wordsCell(st *common.Styles, ws []WordCount) string {
	if len(ws) == 0 {
		return st.Faint.Render("no groups")
	}
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		s := strconv.Itoa(w.N) + " " + w.Word.String()
		switch w.Word {
		case health.Stopped, health.Dead, health.Stalled:
			s = st.Err.Render(s)
		case health.Lagging, health.Rewound, health.Rebalancing:
			s = st.Warn.Render(s)
		case health.OK:
			s = st.OK.Render(s)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, st.Muted.Render(" · "))
}

// hiddenAlerts counts the alerts of the clusters the filter hides (an
// unreachable one's own among them).
func (v *View) hiddenAlerts() int {
	shown := make(map[int]bool, len(v.rows))
	for _, r := range v.rows {
		shown[r.Index] = true
	}
	n := 0
	for _, r := range v.all {
		if shown[r.Index] {
			continue
		}
		switch r.State {
		case Unreachable:
			n++
		case Fresh:
			n += len(r.Alerts)
		}
	}
	return n
}

// alertLines are the alerts of the clusters shown, labelled with the
// context, most severe first (an unreachable cluster's own alert among
// them), within h lines; under a filter the heading counts the others.
func (v *View) alertLines(st *common.Styles, h int) []string {
	type labelled struct {
		name string
		a    health.Alert
	}
	var all []labelled
	for _, r := range v.rows {
		switch r.State {
		case Unreachable:
			all = append(all, labelled{r.Name, health.UnreachableAlert(r.Target, r.Reason, r.Since)})
		case Fresh:
			for _, a := range r.Alerts {
				all = append(all, labelled{r.Name, a})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b labelled) int { return cmp.Compare(b.a.Level, a.a.Level) })
	if h <= 0 {
		return nil
	}
	head := st.Title.Render("Alerts") + st.Muted.Render(" · every cluster")
	if len(v.rows) < len(v.all) {
		head = st.Title.Render("Alerts") + st.Muted.Render(" · the clusters shown")
		if hidden := v.hiddenAlerts(); hidden > 0 {
			head += st.Warn.Render(" · " + common.Plural(hidden, "more alert") + " on clusters the filter hides")
		}
	}
	out := []string{head}
	if len(all) == 0 {
		out = append(out, st.OK.Render("  none"))
	}
	for i, l := range all {
		if len(out) == h-1 && i < len(all)-1 {
			out = append(out, st.Muted.Render(fmt.Sprintf("  … %d more", len(all)-i)))
			break
		}
		lvl := st.Warn.Render("WARN")
		if l.a.Level == health.LevelCritical {
			lvl = st.Err.Render("CRIT")
		}
		out = append(out, "  "+lvl+" "+st.Bold.Render(common.Fit(l.name, wName))+" "+common.S(l.a.Text))
	}
	return out[:min(len(out), h)]
}
