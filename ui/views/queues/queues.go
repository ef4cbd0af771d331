package queues

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/views/listdetail"
	"ilinkdash/ui/views/tab"
)

const depthHistory = 120

type queueRow struct {
	info  admin.QueueInfo
	name  string
	depth *common.Ring
	spark string
}

// View is the queues tab: depth, in-flight, rates, a depth sparkline and
// the dead-letter queue's depth and growth per queue; Enter opens the
// queue's detail with a browse of its messages (queuedetail.go); Q opens
// the quarantine (quarantine.go).
type View struct {
	listdetail.List[*queueRow]
	src    tab.QueueAdmin // nil: no detail actions (tests of the list alone)
	rows   map[string]*queueRow
	loaded bool
	detail string // raw name of the queue shown; "" = list
	qd     *queueDetail
	qq     *quarantinePane // the quarantine pane; nil = not shown
}

// New returns the queues view.
func New(ctx *common.Context, src tab.QueueAdmin) *View {
	v := &View{src: src, rows: map[string]*queueRow{}}
	type C = components.Column[*queueRow]
	// The declared columns of the queue list (tab.QueueList); the name
	// is the row's, sanitized once per queue.
	col := func(title string) C { return tab.Column(tab.QueueList, title, queueInfo) }
	name := col("NAME")
	name.Text = func(r *queueRow) string { return r.name }
	v.Setup(ctx, common.ViewQueues, v, components.NewTable(ctx, tab.RowKey(tab.QueueList, queueInfo),
		name, col("DEPTH"),
		C{Title: "DLQ", Width: 12, Min: 6, Drop: 1,
			Text: func(r *queueRow) string { return v.dlqCell(r) },
			Paint: func(r *queueRow, st *common.Styles) common.Style {
				if d := v.rows[r.info.Property.DeadLetterQueue]; d != nil && v.growth(d) > 0 {
					return st.Warn
				}
				return st.Muted
			}},
		col("IN-FLIGHT"), col("PUT/s"), col("GET/s"),
		C{Title: "DEPTH TREND", Width: 12, Min: 8, Drop: 7, NoFilter: true,
			Text:  func(r *queueRow) string { return r.spark },
			Paint: func(_ *queueRow, st *common.Styles) common.Style { return st.Spark }},
		C{Title: "FULL", Width: 5, Right: true, Drop: 6,
			Text: func(r *queueRow) string { return fullText(r.info) }},
		C{Title: "STATUS", Width: 11, Drop: 5,
			Text: func(r *queueRow) string { return queueFlags(r.info.Property) },
			Paint: func(r *queueRow, st *common.Styles) common.Style {
				if !r.info.Property.PutEnabled || !r.info.Property.GetEnabled {
					return st.Warn
				}
				return st.Muted
			}},
	))
	v.Table.Empty = "no queue"
	v.Table.SetSort(0, false)
	return v
}

// queueInfo is the listed queue of a row.
func queueInfo(r *queueRow) *admin.QueueInfo { return &r.info }

// dlqCell is the DLQ column: the dead-letter queue's depth and growth
// ("3 +1/1m"), "dlq" for a queue that is one, "-" for none.
func (v *View) dlqCell(r *queueRow) string {
	name := r.info.Property.DeadLetterQueue
	if name == "" {
		if len(v.dlqOf(r.info.Name)) > 0 {
			return "(is a DLQ)"
		}
		return "-"
	}
	d := v.rows[name]
	if d == nil {
		return "?"
	}
	s := common.Count(d.info.Depth)
	if g := v.growth(d); g > 0 {
		s += " +" + common.Count(g) + "/1m"
	}
	return s
}

func fullText(q admin.QueueInfo) string {
	if q.Property.MaxDepth <= 0 {
		return "-"
	}
	return tab.Itoa(q.Depth*100/q.Property.MaxDepth) + "%"
}

func queueFlags(p admin.QueueProperty) string {
	switch {
	case !p.PutEnabled && !p.GetEnabled:
		return "put+get off"
	case !p.PutEnabled:
		return "put off"
	case !p.GetEnabled:
		return "get off"
	}
	return "ok"
}

func (v *View) Title() string         { return "Queues" }
func (v *View) Primary() common.ResID { return common.ResQueues }

// DetailPanes is the quarantine's one table or the queue detail's.
func (v *View) DetailPanes() *listdetail.Panes {
	switch {
	case v.qq != nil:
		return &v.qq.panes
	case v.qd != nil:
		return &v.qd.panes
	}
	return nil
}

func (v *View) DetailTableTop() int {
	if v.qq != nil {
		return 1
	}
	return v.queueTop()
}

func (v *View) DetailStatus() string {
	if v.qq != nil {
		return tab.Words("quarantine", v.qq.dirs.Position())
	}
	return tab.Words("queue "+common.S(v.detail), v.qd.msgs.Position())
}

func (v *View) SizeDetail() {
	v.sizeQueue()
	v.sizeQuarantine()
}

func (v *View) DetailView(st *common.Styles) string {
	if v.qq != nil {
		return v.quarantineView(st)
	}
	return v.queueView(st)
}

func (v *View) DetailKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if v.qq != nil {
		return v.quarantineKey(msg)
	}
	return v.queueKey(msg)
}

// CloseDetail closes the quarantine or the queue detail.
func (v *View) CloseDetail() {
	if v.qq != nil {
		v.qq = nil
	} else {
		v.detail, v.qd = "", nil
	}
	v.Gen++
}

// ShortHelp implements common.View.
func (v *View) ShortHelp() []key.Binding {
	k := v.Ctx.Keys
	switch {
	case v.qq != nil:
		return []key.Binding{k.Back, k.Reinject, k.QueueRefresh}
	case v.detail != "":
		return []key.Binding{k.Back, k.TailFormat, k.QueuePut, k.QueueTake, k.QueueMove, k.QueueRefresh, k.QueueSearch, k.QueueCopy}
	}
	return []key.Binding{k.Open, k.Filter, k.Sort, k.Reverse, k.Quarantine}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	return [][]key.Binding{k.TableHelp(), {k.Open, k.Quarantine, k.QueueSearch, k.QueueCopy, k.TailFormat, k.QueuePut, k.QueueTake, k.QueueMove, k.QueueRefresh, k.Reinject}}
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.DataMsg:
		if qs, ok := msg.Data.([]admin.QueueInfo); ok && msg.Res == common.ResQueues {
			return v.setQueues(qs, msg.At)
		}
	case common.ViewMsg:
		return v.handleViewMsg(msg)
	default:
		return v.Input(msg)
	}
	return nil
}

func (v *View) DialogKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case v.qq != nil:
		return v.quarantineDialogKey(msg)
	case v.qd != nil:
		return v.detailDialogKey(msg)
	}
	if out, _ := v.Dlg.Update(v.Ctx, msg); out == components.Cancel || out == components.Submit {
		v.CloseDialog()
	}
	return nil
}

func (v *View) OpenRow(r *queueRow) tea.Cmd { return v.openQueue(r.info.Name) }

// Reveal implements common.Revealer: a drill-down (a queue or dead-letter
// queue alert) opens a queue's detail, closing the quarantine if open.
func (v *View) Reveal(t common.Target) tea.Cmd {
	if t.Kind != common.TargetQueue {
		return nil
	}
	v.qq = nil
	v.Table.SelectKey(t.Name)
	if v.qd != nil && v.detail == t.Name {
		return nil
	}
	return v.openQueue(t.Name)
}

func (v *View) ListKey(msg tea.KeyPressMsg, _ *queueRow, _ bool) (tea.Cmd, bool) {
	k := v.Ctx.Keys
	switch {
	case key.Matches(msg, k.Quarantine):
		return v.openQuarantine(), true
	case key.Matches(msg, k.QueuePut, k.QueueTake, k.QueueMove, k.QueueRefresh, k.TailFormat):
		// Keys of the open queue: said, not silently ignored.
		return common.Refuse("open a queue first (enter): " + msg.String() + " acts on the open queue"), true
	}
	return nil, false
}

func (v *View) handleViewMsg(msg common.ViewMsg) tea.Cmd {
	switch m := msg.Msg.(type) {
	case queueActionMsg:
		return v.actionReply(m)
	case reinjectMsg:
		return v.reinjectReply(m)
	}
	if msg.Gen != v.Gen {
		return nil // the detail or pane it was for is gone
	}
	switch m := msg.Msg.(type) {
	case queueBrowseMsg:
		cmd := v.browseReply(m)
		v.SizeDetail()
		return cmd
	case quarantineMsg:
		return v.quarantineReply(m)
	}
	return nil
}

// setQueues takes a queue list. It returns a browse of the open detail
// when the list's depth of its queue is not the browse's: the detail
// reads itself again rather than show "0 of 0" under a depth of 39.
func (v *View) setQueues(qs []admin.QueueInfo, _ time.Time) tea.Cmd {
	v.loaded = true
	items := make([]*queueRow, 0, len(qs))
	seen := make(map[string]struct{}, len(qs))
	for _, q := range qs {
		r := v.rows[q.Name]
		if r == nil {
			r = &queueRow{depth: common.NewRing(depthHistory)}
			v.rows[q.Name] = r
		}
		r.info, r.name = q, common.S(q.Name)
		r.depth.Push(float64(q.Depth))
		r.spark = components.Sparkline(r.depth.Values(nil, 12), 12)
		seen[q.Name] = struct{}{}
		items = append(items, r)
	}
	for n := range v.rows {
		if _, ok := seen[n]; !ok {
			delete(v.rows, n)
		}
	}
	if _, ok := v.rows[v.detail]; !ok && v.detail != "" {
		v.detail, v.qd = "", nil
		v.Gen++
	}
	v.Table.SetItems(items)
	v.SizeDetail() // the header follows the data
	if d := v.qd; d != nil && d.loaded && !d.paging && v.rows[v.detail].info.Depth != d.win.depth {
		return v.fetchBrowse()
	}
	return nil
}

// ListSummary is the line above the list: the queues, their total depth,
// how many are nearly full and the dead letters.
func (v *View) ListSummary(st *common.Styles) string {
	summary := st.Muted.Render("loading queues…")
	if v.loaded {
		var depth int64
		var full int
		for _, r := range v.rows {
			depth += r.info.Depth
			if r.info.Property.MaxDepth > 0 && r.info.Depth*10 >= r.info.Property.MaxDepth*9 {
				full++
			}
		}
		parts := []string{common.Plural(len(v.rows), "queue"), "total depth " + common.Thousands(depth)}
		if full > 0 {
			parts = append(parts, st.Err.Render(tab.Itoa(int64(full))+" ≥ 90% full"))
		}
		if dead, grew, n := v.deadLetters(); n > 0 {
			t := common.PluralOf(dead, "dead letter", "dead letters")
			if grew > 0 {
				parts = append(parts, st.Warn.Render(t+" (+"+common.Thousands(grew)+" in 1m)"))
			} else {
				parts = append(parts, t)
			}
		}
		summary = strings.Join(parts, st.Faint.Render(" · "))
	}
	return summary
}

// deadLetters sums the depth and the growth of every dead-letter queue (a
// queue some queue names as its DLQ); n counts them.
func (v *View) deadLetters() (depth, grew int64, n int) {
	seen := map[string]bool{}
	for _, r := range v.rows {
		name := r.info.Property.DeadLetterQueue
		d := v.rows[name]
		if name == "" || d == nil || seen[name] {
			continue
		}
		seen[name] = true
		n++
		depth += d.info.Depth
		grew += v.growth(d)
	}
	return depth, grew, n
}
