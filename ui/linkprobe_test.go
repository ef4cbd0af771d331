package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func TestLinkProbe(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var p LinkProbe
	if !p.Due(at(0)) {
		t.Fatal("first query not due")
	}
	p.Sent(at(0))
	if p.Due(at(100)) || p.Slow(at(100)) {
		t.Fatal("due or slow with a query outstanding before any answer")
	}
	// A 250 ms round trip and nothing behind: the least delay, not slow.
	if d := p.Answer(at(250)); d != 250*time.Millisecond || p.Slow(at(250)) {
		t.Fatalf("answer %v, slow %v", d, p.Slow(at(250)))
	}
	// The next one comes 200 ms above it: still not slow (a backlog of
	// 200 ms ≤ SlowEcho).
	p.Sent(at(2000))
	p.Answer(at(2450))
	if p.Slow(at(2450)) {
		t.Fatal("slow at a 200 ms backlog")
	}
	// An outstanding query: slow once it waits longer than the least delay
	// plus SlowEcho, before its answer arrives.
	p.Sent(at(4000))
	if p.Slow(at(4500)) {
		t.Fatal("slow at 500 ms outstanding (least delay 250 ms)")
	}
	if !p.Slow(at(4600)) {
		t.Fatal("not slow at 600 ms outstanding (least delay 250 ms)")
	}
	if p.Due(at(4600)) {
		t.Fatal("a second query while one is outstanding")
	}
	// Its answer 2 s late holds the verdict for SlowHold.
	p.Answer(at(6000))
	if !p.Slow(at(6000).Add(SlowHold-time.Millisecond)) || p.Slow(at(6000).Add(SlowHold)) {
		t.Fatal("a late answer does not hold slow for exactly SlowHold")
	}
	// A query lost (its answer never comes): slow, and a new query goes.
	p.Sent(at(30_000))
	if p.Due(at(30_000).Add(probeLost - time.Millisecond)) {
		t.Fatal("lost too early")
	}
	if !p.Due(at(30_000).Add(probeLost)) || !p.Slow(at(30_000).Add(probeLost)) {
		t.Fatal("a lost query: not due again, or not slow")
	}
	// An answer to nothing outstanding (a key read as a report) is ignored.
	var q LinkProbe
	if d := q.Answer(at(0)); d != 0 || q.Slow(at(0)) {
		t.Fatalf("stray answer: %v", d)
	}
}

// A terminal that falls behind again soon after the hold ends is held
// twice as long each time, up to maxSlowHold; one that stays caught up
// for a hold starts again from SlowHold.
func TestLinkProbeHoldGrowsOnAThinLink(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var p LinkProbe
	p.Sent(now)
	now = now.Add(50 * time.Millisecond)
	p.Answer(now) // least delay 50 ms
	late := func() time.Duration {
		p.Sent(now)
		now = now.Add(time.Second)
		p.Answer(now)
		return time.Duration(p.slowTil.Load() - now.UnixNano())
	}
	want := SlowHold
	for i := 0; i < 6; i++ {
		if got := late(); got != want {
			t.Fatalf("fall %d: held %v, want %v", i+1, got, want)
		}
		now = time.Unix(0, p.slowTil.Load()).Add(2 * time.Second) // lifted, then behind again
		want = min(2*want, maxSlowHold)
	}
	if want != maxSlowHold {
		t.Fatalf("the hold did not reach its bound: %v", want)
	}
	now = time.Unix(0, p.slowTil.Load()).Add(maxSlowHold + time.Second) // caught up for a whole hold
	if got := late(); got != SlowHold {
		t.Fatalf("after a quiet hold: held %v, want %v", got, SlowHold)
	}
}

func TestLinkProbeGivesUpOnATerminalThatNeverAnswers(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	var p LinkProbe
	sent := 0
	for s := 0; s < 60; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		if p.Due(now) {
			p.Sent(now)
			sent++
		}
		if p.Slow(now) {
			t.Fatalf("slow at %d s without ever an answer", s)
		}
	}
	if sent != probeGiveUp || !p.GaveUp() {
		t.Fatalf("%d queries sent, gave up %v; want %d then none", sent, p.GaveUp(), probeGiveUp)
	}
}

// The dashboard asks, and a late answer (or none) puts it on the
// low-bandwidth budget: the Pace every view reads says Low.
func TestDashboardProbesTheLink(t *testing.T) {
	h := newHarness(t, 120, 40)
	pace := func() bool { return h.m.ctx.Pace.Low() }
	answer := func() { h.send(tea.CursorPositionMsg{X: 1, Y: 1}) }
	// Init sent the first query; the terminal answers in 40 ms.
	h.advance(40 * time.Millisecond)
	answer()
	if pace() {
		t.Fatal("low after a prompt answer")
	}
	// The next query (2 s on) waits 1 s: behind.
	h.advance(2 * time.Second)
	h.advance(time.Second)
	if !pace() {
		t.Fatal("not low with the query 1 s unanswered (least delay 40 ms)")
	}
	answer()
	if !pace() {
		t.Fatal("not low after a 1 s late answer")
	}
	// The link recovers: prompt answers, and the hold runs out.
	for i := 0; i < int(SlowHold/ProbeEvery)+2; i++ {
		for h.m.probe.sentAt.Load() == 0 { // until the next query goes
			h.advance(10 * time.Millisecond)
		}
		h.advance(40 * time.Millisecond)
		answer()
	}
	if pace() {
		t.Fatal("still low after SlowHold of prompt answers")
	}
}
