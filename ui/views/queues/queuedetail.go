package queues

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/listdetail"
	"ilinkdash/ui/views/tab"
)

// The queue detail (enter on a queue): properties, the dead-letter queue's
// depth and growth, and a browse of the messages — read without taking
// them: position, id, put time, redelivery count, headers, body — with the
// selected message's headers and body in the tail's text / JSON / hex
// detail. Operators can put messages (templates, a count), take the next
// one, and move dead letters back to their source queue (the engine's plan
// first). The quarantine pane (Q on the list) lists the quarantined entries
// and reinjects them, with the duplicate warning before it runs.

// The browse pages through the whole queue. The detail holds a window of
// consecutive pages: at most browseWindowPages pages of browsePage
// messages (1,000 messages) and about browseWindowBytes of bodies (a page
// asks for at most browsePageBytes; one holds at least one message, so a
// window of huge messages is bounded by the frame cap per page). The next
// (previous) page is read when the cursor comes within browseNear rows of
// the window's end (start), and pages at the far end are dropped; G reads
// the last page, g the first.
const (
	browsePage        = 200
	browsePageBytes   = 1 << 20
	browseWindowPages = 5
	browseWindowBytes = 4 << 20
	browseNear        = 20
)

// A search (/) reads the queue from its head searchPage messages at a time
// and keeps the first matches as its own list, at most searchKeep of them
// and searchKeepBytes of their bodies and headers (a message can be 1 MiB:
// a bound in items alone would hold 500 MiB), counting the rest; esc stops
// it, a second esc goes back to the browse.
const (
	searchPage      = 1000
	searchKeep      = 500
	searchKeepBytes = browseWindowBytes
)

// maxQueuePut bounds the messages one put dialog sends.
const maxQueuePut = 10_000

type queueDetail struct {
	panes  listdetail.Panes // the one table, msgs
	name   string
	win    browseWindow
	loaded bool
	err    error
	msgs   *components.Table[admin.QueueMessage]
	ids    *idForm // how the table shows the ids of the browse
	format int
	flow   queueFlow
	// paging is set while a page is being read; queued is the reload or
	// jump asked for meanwhile, run when it answers.
	paging    bool
	queued    browseKind
	hasQueued bool
	search    *queueSearch // nil: the table shows the browse window
	searchGen uint64
}

// browseWindow is the part of the queue the detail holds: consecutive
// pages in queue order.
type browseWindow struct {
	pages []browsePageData
	depth int64
	more  bool // messages follow the window's last one
}

type browsePageData struct {
	msgs  []admin.QueueMessage
	index int64 // messages of the queue ahead of the page's first
	bytes int
	dec   decodedPage // the decoded bodies (queuedecode.go), counted in bytes
}

func newPageData(b admin.QueueBrowse, dec decodedPage) browsePageData {
	p := browsePageData{msgs: b.Messages, index: b.Index, dec: dec, bytes: dec.size()}
	for _, m := range b.Messages {
		p.bytes += len(m.Payload)
		for _, h := range m.Headers {
			p.bytes += len(h.Key) + len(h.Value)
		}
	}
	return p
}

// messages are the window's messages in queue order.
func (w *browseWindow) messages() []admin.QueueMessage {
	var out []admin.QueueMessage
	for _, p := range w.pages {
		out = append(out, p.msgs...)
	}
	return out
}

func (w *browseWindow) count() (n int) {
	for _, p := range w.pages {
		n += len(p.msgs)
	}
	return n
}

func (w *browseWindow) bytes() (n int) {
	for _, p := range w.pages {
		n += p.bytes
	}
	return n
}

// first is the queue position (0-based) of the window's first message.
func (w *browseWindow) first() int64 {
	if len(w.pages) == 0 {
		return 0
	}
	return w.pages[0].index
}

func (w *browseWindow) firstSeq() (uint64, bool) {
	for _, p := range w.pages {
		if len(p.msgs) > 0 {
			return p.msgs[0].Seq, true
		}
	}
	return 0, false
}

func (w *browseWindow) lastSeq() (uint64, bool) {
	for i := len(w.pages) - 1; i >= 0; i-- {
		if p := w.pages[i]; len(p.msgs) > 0 {
			return p.msgs[len(p.msgs)-1].Seq, true
		}
	}
	return 0, false
}

// pageOf is the first sequence number of the page holding seq.
func (w *browseWindow) pageOf(seq uint64) (uint64, bool) {
	for _, p := range w.pages {
		if n := len(p.msgs); n > 0 && seq >= p.msgs[0].Seq && seq <= p.msgs[n-1].Seq {
			return p.msgs[0].Seq, true
		}
	}
	return 0, false
}

// full says the window holds as much as it may.
func (w *browseWindow) full() bool {
	return len(w.pages) >= browseWindowPages || w.bytes() >= browseWindowBytes
}

// apply takes a page: a reload or a jump replaces the window, a next page
// is appended (dropping pages at the start beyond the bound), a previous
// one prepended (dropping pages at the end).
func (w *browseWindow) apply(kind browseKind, b admin.QueueBrowse, dec decodedPage) {
	w.depth = b.Depth
	p := newPageData(b, dec)
	over := func() bool {
		return len(w.pages) > browseWindowPages || (len(w.pages) > 1 && w.bytes() > browseWindowBytes)
	}
	switch kind {
	case browseNext:
		w.more = b.More
		if len(p.msgs) == 0 {
			return
		}
		w.pages = append(w.pages, p)
		for over() {
			w.pages = w.pages[1:]
		}
	case browsePrev:
		if len(p.msgs) == 0 {
			return
		}
		w.pages = append([]browsePageData{p}, w.pages...)
		for over() {
			w.pages = w.pages[:len(w.pages)-1]
			w.more = true
		}
	default:
		w.pages, w.more = []browsePageData{p}, b.More
	}
}

type browseKind int

const (
	browseReload browseKind = iota // the page under the cursor again (the first page on open)
	browseNext
	browsePrev
	browseLast
	browseFirst
	browseSearch // one page of a search's scan
)

// queueSearch is a search through every page of the queue.
type queueSearch struct {
	gen     uint64
	query   string
	running bool
	scanned int64
	depth   int64
	count   int64                // matches found
	matches []admin.QueueMessage // the first searchKeep, within searchKeepBytes
	dec     decodedPage          // their decoded bodies, counted in kept
	kept    int                  // the bytes of matches (messageSize)
	full    bool                 // a bound was reached: later matches are only counted
	err     error
}

// messageSize is what a kept message holds: its body and headers.
func messageSize(m admin.QueueMessage) int {
	n := len(m.Payload) + len(m.ID)
	for _, h := range m.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}

type queueFlow struct {
	stage int
	plan  admin.MoveResult
	ids   [][]byte // what the plan looks at; nil = every message
	scope string
	take  *admin.QueueMessage // the message the take preview showed
	// codec encodes the put dialog's bodies unless it is set to raw: the
	// queue's value codec when the dialog opened (nil: none).
	codec schema.Codec
}

const (
	qflowNone = iota
	qflowPut
	qflowTake
	qflowMoveForm
	qflowMovePreview
	qflowResult
	qflowSearch
	qflowCopy
)

// idForm shows message ids in lists and previews by their distinguishing
// part: the first and last k hex digits ("41e9…002a"), k the least from 4
// up that tells apart every id of the set shown; ids alike in more than
// their 6 first and last digits are shown in full. Client ids are 8
// random bytes per process then a counter, so the ids of one producer
// share their first 16 digits and differ at the end, and the ids of two
// producers differ at the start: both ends are kept. The detail shows
// the full id.
type idForm struct{ k int }

const (
	idFormMin = 4
	idFormMax = 6
)

func newIDForm(ids [][]byte) *idForm {
	distinct := map[string]bool{}
	for _, id := range ids {
		distinct[string(id)] = true
	}
	for k := idFormMin; k <= idFormMax; k++ {
		f := &idForm{k: k}
		seen := make(map[string]bool, len(distinct))
		unique := true
		for id := range distinct {
			s := f.of([]byte(id))
			if seen[s] {
				unique = false
				break
			}
			seen[s] = true
		}
		if unique {
			return f
		}
	}
	return &idForm{k: 0} // full ids
}

// of is id's short form in the set the form was made for.
func (f *idForm) of(id []byte) string {
	h := hex.EncodeToString(id)
	if f == nil || f.k == 0 || len(h) <= 2*f.k+1 {
		return h
	}
	return h[:f.k] + "…" + h[len(h)-f.k:]
}

// idsOf returns the ids of moves.
func idsOfMoves(moves []admin.MessageMove) [][]byte {
	out := make([][]byte, len(moves))
	for i, m := range moves {
		out[i] = m.ID
	}
	return out
}

type (
	queueBrowseMsg struct {
		name   string
		kind   browseKind
		b      admin.QueueBrowse
		dec    decodedPage // its bodies decoded, when the queue has a codec
		err    error
		search uint64 // the search a browseSearch page is for
	}
	queueActionMsg struct {
		verb  string
		name  string
		n     int
		taken *admin.QueueMessage
		// takenDec is its body decoded (the queue's codec; zero: none).
		takenDec components.Decoded
		move     admin.MoveResult
		apply    bool
		err      error
		dlgGen   uint64
		// encoded names the codec a put encoded its bodies with ("": none).
		encoded string
		// sent: a put's messages went to the queue (err then came from
		// one of them: those before it were committed, one by one); put
		// is how many were.
		sent bool
		put  int
	}
)

func newMessageTable(ctx *common.Context, ids **idForm, body func(admin.QueueMessage) string) *components.Table[admin.QueueMessage] {
	type M = components.Column[admin.QueueMessage]
	t := components.NewTable(ctx, func(m admin.QueueMessage) string { return strconv.FormatUint(m.Seq, 10) },
		M{Title: "SEQ", Width: 6, Right: true,
			Text: func(m admin.QueueMessage) string { return strconv.FormatUint(m.Seq, 10) },
			Cmp:  func(a, b admin.QueueMessage) int { return cmp.Compare(a.Seq, b.Seq) }},
		M{Title: "ID", Width: 2*idFormMax + 1, Min: 2*idFormMin + 1, Drop: 4,
			Text: func(m admin.QueueMessage) string { return (*ids).of(m.ID) }},
		M{Title: "PUT TIME", Width: 12, Drop: 2,
			Text: func(m admin.QueueMessage) string { return m.PutTime.Format("15:04:05.000") }},
		M{Title: "REDELIV", Width: 7, Right: true,
			Text: func(m admin.QueueMessage) string { return tab.Itoa(int64(m.Redeliveries)) },
			Cmp:  func(a, b admin.QueueMessage) int { return cmp.Compare(a.Redeliveries, b.Redeliveries) },
			Paint: func(m admin.QueueMessage, st *common.Styles) common.Style {
				if m.Redeliveries > 0 {
					return st.Warn
				}
				return common.Style{}
			}},
		M{Title: "FLIGHT", Width: 6, Drop: 5,
			Text: func(m admin.QueueMessage) string {
				if m.InFlight {
					return "locked"
				}
				return "-"
			}},
		M{Title: "BYTES", Width: 6, Right: true, Drop: 3,
			Text: func(m admin.QueueMessage) string { return common.Bytes(int64(len(m.Payload))) }},
		M{Title: "BODY", Width: 30, Min: 10, Flex: true,
			Text: body},
	)
	t.Empty = "no message"
	t.SetSort(0, false)
	return t
}

// openQueue opens the detail of a queue and browses it.
func (v *View) openQueue(name string) tea.Cmd {
	v.detail = name
	v.Gen++
	d := &queueDetail{name: name, ids: newIDForm(nil), format: components.DefaultFormat(v.codec(name) != nil)}
	v.qd = d
	d.msgs = newMessageTable(v.Ctx, &d.ids, d.bodyCell)
	ops := listdetail.TableOps(d.msgs)
	// esc stops a running search, then ends it, before it clears a
	// filter or closes the detail.
	ops.ClearFilter = func() bool {
		if d.search != nil {
			v.endSearch()
			return true
		}
		return d.msgs.ClearFilter()
	}
	d.panes.Add("messages", ops)
	v.sizeQueue()
	return v.fetchBrowse()
}

// fetchBrowse reads the page under the cursor again (the first page when
// nothing is shown yet): after a change, and on r.
func (v *View) fetchBrowse() tea.Cmd { return v.fetchPage(browseReload) }

// fetchPage reads one page of the browse. One page is read at a time: a
// next or previous page asked for meanwhile is dropped (the cursor asks
// again), a reload or a jump runs when the page out answers.
func (v *View) fetchPage(kind browseKind) tea.Cmd {
	d := v.qd
	if d == nil || v.src == nil {
		return nil
	}
	if d.paging {
		if kind != browseNext && kind != browsePrev {
			d.queued, d.hasQueued = kind, true
		}
		return nil
	}
	at := admin.BrowseAt{Max: browsePage, MaxBytes: browsePageBytes}
	switch kind {
	case browseReload:
		if m, ok := d.selectedBrowsed(); ok {
			at.From, _ = d.win.pageOf(m.Seq)
		} else if seq, ok := d.win.firstSeq(); ok {
			at.From = seq
		}
	case browseNext:
		seq, ok := d.win.lastSeq()
		if !ok {
			return nil
		}
		at.From = seq + 1
	case browsePrev:
		seq, ok := d.win.firstSeq()
		if !ok {
			return nil
		}
		at.Before = seq
	case browseLast:
		at.Before = admin.BrowseLast
	}
	d.paging = true
	src, name, codec := v.src, d.name, v.codec(d.name)
	return v.Call(func(ctx context.Context) any {
		b, err := src.BrowseQueueAt(ctx, name, at)
		return queueBrowseMsg{name: name, kind: kind, b: b, dec: decodePage(codec, b.Messages), err: err}
	})
}

// selectedBrowsed is the selected message of the browse (not of a
// search's results).
func (d *queueDetail) selectedBrowsed() (admin.QueueMessage, bool) {
	if d.search != nil {
		return admin.QueueMessage{}, false
	}
	return d.msgs.Selected()
}

// showWindow puts the window in the table (unless a search's results are
// shown).
func (d *queueDetail) showWindow() {
	if d.search != nil {
		return
	}
	msgs := d.win.messages()
	ids := make([][]byte, len(msgs))
	for i, msg := range msgs {
		ids[i] = msg.ID
	}
	d.ids = newIDForm(ids) // before SetItems: the cells are made there
	d.msgs.SetItems(msgs)
}

func (v *View) browseReply(m queueBrowseMsg) tea.Cmd {
	d := v.qd
	if d == nil || d.name != m.name {
		return nil
	}
	if m.kind == browseSearch {
		return v.searchReply(m)
	}
	d.paging = false
	if m.err != nil {
		d.err = m.err
	} else {
		d.err, d.loaded = nil, true
		d.win.apply(m.kind, m.b, m.dec)
		d.showWindow()
		if d.search == nil {
			switch m.kind {
			case browseLast:
				d.msgs.SetCursor(d.msgs.Len() - 1)
			case browseFirst:
				d.msgs.SetCursor(0)
			}
		}
		if r := v.rows[d.name]; r != nil {
			// The browse read the depth last: the header shows it, not
			// the list's older one, until the next list poll.
			r.info.Depth = m.b.Depth
		}
	}
	if d.hasQueued { // a put, take, move or jump asked while this page was out
		d.hasQueued = false
		return v.fetchPage(d.queued)
	}
	if m.err == nil && !d.win.full() {
		// The cursor may still be near the end it moved to.
		switch m.kind {
		case browseNext:
			return v.pageNear(1)
		case browsePrev:
			return v.pageNear(-1)
		}
	}
	return nil
}

// pageNear reads the next page (dir > 0) or the previous one (dir < 0)
// when the cursor is within browseNear rows of that end of the window and
// the queue goes on beyond it.
func (v *View) pageNear(dir int) tea.Cmd {
	d := v.qd
	if d == nil || d.search != nil || !d.loaded || d.msgs.Filter() != "" {
		return nil
	}
	c, n := d.msgs.Cursor(), d.msgs.Len()
	switch {
	case dir > 0 && d.win.more && c >= n-browseNear:
		return v.fetchPage(browseNext)
	case dir < 0 && d.win.first() > 0 && c < browseNear:
		return v.fetchPage(browsePrev)
	}
	return nil
}

// queueTop is the number of lines above the message table.
func (v *View) queueTop() int { return len(v.detailHeader(v.Ctx.Styles)) + 1 }

func (v *View) sizeQueue() {
	if v.qd == nil {
		return
	}
	// The table takes the upper half of what is left, the message below.
	left := max(v.H-v.queueTop(), 0)
	v.qd.msgs.SetSize(v.W, max(left/2, min(left, 4)))
}

// dlqInfo is "ORDERS.DLQ 3 (+1 in 1m)" for a queue with a dead-letter
// queue, or "" when it has none.
func (v *View) dlqInfo(q admin.QueueInfo, st *common.Styles) string {
	dlq := q.Property.DeadLetterQueue
	if dlq == "" {
		return ""
	}
	r := v.rows[dlq]
	if r == nil {
		return common.S(dlq) + " (not listed)"
	}
	s := common.S(dlq) + " " + common.Thousands(r.info.Depth)
	if g := v.growth(r); g > 0 {
		s += " " + st.Warn.Render("(+"+common.Thousands(g)+" in "+common.Dur(v.growthWindow(r))+")")
	}
	return s
}

// growth is how much a queue's depth grew over the last minute of samples
// (0 when it shrank or held).
func (v *View) growth(r *queueRow) int64 {
	n := r.depth.Len()
	if n < 2 {
		return 0
	}
	back := min(n-1, v.growthSamples())
	d := int64(r.depth.At(n-1) - r.depth.At(n-1-back))
	return max(d, 0)
}

func (v *View) growthSamples() int {
	iv := v.Ctx.Interval(common.ResQueues)
	if iv <= 0 {
		return 30
	}
	return max(int(time.Minute/iv), 1)
}

func (v *View) growthWindow(r *queueRow) time.Duration {
	back := min(r.depth.Len()-1, v.growthSamples())
	return time.Duration(back) * v.Ctx.Interval(common.ResQueues)
}

// dlqOf lists the queues whose dead-letter queue name is.
func (v *View) dlqOf(name string) []string {
	var out []string
	for _, r := range v.Table.Items() {
		if r.info.Property.DeadLetterQueue == name {
			out = append(out, r.info.Name)
		}
	}
	return out
}

func (v *View) detailHeader(st *common.Styles) []string {
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
	lines = append(lines, common.Pairs(st, v.W,
		"depth", common.Thousands(q.Depth), "max depth", maxDepth, "in flight", common.Thousands(q.InFlight),
		"put", common.Rate(q.PutRate)+"/s", "get", common.Rate(q.GetRate)+"/s")...)
	dlq := "none"
	if s := v.dlqInfo(q, st); s != "" {
		dlq = s + " after " + common.Plural(p.MaxRedeliveries, "redelivery")
	}
	pairs := []string{"dead-letter queue", dlq}
	if of := v.dlqOf(q.Name); len(of) > 0 {
		pairs = append(pairs, "dead letters of", common.S(strings.Join(of, ", ")))
	}
	lines = append(lines, common.Pairs(st, v.W, pairs...)...)
	lines = append(lines, common.Pairs(st, v.W,
		"max message", common.Bytes(int64(p.MaxMsgSize)),
		"", yes(p.PutEnabled, "put enabled", "put disabled"),
		"", yes(p.GetEnabled, "get enabled", "get disabled"),
		"", map[bool]string{true: "persistent", false: "non-persistent"}[p.Persistent],
		"created", created)...)
	lines = append(lines, st.Spark.Render(components.Sparkline(r.depth.Values(nil, v.W), v.W)))
	title := "Messages"
	if d := v.qd; d != nil && d.search != nil {
		title = "Search " + strconv.Quote(sanitize.String(d.search.query)) + st.Muted.Render("  "+d.search.status())
	} else if d != nil && d.loaded {
		title += st.Muted.Render("  " + d.win.status() + ", without taking them")
		if d.win.first() > 0 || d.win.more {
			title += st.Muted.Render(" · pages load as you scroll, g first, G last")
		}
	}
	return append(lines, tab.SectionTitle(st, "")+title)
}

// status is "browsing 201–400 of 9,438", or "browsing 30 of 30" when the
// window holds the whole queue.
func (w *browseWindow) status() string {
	n, first := w.count(), w.first()
	if n == 0 || (first == 0 && int64(n) == w.depth) {
		return "browsing " + common.Thousands(int64(n)) + " of " + common.Thousands(w.depth) // all of it
	}
	return fmt.Sprintf("browsing %s–%s of %s", common.Thousands(first+1), common.Thousands(first+int64(n)), common.Thousands(w.depth))
}

// status is "12 matches in 4,000 of 9,438 messages (searching… esc stops)".
func (s *queueSearch) status() string {
	out := fmt.Sprintf("%s in %s of %s messages", common.PluralOf(s.count, "match", "matches"), common.Thousands(s.scanned), common.Thousands(max(s.depth, s.scanned)))
	if s.count > int64(len(s.matches)) {
		out += fmt.Sprintf(" (the first %s listed)", common.Thousands(int64(len(s.matches))))
	}
	switch {
	case s.err != nil:
		return out + " · stopped: " + sanitize.Error(s.err) + " · esc back to the browse"
	case s.running:
		return out + " · searching… esc stops"
	}
	return out + " · esc back to the browse"
}

func (v *View) queueView(st *common.Styles) string {
	lines := v.detailHeader(st)
	d := v.qd
	switch {
	case d == nil:
	case d.err != nil:
		lines = append(lines, st.Err.Render(common.Trunc("browse failed: "+sanitize.Error(d.err), v.W)))
	case !d.loaded && d.search == nil:
		lines = append(lines, st.Muted.Render("browsing…"))
	default:
		lines = append(lines, d.msgs.Lines()...)
		lines = append(lines, v.messageLines(st, max(v.H-len(lines), 0))...)
	}
	return common.Frame(lines, v.W, v.H)
}

// messageLines renders the selected message: id, put time, redeliveries,
// headers, then the body in the chosen format.
func (v *View) messageLines(st *common.Styles, h int) []string {
	d := v.qd
	m, ok := d.msgs.Selected()
	if !ok || h < 2 {
		return nil
	}
	head := fmt.Sprintf("id %s · put %s · %s", hex.EncodeToString(m.ID), m.PutTime.Format("2006-01-02 15:04:05.000"), common.PluralOf(m.Redeliveries, "redelivery", "redeliveries"))
	if m.InFlight {
		head += " · in flight (locked)"
	}
	lines := []string{st.Faint.Render(strings.Repeat("─", v.W)), common.Trunc(head, v.W)}
	for _, hd := range m.Headers {
		lines = append(lines, common.Trunc(st.Muted.Render(common.S(hd.Key)+": ")+sanitize.Bytes(hd.Value), v.W))
	}
	dec := d.decoded(m)
	what := components.FormatNames[d.format]
	if d.format == components.FormatDecoded && dec.Has() {
		what += ": " + sanitize.String(dec.Schema)
	}
	lines = append(lines, st.Muted.Render(common.Trunc("body ("+what+", f cycles) · "+common.Bytes(int64(len(m.Payload))), v.W)))
	lines = append(lines, components.DecodedLines(st, m.Payload, dec, d.format, v.W)...)
	if len(lines) > h {
		lines = lines[:h]
	}
	return lines
}

// queueKey handles the keys of the queue detail; false leaves the key to
// its message table.
func (v *View) queueKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := v.Ctx.Keys
	d := v.qd
	switch {
	case key.Matches(msg, k.QueueSearch):
		v.openSearch()
	case key.Matches(msg, k.QueueCopy):
		v.openCopy()
	case key.Matches(msg, k.Bottom) && d.search == nil && d.win.more:
		return v.fetchPage(browseLast), true // the table's G on the last page read
	case key.Matches(msg, k.Top) && d.search == nil && d.win.first() > 0:
		return v.fetchPage(browseFirst), true
	case key.Matches(msg, k.Down, k.PageDown, k.HalfDown, k.Bottom):
		d.msgs.Update(msg)
		return v.pageNear(1), true
	case key.Matches(msg, k.Up, k.PageUp, k.HalfUp, k.Top):
		d.msgs.Update(msg)
		return v.pageNear(-1), true
	case key.Matches(msg, k.TailFormat):
		d.format = components.NextFormat(d.format, v.codec(d.name) != nil)
		d.refreshCells()
	case key.Matches(msg, k.QueueRefresh):
		return tea.Batch(v.fetchBrowse(), common.Refresh(common.ResQueues)), true
	case key.Matches(msg, k.QueuePut):
		v.openPut()
	case key.Matches(msg, k.QueueTake):
		v.openTake()
	case key.Matches(msg, k.QueueMove):
		v.openMove()
	default:
		return nil, false
	}
	return nil, true
}

// nextToTake is the message a take would get as the browse shows it: the
// first not in flight, when the window starts at the head of the queue.
func (d *queueDetail) nextToTake() (admin.QueueMessage, bool) {
	if d.win.first() > 0 {
		return admin.QueueMessage{}, false
	}
	for _, m := range d.win.messages() {
		if !m.InFlight {
			return m, true
		}
	}
	return admin.QueueMessage{}, false
}

// openTake previews the take: the message it removes, by id — the first
// not in flight of the browse shown, which the take gets by that id (not
// whatever is first by then).
func (v *View) openTake() {
	d := v.qd
	dlg := &components.Dialog{Title: "Take the next message of " + common.S(d.name), Danger: true}
	if m, ok := d.nextToTake(); ok {
		dlg.SubmitLabel = "take"
		dlg.Body = []string{fmt.Sprintf("Takes message %s (position %d, put %s, %s): the first not in flight in the browse. It is removed from the queue (browse only looks); its body is shown once taken.",
			hex.EncodeToString(m.ID), m.Seq, m.PutTime.Format("15:04:05.000"), common.Bytes(int64(len(m.Payload))))}
		d.flow = queueFlow{stage: qflowTake, take: &m}
	} else {
		why := "The browse shows no message to take (none, or every one in flight); r browses again."
		if d.win.first() > 0 {
			why = "The browse does not show the head of the queue: g goes to the first page, then T takes its first message."
		}
		dlg.Body = []string{v.Ctx.Styles.Muted.Render(why)}
		d.flow = queueFlow{stage: qflowResult}
	}
	v.OpenDialog(dlg)
}

func (v *View) runTake() tea.Cmd {
	v.Dlg.Busy = "taking…"
	src, gen, name, want, codec := v.src, v.DlgGen, v.qd.name, v.qd.flow.take, v.codec(v.qd.name)
	return v.Call(func(ctx context.Context) any {
		m, err := src.TakeMessage(ctx, name, want.ID)
		var dec components.Decoded
		if m != nil {
			dec = decodePage(codec, []admin.QueueMessage{*m})[string(m.ID)]
		}
		return queueActionMsg{verb: "take", name: name, taken: m, takenDec: dec, err: err, dlgGen: gen}
	})
}

// openMove asks what to move back: the selected message or every one.
func (v *View) openMove() {
	d := v.qd
	of := "each message's source queue (its dlq.source header)"
	if len(v.dlqOf(d.name)) == 0 {
		of += "; this queue is no queue's dead-letter queue, so messages without a source stay"
	}
	choices := []string{"every message"}
	if m, ok := d.msgs.Selected(); ok {
		choices = append([]string{"the selected message " + d.ids.of(m.ID)}, choices...)
	}
	dlg := &components.Dialog{
		Title: "Move messages of " + common.S(d.name) + " back", SubmitLabel: "preview",
		Body: []string{"Moves messages to " + of + ", appended at its tail with their id and a redelivery count of 0. You will see the plan first; " +
			"the move then takes exactly the messages of the plan, by id (at most " + common.Thousands(admin.MaxMoveIDs) + " at once)."},
		Fields: []*components.Field{components.ChoiceField("Move", choices...)},
	}
	dlg.Fields[0].Hint = "←/→"
	v.OpenDialog(dlg)
	d.flow = queueFlow{stage: qflowMoveForm}
}

// runMove asks for the plan (apply false) or executes the plan shown:
// its ids and its mark, never "whatever is in the queue now".
func (v *View) runMove(apply bool) tea.Cmd {
	d := v.qd
	var sel admin.MoveSelection
	if !apply {
		d.flow.ids, d.flow.scope = nil, "every message"
		if c := v.Dlg.Fields[0]; strings.HasPrefix(c.Value(), "the selected") {
			if m, ok := d.msgs.Selected(); ok {
				d.flow.ids, d.flow.scope = [][]byte{m.ID}, "message "+d.ids.of(m.ID)
			}
		}
		sel.IDs = d.flow.ids
		v.Dlg.Busy = "planning…"
	} else {
		sel = d.flow.plan.Execution()
		v.Dlg.Busy = "moving…"
	}
	src, gen, name := v.src, v.DlgGen, d.name
	return v.Call(func(ctx context.Context) any {
		res, err := src.MoveMessages(ctx, name, "", sel, apply)
		return queueActionMsg{verb: "move", name: name, move: res, apply: apply, err: err, dlgGen: gen}
	})
}

// previewLines is how many moves a preview or result lists.
const previewLines = 12

func (v *View) movePreview(m queueActionMsg) {
	st := v.Ctx.Styles
	p := m.move
	ids := newIDForm(idsOfMoves(p.Moves))
	body := []string{fmt.Sprintf("Move %s of %s back (nothing is moved yet):", v.qd.flow.scope, common.S(m.name)), ""}
	for i, mv := range p.Moves {
		if i == previewLines {
			body = append(body, st.Muted.Render(fmt.Sprintf("… %d more", len(p.Moves)-previewLines)))
			break
		}
		line := ids.of(mv.ID) + " → " + common.S(mv.To)
		if mv.Skipped != "" {
			line = st.Muted.Render(ids.of(mv.ID) + "  stays: " + common.S(mv.Skipped))
		}
		body = append(body, line)
	}
	if len(p.Moves) == 0 {
		body = append(body, st.Muted.Render("No message to move."))
	}
	body = append(body, "", fmt.Sprintf("%s would move.", common.Plural(p.Moved, "message")))
	if p.Unselected > 0 && v.qd.flow.ids == nil {
		body = append(body, st.Warn.Render(fmt.Sprintf("%s beyond the first %s %s not in this plan and %s (move again after).",
			common.Plural(p.Unselected, "message"), common.Thousands(admin.MaxMoveIDs), common.Agree(p.Unselected, "is", "are"), common.Agree(p.Unselected, "stays", "stay"))))
	}
	if p.StopReason != "" {
		body = append(body, st.Warn.Render("It would stop early: "+common.S(p.StopReason)))
	}
	if p.Moved > 0 {
		body = append(body, st.Muted.Render("Enter moves exactly these messages; any that arrive meanwhile stay."))
	}
	dlg := &components.Dialog{Title: "Move back — preview", Body: body}
	if p.Moved > 0 {
		dlg.SubmitLabel = "move"
	}
	v.OpenDialog(dlg)
	v.qd.flow.stage = qflowMovePreview
	v.qd.flow.plan = p
}

// moveReport is the result of a move read against its plan: one line
// ("38 planned, 38 moved back from Q; 1 arrived after the plan, left in
// place") and, when it differs from the plan, the lines that say how.
func moveReport(st *common.Styles, queue string, plan, res admin.MoveResult) (string, []string) {
	o := res.Against(plan)
	text := fmt.Sprintf("%s moved back from %s: %d planned, %d moved", common.Plural(o.Moved, "message"), common.S(queue), o.Planned, o.Moved)
	var detail []string
	if n := len(o.Missed); n > 0 {
		text += fmt.Sprintf("; %d planned did not move", n)
		ids := newIDForm(idsOfMoves(o.Missed))
		for i, mv := range o.Missed {
			if i == previewLines {
				detail = append(detail, st.Muted.Render(fmt.Sprintf("… %d more", n-previewLines)))
				break
			}
			detail = append(detail, ids.of(mv.ID)+"  "+common.S(mv.Skipped))
		}
	}
	if o.Arrived > 0 {
		text += fmt.Sprintf("; %d arrived after the plan, left in place", o.Arrived)
	}
	if plan.Unselected > 0 && o.Unplanned > 0 {
		text += fmt.Sprintf("; %d beyond the plan left in place", o.Unplanned)
	}
	if o.StopReason != "" {
		text += " (stopped: " + common.S(o.StopReason) + ")"
	}
	return text, detail
}

func (v *View) actionReply(m queueActionMsg) tea.Cmd {
	current := v.DialogOpen(m.dlgGen) && v.qd != nil
	// The detail reads its queue again after every change it made: the
	// browse, and the list its header's depth comes from.
	refresh := func() tea.Cmd { return tea.Batch(v.fetchBrowse(), common.Refresh(common.ResQueues)) }
	if m.err != nil {
		text := sanitize.Error(m.err)
		var again tea.Cmd
		if m.verb == "put" && m.sent && m.n > 1 {
			// An auto-commit put of n stops at the message that fails:
			// those before it are on the queue. Said, so that putting
			// again is not taken for a retry of nothing.
			text += "; each message is committed as it is put, so the " + common.Thousands(int64(m.put)) + " of " + common.Thousands(int64(m.n)) +
				" before the one that failed are on " + common.S(m.name) + ": putting again puts all " + common.Thousands(int64(m.n)) + " again"
			again = refresh()
		}
		if !current {
			return tea.Batch(common.Flash(common.LevelError, m.verb+" "+common.S(m.name)+" failed: "+text), again)
		}
		v.Dlg.Busy = ""
		v.Dlg.Err = m.verb + " failed: " + text
		return again
	}
	st := v.Ctx.Styles
	switch {
	case m.verb == "move" && !m.apply:
		if current {
			v.movePreview(m)
		}
		return nil
	case m.verb == "take" && current:
		want := v.qd.flow.take
		var body []string
		if t := m.taken; t != nil {
			body = []string{fmt.Sprintf("Took %s, the message previewed (put %s, %s). It is no longer on the queue.", hex.EncodeToString(t.ID), t.PutTime.Format("15:04:05.000"),
				common.Bytes(int64(len(t.Payload)))), ""}
			body = append(body, components.DecodedLines(st, t.Payload, m.takenDec, v.qd.format, min(max(v.W-10, 10), 64))...)
		} else if want != nil {
			body = []string{st.Warn.Render(fmt.Sprintf("Nothing was taken: message %s, the one previewed, is no longer on the queue or is in flight (taken or moved since the browse).", hex.EncodeToString(want.ID)))}
		}
		v.OpenDialog(&components.Dialog{Title: "Taken from " + common.S(m.name), Body: body, SubmitLabel: "close"})
		v.qd.flow.stage = qflowResult
		return refresh()
	case m.verb == "move" && current:
		text, detail := moveReport(st, m.name, v.qd.flow.plan, m.move)
		if len(detail) > 0 || m.move.StopReason != "" {
			// It differs from the plan: say how, message by message.
			body := append([]string{text, ""}, detail...)
			v.OpenDialog(&components.Dialog{Title: "Move back — result", Body: body, SubmitLabel: "close"})
			v.qd.flow.stage = qflowResult
			return tea.Batch(common.Flash(common.LevelWarn, text), refresh())
		}
		v.CloseDialog()
		v.qd.flow = queueFlow{}
		return tea.Batch(common.Flash(common.LevelOK, text), refresh())
	}
	if current {
		v.CloseDialog()
		v.qd.flow = queueFlow{}
	}
	var text string
	switch m.verb {
	case "put":
		text = fmt.Sprintf("%s put on %s", common.Plural(m.n, "message"), common.S(m.name))
		if m.encoded != "" {
			text += ", encoded with " + common.S(m.encoded)
		}
	case "move": // its dialog is gone: no plan to read it against
		text = fmt.Sprintf("%s moved back from %s", common.Plural(m.move.Moved, "message"), common.S(m.name))
		if m.move.Arrived > 0 {
			text += fmt.Sprintf("; %d arrived after the plan, left in place", m.move.Arrived)
		}
	default:
		text = m.verb + " done"
	}
	return tea.Batch(common.Flash(common.LevelOK, text), refresh())
}

// detailDialogKey drives the detail's dialogs.
func (v *View) detailDialogKey(msg tea.KeyPressMsg) tea.Cmd {
	f := &v.qd.flow
	return v.DialogFlow(msg, func() { *f = queueFlow{} }, func(end func()) tea.Cmd {
		switch f.stage {
		case qflowPut:
			return v.submitPut()
		case qflowTake:
			return v.runTake()
		case qflowMoveForm:
			return v.runMove(false)
		case qflowMovePreview:
			if f.plan.Moved > 0 {
				return v.runMove(true)
			}
			end()
		case qflowResult:
			end()
		case qflowSearch:
			q := strings.TrimSpace(v.Dlg.Fields[0].Value())
			if q == "" {
				v.Dlg.Err = "search: type the text to find in bodies and headers"
				return nil
			}
			end()
			return v.startSearch(q)
		case qflowCopy:
			cmd := v.copyPart(v.Dlg.Fields[0].Value())
			end()
			return cmd
		}
		return nil
	}, nil)
}

// openSearch asks what to search for.
func (v *View) openSearch() {
	d := v.qd
	old := ""
	if d.search != nil {
		old = d.search.query
	}
	dlg := &components.Dialog{
		Title:       "Search " + common.S(d.name),
		Body:        []string{"Finds the text (any case) in the bodies, header keys and values of every message of the queue, reading it page by page from its head without taking anything. The matches are listed on their own; esc stops the search, a second esc goes back to the browse."},
		SubmitLabel: "search",
		Fields:      []*components.Field{components.TextField("Find", old, "text in a body or a header")},
	}
	v.OpenDialog(dlg)
	d.flow = queueFlow{stage: qflowSearch}
}

// startSearch begins a scan of the queue for q.
func (v *View) startSearch(q string) tea.Cmd {
	d := v.qd
	d.searchGen++
	d.search = &queueSearch{gen: d.searchGen, query: q, running: true, depth: d.win.depth, dec: decodedPage{}}
	d.ids = newIDForm(nil)
	d.msgs.SetItems(nil)
	return v.fetchSearch(0)
}

func (v *View) fetchSearch(from uint64) tea.Cmd {
	d := v.qd
	src, name, gen, codec := v.src, d.name, d.search.gen, v.codec(d.name)
	return v.Call(func(ctx context.Context) any {
		b, err := src.BrowseQueueAt(ctx, name, admin.BrowseAt{From: from, Max: searchPage, MaxBytes: browsePageBytes})
		return queueBrowseMsg{name: name, kind: browseSearch, b: b, dec: decodePage(codec, b.Messages), err: err, search: gen}
	})
}

// searchReply takes one page of the scan: its matches, then the next page.
func (v *View) searchReply(m queueBrowseMsg) tea.Cmd {
	d := v.qd
	s := d.search
	if s == nil || s.gen != m.search || !s.running {
		return nil // stopped or replaced meanwhile
	}
	if m.err != nil {
		s.err, s.running = m.err, false
		return nil
	}
	needle := bytes.ToLower([]byte(s.query))
	s.depth = m.b.Depth
	before := len(s.matches)
	for _, msg := range m.b.Messages {
		s.scanned++
		dec := m.dec[string(msg.ID)]
		if !messageMatches(msg, needle) && !decodedMatches(dec, needle) {
			continue
		}
		s.count++
		// The first matches are kept until a bound is reached (the first
		// one always: a page holds one message however large); after
		// that the rest are only counted.
		if size := messageSize(msg) + len(dec.Doc) + len(dec.Err); !s.full && (len(s.matches) == 0 || (len(s.matches) < searchKeep && s.kept+size <= searchKeepBytes)) {
			s.matches = append(s.matches, msg)
			if dec.Has() {
				s.dec[string(msg.ID)] = dec
			}
			s.kept += size
		} else {
			s.full = true
		}
	}
	if len(s.matches) != before {
		ids := make([][]byte, len(s.matches))
		for i, msg := range s.matches {
			ids[i] = msg.ID
		}
		d.ids = newIDForm(ids)
		d.msgs.SetItems(s.matches)
	}
	if m.b.More && len(m.b.Messages) > 0 {
		return v.fetchSearch(m.b.Messages[len(m.b.Messages)-1].Seq + 1)
	}
	s.running = false
	return common.Flash(common.LevelInfo, "search "+strconv.Quote(sanitize.String(s.query))+": "+s.status())
}

// messageMatches says whether needle (lower case) is in the message's
// body, a header key or a header value, in any case.
func messageMatches(m admin.QueueMessage, needle []byte) bool {
	if bytes.Contains(bytes.ToLower(m.Payload), needle) {
		return true
	}
	for _, h := range m.Headers {
		if bytes.Contains(bytes.ToLower([]byte(h.Key)), needle) || bytes.Contains(bytes.ToLower(h.Value), needle) {
			return true
		}
	}
	return false
}

// endSearch is esc during a search: a running one stops (its matches
// stay), a finished one goes back to the browse.
func (v *View) endSearch() {
	d := v.qd
	if d.search.running {
		d.search.running = false
		return
	}
	d.search = nil
	d.showWindow()
}

// Copy parts of the selected message.
const (
	copyID      = "id (hex)"
	copyHeaders = "headers (key: value lines)"
	copyBody    = "body (raw)"
	// copyDecodedBody is offered for a body the queue's schema decoded.
	copyDecodedBody = "body (decoded JSON)"
)

// openCopy asks which part of the selected message to copy.
func (v *View) openCopy() {
	d := v.qd
	m, ok := d.msgs.Selected()
	if !ok {
		v.OpenDialog(&components.Dialog{Title: "Copy", Body: []string{v.Ctx.Styles.Muted.Render("No message is selected.")}})
		d.flow = queueFlow{stage: qflowResult}
		return
	}
	choices := []string{copyID, copyBody}
	if len(m.Headers) > 0 {
		choices = []string{copyID, copyHeaders, copyBody}
	}
	if d.decoded(m).Doc != nil {
		choices = append(choices, copyDecodedBody)
	}
	dlg := &components.Dialog{
		Title:       "Copy from message " + d.ids.of(m.ID),
		Body:        []string{"Copies to the terminal's clipboard (OSC 52): the message id, its headers or its body, as they are."},
		SubmitLabel: "copy",
		Fields:      []*components.Field{components.ChoiceField("Copy", choices...)},
	}
	dlg.Fields[0].Hint = "←/→"
	v.OpenDialog(dlg)
	d.flow = queueFlow{stage: qflowCopy}
}

// copyPart copies one part of the selected message.
func (v *View) copyPart(part string) tea.Cmd {
	m, ok := v.qd.msgs.Selected()
	if !ok {
		return common.Flash(common.LevelWarn, "nothing to copy: no message is selected")
	}
	var text, what string
	switch part {
	case copyID:
		text, what = hex.EncodeToString(m.ID), "the id of message "+v.qd.ids.of(m.ID)
	case copyHeaders:
		var b strings.Builder
		for _, h := range m.Headers {
			b.WriteString(h.Key + ": " + string(h.Value) + "\n")
		}
		text, what = b.String(), "the "+common.Plural(len(m.Headers), "header")+" of message "+v.qd.ids.of(m.ID)
	case copyDecodedBody:
		text, what = string(v.qd.decoded(m).Doc), "the decoded body of message "+v.qd.ids.of(m.ID)
	default:
		text, what = string(m.Payload), "the body of message "+v.qd.ids.of(m.ID)
	}
	return common.CopyToClipboard(text, what, what+" is", "")
}
