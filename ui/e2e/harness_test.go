// Package e2e drives the real dashboard end to end: the root model
// (ui.New) with the real adapters (ui/live) against a real in-process
// engine (engine.Start) over loopback TCP, run by a real tea.Program
// through teatest v2. That is the program `ilinkdash` runs, minus the
// terminal: input is sent as key messages, and the output is read twice,
//
//   - as frames: every View() the program hands its renderer, recorded by
//     a thin wrapper around the root model (waitFor matches them with the
//     ANSI sequences stripped), and
//   - as the raw bytes the renderer wrote to its "terminal" (teatest's
//     output buffer), for the hostile-payload test.
//
// Nothing sleeps a fixed time to let things happen: every step polls the
// frames with a generous deadline. The hostile-payload test also waits,
// before each key, for the renderer (ui.FPS frames/s, as in the program)
// to have written the state just reached: with dashOpts.markFrames every
// frame's window title carries its number, so the raw output says which
// frames were written.
//
// The frames a test waits for come from the model; the engine, the
// client and the adapters are the real ones, so a step that waits for
// "lag 0" waits for a real commit to be moved and polled back.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ui/internal/viewtest"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/history"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui"
	"ilinkdash/ui/live"
)

// deadline is how long a step may take before the test gives up: generous,
// because -race on two cores is slow, and a step normally takes well under
// a second.
const deadline = 20 * time.Second

// ---- the engine ----

type engineOpts struct {
	nodes    int
	election time.Duration
}

// startEngine starts an in-process cluster closed at the end of the test.
func startEngine(t testing.TB, o engineOpts) *engine.Engine {
	t.Helper()
	if o.election == 0 {
		o.election = 300 * time.Millisecond
	}
	return enginetest.Start(t, engine.Config{
		Nodes:               o.nodes,
		ElectionDelay:       o.election,
		CoordinatorLoadTime: 50 * time.Millisecond,
		HeartbeatInterval:   200 * time.Millisecond,
	})
}

// adminQmgr opens a separate admin connection for the test's own setup
// (creating records from "outside" the dashboard).
func adminQmgr(t testing.TB, e *engine.Engine) *admin.Qmgr {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	svc, err := admin.Connect(ctx, e.AdminAddrs()[0], admin.Options{ClientName: "e2e-setup"})
	if err != nil {
		t.Fatalf("admin connect: %v", err)
	}
	t.Cleanup(func() { _ = svc.Close() })
	return svc.AccessAdminQmgr(svc.QueueManager())
}

func createTopic(t testing.TB, e *engine.Engine, name, props string) {
	t.Helper()
	if err := e.CreateTopic(name, props); err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
}

// engineWithTopic starts an in-process cluster (the default options)
// holding topic, created with props.
func engineWithTopic(t testing.TB, topic, props string) *engine.Engine {
	t.Helper()
	e := startEngine(t, engineOpts{})
	createTopic(t, e, topic, props)
	return e
}

// ---- frames ----

type frame struct {
	seq   int
	raw   string // View().Content as handed to the renderer
	plain string // raw without its ANSI sequences
}

// frames records every distinct frame the program renders. It keeps the
// last maxFrames; waiters scan from their own cursor, so a frame shown
// only briefly (an error between two polls) is still seen.
type frames struct {
	mu   sync.Mutex
	list []frame
	seq  int
	last string
}

const maxFrames = 4096

// add records a frame; it returns the frame's number.
func (f *frames) add(raw string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if raw == f.last {
		return f.seq
	}
	f.last = raw
	f.seq++
	if len(f.list) == maxFrames {
		f.list = append(f.list[:0], f.list[maxFrames/2:]...)
	}
	f.list = append(f.list, frame{seq: f.seq, raw: raw, plain: ansi.Strip(raw)})
	return f.seq
}

// since returns the frames after seq.
func (f *frames) since(seq int) []frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := len(f.list)
	for i > 0 && f.list[i-1].seq > seq {
		i--
	}
	return append([]frame(nil), f.list[i:]...)
}

func (f *frames) latest() frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.list) == 0 {
		return frame{}
	}
	return f.list[len(f.list)-1]
}

// recModel is a root model (a cluster's ui.Model or the ui.Fleet) with its
// frames recorded: Init and Update are the root's, View is the root's View,
// noted on its way to the renderer (with mark, its title ends in " #N", N
// the frame's number).
type recModel struct {
	root tea.Model
	fr   *frames
	mark bool
}

func (r recModel) Init() tea.Cmd { return r.root.Init() }

func (r recModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := r.root.Update(msg)
	return r, cmd
}

func (r recModel) View() tea.View {
	v := r.root.View()
	seq := r.fr.add(v.Content)
	if r.mark {
		v.WindowTitle += fmt.Sprintf(" #%d", seq)
	}
	return v
}

// ---- the dashboard ----

type dashOpts struct {
	w, h     int
	readOnly bool
	demo     bool          // the DEMO badge, as on the embedded demo
	refresh  time.Duration // polling interval of every resource (default 400 ms)
	history  string        // the `:` history file ("" = none)
	low      bool          // --low-bandwidth
	// markFrames numbers the frames in the window title, for written.
	markFrames bool
	// noProbe: no link-probe query (CSI 6n), which a hostile record must
	// never smuggle to the terminal either.
	noProbe bool
	// lag is the lag history the dashboard records into (nil: none).
	lag *history.Store
	// schemas are the decode rules the views show records by (as the
	// dashboard's on the embedded demo: its built-in ones); nil: none.
	schemas *schema.Set
}

type dash struct {
	t    testing.TB
	e    *engine.Engine
	src  *live.Sources
	tm   *teatest.TestModel
	fr   *frames
	mark int // frames before this are not matched by waitFor
	done bool
	raw  []byte // the output read so far (reading the program's output consumes it)
}

// refreshEvery is the polling interval of every resource in the tests.
func refreshEvery(d time.Duration) config.Refresh {
	return config.Refresh{Overview: d, Topics: d, Groups: d, Queues: d, Cluster: d, Replication: d}
}

// liveSources are the adapters main builds for the embedded engine.
func liveSources(t testing.TB, e *engine.Engine, readOnly bool) *live.Sources {
	t.Helper()
	src, err := live.New(live.Config{AdminAddrs: e.AdminAddrs(), DataAddrs: e.DataAddrs(), ClientName: "ilinkdash-e2e", ReadOnly: readOnly})
	if err != nil {
		t.Fatalf("live: %v", err)
	}
	return src
}

// startDash runs the dashboard on e the way cli/dashboard.go does (ui.New
// on live.Sources, tea.NewProgram), with a true-colour profile so the
// output carries the program's real styling sequences.
func startDash(t testing.TB, e *engine.Engine, o dashOpts) *dash {
	t.Helper()
	if o.w == 0 {
		o.w, o.h = 120, 40
	}
	if o.refresh == 0 {
		o.refresh = 400 * time.Millisecond
	}
	src := liveSources(t, e, o.readOnly)
	cfg := config.DefaultContext()
	cfg.Name = "e2e"
	cfg.ReadOnly = o.readOnly
	cfg.Refresh = refreshEvery(o.refresh)
	cfg.LowBandwidth = o.low
	uctx := ui.NewContext(cfg, o.demo, func(string) string { return "" })
	uctx.Schemas = o.schemas
	d := &dash{t: t, e: e, src: src, fr: &frames{}}
	mopts := []ui.Option{ui.WithHistoryFile(o.history)}
	if o.noProbe {
		mopts = append(mopts, ui.WithoutLinkProbe())
	}
	if o.lag != nil {
		mopts = append(mopts, ui.WithLagHistory(o.lag, nil))
	}
	d.run(ui.New(uctx, src, mopts...), o.w, o.h, o.markFrames)
	t.Cleanup(d.quit)
	return d
}

// run starts root as the program runs it (true colour, ui.FPS) on a w×h
// terminal, its frames recorded (numbered in the title with mark).
func (d *dash) run(root tea.Model, w, h int, mark bool) {
	d.tm = teatest.NewTestModel(d.t, recModel{root: root, fr: d.fr, mark: mark},
		teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.TrueColor), tea.WithFPS(ui.FPS)))
}

// quit ends the program the way a user does (ctrl+c: the root model stops
// polling and closes the tail), waits for it, then closes the adapters.
func (d *dash) quit() {
	if d.done {
		return
	}
	d.done = true
	d.tm.Send(viewtest.KeyMsg("ctrl+c"))
	d.tm.WaitFinished(d.t, teatest.WithFinalTimeout(deadline))
	_ = d.src.Close()
}

// rawOutput ends the program and returns every byte it wrote.
func (d *dash) rawOutput() []byte {
	d.quit()
	d.readOutput()
	return d.raw
}

// readOutput appends what the program wrote since the last read to d.raw.
func (d *dash) readOutput() {
	b, err := io.ReadAll(d.tm.Output())
	if err != nil {
		d.t.Fatalf("reading the output: %v", err)
	}
	d.raw = append(d.raw, b...)
}

// written waits until the renderer has written the latest frame, or a
// later one, to the terminal (the numbered title of a frame that recent is
// in the output; needs markFrames), so the next key cannot replace a state
// before it was drawn.
func (d *dash) written() {
	d.t.Helper()
	seq := d.fr.latest().seq
	if !ilinktest.Poll(deadline, func() bool {
		d.readOutput()
		return lastTitled(d.raw) >= seq
	}) {
		d.t.Fatalf("frame %d not written to the terminal after %v (the last written: %d)", seq, deadline, lastTitled(d.raw))
	}
}

// lastTitled is the number in the last frame title written to raw (see
// recModel), 0 for none.
func lastTitled(raw []byte) int {
	i := bytes.LastIndex(raw, []byte("\x1b]2;"))
	if i < 0 {
		return 0
	}
	title, _, ok := bytes.Cut(raw[i+4:], []byte("\a"))
	if !ok {
		return 0
	}
	_, num, _ := bytes.Cut(title, []byte(" #"))
	n, _ := strconv.Atoi(string(num))
	return n
}

func (d *dash) keys(ks ...string) {
	for _, k := range ks {
		d.tm.Send(viewtest.KeyMsg(k))
	}
}

func (d *dash) typeText(s string) {
	for _, r := range s {
		d.tm.Send(viewtest.KeyMsg(string(r)))
	}
}

// command runs a `:` command line.
func (d *dash) command(s string) {
	d.keys(":")
	d.typeText(s)
	d.keys("enter")
}

// filter narrows the table shown to the rows matching text (`/`, the
// text, enter).
func (d *dash) filter(text string) {
	d.keys("/")
	d.typeText(text)
	d.keys("enter")
}

// openRow filters the table shown to text and opens the row the cursor is
// then on (enter).
func (d *dash) openRow(text string) {
	d.filter(text)
	d.keys("enter")
}

// findOn switches to the tab of key, waits for name in its table and
// filters the table to it.
func (d *dash) findOn(key, name string) {
	d.t.Helper()
	d.keys(key)
	d.waitText(name)
	d.filter(name)
}

// tailLive opens a tail of target with `:tail` and waits for it to be
// live, showing more as well; it returns that frame.
func (d *dash) tailLive(target string, more ...string) string {
	d.t.Helper()
	d.command("tail " + target)
	return d.waitText(append([]string{"Tail " + target, "● live"}, more...)...)
}

// markNow makes the next waitFor look only at frames rendered from now on.
func (d *dash) markNow() { d.mark = d.fr.latest().seq }

// press sends keys after markNow: the next wait sees only what they
// brought.
func (d *dash) press(keys ...string) {
	d.markNow()
	d.keys(keys...)
}

// waitFor polls the frames (ANSI stripped) until pred holds for one of
// them, and returns it. Frames before the last markNow are ignored.
func (d *dash) waitFor(what string, pred func(screen string) bool) string {
	d.t.Helper()
	f, ok := d.tryWait(deadline, pred)
	if !ok {
		d.t.Fatalf("timed out after %v waiting for %s; last frame:\n%s", deadline, what, d.fr.latest().plain)
	}
	return f.plain
}

func (d *dash) tryWait(limit time.Duration, pred func(screen string) bool) (frame, bool) {
	seen := d.mark
	var found frame
	ok := ilinktest.Poll(limit, func() bool {
		for _, f := range d.fr.since(seen) {
			seen = f.seq
			if pred(f.plain) {
				found = f
				return true
			}
		}
		return false
	})
	return found, ok
}

// waitText waits for a frame containing every one of texts.
func (d *dash) waitText(texts ...string) string {
	d.t.Helper()
	return d.waitFor(fmt.Sprintf("%q", texts), func(s string) bool { return containsAll(s, texts...) })
}

func containsAll(s string, texts ...string) bool {
	for _, x := range texts {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// line returns the first line of screen containing text.
func line(screen, text string) (string, bool) {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, text) {
			return l, true
		}
	}
	return "", false
}
