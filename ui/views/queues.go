package views

import (
	"cmp"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

const depthHistory = 120

type queueRow struct {
	info  admin.QueueInfo
	name  string
	depth *common.Ring
	spark string
}

// Queues is the queues tab: depth, in-flight, rates and a depth sparkline
// per queue; Enter shows the queue's properties and a wide depth chart.
type Queues struct {
	base
	table  *components.Table[*queueRow]
	rows   map[string]*queueRow
	loaded bool
	detail string // raw name of the queue shown; "" = list
}

// NewQueues returns the queues view.
func NewQueues(ctx *common.Context) *Queues {
	v := &Queues{base: base{ctx: ctx, id: common.ViewQueues}, rows: map[string]*queueRow{}}
	type C = components.Column[*queueRow]
	v.table = components.NewTable(ctx, func(r *queueRow) string { return r.info.Name },
		C{Title: "NAME", Width: 22, Min: 10, Flex: true, Max: 48,
			Text: func(r *queueRow) string { return r.name },
			Cmp:  func(a, b *queueRow) int { return strings.Compare(a.info.Name, b.info.Name) }},
		C{Title: "DEPTH", Width: 8, Right: true,
			Text: func(r *queueRow) string { return common.Count(r.info.Depth) },
			Cmp:  func(a, b *queueRow) int { return cmp.Compare(a.info.Depth, b.info.Depth) },
			Paint: func(r *queueRow, st *common.Styles) common.Style {
				if r.info.Property.MaxDepth > 0 && r.info.Depth*10 >= r.info.Property.MaxDepth*9 {
					return st.Err
				}
				return common.Style{}
			}},
		C{Title: "IN-FLIGHT", Width: 9, Min: 6, Right: true, Drop: 4,
			Text: func(r *queueRow) string { return common.Count(r.info.InFlight) },
			Cmp:  func(a, b *queueRow) int { return cmp.Compare(a.info.InFlight, b.info.InFlight) }},
		C{Title: "PUT/s", Width: 6, Right: true, Drop: 2,
			Text: func(r *queueRow) string { return common.Rate(r.info.PutRate) },
			Cmp:  func(a, b *queueRow) int { return cmp.Compare(a.info.PutRate, b.info.PutRate) }},
		C{Title: "GET/s", Width: 6, Right: true, Drop: 3,
			Text: func(r *queueRow) string { return common.Rate(r.info.GetRate) },
			Cmp:  func(a, b *queueRow) int { return cmp.Compare(a.info.GetRate, b.info.GetRate) }},
		C{Title: "DEPTH TREND", Width: 12, Min: 8, Drop: 1, NoFilter: true,
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
	)
	v.table.Empty = "no queue"
	v.table.SetSort(0, false)
	return v
}

func fullText(q admin.QueueInfo) string {
	if q.Property.MaxDepth <= 0 {
		return "-"
	}
	return itoa(q.Depth*100/q.Property.MaxDepth) + "%"
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

func (v *Queues) Title() string         { return "Queues" }
func (v *Queues) Primary() common.ResID { return common.ResQueues }
func (v *Queues) Capturing() bool       { return v.detail == "" && v.table.Filtering() }

// SetSize implements common.View.
func (v *Queues) SetSize(w, h int) {
	v.w, v.h = w, h
	v.table.SetSize(w, max(h-1, 0))
}

func (v *Queues) Status() string {
	if v.detail != "" {
		return "queue " + common.S(v.detail)
	}
	return words(v.table.Position(), v.table.SortInfo())
}

// ShortHelp implements common.View.
func (v *Queues) ShortHelp() []key.Binding {
	k := v.ctx.Keys
	if v.detail != "" {
		return []key.Binding{k.Back}
	}
	return []key.Binding{k.Open, k.Filter, k.Sort, k.Reverse}
}

// FullHelp implements common.View.
func (v *Queues) FullHelp() [][]key.Binding {
	k := v.ctx.Keys
	return [][]key.Binding{k.TableHelp(), {k.Open}}
}

// Back implements common.View.
func (v *Queues) Back() bool {
	if v.detail != "" {
		v.detail = ""
		return true
	}
	return v.table.ClearFilter()
}

// Update implements common.View.
func (v *Queues) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.DataMsg:
		if qs, ok := msg.Data.([]admin.QueueInfo); ok && msg.Res == common.ResQueues {
			v.setQueues(qs, msg.At)
		}
	case tea.KeyPressMsg:
		if v.detail != "" {
			return nil
		}
		if !v.table.Filtering() && key.Matches(msg, v.ctx.Keys.Open) {
			if r, ok := v.table.Selected(); ok {
				v.detail = r.info.Name
			}
			return nil
		}
		_, cmd := v.table.Update(msg)
		return cmd
	case tea.PasteMsg, tea.MouseWheelMsg:
		if v.detail == "" {
			v.table.Update(msg)
		}
	case tea.MouseClickMsg:
		if v.detail == "" && msg.Button == tea.MouseLeft {
			if hit, again := v.table.Click(msg.Y - 1); hit && again {
				if r, ok := v.table.Selected(); ok {
					v.detail = r.info.Name
				}
			}
		}
	}
	return nil
}

func (v *Queues) setQueues(qs []admin.QueueInfo, _ time.Time) {
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
	if _, ok := v.rows[v.detail]; !ok {
		v.detail = ""
	}
	v.table.SetItems(items)
}

// View implements common.View.
func (v *Queues) View() string {
	st := v.ctx.Styles
	if v.detail != "" {
		return v.detailView(st)
	}
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
			parts = append(parts, st.Err.Render(itoa(int64(full))+" ≥ 90% full"))
		}
		summary = strings.Join(parts, st.Faint.Render(" · "))
	}
	lines := append(make([]string, 0, v.h), summary)
	lines = append(lines, v.table.Lines()...)
	return common.Frame(lines, v.w, v.h)
}

func (v *Queues) detailView(st *common.Styles) string {
	r := v.rows[v.detail]
	q, p := r.info, r.info.Property
	yes := func(b bool, on, off string) string {
		if b {
			return on
		}
		return st.Warn.Render(off)
	}
	maxDepth := "unlimited"
	if p.MaxDepth > 0 {
		maxDepth = common.Thousands(p.MaxDepth) + " (" + fullText(q) + " full)"
	}
	created := "-"
	if !p.Created.IsZero() {
		created = p.Created.Format("2006-01-02 15:04:05")
	}
	lines := []string{st.Title.Render("Queue " + r.name)}
	if p.Description != "" {
		lines = append(lines, st.Muted.Render(common.S(p.Description)))
	}
	lines = append(lines, common.Pairs(st, v.w,
		"depth", common.Thousands(q.Depth), "max depth", maxDepth, "in flight", common.Thousands(q.InFlight),
		"put", common.Rate(q.PutRate)+"/s", "get", common.Rate(q.GetRate)+"/s")...)
	lines = append(lines, common.Pairs(st, v.w,
		"max message", common.Bytes(int64(p.MaxMsgSize)),
		"", yes(p.PutEnabled, "put enabled", "put disabled"),
		"", yes(p.GetEnabled, "get enabled", "get disabled"),
		"", map[bool]string{true: "persistent", false: "non-persistent"}[p.Persistent],
		"created", created)...)
	lines = append(lines, "", sectionTitle(st, "Depth")+st.Muted.Render("  last "+itoa(int64(r.depth.Len()))+" samples, max "+common.Thousands(int64(maxOf(r.depth)))))
	chartH := max(v.h-len(lines), 1)
	lines = append(lines, barChart(st, r.depth.Values(nil, v.w), v.w, min(chartH, 8))...)
	return common.Frame(lines, v.w, v.h)
}

func maxOf(r *common.Ring) float64 {
	m := 0.0
	for i := 0; i < r.Len(); i++ {
		m = max(m, r.At(i))
	}
	return m
}

// barChart draws values as a multi-line column chart of height h using
// the block characters (eighth steps per line).
func barChart(st *common.Styles, vals []float64, w, h int) []string {
	if h <= 1 {
		return []string{st.Spark.Render(components.Sparkline(vals, w))}
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	top := 0.0
	for _, x := range vals {
		top = max(top, x)
	}
	levels := []rune(" ▁▂▃▄▅▆▇█")
	lines := make([]string, h)
	for row := 0; row < h; row++ {
		var b strings.Builder
		for i := len(vals); i < w; i++ {
			b.WriteByte(' ')
		}
		for _, x := range vals {
			eighths := 0
			if top > 0 {
				eighths = int(x / top * float64(h*8))
			}
			fill := eighths - (h-1-row)*8
			switch {
			case fill >= 8:
				b.WriteRune('█')
			case fill <= 0:
				b.WriteRune(' ')
			default:
				b.WriteRune(levels[fill])
			}
		}
		lines[row] = st.Spark.Render(b.String())
	}
	return lines
}
