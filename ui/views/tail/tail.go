package tail

import (
	"context"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/views/tab"
)

// Drain cadence: every 50 ms while records flow, backing off to 250 ms
// when the stream is idle. Each drain takes at most tailMaxBatch records
// (a full channel back-pressures the consumer) and is one frame.
const (
	tailFast     = 50 * time.Millisecond
	tailSlow     = 250 * time.Millisecond
	tailMaxBatch = 8192
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
		gone   int // records the dialog counted that left the buffer before the save
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
	// saveEnd is the ring's next sequence number when the save dialog
	// opened: the records it counted are those before it, and those are
	// what a save writes, however many arrive while it is open. saveAll
	// and saveMatches are the counts it showed (buffer, filter matches).
	saveEnd              uint64
	saveAll, saveMatches int

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
	if v.spec.Target != spec.Target {
		v.format = v.defaultFormat(spec.Target)
	}
	v.spec = spec
	v.from = fromLabel(spec.From, v.Ctx.Now().Location())
	v.state, v.note, v.err = tailStarting, "", nil
	v.every = tailFast
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	t, set := v.tailer, v.Ctx.Schemas
	return v.Address(v.Gen, func() any {
		if old != nil {
			_ = old.Close()
		}
		s, err := t.StartTail(ctx, spec)
		if err == nil {
			s = decodeStream(s, set) // records decode on its goroutine
		}
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
