package tail

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/jsonl"
	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// Drain cadence: every 50 ms while records flow, backing off to 250 ms
// when the stream is idle. Each drain takes at most tailMaxBatch records
// (a full channel back-pressures the consumer) and is one frame.
const (
	tailFast     = 50 * time.Millisecond
	tailSlow     = 250 * time.Millisecond
	tailMaxBatch = 8192
	// copyMax bounds an OSC 52 copy (terminals cap the sequence).
	copyMax = 1 << 20
)

type tailState int

const (
	tailIdle     tailState = iota // nothing tailed yet
	tailStarting                  // StartTail running
	tailLive                      // draining
	tailSeeking                   // Seek running; not draining
	tailClosed                    // stream closed (kept buffer)
)

// Messages private to the tail view (carried in common.ViewMsg).
type (
	tailStartedMsg struct {
		stream Stream
		err    error
	}
	tailTickMsg struct{ seq uint64 }
	tailSeekMsg struct {
		err    error
		epoch  uint64
		label  string
		fill   Fill // the bound asked with the seek (zero: none)
		dlgGen uint64
	}
	tailPauseMsg struct {
		paused bool
		err    error
	}
	tailSavedMsg struct {
		path   string
		n      int
		bytes  int64
		err    error
		dlgGen uint64
	}
)

// View is the tail tab: live records of a topic or a pattern through a
// group consumer (a temporary group unless a named one is given). Records
// are drained from the stream in batches into a bounded ring buffer; the
// filter runs once per record as it arrives; only the visible rows are
// rendered, and a row's sanitized preview is computed the first time it is
// drawn. Pausing freezes the screen and stops the consumer fetching (back
// pressure: what arrives meanwhile waits in the cluster, counted from end
// offsets). The screen changes by itself only as often as the context's
// bandwidth budget allows (common.Pace): the rows advance at the table
// pace, by whole pages in low-bandwidth mode, and the counters at the
// counter pace.
type View struct {
	tab.Base
	tailer   Tailer
	saver    Saver // nil: saves go to a path the user types
	capacity int

	spec   Spec
	from   string // where the stream reads from, for the header
	stream Stream
	epoch  uint64 // batches of an older epoch are from before a jump
	cancel context.CancelFunc
	state  tailState
	note   string // why the stream closed, or what the last action did
	err    error  // the error that ended the stream
	every  time.Duration
	ticks  uint64     // the armed tick's number: one drain chain at a time
	truth  fetchTruth // whether the stream still fetches (fetchtruth.go)

	ring    tailRing
	intern  interner
	total   int64 // records received since the tail opened
	dropped int64 // records dropped from the buffer (the oldest first)
	rate    common.RateWindow
	topics  int // distinct topics seen (interned)
	topicW  int
	offW    int

	filter    *tailFilter
	matches   seqList
	filterIn  components.Input
	filtering bool
	filterErr string

	waiting int64 // while paused or held: records waiting in the cluster; -1 unknown

	// A jump is back pressure: the stream sends what fills the buffer
	// from the target (filling), then stops fetching (held) until space
	// resumes or G goes to the end, so nothing pushes the target out.
	filling bool
	held    bool
	// topicsNow is how many topics the stream reads (a pattern's
	// matches), as of the last tick; -1 unknown.
	topicsNow int

	// vp is where the list stands: cursor, first row, follow, the pace's
	// and the pause's bounds, the detail pane's pin (viewport.go).
	vp viewport
	// pinE is a copy of the pinned record (vp.pin), kept even after it
	// left the buffer.
	pinE tailEntry

	// Pacing: the table advances (vp.showEnd) at the budget's pace;
	// shown holds the counters as last let through.
	tableGate common.Gate
	countGate common.Gate
	shown     tailCounters

	format  int
	dscroll int
	dcache  detailCache

	dlgKind string
	copyE   tailEntry // the record the copy dialog copies from

	listTop, listRows int // body line of the first row, rows shown (mouse)

	srch *tailSearch // the search beyond the buffer (tailsearch.go); nil = none

	// Set by Tabs: open starts a tail from the `t` dialog in a slot of
	// its choosing; slot names this tail's place among several ("" alone).
	open func(Spec) tea.Cmd
	slot string
}

type tailCounters struct {
	total, dropped int64
	rate           float64
	buffered       int
	waiting        int64 // -1 unknown
	newer          int64 // received since the pause
}

type detailCache struct {
	ok            bool
	seq           uint64
	format, width int
	lines         []string
}

// New returns the tail view; t may be nil (the tab then explains that
// tailing is unavailable).
func New(ctx *common.Context, t Tailer) *View {
	capacity, maxBytes := ctx.Config.TailBuffer, ctx.Config.TailBufferBytes
	if capacity <= 0 {
		capacity = config.DefaultTailBuffer
	}
	if maxBytes <= 0 {
		maxBytes = config.DefaultTailBufferBytes
	}
	v := &View{
		Base:      tab.New(ctx, common.ViewTail),
		tailer:    t,
		capacity:  capacity,
		ring:      newTailRing(capacity, maxBytes),
		intern:    interner{},
		vp:        newViewport(),
		offW:      6,
		topicW:    5,
		waiting:   -1,
		topicsNow: -1,
	}
	v.saver, _ = t.(Saver)
	v.filterIn = components.NewInput("/", FilterHelp)
	v.filterIn.CharLimit = 1024
	return v
}

func (v *View) Title() string         { return "Tail" }
func (v *View) Primary() common.ResID { return -1 }
func (v *View) Capturing() bool       { return v.Dlg != nil || v.filtering }
func (v *View) SetSize(w, h int) {
	v.W, v.H = w, h
	v.filterIn.SetWidth(max(w-24, 10))
}

// Target returns the topic or pattern being tailed.
func (v *View) Target() string { return v.spec.Target }

// Spec returns the spec of the current (or last) stream.
func (v *View) Spec() Spec { return v.spec }

// Running reports whether a stream is open (starting, live or seeking).
func (v *View) Running() bool {
	return v.state == tailStarting || v.state == tailLive || v.state == tailSeeking
}

// Counts returns what the view holds: records buffered, received in total,
// dropped at the bound, and received while paused.
func (v *View) Counts() (buffered int, total, dropped, newWhilePaused int64) {
	return v.ring.n, v.total, v.dropped, v.newWhilePaused()
}

// Shown returns the number of rows the view offers (after the filter and
// the pause).
func (v *View) Shown() int { return v.rowCount() }

// Open starts tailing target from the latest records (from `t` on a
// topic, `:tail PATTERN`); it replaces any running tail and empties the
// buffer.
func (v *View) Open(target string) tea.Cmd {
	return v.start(Spec{Target: target, From: fromLatest}, false)
}

// pattern reports whether the tail reads a pattern (not one topic).
func (v *View) pattern() bool { return strings.ContainsAny(v.spec.Target, "*?") }

// noTopic: a live pattern tail that matches no topic (yet).
func (v *View) noTopic() bool {
	return v.pattern() && v.topicsNow == 0 && v.stream != nil && v.state == tailLive
}

// fromLatest is the default start (and the restart's).
var fromLatest = position.Position{Kind: position.Latest, Partition: -1}

// Shutdown implements common.Closer.
func (v *View) Shutdown() {
	v.cancelSearch()
	if cmd := v.stop("closed"); cmd != nil {
		go cmd()
	}
}

// start opens a stream for spec; keep keeps the buffer (reopen).
func (v *View) start(spec Spec, keep bool) tea.Cmd {
	if v.tailer == nil {
		return nil
	}
	// The old stream closes first, in the start's command: serve counts
	// streams against --max-tails, and a replacement must not need two.
	old := v.detach("")
	v.cancelSearch()
	v.srch = nil
	if !keep {
		v.clearBuffer()
		v.total = 0
		v.rate = common.RateWindow{}
	}
	v.vp.resume()
	v.waiting, v.epoch = -1, 0
	v.filling, v.held, v.topicsNow = false, false, -1
	v.Gen++
	v.spec = spec
	v.from = fromLabel(spec.From, v.Ctx.Now().Location())
	v.state, v.note, v.err = tailStarting, "", nil
	v.every = tailFast
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	t := v.tailer
	return v.Address(v.Gen, func() any {
		if old != nil {
			_ = old.Close()
		}
		s, err := t.StartTail(ctx, spec)
		return tailStartedMsg{stream: s, err: err}
	})
}

// stop closes the stream (in a command) and records why.
func (v *View) stop(note string) tea.Cmd {
	if s := v.detach(note); s != nil {
		return closeStream(s)
	}
	return nil
}

// detach ends the running stream's life in the view and returns it for
// the caller to close (nil when none was open).
func (v *View) detach(note string) Stream {
	if !v.Running() {
		return nil
	}
	v.Gen++ // pending ticks and a late start reply are now stale
	v.state, v.note = tailClosed, note
	if v.cancel != nil {
		v.cancel()
		v.cancel = nil
	}
	v.closed()
	s := v.stream
	v.stream = nil
	return s
}

// closed clears what only a running stream has: a closed tail is neither
// paused nor held (nothing fetches any more), shows every buffered row,
// and its rate is none rather than the last one measured.
func (v *View) closed() {
	if r, ok := v.tailer.(ClosedTailReleaser); ok && r.ReleaseClosedTails() {
		// A server's tails are bounded by the streams open (its
		// --max-tails slots): a closed one may not keep its buffer, or a
		// session could hold several full buffers on one slot.
		v.clearBuffer()
		v.note += " · buffer released"
	}
	v.held, v.filling, v.waiting = false, false, -1
	v.vp.showAll(v.ring.next)
	v.shown = tailCounters{total: v.total, dropped: v.dropped, buffered: v.ring.n, waiting: -1}
}

func closeStream(s Stream) tea.Cmd {
	return func() tea.Msg {
		_ = s.Close()
		return nil
	}
}

func (v *View) clearBuffer() {
	v.ring.clear()
	v.matches.reset()
	v.dropped = 0
	v.closeDetail()
	v.dcache.ok = false
	v.vp.reset(v.ring.next)
	v.tableGate.Reset()
	v.countGate.Reset()
}

// fromLabel says where a stream reads from, for the header.
func fromLabel(p position.Position, loc *time.Location) string {
	if p.Kind == position.Time {
		return "from " + p.Time.In(loc).Format("2006-01-02 15:04:05")
	}
	return "from " + p.Label()
}

// ---- ingest ----

func (v *View) ingest(r *Record) {
	if _, seen := v.intern[r.Topic]; !seen {
		v.topics++
		v.topicW = max(v.topicW, min(sanitize.Width(sanitize.String(r.Topic)), 24))
	}
	v.dropped += int64(v.ring.push(newEntry(r, v.intern)))
	v.total++
	seq := v.ring.next - 1
	if v.filter != nil && v.filter.match(v.ring.at(seq)) {
		v.matches.add(seq)
	}
	if r.Offset >= 1_000_000 && v.offW < 12 {
		v.offW = max(v.offW, min(len(strconv.FormatInt(r.Offset, 10)), 12))
	}
}

// drain takes what the stream has, without blocking, dropping batches
// read before the last jump.
func (v *View) drain() (n int, ended bool) {
	ch := v.stream.Records()
	for n < tailMaxBatch {
		select {
		case b, ok := <-ch:
			if !ok {
				return n, true
			}
			if b.Epoch < v.epoch {
				continue
			}
			for i := range b.Records {
				v.ingest(&b.Records[i])
			}
			n += len(b.Records)
			if b.Held && v.filling {
				v.filling, v.held, v.waiting = false, true, -1
			}
		default:
			return n, false
		}
	}
	return n, false
}

func (v *View) tick() tea.Cmd {
	v.ticks++
	return v.After(v.every, v.Gen, tailTickMsg{seq: v.ticks})
}

// spaces returns n spaces.
func spaces(n int) string {
	const s = "                                "
	if n <= len(s) {
		return s[:max(n, 0)]
	}
	return strings.Repeat(" ", n)
}

// ---- rows ----

// rowSet is what the rows are made of now: the buffer's seqs, or the
// filter's matches among them.
func (v *View) rowSet() rowSet {
	return rowSet{first: v.ring.first(), next: v.ring.next, filtered: v.filter != nil, matches: v.matches.items()}
}

func (v *View) rowCount() int { return v.vp.rows(v.rowSet()) }

func (v *View) newWhilePaused() int64 { return v.vp.newWhilePaused(v.ring.next) }

// settle computes the cursor and first row for rows lines (viewport.settle).
func (v *View) settle(rows int) (top, cur, n int) {
	return v.vp.settle(v.rowSet(), rows, v.Ctx.Pace.Low())
}

func (v *View) move(d int) {
	if v.vp.move(v.rowSet(), v.listRowsFor(), d, v.Ctx.Pace.Low()) {
		v.dscroll = 0
		v.repin()
	}
}

// openDetail opens the detail pane on the record under the cursor and
// pins it: the list stops following, and the pane keeps that record
// (topic, partition, offset) while records arrive, even after it left the
// buffer, until the operator moves.
func (v *View) openDetail() {
	opened, pinned := v.vp.openDetail(v.rowSet(), v.listRowsFor(), v.Ctx.Pace.Low())
	if opened {
		v.dscroll = 0
	}
	if pinned {
		v.keepPin()
	}
}

func (v *View) closeDetail() {
	v.vp.closeDetail()
	v.pinE = tailEntry{}
}

// keepPin copies the record just pinned (vp.pin), so that the pane keeps
// it after it leaves the buffer.
func (v *View) keepPin() {
	v.pinE = *v.ring.at(v.vp.pin.seq)
	v.dcache.ok = false
}

// repin moves the pin to the cursor after the operator moved it.
func (v *View) repin() {
	if v.vp.repin(v.rowSet()) {
		v.keepPin()
	}
}

// pinned returns the record the detail pane and its actions (f, c) are
// about: the pinned one while the pane is open, else the one under the
// cursor.
func (v *View) pinned() (*tailEntry, uint64, bool) {
	if seq, ok := v.vp.pinned(); ok {
		return &v.pinE, seq, true
	}
	return v.selected()
}

// selected returns the entry under the cursor.
func (v *View) selected() (*tailEntry, uint64, bool) {
	_, cur, n := v.settle(v.listRowsFor())
	if n == 0 || cur < 0 {
		return nil, 0, false
	}
	seq := v.rowSet().seq(cur)
	return v.ring.at(seq), seq, true
}

// ---- filter ----

func (v *View) setFilter(f *tailFilter) {
	v.filter = f
	v.matches.reset()
	if f == nil {
		return
	}
	for seq := v.ring.first(); seq < v.ring.next; seq++ {
		if f.match(v.ring.at(seq)) {
			v.matches.add(seq)
		}
	}
}

func (v *View) filterKey(msg tea.Msg) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "enter":
			v.filtering = false
			v.filterIn.Blur()
			if v.filterErr != "" {
				// Keep the last valid filter; show what is in force.
				v.filterErr = ""
			}
			return
		case "esc":
			v.filtering = false
			v.filterIn.Blur()
			v.filterErr = ""
			v.setFilter(nil)
			return
		}
	}
	if !v.filterIn.Update(msg) {
		return
	}
	f, err := parseTailFilter(v.filterIn.Value())
	if err != nil {
		v.filterErr = err.Error()
		return
	}
	v.filterErr = ""
	v.setFilter(f)
}

// ---- update ----

// ShortHelp implements common.View.
func (v *View) ShortHelp() []key.Binding {
	k := v.Ctx.Keys
	if v.tailer == nil {
		return nil
	}
	if v.spec.Target == "" {
		return []key.Binding{k.Tail}
	}
	if v.vp.detail {
		return []key.Binding{k.Back, k.TailFormat, k.TailCopy, k.Up, k.Down, k.TailPause}
	}
	return []key.Binding{k.TailPause, k.Filter, k.TailDetail, k.TailJump, k.TailSearch, k.TailSave, k.TailCopy, k.Tail}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.TailFollow},
		{k.TailDetail, k.TailFormat, k.TailPause, k.Filter, k.TailJump, k.TailSearch, k.TailSave, k.TailCopy, k.Tail, k.TailRestart, k.TailStop, k.TailPrev, k.TailNext},
		k.TailFilterSyntax,
	}
}

// HelpTitles implements common.HelpTitler.
func (v *View) HelpTitles() []string { return []string{"Navigation", "Tail", "Tail filter (/)"} }

// Back implements common.View.
func (v *View) Back() bool {
	switch {
	case v.vp.detail:
		v.closeDetail()
		return true
	case v.filter != nil || v.filterErr != "":
		v.filterErr = ""
		v.setFilter(nil)
		v.filterIn.Reset()
		return true
	}
	return false
}

// Status implements common.View.
func (v *View) Status() string {
	if v.spec.Target == "" {
		return ""
	}
	parts := []string{common.S(v.spec.Target)}
	if v.state == tailLive && !v.vp.paused {
		parts = append(parts, common.Rate(v.shown.rate)+" rec/s")
	}
	parts = append(parts, common.Count(v.shown.total)+" total")
	switch {
	case v.vp.paused:
		parts = append(parts, "paused")
	case v.held:
		parts = append(parts, "held at the jump")
	}
	return tab.Words(parts...)
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.PollErrMsg, common.DataMsg:
		v.truth.observe(msg)
		return nil
	case common.ViewMsg:
		return v.handleViewMsg(msg)
	case tea.KeyPressMsg:
		return v.handleKey(msg)
	case tea.PasteMsg:
		switch {
		case v.Dlg != nil:
			v.Dlg.Update(v.Ctx, msg)
		case v.filtering:
			v.filterKey(msg)
		}
		return nil
	case tea.MouseWheelMsg:
		if v.Dlg != nil {
			return nil
		}
		switch msg.Button {
		case tea.MouseWheelUp:
			v.move(-3)
		case tea.MouseWheelDown:
			v.move(3)
		}
		return nil
	case tea.MouseClickMsg:
		if v.Dlg != nil || msg.Button != tea.MouseLeft || v.listRows == 0 {
			return nil
		}
		if y := msg.Y - v.listTop; y >= 0 && y < v.listRows {
			top, cur, n := v.settle(v.listRows)
			if i := top + y; i < n {
				v.vp.pick(v.rowSet(), i)
				v.dscroll = 0
				switch {
				case i == cur && v.vp.detail:
					v.closeDetail()
				case i == cur || v.vp.detail:
					v.openDetail()
				}
			}
		}
		return nil
	}
	return nil
}

func (v *View) handleViewMsg(msg common.ViewMsg) tea.Cmd {
	if cmd, ok := v.searchMsg(msg); ok {
		return cmd
	}
	switch m := msg.Msg.(type) {
	case tailSavedMsg:
		return v.saved(m)
	case tailStartedMsg:
		return v.started(msg.Gen, m)
	case tailPauseMsg:
		if m.err != nil && msg.Gen == v.Gen {
			what := "pause"
			if !m.paused {
				what = "resume"
			}
			return common.Flash(common.LevelWarn, "tail "+what+": "+sanitize.Error(m.err))
		}
		return nil
	}
	if msg.Gen != v.Gen {
		return nil
	}
	switch m := msg.Msg.(type) {
	case tailTickMsg:
		return v.ticked(m)
	case tailSeekMsg:
		return v.sought(m)
	}
	return nil
}

// started takes the stream StartTail opened, or its error; gen is the
// start's (a superseded stream is closed).
func (v *View) started(gen uint64, m tailStartedMsg) tea.Cmd {
	if gen != v.Gen || v.state != tailStarting {
		if m.stream != nil {
			return closeStream(m.stream) // superseded
		}
		return nil
	}
	if m.err != nil {
		v.state, v.err, v.note = tailClosed, m.err, ""
		if v.cancel != nil {
			v.cancel()
			v.cancel = nil
		}
		v.closed()
		return nil
	}
	v.stream, v.state = m.stream, tailLive
	v.truth = fetchTruth{since: v.Ctx.Now(), unreachSince: v.truth.unreachSince}
	v.rate.Add(v.Ctx.Now(), v.total)
	v.countGate.Reset()
	v.pace(v.Ctx.Now())
	if v.vp.paused { // space was pressed while the stream was starting
		s := v.stream
		return tea.Batch(v.tick(), v.Address(v.Gen, func() any {
			ctx, cancel := tab.CallCtx()
			defer cancel()
			return tailPauseMsg{paused: true, err: s.Pause(ctx, true)}
		}))
	}
	return v.tick()
}

// ticked drains the stream, paces the screen and arms the next tick (or
// closes the tail when the stream ended).
func (v *View) ticked(m tailTickMsg) tea.Cmd {
	if m.seq != v.ticks || v.state != tailLive || v.stream == nil {
		return nil
	}
	n, ended := v.drain()
	v.matches.dropBefore(v.ring.first())
	now := v.Ctx.Now()
	if n > 0 {
		v.truth.lastRecord = now
	}
	v.truth.f = v.stream.Fetching()
	v.rate.Add(now, v.total)
	if v.vp.paused || v.held {
		if w, ok := v.stream.Waiting(); ok {
			v.waiting = w
		}
	}
	v.topicsNow = len(v.stream.Topics())
	held := v.pace(now)
	if ended {
		s := v.stream
		v.stream = nil
		v.state, v.err = tailClosed, s.Err()
		if v.err == nil {
			v.note = "the stream ended"
		}
		if v.cancel != nil {
			v.cancel()
			v.cancel = nil
		}
		v.closed()
		return closeStream(s)
	}
	if n > 0 || held {
		v.every = tailFast
	} else {
		v.every = min(v.every*2, tailSlow)
	}
	return v.tick()
}

// sought takes the end of a seek (a jump, or G after one): the buffer
// starts again from the target, filling and then holding for a jump.
func (v *View) sought(m tailSeekMsg) tea.Cmd {
	if v.state != tailSeeking {
		return nil
	}
	v.state = tailLive
	v.every = tailFast
	if m.err != nil {
		if v.Dlg != nil && v.DlgGen == m.dlgGen && m.dlgGen != 0 {
			v.Dlg.Busy = ""
			v.Dlg.Err = "jump failed: " + sanitize.Error(m.err)
			return v.tick()
		}
		return tea.Batch(v.tick(), common.Flash(common.LevelError, "jump failed: "+sanitize.Error(m.err)))
	}
	if v.Dlg != nil && v.DlgGen == m.dlgGen && m.dlgGen != 0 {
		v.CloseDialog()
	}
	v.clearBuffer()
	v.epoch = max(v.epoch, m.epoch)
	v.vp.resume() // a seek resumes the stream
	v.waiting = -1
	v.filling, v.held = m.fill != (Fill{}), false
	v.truth.since = v.Ctx.Now()
	v.note = "jumped to " + m.label
	v.from = "jumped to " + m.label
	v.pace(v.Ctx.Now())
	if !v.filling {
		if m.dlgGen == 0 { // G at the end, not a jump asked for
			v.from = "from " + m.label
		}
		return tea.Batch(v.tick(), common.Flash(common.LevelOK, "tail at "+m.label+" (buffer cleared)"))
	}
	// The first row is the record at the target: rows then fill
	// downwards from the top, and the list stays there.
	v.vp.fillFrom(v.ring.next)
	return tea.Batch(v.tick(), common.Flash(common.LevelOK, "tail jumped to "+m.label+" (buffer cleared): it fills the buffer from there, then holds · space resumes · G goes to the end"))
}

func (v *View) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := v.Ctx.Keys
	if v.Dlg != nil {
		return v.dialogKey(msg)
	}
	if v.filtering {
		v.filterKey(msg)
		return nil
	}
	if v.tailer == nil {
		return nil
	}
	if v.navKey(msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.TailFollow):
		if v.held && v.state == tailLive && v.stream != nil {
			// Held after a jump: G goes to the end of the log, live.
			return v.seekTo(fromLatest, Fill{}, 0)
		}
		v.vp.follow = true
		v.tableGate.Reset()
		v.pace(v.Ctx.Now())
	case key.Matches(msg, k.TailDetail):
		if v.vp.detail {
			v.closeDetail()
		} else {
			v.openDetail()
		}
	case key.Matches(msg, k.TailPause):
		return v.togglePause()
	case key.Matches(msg, k.TailFormat):
		v.format = (v.format + 1) % components.NumFormats
		v.dscroll = 0
		if !v.vp.detail {
			v.openDetail()
		}
	case key.Matches(msg, k.Filter):
		v.filtering = true
		v.filterIn.SetValue(v.filterText())
		v.filterIn.Focus()
	case key.Matches(msg, k.TailJump):
		v.openJump()
	case key.Matches(msg, k.TailSave):
		v.openSave()
	case key.Matches(msg, k.TailCopy):
		v.openCopy()
	case key.Matches(msg, k.Tail):
		v.openNew()
	case key.Matches(msg, k.TailRestart):
		return v.restart()
	case key.Matches(msg, k.TailSearch):
		v.openSearch()
	case key.Matches(msg, k.TailStop):
		if v.srch.running() {
			return v.cancelSearch()
		}
		return v.stop("closed · r reopens it")
	}
	return nil
}

// navKey moves the cursor (up, down, the page keys, g) or, with the
// detail pane open, scrolls the pane (the page keys); it reports whether
// msg was one of those keys.
func (v *View) navKey(msg tea.KeyPressMsg) bool {
	k := v.Ctx.Keys
	rows := max(v.listRowsFor(), 1)
	switch {
	case key.Matches(msg, k.Up):
		v.move(-1)
	case key.Matches(msg, k.Down):
		v.move(1)
	case key.Matches(msg, k.PageUp):
		if v.vp.detail {
			v.dscroll = max(0, v.dscroll-max(v.detailRows()-1, 1))
		} else {
			v.move(-rows)
		}
	case key.Matches(msg, k.PageDown):
		if v.vp.detail {
			v.dscroll += max(v.detailRows()-1, 1)
		} else {
			v.move(rows)
		}
	case key.Matches(msg, k.HalfUp):
		if v.vp.detail {
			v.dscroll = max(0, v.dscroll-max(v.detailRows()/2, 1))
		} else {
			v.move(-max(rows/2, 1))
		}
	case key.Matches(msg, k.HalfDown):
		if v.vp.detail {
			v.dscroll += max(v.detailRows()/2, 1)
		} else {
			v.move(max(rows/2, 1))
		}
	case key.Matches(msg, k.Top):
		if v.vp.home(v.rowSet()) {
			v.repin()
		}
	default:
		return false
	}
	return true
}

// restart (r) reopens a closed tail from the latest records.
func (v *View) restart() tea.Cmd {
	if v.spec.Target == "" || v.Running() {
		return nil
	}
	spec := v.spec
	spec.From = fromLatest
	// Search results are their own list: the live tail after one
	// starts empty, never mixed with them. A tail closed by hand
	// or by leaving the tab keeps its records.
	keep := v.srch == nil
	return tea.Batch(v.start(spec, keep), common.Flash(common.LevelInfo, "reopening the tail of "+common.S(spec.Target)+" from the latest records"))
}

func (v *View) filterText() string {
	if v.filter == nil {
		return ""
	}
	return v.filter.src
}

// togglePause freezes (or unfreezes) the screen at once and asks the
// stream to stop (or resume) fetching.
func (v *View) togglePause() tea.Cmd {
	if !v.Running() {
		// Nothing fetches: a closed tail is never paused.
		if v.spec.Target == "" {
			return nil
		}
		return common.Flash(common.LevelInfo, "the tail is closed: r reopens it")
	}
	var flash tea.Cmd
	switch {
	case v.vp.paused:
		v.vp.resume()
		v.waiting = -1
		v.truth.since = v.Ctx.Now()      // nothing was fetched while paused
		v.filling, v.held = false, false // resuming lifts the jump's bound
	case v.held:
		// Held after a jump: space resumes from where the buffer ends;
		// from then on the oldest records leave the buffer as usual.
		v.held, v.waiting = false, -1
		v.truth.since = v.Ctx.Now()
		flash = common.Flash(common.LevelInfo, "tail resumed after the jump: the records after the buffer arrive, the oldest leave it")
		s := v.stream
		if s == nil || !v.Running() {
			return flash
		}
		return tea.Batch(flash, v.Address(v.Gen, func() any {
			ctx, cancel := tab.CallCtx()
			defer cancel()
			return tailPauseMsg{paused: false, err: s.Pause(ctx, false)}
		}))
	default:
		v.vp.pause(v.ring.next)
		v.waiting = -1
	}
	v.tableGate.Reset()
	v.countGate.Reset()
	v.pace(v.Ctx.Now())
	s := v.stream
	if s == nil || !v.Running() {
		return nil
	}
	paused := v.vp.paused
	return v.Address(v.Gen, func() any {
		ctx, cancel := tab.CallCtx()
		defer cancel()
		return tailPauseMsg{paused: paused, err: s.Pause(ctx, paused)}
	})
}

// pace lets the rows and the counters change as often as the bandwidth
// budget allows (common.Pace). It reports whether it held something back,
// which then shows at a later tick.
func (v *View) pace(now time.Time) (held bool) {
	p := v.Ctx.Pace
	if v.vp.behind(v.ring.next) {
		if p.Room(now) && v.tableGate.Allow(now, p.Table()) {
			v.vp.advance(v.rowSet(), p.Low(), v.listRowsFor)
		} else {
			held = true
		}
	}
	c := tailCounters{
		total: v.total, dropped: v.dropped, buffered: v.ring.n,
		waiting: v.waiting, newer: v.newWhilePaused(),
	}
	if v.state == tailLive && !v.vp.paused {
		c.rate = v.rate.Rate(now, v.total)
		if p.Low() {
			c.rate = roughRate(c.rate)
		}
	}
	if c != v.shown {
		if v.countGate.Allow(now, p.Counters()) {
			v.shown = c
		} else {
			held = true
		}
	}
	return held
}

// roughRate rounds a rate to two significant digits, so that a steady
// stream's rate does not change a digit on every update.
func roughRate(r float64) float64 {
	if r < 10 {
		return math.Round(r)
	}
	scale := math.Pow(10, math.Floor(math.Log10(r))-1)
	return math.Round(r/scale) * scale
}

// Parts of a record the copy dialog offers, the value first (the default).
const (
	copyValue   = "value (raw)"
	copyKey     = "key (raw)"
	copyHeaders = "headers (key: value lines)"
)

// openCopy asks which part of the pinned record to copy, as the queue
// detail does for a message. The record is kept (a copy of the entry) so
// that records arriving while the dialog is open change nothing.
func (v *View) openCopy() {
	e, _, ok := v.pinned()
	if !ok {
		return
	}
	v.copyE = *e
	d := &components.Dialog{
		Title:       "Copy from record " + recordWhere(e),
		Body:        []string{"Copies to the terminal's clipboard (OSC 52): the record's value, its key or its headers, as they are."},
		SubmitLabel: "copy",
		Fields:      []*components.Field{components.ChoiceField("Copy", copyValue, copyKey, copyHeaders)},
	}
	d.Fields[0].Hint = "←/→"
	v.OpenDialog(d)
	v.dlgKind = "copy"
}

// recordWhere names a record by partition and offset: P3@1234.
func recordWhere(e *tailEntry) string {
	return "P" + tab.Itoa(int64(e.part)) + "@" + tab.Itoa(e.off)
}

// copyPart copies one part of the record the copy dialog was opened on.
// Header values go as bytes, like the value: the clipboard is not the
// terminal.
func (v *View) copyPart(part string) tea.Cmd {
	e := &v.copyE
	where := recordWhere(e)
	var (
		text []byte
		what string // "the key of P3@1234"
		done string // what the flash says was copied
		is   = " is "
	)
	switch part {
	case copyKey:
		text, what = e.key(), "the key of "+where
		done = what
	case copyHeaders:
		hs := e.headers()
		if len(hs) == 0 {
			return common.Flash(common.LevelWarn, "nothing to copy: "+where+" has no headers")
		}
		var b strings.Builder
		for _, h := range hs {
			b.WriteString(h.Key + ": " + string(h.Value) + "\n")
		}
		text, what, is = []byte(b.String()), "the headers of "+where, " are "
		done = "the " + common.Plural(len(hs), "header") + " of " + where
	default:
		text, what = e.value(), "the value of "+where
		done = "the raw value of " + where
	}
	switch {
	case text == nil:
		return common.Flash(common.LevelWarn, "nothing to copy: "+what+" is null")
	case len(text) > copyMax:
		return common.Flash(common.LevelError, what+is+common.Bytes(int64(len(text)))+"; OSC 52 copies at most "+common.Bytes(copyMax)+" (w saves the buffer)")
	}
	return tea.Batch(
		tea.SetClipboard(string(text)),
		common.Flash(common.LevelOK, "copied "+done+" ("+common.Bytes(int64(len(text)))+") to the clipboard (OSC 52)"),
	)
}

// ---- dialogs ----

func (v *View) openNew() {
	d := &components.Dialog{
		Title:       "Tail a topic or a pattern",
		Body:        []string{"A pattern such as ORDER.* tails every matching topic (SYSTEM. topics only when named)."},
		SubmitLabel: "tail",
		Fields: []*components.Field{
			components.TextField("Topic or pattern", v.spec.Target, "e.g. ORDER.EVENT or ORDER.*"),
			components.TextField("From", "latest", "latest · earliest · 1234 · 2026-11-30 10:00 · -15m"),
		},
	}
	if !v.Ctx.ReadOnly {
		d.Fields = append(d.Fields, components.TextField("Group", "", "blank = temporary group (recommended)"))
		d.Body = append(d.Body, "A named group commits its offsets as it reads; leave it blank to tail without touching any group.")
	} else {
		d.Body = append(d.Body, "Read-only context: the tail uses a temporary group.")
	}
	v.OpenDialog(d)
	v.dlgKind = "new"
}

func (v *View) openJump() {
	if !v.Running() || v.state == tailStarting {
		v.OpenDialog(&components.Dialog{Title: "Jump", Body: []string{"The tail is not running: r reopens it, t starts another."}})
		v.dlgKind = "info"
		return
	}
	// One line per kind of form, each short enough for an 80-column box,
	// so that no date is cut at a hyphen.
	offsets, hint := "Offsets: 1234 (all partitions) · 3@1234 (partition 3)", "offset, P@offset, earliest, latest or a time"
	if v.pattern() {
		// Every topic of a pattern has its own partition 3: name one.
		offsets, hint = "Offsets: 1234 (all) · ORDER.KR:3@1234 (partition 3 of ORDER.KR)", "offset, TOPIC:P@offset, earliest, latest or a time"
	}
	v.OpenDialog(&components.Dialog{
		Title: "Jump to an offset or a time",
		Body: []string{
			"Moves every partition of the tail; the buffer is cleared and",
			"filled from there, then the tail holds (space resumes, G: the end).",
			offsets,
			"Ends: earliest · latest",
			"Times: 2026-11-30 10:00 · 10:00 (today) · -15m · 2h ago",
		},
		SubmitLabel: "jump",
		Fields:      []*components.Field{components.TextField("To", "", hint)},
	})
	v.dlgKind = "jump"
}

func (v *View) defaultSavePath() string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, v.spec.Target)
	if name == "" {
		name = "records"
	}
	return "./ilinkdash-tail-" + name + "-" + v.Ctx.Now().Format("20060102-150405") + ".jsonl"
}

func (v *View) openSave() {
	n := v.ring.n
	if n == 0 {
		v.OpenDialog(&components.Dialog{Title: "Save", Body: []string{"The buffer is empty: nothing to save."}})
		v.dlgKind = "info"
		return
	}
	body := []string{"Writes the records as JSON lines, the format of `ilinkdash tail --format json` (binary keys and values in base64). An existing file is not overwritten."}
	fields := []*components.Field{components.TextField("File", v.defaultSavePath(), "")}
	if v.saver != nil {
		place, err := v.saver.SavePlace()
		if err != nil {
			v.OpenDialog(&components.Dialog{Title: "Save", Body: []string{sanitize.Error(err)}})
			v.dlgKind = "info"
			return
		}
		body = []string{"Writes the records as JSON lines, the format of `ilinkdash tail --format json`, to a new file the server names in " + sanitize.String(place) + "."}
		fields = nil
	}
	if v.filter != nil {
		f := components.ChoiceField("Records",
			"matching the filter ("+common.Thousands(int64(v.matches.len()))+")",
			"the whole buffer ("+common.Thousands(int64(n))+")")
		fields = append(fields, f)
	} else {
		body = append(body, common.Plural(n, "record")+".")
	}
	v.OpenDialog(&components.Dialog{Title: "Save the tail buffer", Body: body, Fields: fields, SubmitLabel: "save"})
	v.dlgKind = "save"
}

func (v *View) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	// Closing any dialog lets go of the record a copy dialog held.
	return v.DialogFlow(msg, func() { v.copyE = tailEntry{} }, func(end func()) tea.Cmd {
		switch v.dlgKind {
		case "new":
			return v.submitNew()
		case "jump":
			return v.submitJump()
		case "save":
			return v.submitSave()
		case "search":
			return v.submitSearch()
		case "copy":
			cmd := v.copyPart(v.Dlg.Fields[0].Value())
			end()
			return cmd
		}
		end()
		return nil
	}, nil)
}

func (v *View) submitNew() tea.Cmd {
	f := v.Dlg.Fields
	target := f[0].Value()
	switch {
	case target == "":
		v.Dlg.Err = "give a topic name or a pattern"
		return nil
	case sanitize.String(target) != target || strings.ContainsAny(target, " ,;|"):
		v.Dlg.Err = "a topic or pattern has no spaces, control characters or , ; |"
		return nil
	}
	from, err := position.Parse(f[1].Value(), v.Ctx.Now())
	switch {
	case strings.TrimSpace(f[1].Value()) == "":
		from, err = fromLatest, nil
	case err != nil:
		v.Dlg.Err = "from: " + err.Error()
		return nil
	case from.OnePartition():
		v.Dlg.Err = "from " + from.String() + ": a tail starts every partition at the same place; open it, then jump (o) to " + from.String()
		return nil
	}
	spec := Spec{Target: target, From: from}
	if len(f) > 2 {
		spec.Group = f[2].Value()
		if spec.Group != "" && (sanitize.String(spec.Group) != spec.Group || strings.ContainsAny(spec.Group, " ")) {
			v.Dlg.Err = "a group name has no spaces or control characters"
			return nil
		}
	}
	v.CloseDialog()
	if v.open != nil {
		return v.open(spec) // Tabs: another tail beside this one
	}
	return v.start(spec, false)
}

func (v *View) submitJump() tea.Cmd {
	to, err := position.Parse(v.Dlg.Fields[0].Value(), v.Ctx.Now())
	if err != nil {
		v.Dlg.Err = err.Error()
		return nil
	}
	// The stream checks the topic against the pattern; here the form.
	if err := to.CheckTarget(v.spec.Target, func(string, string) bool { return true }); err != nil {
		v.Dlg.Err = err.Error()
		return nil
	}
	if v.state != tailLive || v.stream == nil {
		v.Dlg.Err = "the tail is not running"
		return nil
	}
	fill := Fill{Records: v.capacity, Bytes: v.ring.maxBytes}
	if to.Kind == position.Latest {
		fill = Fill{} // the end: live, nothing to hold on to
	}
	return v.seekTo(to, fill, v.DlgGen)
}

// seekTo moves the stream to `to` with fill (the dialog's jump, or G at
// the end after one); dlgGen is the dialog's, 0 without one.
func (v *View) seekTo(to position.Position, fill Fill, dlgGen uint64) tea.Cmd {
	label := jumpLabel(to, v.Ctx.Now().Location())
	v.state = tailSeeking
	if v.Dlg != nil && dlgGen != 0 {
		v.Dlg.Busy = "jumping to " + label + "…"
	}
	s := v.stream
	return v.Address(v.Gen, func() any {
		ctx, cancel := tab.CallCtx()
		defer cancel()
		epoch, err := s.Seek(ctx, to, fill)
		return tailSeekMsg{err: err, epoch: epoch, label: label, fill: fill, dlgGen: dlgGen}
	})
}

// jumpLabel names a jump's target for the header and the flash.
func jumpLabel(p position.Position, loc *time.Location) string {
	switch p.Kind {
	case position.Earliest:
		return "the earliest records"
	case position.Latest:
		return "the latest records"
	case position.Offset:
		if p.Partition < 0 {
			return p.Label() + " in every partition"
		}
		return p.Label()
	}
	return p.Time.In(loc).Format("2006-01-02 15:04:05")
}

func (v *View) submitSave() tea.Cmd {
	f := v.Dlg.Fields
	var path string
	if v.saver == nil {
		if path = f[0].Value(); path == "" {
			v.Dlg.Err = "give a file name"
			return nil
		}
		f = f[1:]
	}
	all := v.filter == nil || (len(f) > 0 && f[0].Choice == 1)
	var entries []tailEntry
	if all {
		entries = make([]tailEntry, 0, v.ring.n)
		for seq := v.ring.first(); seq < v.ring.next; seq++ {
			entries = append(entries, *v.ring.at(seq))
		}
	} else {
		entries = make([]tailEntry, 0, v.matches.len())
		for _, seq := range v.matches.items() {
			entries = append(entries, *v.ring.at(seq))
		}
	}
	v.Dlg.Err = ""
	v.Dlg.Busy = "saving " + common.Plural(len(entries), "record") + "…"
	gen, saver, target := v.DlgGen, v.saver, v.spec.Target
	return v.Address(v.Gen, func() any {
		var p string
		var n int64
		var err error
		if saver != nil {
			ctx, cancel := tab.CallCtx()
			defer cancel()
			p, n, err = saver.SaveTail(ctx, target, len(entries), func(w io.Writer) (int64, error) { return writeJSONL(w, entries) })
		} else {
			p, n, err = saveJSONL(path, entries)
		}
		return tailSavedMsg{path: p, n: len(entries), bytes: n, err: err, dlgGen: gen}
	})
}

// writeJSONL writes entries as JSON lines to w.
func writeJSONL(w io.Writer, entries []tailEntry) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	buf := make([]byte, 0, 4096)
	for i := range entries {
		r := entries[i].record()
		buf = jsonl.Append(buf[:0], &r)
		m, err := bw.Write(buf)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// saveJSONL writes entries as JSON lines to a new file (never
// overwriting); a leading ~/ is the home directory. A partial file is
// removed on error.
func saveJSONL(path string, entries []tailEntry) (string, int64, error) {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return path, 0, fmt.Errorf("%s already exists (choose another name)", path)
		}
		return path, 0, err
	}
	n, err := writeJSONL(f, entries)
	if err != nil {
		f.Close()
		os.Remove(path)
		return path, n, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return path, n, err
	}
	return path, n, nil
}

func (v *View) saved(m tailSavedMsg) tea.Cmd {
	if m.err != nil {
		if v.Dlg != nil && v.DlgGen == m.dlgGen {
			v.Dlg.Busy = ""
			v.Dlg.Err = "save failed: " + sanitize.Error(m.err)
			return nil
		}
		return common.Flash(common.LevelError, "save failed: "+sanitize.Error(m.err))
	}
	if v.Dlg != nil && v.DlgGen == m.dlgGen {
		v.CloseDialog()
	}
	return common.Flash(common.LevelOK, "saved "+common.Plural(m.n, "record")+" ("+common.Bytes(m.bytes)+") to "+sanitize.String(m.path))
}

// ---- rendering ----

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
	e.ensurePreview()
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
	if e.v == nil {
		valStyle = st.Faint
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
	default:
		ks := sanitize.Bytes(k)
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
	var fm []string
	for i, n := range components.FormatNames {
		if i == v.format {
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
	out = append(out, components.ValueLines(st, e.value(), v.format, w)...)
	return out
}
