package ui

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/ui/common"
)

// TestStatusBarGivesTheViewTheFreeWidth: with nothing else on the bar
// (the tail has no polled resource), the view's status uses the width the
// context name leaves, not a third of the line.
func TestStatusBarGivesTheViewTheFreeWidth(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.warm(2)
	h.command("tail ORDER.*")
	h.tailer.Last().Emit(3000)
	h.advance(300 * time.Millisecond)
	status := h.m.views[common.ViewTail].Status()
	if common.Width(status) <= 80/3 {
		t.Fatalf("status %q is too short to show the problem", status)
	}
	bar := ansi.Strip(h.m.statusBar(80))
	if !strings.Contains(bar, status) || strings.Contains(bar, "…") {
		t.Fatalf("status bar %q cut the view's status %q", bar, status)
	}
	if w := common.Width(bar); w != 80 {
		t.Fatalf("status bar is %d cells wide", w)
	}
	// Narrower than the status: cut to what is left, never wider.
	bar = ansi.Strip(h.m.statusBar(30))
	if common.Width(bar) != 30 || !strings.HasPrefix(bar, " demo  ORDER.*") || !strings.HasSuffix(strings.TrimRight(bar, " "), "…") {
		t.Fatalf("narrow status bar %q", bar)
	}
}

// TestStatusBarErrorKeepsItsAgeNextToALongStatus: a failing resource still
// shows its age; the view's status gives way down to a third of the line.
func TestStatusBarErrorKeepsItsAgeNextToALongStatus(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.warm(2)
	h.key("3") // groups: status "1/6 · name ↑", primary groups
	h.src.Fail("ListGroups", errFake("MIMQE_CONNECTION_LOST: the admin connection went away while reading"))
	h.warm(3)
	bar := ansi.Strip(h.m.statusBar(80))
	if !strings.Contains(bar, "1/6 · name ↑") || !regexp.MustCompile(`\(failing for \d+s, data \d+s ago\)`).MatchString(bar) {
		t.Fatalf("status bar %q", bar)
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }

// TestOverviewAgreesWithGroupsFromStartUp: from the first poll on, the
// overview's group alerts name exactly the groups the groups tab marks
// STOPPED, STALLED, REWOUND or LAGGING (one health evaluation, shared; the
// demo's LAGGING group is past the warning threshold).
func TestOverviewAgreesWithGroupsFromStartUp(t *testing.T) {
	h := newHarness(t, 120, 40)
	countRe := regexp.MustCompile(`(\d+) (STOPPED|STALLED|REWOUND|LAGGING)`)
	attention := 0
	for round := 0; round < 40; round++ {
		h.advance(2 * time.Second)
		head := strings.SplitN(ansi.Strip(h.m.views[common.ViewGroups].View()), "\n", 2)[0]
		want := 0
		for _, m := range countRe.FindAllStringSubmatch(head, -1) {
			n, _ := strconv.Atoi(m[1])
			want += n
		}
		got := 0
		for _, a := range h.m.overview.Alerts() {
			if strings.HasPrefix(a.Text, "group ") {
				got++
			}
		}
		if got != want {
			t.Fatalf("round %d: overview has %d group alerts, groups tab %q", round, got, head)
		}
		if want > 0 {
			attention++
			if !strings.Contains(h.screen(), "("+strconv.Itoa(want)+" "+common.Agree(want, "needs", "need")+" attention)") {
				t.Fatalf("round %d: groups tab %q, overview:\n%s", round, head, h.screen())
			}
		}
	}
	if attention == 0 {
		t.Fatal("no group ever needed attention: the test proves nothing")
	}
}

// TestProgramFrameRate: the program runs at ui.FPS, below Bubble Tea's
// default 60 frames/s (idle wake-ups) and at least 10 (a flooded tail).
func TestProgramFrameRate(t *testing.T) {
	if FPS < 10 || FPS >= 60 {
		t.Fatalf("FPS = %d, want 10 ≤ FPS < 60", FPS)
	}
}

// TestIdleTimers: an idle dashboard arms only the polls, each at its
// configured interval, and only for what a shown view wants, plus one
// clock tick at the moment the oldest data would turn stale (never more
// than one per two polling intervals while every poll answers); the
// tail's drain runs only while a stream is open, the publish progress only
// while a run goes.
func TestIdleTimers(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(5)
	clocks, probes := 0, 0
	count := func(d time.Duration) (polls map[common.ResID]int, views int) {
		clocks, probes = 0, 0
		polls = map[common.ResID]int{}
		h.fire(d, func(msg tea.Msg) {
			switch m := msg.(type) {
			case pollTickMsg:
				polls[m.res]++
			case common.ViewMsg:
				views++
			case clockMsg:
				clocks++
			case probeMsg:
				probes++
			default:
				t.Fatalf("unexpected timer message %T", msg)
			}
		})
		return polls, views
	}
	check := func(where string, wantPolls ...common.ResID) {
		t.Helper()
		count(3 * time.Second) // ticks armed before a tab switch fire once
		polls, vticks := count(60 * time.Second)
		if vticks != 0 {
			t.Fatalf("%s: %d view timers fired in an idle minute", where, vticks)
		}
		// This harness's terminal never answers: the probe gives up after
		// probeGiveUp queries of probeUnanswered each.
		if limit := int(probeGiveUp * probeUnanswered / ProbeEvery); probes > limit {
			t.Fatalf("%s: %d link probe ticks in an idle minute with a terminal that never answers, want ≤ %d", where, probes, limit)
		}
		if clocks == 0 || clocks > 15 {
			t.Fatalf("%s: %d clock ticks in an idle minute, want one per stale deadline (≤ 15)", where, clocks)
		}
		for id := common.ResID(0); id < common.NumRes; id++ {
			want := 0
			if slices.Contains(wantPolls, id) {
				want = int(60 * time.Second / h.ctx.Interval(id))
			}
			if n := polls[id]; n < want-1 || n > want {
				t.Fatalf("%s: %s polled %d times in a minute, want %d", where, id, n, want)
			}
		}
	}
	always := []common.ResID{common.ResSummary, common.ResCluster, common.ResTopics, common.ResGroups, common.ResQueues}
	check("overview", append(always, common.ResStats)...)
	h.key("6") // the tail tab, nothing tailed
	check("tail without a stream", always...)
	// Open a stream and leave: it still drains in the background; x
	// closes it, and the drain stops with the stream.
	h.command("tail ORDER.*")
	if _, vticks := count(time.Second); vticks == 0 {
		t.Fatal("the open stream is not drained")
	}
	h.key("1")
	if _, vticks := count(time.Second); vticks == 0 {
		t.Fatal("the tail left running is not drained in the background")
	}
	h.key("6", "x", "1")
	check("overview after the tail", append(always, common.ResStats)...)
	// A finished publish run leaves no timer either.
	h.key("2", "j", "j", "p")
	h.key("down", "down", "down", "down", "enter", "ctrl+u")
	h.typeText("10")
	h.key("enter", "enter") // review, confirm
	h.pub.Last().Step(10)
	h.key("esc")
	check("publish done", always...)
	if probes != 0 {
		t.Fatalf("%d link probe ticks in the last idle minute: the probe did not give up on a terminal that never answers", probes)
	}
}
