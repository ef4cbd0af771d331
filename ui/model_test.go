package ui

import (
	"context"
	"errors"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tab"
)

func (h *harness) mustShow(parts ...string) {
	h.t.Helper()
	viewtest.MustShow(h.t, h.screen(), parts...)
}

func (h *harness) mustNotShow(parts ...string) {
	h.t.Helper()
	viewtest.MustNotShow(h.t, h.screen(), parts...)
}

func TestViewDeclaresAltScreenAndMouse(t *testing.T) {
	h := newHarness(t, 80, 24)
	v := h.m.View()
	if !v.AltScreen || v.MouseMode != tea.MouseModeCellMotion || !strings.Contains(v.WindowTitle, "demo") {
		t.Fatalf("view: alt %v mouse %v title %q", v.AltScreen, v.MouseMode, v.WindowTitle)
	}
}

func TestTabsKeysAndQuit(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.key("3")
	h.mustShow("6 groups")
	h.key("tab")
	h.mustShow("Cluster DEMO")
	h.key("shift+tab", "shift+tab")
	h.mustShow("5 topics")
	// ctrl+l redraws.
	if _, cmd := h.m.Update(viewtest.KeyMsg("ctrl+l")); cmd == nil || cmd() != tea.ClearScreen() {
		t.Fatal("ctrl+l does not clear the screen")
	}
	h.key("q")
	h.mustQuit("q")
}

func TestQuitKeysWhileTyping(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.key("2", "/")
	h.typeText("q")
	if h.quit {
		t.Fatal("q typed into the filter quit the program")
	}
	h.mustShow("/q")
	h.key("ctrl+c")
	h.mustQuit("ctrl+c while typing")
}

// complete types typed on a `:` line and tab, and wants the line to read
// want then.
func (h *harness) complete(typed, want string) {
	h.t.Helper()
	h.key(":")
	h.typeText(typed)
	h.key("tab")
	if got := h.m.cmd.Value(); got != want {
		h.t.Fatalf(":%s tab completed to %q, want %q", typed, got, want)
	}
}

func TestCommandLine(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(1)
	h.complete("gr", "groups")
	h.key("enter")
	if h.m.active != common.ViewGroups {
		t.Fatal(":groups did not switch")
	}
	// Topic completion for :tail.
	h.complete("tail PAY", "tail PAYMENT.RESULT")
	h.key("enter")
	if h.m.active != common.ViewTail || h.m.tail.Target() != "PAYMENT.RESULT" {
		t.Fatalf("tail: active %v target %q", h.m.active, h.m.tail.Target())
	}
	h.command("tail ORDER.*")
	h.mustShow("Tail ORDER.*")
	h.command("publish ORDER.EVENT")
	if h.m.active != common.ViewPublish || h.m.publish.Target() != "ORDER.EVENT" {
		t.Fatal(":publish did not open the publish tab")
	}
	// The form opens navigating: no key is typed into it, the global
	// keys (: q ? tab) still work.
	if h.m.publish.Capturing() {
		t.Fatal(":publish opened the form editing a field")
	}
	h.key("esc")
	h.command("frobnicate")
	h.mustShow("unknown command :frobnicate")
	h.command("tail")
	h.mustShow("usage: :tail PATTERN")
	h.key(":", "esc")
	if h.m.cmdOpen {
		t.Fatal("esc did not close the command line")
	}
	h.command("q")
	h.mustQuit(":q")
}

func TestReadOnlyHidesPublishAndMutations(t *testing.T) {
	h := newHarness(t, 120, 40, readOnly())
	h.mustShow(" RO ")
	h.mustNotShow("Publish")
	h.key("7")
	if h.m.active == common.ViewPublish {
		t.Fatal("7 opened publish read-only")
	}
	h.key(":")
	h.typeText("pub")
	if len(h.m.cmdMatch) != 0 {
		t.Fatalf("read-only completion offers %v", h.m.cmdMatch)
	}
	h.typeText("lish X")
	h.key("enter")
	// A served viewer's session is read-only with its context not: the
	// flash does not say it is the context.
	h.mustShow("read-only: publishing is off")
	h.mustNotShow("read-only context")
	for _, tab := range []string{"2", "3", "4"} {
		h.key(tab, "?")
		s := h.screen()
		for _, b := range h.ctx.Keys.Mutating() {
			if strings.Contains(s, b.Help().Desc) {
				t.Fatalf("read-only help shows %q:\n%s", b.Help().Desc, s)
			}
		}
		// Nor does the help say it is the context (a served viewer's
		// key is read-only, its context not).
		h.mustShow("read-only: actions that change the cluster are hidden")
		h.mustNotShow("read-only context")
		h.key("esc")
	}
}

func TestHelpOverlayListsBindings(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.key("3", "?")
	h.mustShow("Keys — Groups", "Global", "seek offsets", "delete group", "filter", "redraw")
	h.key("?")
	h.mustNotShow("Keys — Groups")
}

func TestMouseTabsRowsWheel(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(1)
	// Click the "3 Groups" tab.
	lay := h.m.tabLayout(120)
	var x int
	for _, tb := range lay.tabs {
		if tb.id == common.ViewGroups {
			x = tb.x0 + 1
		}
	}
	h.send(tea.MouseClickMsg{Button: tea.MouseLeft, X: x, Y: 0})
	if h.m.active != common.ViewGroups {
		t.Fatal("clicking the tab did not switch")
	}
	// Rows start at screen line 3 (tab bar, summary, header).
	h.send(tea.MouseClickMsg{Button: tea.MouseLeft, X: 5, Y: 5}) // 3rd row: order-processor
	h.send(tea.MouseClickMsg{Button: tea.MouseLeft, X: 5, Y: 5})
	h.mustShow("Group order-processor")
	h.key("esc")
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown, Y: 6})
	if !strings.Contains(h.m.views[common.ViewGroups].Status(), "6/6") {
		t.Fatalf("wheel did not move: %s", h.m.views[common.ViewGroups].Status())
	}
}

func TestStatusBarShowsFailuresAndKeepsData(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(2)
	h.key("2")
	h.mustShow("● topics now", "AUDIT.LOG")
	h.src.Fail("ListTopics", errors.New("MIMQE_CONNECTION_LOST (connection reset by \x1b[2Jpeer)"))
	h.warm(3)
	h.mustShow("⚠ topics: MIMQE_CONNECTION_LOST (connection reset by ␛[2Jpeer)", "failing for", "data 6s ago", "AUDIT.LOG")
	// Recovery.
	h.src.Fail("ListTopics", nil)
	h.warm(6)
	h.mustNotShow("⚠")
	h.mustShow("● topics")
}

func TestManualRefreshAndOnDemandPolling(t *testing.T) {
	// The leadership table is on demand (the cluster definition is polled
	// always: the overview sets the node list against it).
	h := newHarness(t, 80, 24)
	n := h.src.Calls("ClusterLeadTable")
	if n != 0 {
		t.Fatalf("leadership table polled %d times while hidden", n)
	}
	h.key("4")
	if h.src.Calls("ClusterLeadTable") != 1 {
		t.Fatal("opening the cluster tab did not fetch the leadership table")
	}
	h.warm(3) // 6 s: the cluster interval is 5 s
	if got := h.src.Calls("ClusterLeadTable"); got != 2 {
		t.Fatalf("ClusterLeadTable called %d times after 6 s, want 2", got)
	}
	before := h.src.Calls("ClusterLeadTable")
	h.key("ctrl+r")
	if h.src.Calls("ClusterLeadTable") != before+1 {
		t.Fatal("ctrl+r did not refresh the active view's resources")
	}
	h.key("1")
	h.warm(10)
	after := h.src.Calls("ClusterLeadTable")
	if after > before+2 {
		t.Fatalf("leadership table kept polling while hidden: %d → %d", before, after)
	}
}

func TestBackgroundColorPicksTheTheme(t *testing.T) {
	cfg := config.DefaultContext() // theme auto
	ctx := NewContext(cfg, false, func(string) string { return "" })
	m := New(ctx, fakes.NewDemo())
	if !ctx.Dark {
		t.Fatal("auto starts dark")
	}
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if ctx.Dark {
		t.Fatal("a white background did not switch to the light theme")
	}
	// NO_COLOR: no colour sequence at all, but bold/reverse remain.
	ctx = NewContext(cfg, false, func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	})
	if ctx.Mode != common.NoColor {
		t.Fatal("NO_COLOR ignored")
	}
	m = New(ctx, fakes.NewDemo())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	out := m.View().Content
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
		t.Fatal("NO_COLOR frame holds colours")
	}
	if !strings.Contains(out, "\x1b[7m") && !strings.Contains(out, "\x1b[1;7m") && !strings.Contains(out, "\x1b[7;1m") {
		t.Fatalf("NO_COLOR frame has no reverse video for the active tab: %q", out[:200])
	}
}

func TestContextSwitchDropsOldReplies(t *testing.T) {
	other := fakes.NewDemo()
	other.CreateTopic(context.Background(), tab.TopicSpec{Name: "ONLY.IN.PROD", Partitions: 1})
	switched := false
	h := newHarness(t, 120, 40)
	h.m.switcher = func(_ context.Context, name string) (Sources, config.Context, error) {
		if name != "prod" {
			return nil, config.Context{}, errors.New("no context " + name)
		}
		switched = true
		c := config.DefaultContext()
		c.Name, c.ReadOnly = "prod", true
		return other, c, nil
	}
	h.ctx.Contexts = []string{"prod", "staging"}
	h.warm(1)
	// A topics reply from the old context is in flight during the switch.
	stale := h.m.poll.fetch(common.ResTopics)
	h.m.poll.res[common.ResTopics].inFlight = true
	h.key(":")
	h.typeText("ctx pr")
	h.key("tab", "enter")
	if !switched {
		t.Fatal("switcher not called")
	}
	if stale != nil {
		h.run(stale)
	}
	h.key("2")
	h.mustShow("ONLY.IN.PROD", " RO ", "prod")
	h.command("ctx nope")
	h.mustShow("no context nope")
}

// TestHostileNamesNeverReachTheTerminal puts escape sequences (OSC 52, OSC
// 8, OSC 0, CSI 2J and 6n, DCS, APC, unterminated OSC), C1 bytes and bidi
// overrides into a topic and a group name, and checks every view's frame:
// in plain mode nothing but text, in colour mode nothing but SGR.
func TestHostileNamesNeverReachTheTerminal(t *testing.T) {
	evil := "EVIL\x1b]52;c;cm0gLXJmIH4K\x07\x1b]8;;http://x\x1b\\ln\x1b]8;;\x1b\\\x1b]0;title\x07\x1b[2J\x1b[6n\x1bPdcs\x1b\\\x1b_apc\x1b\\\x9b31m\xc2\x9d\u202egnp\u2066\x1b]0;unterminated"
	for _, mode := range []common.ColorMode{common.Plain, common.FullColor} {
		src := fakes.NewDemo()
		src.AddHostileTopic(evil)
		h := newHarnessWith(t, src, 120, 40)
		h.setMode(mode)
		h.warm(3)
		pick := []string{"2", "/", "E", "V", "I", "L", "enter"} // filter to the hostile topic
		with := func(extra ...string) []string { return append(append([]string(nil), pick...), extra...) }
		for _, keys := range [][]string{{"1"}, {"2"}, with(), with("enter"), with("enter", "v"), {"3"}, {"3", "enter"}, {"3", "enter", "v"}, {"4", "v"}, with("t"), with("D"), {"3", "o"}} {
			h.key("esc", "esc", "esc")
			h.key(keys...)
			frame := h.m.View().Content
			if mode == common.Plain {
				if strings.ContainsRune(frame, 0x1b) {
					t.Fatalf("%v: ESC in the frame: %q", keys, frame)
				}
			} else {
				assertOnlySGR(t, frame)
			}
			for _, r := range ansi.Strip(frame) {
				if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x07 {
					t.Fatalf("%v: control %U in the frame", keys, r)
				}
			}
			if !strings.Contains(ansi.Strip(frame), "EVIL") && keys[0] != "1" && keys[0] != "4" {
				t.Fatalf("%v: the hostile topic is not shown at all:\n%s", keys, ansi.Strip(frame))
			}
		}
		h.key("esc", "esc")
	}
	_ = time.Second
}

// TestClusterRereadThroughRoot runs the NOT_COMMITTED flow through the
// root: the view's refresh request reaches the poller, whose re-read comes
// back to the view.
func TestClusterRereadThroughRoot(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.src.SetPropErrs = []error{fakes.ErrNotCommitted}
	h.key("4", "e", "enter") // the dialog opens navigating: enter edits
	h.typeText("2")
	h.key("enter", "enter")
	h.mustShow("still at version 7", "r resend")
	h.key("r")
	h.mustShow("cluster definition changed")
	h.warm(3)
	h.mustShow("definition version 8", "replicas 2")
}

// A resource that failed and that no view wants any more is not asked
// again, so its error says nothing about now: the status bar of another
// tab does not show it (after an outage it would say "failing" forever
// while everything else works).
func TestStatusBarDropsErrorsOfIdleResources(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(2)
	h.key("1")
	h.src.Fail("StatSeries", errors.New("MIMQE_CONNECTION_LOST (connection reset by peer)"))
	h.warm(3)
	h.mustShow("⚠ stats: MIMQE_CONNECTION_LOST")
	h.key("2") // only the overview polls the stat series
	h.warm(3)
	h.mustNotShow("⚠ stats")
	h.mustShow("● topics")
	// Back on the overview it is asked again, and its error shows again.
	h.key("1")
	h.warm(3)
	h.mustShow("⚠ stats: MIMQE_CONNECTION_LOST")
}
