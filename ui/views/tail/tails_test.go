package tail_test

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tail"
)

// tabsRig is a rig on the tail tab with several tails (tail.Tabs).
type tabsRig struct {
	*viewtest.Rig
	tl *fakes.Tailer
	s  *tail.Tabs
}

func newTabsRig(t *testing.T) *tabsRig {
	t.Helper()
	tr := &tabsRig{tl: fakes.NewTailer(fakes.TailerOptions{})}
	tr.Rig = viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		tr.s = tail.NewTabs(ctx, tr.tl)
		return tr.s
	})
	return tr
}

// TestTailsKeepSeveral: `:tail A` then `:tail B` keeps both running, each
// counting its own records whichever is shown; ] and [ switch; the badge
// counts the running tails and says ⏸ when all are paused; `:tail A`
// again shows A as it is.
func TestTailsKeepSeveral(t *testing.T) {
	r := newTabsRig(t)
	r.Run(r.s.Open("ORDER.EVENT"))
	a := r.tl.Last()
	a.Emit(7)
	r.Advance(300 * time.Millisecond)
	if r.s.Badge() != "●" {
		t.Fatalf("badge of one live tail %q", r.s.Badge())
	}
	r.Run(r.s.Open("PAYMENT.*"))
	b := r.tl.Last()
	if b == a || a.Closed() || r.s.Len() != 2 || r.s.Target() != "PAYMENT.*" {
		t.Fatalf("the second tail replaced the first (closed %v, tails %d, shown %q)", a.Closed(), r.s.Len(), r.s.Target())
	}
	// A receives while B is shown.
	a.Emit(5)
	b.Emit(2)
	r.Advance(300 * time.Millisecond)
	r.MustShow("Tail PAYMENT.*", "tail 2 of 2 ([ ])", "2 total")
	if _, total, _, _ := r.s.Active().Counts(); total != 2 {
		t.Fatalf("B counts %d", total)
	}
	if r.s.Badge() != "●2" {
		t.Fatalf("badge of two live tails %q", r.s.Badge())
	}
	r.Key("]")
	r.MustShow("Tail ORDER.EVENT", "tail 1 of 2 ([ ])", "12 total")
	// Pause both: the badge says so, and neither stream fetches.
	r.Key("space", "[", "space")
	if p := a.Pauses(); len(p) != 1 || !p[0] {
		t.Fatalf("A's pauses %v", p)
	}
	if p := b.Pauses(); len(p) != 1 || !p[0] {
		t.Fatalf("B's pauses %v", p)
	}
	if r.s.Badge() != "⏸2" {
		t.Fatalf("badge of two paused tails %q", r.s.Badge())
	}
	a.Emit(4) // paused: held by the stream, not delivered
	r.Advance(300 * time.Millisecond)
	r.Key("]")
	r.MustShow("Tail ORDER.EVENT", "⏸ PAUSED", "12 total")
	r.Run(r.s.Open("PAYMENT.*")) // already running: shown as it is
	if r.s.Target() != "PAYMENT.*" || b.Closed() || len(r.tl.Streams()) != 2 {
		t.Fatalf(":tail of a running tail restarted it (shown %q, streams %d)", r.s.Target(), len(r.tl.Streams()))
	}
	r.MustShow("2 total")
	// ] and [ are listed in the help.
	var help []string
	for _, col := range r.s.FullHelp() {
		for _, k := range col {
			help = append(help, k.Help().Key)
		}
	}
	if !strings.Contains(strings.Join(help, " "), "[ ]") {
		t.Fatalf("help lacks [ and ]: %v", help)
	}
	// Shutdown closes every tail.
	r.s.Shutdown()
	if !a.WaitClosed(2*time.Second) || !b.WaitClosed(2*time.Second) {
		t.Fatal("Shutdown left a tail open")
	}
}

// TestTailsBounded: at most tail.MaxTails tails are kept; with that many
// running a new one is refused (nothing started), and once x closes one
// the new tail takes its place.
func TestTailsBounded(t *testing.T) {
	r := newTabsRig(t)
	names := []string{"T.A", "T.B", "T.C", "T.D"}
	for _, n := range names {
		r.Run(r.s.Open(n))
	}
	if len(r.tl.Streams()) != tail.MaxTails || r.s.Len() != tail.MaxTails {
		t.Fatalf("streams %d tails %d", len(r.tl.Streams()), r.s.Len())
	}
	r.Out = nil
	r.Run(r.s.Open("T.E"))
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || !strings.Contains(fl[0].Text, "already 4 tails running") {
		t.Fatalf("flash %+v", fl)
	}
	if len(r.tl.Streams()) != tail.MaxTails || r.s.Target() != "T.D" {
		t.Fatalf("a fifth tail started: streams %d, shown %q", len(r.tl.Streams()), r.s.Target())
	}
	r.Key("[", "x") // close T.C
	if !r.tl.Streams()[2].Closed() {
		t.Fatal("x did not close the tail shown")
	}
	r.Run(r.s.Open("T.E"))
	if len(r.tl.Streams()) != 5 || r.s.Target() != "T.E" || r.s.Len() != tail.MaxTails {
		t.Fatalf("the new tail did not take the closed one's place: streams %d shown %q tails %d", len(r.tl.Streams()), r.s.Target(), r.s.Len())
	}
	for i, s := range r.tl.Streams() {
		if closed := s.Closed(); closed != (i == 2) {
			t.Fatalf("stream %d closed=%v", i, closed)
		}
	}
}

// TestClosedTailIsNotPaused: a tail closed while paused says closed, not
// PAUSED, and its rate reads "—", not the last one; space on it pauses
// nothing.
func TestClosedTailIsNotPaused(t *testing.T) {
	r := newTabsRig(t)
	r.Run(r.s.Open("ORDER.EVENT"))
	s := r.tl.Last()
	for range 5 {
		s.Emit(40)
		r.Advance(200 * time.Millisecond)
	}
	r.MustShow("● live", "200 total")
	r.MustNotShow(" 0 rec/s")
	r.Key("space")
	r.MustShow("⏸ PAUSED")
	r.Key("x")
	r.MustShow("■ closed · r reopens it", "— rec/s", "200 total")
	r.MustNotShow("PAUSED", "paused")
	if r.s.Badge() != "" {
		t.Fatalf("badge of a closed tail %q", r.s.Badge())
	}
	if st := r.s.Status(); strings.Contains(st, "rec/s") || strings.Contains(st, "paused") {
		t.Fatalf("status of a closed tail %q", st)
	}
	r.Key("space")
	r.MustShow("■ closed · r reopens it", "— rec/s")
	r.MustNotShow("PAUSED")
	// A stream that ends while paused: the same.
	r.Key("r")
	s2 := r.tl.Last()
	r.Key("space")
	s2.Fail(nil)
	r.Advance(300 * time.Millisecond)
	r.MustShow("■ the stream ended", "— rec/s")
	r.MustNotShow("PAUSED")
}
