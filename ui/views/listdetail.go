package views

import (
	"cmp"
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/views/tab"
)

// listDetail is the scaffold of the tabs that list things and open one:
// topics, groups and queues. It holds the list table under a summary
// line and, once a row is opened, shows the view's detail in its place
// (Esc goes back). It routes keys, paste, the wheel and clicks to the
// open dialog, the detail's active table or the list, and implements
// Capturing, SetSize, Status, Back and View for the view that embeds it;
// the view configures it through listTab.
type listDetail[R any] struct {
	base
	table *components.Table[R]
	hooks listTab[R]
}

// listTab is what a list-plus-detail view tells its scaffold.
type listTab[R any] interface {
	// listSummary is the line above the list.
	listSummary(st *common.Styles) string
	// openRow opens the detail of a row (Enter, or a double click).
	openRow(r R) tea.Cmd
	// listKey handles a key on the list (not while filtering; Enter is
	// openRow); false leaves it to the table. r, ok is the selected row.
	listKey(msg tea.KeyPressMsg, r R, ok bool) (tea.Cmd, bool)
	// dialogKey handles a key while a dialog is open.
	dialogKey(msg tea.KeyPressMsg) tea.Cmd

	// detailPanes are the tables of the detail shown instead of the list
	// (nil: the list is shown; the other detail methods are only called
	// while a detail is). The active one takes the keys the detail
	// leaves, paste, the wheel and clicks; v switches between several.
	detailPanes() *panes
	// detailTableTop is the screen line of the active table (clicks).
	detailTableTop() int
	detailStatus() string
	// sizeDetail fits the detail to the view's size.
	sizeDetail()
	detailView(st *common.Styles) string
	// detailKey handles a key on the detail (not while its table
	// filters); false leaves it to the table.
	detailKey(msg tea.KeyPressMsg) (tea.Cmd, bool)
	// closeDetail goes back to the list (bumping gen: the detail's
	// replies in flight are dropped).
	closeDetail()
}

// init sets the scaffold up; the view calls it in its constructor.
func (l *listDetail[R]) init(ctx *common.Context, id common.ViewID, hooks listTab[R], table *components.Table[R]) {
	l.base = tab.New(ctx, id)
	l.hooks, l.table = hooks, table
}

// Capturing implements common.View: a dialog or a filter being typed
// takes every key.
func (l *listDetail[R]) Capturing() bool {
	if l.Dlg != nil {
		return true
	}
	if l.hooks.detailPanes() != nil {
		return l.hooks.detailPanes().active().filtering()
	}
	return l.table.Filtering()
}

// SetSize implements common.View.
func (l *listDetail[R]) SetSize(w, h int) {
	l.W, l.H = w, h
	l.table.SetSize(w, max(h-1, 0))
	if l.hooks.detailPanes() != nil {
		l.hooks.sizeDetail()
	}
}

// Status implements common.View.
func (l *listDetail[R]) Status() string {
	if l.hooks.detailPanes() != nil {
		return l.hooks.detailStatus()
	}
	return tab.Words(l.table.Position(), l.table.SortInfo())
}

// Back implements common.View: it clears the filter being shown, else
// closes the detail.
func (l *listDetail[R]) Back() bool {
	if l.hooks.detailPanes() != nil {
		if !l.hooks.detailPanes().active().clearFilter() {
			l.hooks.closeDetail()
		}
		return true
	}
	return l.table.ClearFilter()
}

// input routes the user's input: keys, paste, the wheel and clicks.
func (l *listDetail[R]) input(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return l.key(msg)
	case tea.PasteMsg:
		switch {
		case l.Dlg != nil:
			l.Dlg.Update(l.Ctx, msg)
		case l.hooks.detailPanes() != nil:
			l.hooks.detailPanes().active().update(msg)
		default:
			l.table.Update(msg)
		}
	case tea.MouseWheelMsg:
		switch {
		case l.Dlg != nil:
		case l.hooks.detailPanes() != nil:
			l.hooks.detailPanes().active().update(msg)
		default:
			l.table.Update(msg)
		}
	case tea.MouseClickMsg:
		switch {
		case l.Dlg != nil || msg.Button != tea.MouseLeft:
		case l.hooks.detailPanes() != nil:
			l.hooks.detailPanes().active().click(msg.Y - l.hooks.detailTableTop())
		default:
			if hit, again := l.table.Click(msg.Y - 1); hit && again {
				if r, ok := l.table.Selected(); ok {
					return l.hooks.openRow(r)
				}
			}
		}
	}
	return nil
}

func (l *listDetail[R]) key(msg tea.KeyPressMsg) tea.Cmd {
	if l.Dlg != nil {
		return l.hooks.dialogKey(msg)
	}
	if p := l.hooks.detailPanes(); p != nil {
		t := p.active()
		if t.filtering() {
			t.update(msg)
			return nil
		}
		if len(p.tables) > 1 && key.Matches(msg, l.Ctx.Keys.Pane) {
			p.next()
			return nil
		}
		if cmd, ok := l.hooks.detailKey(msg); ok {
			return cmd
		}
		t.update(msg)
		return nil
	}
	if l.table.Filtering() {
		_, cmd := l.table.Update(msg)
		return cmd
	}
	r, ok := l.table.Selected()
	if key.Matches(msg, l.Ctx.Keys.Open) {
		if ok {
			return l.hooks.openRow(r)
		}
		return nil
	}
	if cmd, handled := l.hooks.listKey(msg, r, ok); handled {
		return cmd
	}
	_, cmd := l.table.Update(msg)
	return cmd
}

// View implements common.View: the dialog, the detail, or the summary
// line over the list.
func (l *listDetail[R]) View() string {
	if l.Dlg != nil {
		return l.DialogView()
	}
	st := l.Ctx.Styles
	if l.hooks.detailPanes() != nil {
		return l.hooks.detailView(st)
	}
	lines := append(make([]string, 0, l.H), l.hooks.listSummary(st))
	lines = append(lines, l.table.Lines()...)
	return common.Frame(lines, l.W, l.H)
}

// paneTable gives uniform access to one of several tables a view shows
// one at a time (a detail's panes, the cluster's).
type paneTable struct {
	filtering   func() bool
	clearFilter func() bool
	update      func(tea.Msg)
	click       func(y int)
	position    func() string
	setSize     func(w, h int)
	lines       func() []string
}

func tableOps[T any](t *components.Table[T]) paneTable {
	return paneTable{
		filtering:   t.Filtering,
		clearFilter: t.ClearFilter,
		update:      func(m tea.Msg) { t.Update(m) },
		click:       func(y int) { t.Click(y) },
		position:    t.Position,
		setSize:     t.SetSize,
		lines:       t.Lines,
	}
}

// newPartitionTable is a table of partitions: TOPIC and P first (sorted by
// topic, then partition; rows keyed by both), then cols. of reads a row's
// topic and partition; topicWidth is the TOPIC column's width.
func newPartitionTable[T any](ctx *common.Context, topicWidth int, of func(T) (string, int32), cols ...components.Column[T]) *components.Table[T] {
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
	return components.NewTable(ctx, func(r T) string { return offKey(of(r)) }, append(tp, cols...)...)
}

// panes are the tables a view shows one at a time, v (Pane) switching.
type panes struct {
	cur    int
	names  []string // each pane's name in the status line
	tables []paneTable
}

// add appends a pane.
func (p *panes) add(name string, t paneTable) {
	p.names = append(p.names, name)
	p.tables = append(p.tables, t)
}

func (p *panes) active() paneTable { return p.tables[p.cur] }
func (p *panes) name() string      { return p.names[p.cur] }
func (p *panes) next()             { p.cur = (p.cur + 1) % len(p.tables) }

// setSize gives every pane the same size.
func (p *panes) setSize(w, h int) {
	for _, t := range p.tables {
		t.setSize(w, h)
	}
}

// paneTabs is the pane selector line: every pane's name, the active one
// highlighted, then the key that switches.
func paneTabs(st *common.Styles, names []string, active int) string {
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

// paneDetail is the detail of one named thing (a topic, a group): panes
// of tables under a header, re-read every poll interval.
type paneDetail struct {
	detailRead
	kind  string // "topic", "group": the status line's word
	name  string // raw
	panes panes
	// fetch reads the detail (in a command, with a call's timeout) and
	// returns the reply message.
	fetch func(ctx context.Context) any
}

func (d *paneDetail) paned() *paneDetail { return d }

// shownDetail is a list tab's open detail D, built on paneDetail (nil: the
// list is shown). Embedded in the view next to listDetail, it answers the
// scaffold's detailPanes and detailStatus ("topic NAME · partitions").
type shownDetail[D any, PD interface {
	*D
	paned() *paneDetail
}] struct {
	detail PD
}

func (o *shownDetail[D, PD]) detailPanes() *panes {
	if o.detail == nil {
		return nil
	}
	return &o.detail.paned().panes
}

// readDetail starts a read of the open detail, unless one is in flight;
// its reply comes back to b's view tagged with b's gen.
func (o *shownDetail[D, PD]) readDetail(b *base) tea.Cmd {
	if o.detail == nil {
		return nil
	}
	d := o.detail.paned()
	if !d.begin() {
		return nil
	}
	return b.Address(b.Gen, func() any {
		ctx, cancel := tab.CallCtx()
		defer cancel()
		return d.fetch(ctx)
	})
}

func (o *shownDetail[D, PD]) detailStatus() string {
	d := o.detail.paned()
	return d.kind + " " + common.S(d.name) + " · " + d.panes.name()
}

// detailRead is the periodic re-read of an open detail: one read in
// flight at a time, the next one a poll interval after each reply — or at
// once when one was asked for while it was out (after the view changed
// something, which its answer may predate). A failed read keeps the data
// shown and says when it failed.
type detailRead struct {
	reading tab.Fetch
	loaded  bool
	at      time.Time // when the data shown was read
	err     error     // the last read's error; nil after a success
	errAt   time.Time
}

// detailTick asks the view with an open detail to read it again.
type detailTick struct{}

// begin reports whether a read may start (none is in flight) and marks
// one in flight.
func (r *detailRead) begin() bool { return r.reading.Start() }

// done takes a read's reply at time at: apply stores the data (not on an
// error). It returns the tick of the next read, for b's current detail.
func (r *detailRead) done(b *base, res common.ResID, err error, at time.Time, apply func()) tea.Cmd {
	next := b.Ctx.Interval(res)
	if r.reading.Done() {
		next = 0
	}
	if err != nil {
		r.err, r.errAt = err, at
	} else {
		r.err, r.at, r.loaded = nil, at, true
		apply()
	}
	return b.After(next, b.Gen, detailTick{})
}
