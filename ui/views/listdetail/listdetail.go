package listdetail

import (
	"cmp"
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/views/tab"
)

// List is the scaffold of the tabs that list things and open one:
// topics, groups and queues. It holds the list table under a summary
// line and, once a row is opened, shows the view's detail in its place
// (Esc goes back). It routes keys, paste, the wheel and clicks to the
// open dialog, the detail's active table or the list, and implements
// Capturing, SetSize, Status, Back and View for the view that embeds it;
// the view configures it through Tab.
type List[R any] struct {
	tab.Base
	Table *components.Table[R]
	hooks Tab[R]
}

// Tab is what a list-plus-detail view tells its scaffold.
type Tab[R any] interface {
	// ListSummary is the line above the list.
	ListSummary(st *common.Styles) string
	// OpenRow opens the detail of a row (Enter, or a double click).
	OpenRow(r R) tea.Cmd
	// ListKey handles a key on the list (not while filtering; Enter is
	// OpenRow); false leaves it to the table. r, ok is the selected row.
	ListKey(msg tea.KeyPressMsg, r R, ok bool) (tea.Cmd, bool)
	// DialogKey handles a key while a dialog is open.
	DialogKey(msg tea.KeyPressMsg) tea.Cmd

	// DetailPanes are the tables of the detail shown instead of the list
	// (nil: the list is shown; the other detail methods are only called
	// while a detail is). The active one takes the keys the detail
	// leaves, paste, the wheel and clicks; v switches between several.
	DetailPanes() *Panes
	// DetailTableTop is the screen line of the active table (clicks).
	DetailTableTop() int
	DetailStatus() string
	// SizeDetail fits the detail to the view's size.
	SizeDetail()
	DetailView(st *common.Styles) string
	// DetailKey handles a key on the detail (not while its table
	// filters); false leaves it to the table.
	DetailKey(msg tea.KeyPressMsg) (tea.Cmd, bool)
	// CloseDetail goes back to the list (bumping gen: the detail's
	// replies in flight are dropped).
	CloseDetail()
}

// Setup sets the scaffold up; the view calls it in its constructor.
func (l *List[R]) Setup(ctx *common.Context, id common.ViewID, hooks Tab[R], table *components.Table[R]) {
	l.Base = tab.New(ctx, id)
	l.hooks, l.Table = hooks, table
}

// Capturing implements common.View: a dialog or a filter being typed
// takes every key.
func (l *List[R]) Capturing() bool {
	if l.Dlg != nil {
		return true
	}
	if l.hooks.DetailPanes() != nil {
		return l.hooks.DetailPanes().Active().Filtering()
	}
	return l.Table.Filtering()
}

// SetSize implements common.View.
func (l *List[R]) SetSize(w, h int) {
	l.W, l.H = w, h
	l.Table.SetSize(w, max(h-1, 0))
	if l.hooks.DetailPanes() != nil {
		l.hooks.SizeDetail()
	}
}

// Status implements common.View.
func (l *List[R]) Status() string {
	if l.hooks.DetailPanes() != nil {
		return l.hooks.DetailStatus()
	}
	return tab.Words(l.Table.Position(), l.Table.SortInfo())
}

// Back implements common.View: it clears the filter being shown, else
// closes the detail.
func (l *List[R]) Back() bool {
	if l.hooks.DetailPanes() != nil {
		if !l.hooks.DetailPanes().Active().ClearFilter() {
			l.hooks.CloseDetail()
		}
		return true
	}
	return l.Table.ClearFilter()
}

// Input routes the user's Input: keys, paste, the wheel and clicks.
func (l *List[R]) Input(msg tea.Msg) tea.Cmd {
	if l.DialogInput(msg) {
		return nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return l.key(msg)
	case tea.PasteMsg, tea.MouseWheelMsg:
		if p := l.hooks.DetailPanes(); p != nil {
			p.Active().Update(msg)
		} else {
			l.Table.Update(msg)
		}
	case tea.MouseClickMsg:
		switch {
		case msg.Button != tea.MouseLeft:
		case l.hooks.DetailPanes() != nil:
			l.hooks.DetailPanes().Active().Click(msg.Y - l.hooks.DetailTableTop())
		default:
			if hit, again := l.Table.Click(msg.Y - 1); hit && again {
				if r, ok := l.Table.Selected(); ok {
					return l.hooks.OpenRow(r)
				}
			}
		}
	}
	return nil
}

func (l *List[R]) key(msg tea.KeyPressMsg) tea.Cmd {
	if l.Dlg != nil {
		return l.hooks.DialogKey(msg)
	}
	if p := l.hooks.DetailPanes(); p != nil {
		t := p.Active()
		if t.Filtering() {
			t.Update(msg)
			return nil
		}
		if len(p.tables) > 1 && key.Matches(msg, l.Ctx.Keys.Pane) {
			p.Next()
			return nil
		}
		if cmd, ok := l.hooks.DetailKey(msg); ok {
			return cmd
		}
		t.Update(msg)
		return nil
	}
	if l.Table.Filtering() {
		_, cmd := l.Table.Update(msg)
		return cmd
	}
	r, ok := l.Table.Selected()
	if key.Matches(msg, l.Ctx.Keys.Open) {
		if ok {
			return l.hooks.OpenRow(r)
		}
		return nil
	}
	if cmd, handled := l.hooks.ListKey(msg, r, ok); handled {
		return cmd
	}
	_, cmd := l.Table.Update(msg)
	return cmd
}

// View implements common.View: the dialog, the detail, or the summary
// line over the list.
func (l *List[R]) View() string {
	if l.Dlg != nil {
		return l.DialogView()
	}
	st := l.Ctx.Styles
	if l.hooks.DetailPanes() != nil {
		return l.hooks.DetailView(st)
	}
	lines := append(make([]string, 0, l.H), l.hooks.ListSummary(st))
	lines = append(lines, l.Table.Lines()...)
	return common.Frame(lines, l.W, l.H)
}

// PaneTable gives uniform access to one of several tables a view shows
// one at a time (a detail's panes, the cluster's).
type PaneTable struct {
	Filtering   func() bool
	ClearFilter func() bool
	Update      func(tea.Msg)
	Click       func(y int)
	Position    func() string
	SetSize     func(w, h int)
	Lines       func() []string
}

func TableOps[T any](t *components.Table[T]) PaneTable {
	return PaneTable{
		Filtering:   t.Filtering,
		ClearFilter: t.ClearFilter,
		Update:      func(m tea.Msg) { t.Update(m) },
		Click:       func(y int) { t.Click(y) },
		Position:    t.Position,
		SetSize:     t.SetSize,
		Lines:       t.Lines,
	}
}

// NewPartitionTable is a table of partitions: TOPIC and P first (sorted by
// topic, then partition; rows keyed by both), then cols. of reads a row's
// topic and partition; topicWidth is the TOPIC column's width.
func NewPartitionTable[T any](ctx *common.Context, topicWidth int, of func(T) (string, int32), cols ...components.Column[T]) *components.Table[T] {
	tp := []components.Column[T]{
		{Title: "TOPIC", Width: topicWidth, Min: 8, Flex: true, Max: 48,
			Text: func(r T) string {
				t, _ := of(r)
				return common.S(t)
			},
			Cmp: func(a, b T) int {
				ta, pa := of(a)
				tb, pb := of(b)
				if c := strings.Compare(ta, tb); c != 0 {
					return c
				}
				return cmp.Compare(pa, pb)
			}},
		{Title: "P", Width: 3, Right: true,
			Text: func(r T) string {
				_, p := of(r)
				return tab.Itoa(int64(p))
			}},
	}
	return components.NewTable(ctx, func(r T) string { return OffKey(of(r)) }, append(tp, cols...)...)
}

// Panes are the tables a view shows one at a time, v (Pane) switching.
type Panes struct {
	Cur    int
	names  []string // each pane's name in the status line
	tables []PaneTable
}

// Add appends a pane.
func (p *Panes) Add(name string, t PaneTable) {
	p.names = append(p.names, name)
	p.tables = append(p.tables, t)
}

func (p *Panes) Active() PaneTable { return p.tables[p.Cur] }
func (p *Panes) Name() string      { return p.names[p.Cur] }
func (p *Panes) Next()             { p.Cur = (p.Cur + 1) % len(p.tables) }

// SetSize gives every pane the same size.
func (p *Panes) SetSize(w, h int) {
	for _, t := range p.tables {
		t.SetSize(w, h)
	}
}

// PaneTabs is the pane selector line: every pane's name, the active one
// highlighted, then the key that switches.
func PaneTabs(st *common.Styles, names []string, active int) string {
	tabs := make([]string, len(names))
	for i, n := range names {
		if i == active {
			tabs[i] = st.TabActive.Render(n)
		} else {
			tabs[i] = st.Muted.Render(n)
		}
	}
	return strings.Join(tabs, " ") + st.Faint.Render("  v switch")
}

// PaneDetail is the detail of one named thing (a topic, a group): panes
// of tables under a header, re-read every poll interval.
type PaneDetail struct {
	DetailRead
	Kind  string // "topic", "group": the status line's word
	Name  string // raw
	Panes Panes
	// Fetch reads the detail (in a command, with a call's timeout) and
	// returns the reply message.
	Fetch func(ctx context.Context) any
}

func (d *PaneDetail) paned() *PaneDetail { return d }

// Shown is a list tab's open detail D, built on PaneDetail (nil: the
// list is shown). Embedded in the view next to List, it answers the
// scaffold's DetailPanes and DetailStatus ("topic NAME · partitions").
type Shown[D any, PD interface {
	*D
	paned() *PaneDetail
}] struct {
	Detail PD
}

func (o *Shown[D, PD]) DetailPanes() *Panes {
	if o.Detail == nil {
		return nil
	}
	return &o.Detail.paned().Panes
}

// ReadDetail starts a read of the open detail, unless one is in flight;
// its reply comes back to b's view tagged with b's gen.
func (o *Shown[D, PD]) ReadDetail(b *tab.Base) tea.Cmd {
	if o.Detail == nil {
		return nil
	}
	d := o.Detail.paned()
	if !d.begin() {
		return nil
	}
	return b.Call(d.Fetch)
}

// DetailReply takes a reply addressed to b's view for o's open detail: a
// stale one (another gen, or the detail closed or replaced) is dropped, a
// DetailTick reads the detail again, and a read's reply (an M) goes to
// apply with the detail.
func DetailReply[M, D any, PD interface {
	*D
	paned() *PaneDetail
}](o *Shown[D, PD], b *tab.Base, msg common.ViewMsg, apply func(d PD, m M) tea.Cmd) tea.Cmd {
	if msg.Gen != b.Gen || o.Detail == nil {
		return nil
	}
	switch m := msg.Msg.(type) {
	case DetailTick:
		return o.ReadDetail(b)
	case M:
		return apply(o.Detail, m)
	}
	return nil
}

func (o *Shown[D, PD]) DetailStatus() string {
	d := o.Detail.paned()
	return d.Kind + " " + common.S(d.Name) + " · " + d.Panes.Name()
}

// DetailRead is the periodic re-read of an open detail: one read in
// flight at a time, the next one a poll interval after each reply — or at
// once when one was asked for while it was out (after the view changed
// something, which its answer may predate). A failed read keeps the data
// shown and says when it failed.
type DetailRead struct {
	Reading tab.Fetch
	Loaded  bool
	At      time.Time // when the data shown was read
	Err     error     // the last read's error; nil after a success
	ErrAt   time.Time
}

// DetailTick asks the view with an open detail to read it again.
type DetailTick struct{}

// begin reports whether a read may start (none is in flight) and marks
// one in flight.
func (r *DetailRead) begin() bool { return r.Reading.Start() }

// Done takes a read's reply at time at: apply stores the data (not on an
// error). It returns the tick of the next read, for b's current detail.
func (r *DetailRead) Done(b *tab.Base, res common.ResID, err error, at time.Time, apply func()) tea.Cmd {
	next := b.Ctx.Interval(res)
	if r.Reading.Done() {
		next = 0
	}
	if err != nil {
		r.Err, r.ErrAt = err, at
	} else {
		r.Err, r.At, r.Loaded = nil, at, true
		apply()
	}
	return b.After(next, b.Gen, DetailTick{})
}

// OffKey is the key of a partition's row: its topic and number.
func OffKey(topic string, p int32) string { return topic + "\x00" + strconv.Itoa(int(p)) }
