package ui

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"ilinkdash/ui/internal/viewtest"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
)

var update = flag.Bool("update", false, "rewrite the golden screens under testdata/golden")

type harness struct {
	t      testing.TB
	m      *Model
	src    *fakes.Source
	tailer *fakes.Tailer
	pub    *fakes.Publisher
	ctx    *Context
	// Clock is the virtual clock the model's context is put on
	// (useClock): ticks are parked until advance passes them.
	viewtest.Clock
	quit bool
}

type harnessOpt func(*config.Context, *Context)

func readOnly() harnessOpt { return func(c *config.Context, _ *Context) { c.ReadOnly = true } }

// noStreams starts the dashboard without a tailer and a publisher.
func noStreams() harnessOpt {
	return func(c *config.Context, _ *Context) { c.ClientName = "no-streams" }
}

// tailBuffer sets the tail's buffer bound.
func tailBuffer(n int) harnessOpt { return func(c *config.Context, _ *Context) { c.TailBuffer = n } }

func newHarness(t testing.TB, w, h int, opts ...harnessOpt) *harness {
	t.Helper()
	return newHarnessWith(t, fakes.NewDemo(), w, h, opts...)
}

func newHarnessWith(t testing.TB, src *fakes.Source, w, h int, opts ...harnessOpt) *harness {
	t.Helper()
	hs := &harness{t: t, src: src, Clock: viewtest.Clock{Now: src.Now()}}
	cfg := config.DefaultContext()
	cfg.Theme = config.ThemeDark
	for _, o := range opts {
		o(&cfg, nil)
	}
	ctx := NewContext(cfg, true, func(string) string { return "" })
	hs.useClock(ctx)
	for _, o := range opts {
		o(&cfg, ctx)
	}
	hs.ctx = ctx
	var mopts []Option
	if cfg.ClientName != "no-streams" {
		hs.tailer = fakes.NewTailer(fakes.TailerOptions{})
		hs.pub = &fakes.Publisher{Manual: true}
		mopts = append(mopts, WithTailer(hs.tailer), WithPublisher(hs.pub))
	}
	hs.m = New(ctx, src, mopts...)
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

// useClock makes ctx plain and puts it on the harness's virtual clock.
func (h *harness) useClock(ctx *Context) {
	ctx.Mode = common.Plain
	ctx.Rebuild()
	h.Use(ctx)
}

// run executes commands synchronously, breadth first, feeding their
// messages back into the model; ticks are parked on the virtual clock.
func (h *harness) run(cmd tea.Cmd) {
	h.Drain(cmd, func(msg tea.Msg) tea.Cmd {
		if _, ok := msg.(tea.QuitMsg); ok {
			h.quit = true
			return nil
		}
		// tea.Sequence's message is an unexported []tea.Cmd: run it in
		// order.
		if rv := reflect.ValueOf(msg); rv.Kind() == reflect.Slice && rv.Type().Elem() == reflect.TypeFor[tea.Cmd]() {
			for i := 0; i < rv.Len(); i++ {
				h.run(rv.Index(i).Interface().(tea.Cmd))
			}
			return nil
		}
		_, next := h.m.Update(msg)
		return next
	})
}

func (h *harness) send(msg tea.Msg) {
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

// advance moves the fake cluster and the clock by d, firing due ticks in
// order.
func (h *harness) advance(d time.Duration) {
	h.src.Advance(d)
	h.fire(d, nil)
}

// fire moves the clock (not the fake cluster) by d and sends each tick
// that falls due, in order; see, when set, is shown each tick's message
// before the model gets it.
func (h *harness) fire(d time.Duration, see func(tea.Msg)) {
	h.Fire(d, func(msg tea.Msg) {
		if see != nil {
			see(msg)
		}
		h.send(msg)
	})
}

// warm runs n polling rounds of 2 s so histories and health have data.
func (h *harness) warm(n int) {
	for i := 0; i < n; i++ {
		h.advance(2 * time.Second)
	}
}

func (h *harness) key(keys ...string) {
	for _, k := range keys {
		h.send(viewtest.KeyMsg(k))
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(viewtest.KeyMsg(string(r)))
	}
}

// command runs a `:` command line.
func (h *harness) command(s string) {
	h.key(":")
	h.typeText(s)
	h.key("enter")
}

// setMode redraws with the colour mode m from now on.
func (h *harness) setMode(m common.ColorMode) {
	h.ctx.Mode = m
	h.ctx.Rebuild()
}

// mustQuit fails unless the program has quit (what did it).
func (h *harness) mustQuit(what string) {
	h.t.Helper()
	if !h.quit {
		h.t.Fatalf("%s did not quit", what)
	}
}

// screen is the frame as text.
func (h *harness) screen() string { return ansi.Strip(h.m.View().Content) }

// assertFrame checks the frame's geometry: exactly height lines, none
// wider than width (under both width methods).
func assertFrame(t testing.TB, content string, w, hgt int) {
	t.Helper()
	lines := strings.Split(content, "\n")
	if len(lines) != hgt {
		t.Fatalf("%dx%d: frame has %d lines", w, hgt, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidthWc(l); n > w {
			t.Fatalf("%dx%d: line %d is %d cells wide (wc): %q", w, hgt, i, n, ansi.Strip(l))
		}
		if n := ansi.StringWidth(l); n > w {
			t.Fatalf("%dx%d: line %d is %d cells wide (grapheme): %q", w, hgt, i, n, ansi.Strip(l))
		}
	}
}

// golden compares a screen with testdata/golden/name.golden (rewritten
// with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	// Trailing spaces are noise in diffs; the geometry is checked apart.
	lines := strings.Split(got, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	got = strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("screen %s differs from the golden file (go test ./ui -run '%s' -update to accept):\n--- got\n%s\n--- want\n%s", name, t.Name(), got, want)
	}
}
