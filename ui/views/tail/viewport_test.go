package tail

import (
	"fmt"
	"testing"
)

// vpSim is a buffer reduced to its numbers around a viewport: seqs
// [first, next) held, at most capacity of them, rows lines on screen.
type vpSim struct {
	p           viewport
	first, next uint64
	capacity    int
	rows        int
	low         bool
	matches     []uint64 // with filtered: the matching seqs
	filtered    bool
}

func (s *vpSim) set() rowSet {
	var m []uint64
	for _, seq := range s.matches {
		if seq >= s.first {
			m = append(m, seq)
		}
	}
	return rowSet{first: s.first, next: s.next, filtered: s.filtered, matches: m}
}

// vpStep is one thing that happens to the viewport, named for the
// failure message.
type vpStep struct {
	name string
	do   func(*vpSim)
}

// vpArrive: n records come in (the oldest leave past the capacity), and
// the table lets them through as the view's pace does.
func vpArrive(n int) vpStep {
	return vpStep{fmt.Sprintf("arrive %d", n), func(s *vpSim) {
		s.next += uint64(n)
		if c := uint64(s.capacity); c > 0 && s.next-s.first > c {
			s.first = s.next - c
		}
		if s.p.behind(s.next) {
			s.p.advance(s.set(), s.low, func() int { return s.rows })
		}
	}}
}

// vpArriveMatching: n records come in, every k-th of them (from the
// first) matching the filter.
func vpArriveMatching(n, k int) vpStep {
	return vpStep{fmt.Sprintf("arrive %d, 1 in %d matching", n, k), func(s *vpSim) {
		for i := 0; i < n; i++ {
			if i%k == 0 {
				s.matches = append(s.matches, s.next+uint64(i))
			}
		}
		vpArrive(n).do(s)
	}}
}

// vpDropTo: the buffer drops its oldest records up to seq first.
func vpDropTo(first uint64) vpStep {
	return vpStep{fmt.Sprintf("drop to %d", first), func(s *vpSim) { s.first = first }}
}

func vpKey(name string, d int) vpStep {
	return vpStep{name, func(s *vpSim) { s.p.move(s.set(), s.rows, d, s.low) }}
}

var (
	vpUp     = vpKey("up", -1)
	vpDown   = vpKey("down", 1)
	vpPgUp   = vpStep{"pgup", func(s *vpSim) { s.p.move(s.set(), s.rows, -s.rows, s.low) }}
	vpPgDown = vpStep{"pgdown", func(s *vpSim) { s.p.move(s.set(), s.rows, s.rows, s.low) }}
	vpHome   = vpStep{"g", func(s *vpSim) {
		if s.p.home(s.set()) {
			s.p.repin(s.set())
		}
	}}
	vpEnd       = vpStep{"G", func(s *vpSim) { s.p.follow = true }}
	vpPause     = vpStep{"pause", func(s *vpSim) { s.p.pause(s.next) }}
	vpResume    = vpStep{"resume", func(s *vpSim) { s.p.resume(); vpArrive(0).do(s) }}
	vpDetail    = vpStep{"enter", func(s *vpSim) { s.p.openDetail(s.set(), s.rows, s.low) }}
	vpCloseIt   = vpStep{"esc", func(s *vpSim) { s.p.closeDetail() }}
	vpDownMoved = vpStep{"down (detail)", func(s *vpSim) {
		if s.p.move(s.set(), s.rows, 1, s.low) {
			s.p.repin(s.set())
		}
	}}
)

// vpWant is what settle returns after the steps (rows top..top+rows of
// n, cur highlighted), with the cursor's seq and the pin's state.
type vpWant struct {
	top, cur, n int
	curSeq      uint64
	follow      bool
	pinned      bool   // the pane shows the pin
	pinSeq      uint64 // when pinned
	pinLeft     bool   // when pinned: the pin left the buffer
	newer       int64  // when pinned: rows after the pin
	newPaused   int64  // records received since the pause
}

func TestViewport(t *testing.T) {
	cases := []struct {
		name     string
		capacity int
		rows     int
		low      bool
		filtered bool
		steps    []vpStep
		want     vpWant
	}{
		{
			name: "following the end as records arrive", rows: 5,
			steps: []vpStep{vpArrive(3), vpArrive(4)},
			want:  vpWant{top: 2, cur: 6, n: 7, curSeq: 6, follow: true},
		},
		{
			name: "following a full buffer: the newest row stays last", capacity: 10, rows: 5,
			steps: []vpStep{vpArrive(8), vpArrive(8)},
			want:  vpWant{top: 5, cur: 9, n: 10, curSeq: 15, follow: true},
		},
		{
			name: "scrolled up stays on its record as more arrive", rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpUp, vpArrive(20)},
			want:  vpWant{top: 5, cur: 7, n: 30, curSeq: 7},
		},
		{
			name: "down onto the newest row follows again", rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpDown, vpArrive(5)},
			want:  vpWant{top: 10, cur: 14, n: 15, curSeq: 14, follow: true},
		},
		{
			name: "the buffer drops the rows under the cursor: it lands on the oldest kept", capacity: 10, rows: 5,
			steps: []vpStep{vpArrive(10), vpHome, vpArrive(4)},
			want:  vpWant{top: 0, cur: 0, n: 10, curSeq: 4},
		},
		{
			name: "the buffer drops rows above the cursor: it stays on its record", capacity: 10, rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpUp, vpArrive(3)},
			want:  vpWant{top: 2, cur: 4, n: 10, curSeq: 7},
		},
		{
			name: "a drop without arrivals under the cursor", rows: 4,
			steps: []vpStep{vpArrive(20), vpHome, vpDown, vpDropTo(12)},
			want:  vpWant{top: 0, cur: 0, n: 8, curSeq: 12},
		},
		{
			name: "pgup at the top stays on the first row", rows: 5,
			steps: []vpStep{vpArrive(12), vpPgUp, vpPgUp, vpPgUp, vpPgUp},
			want:  vpWant{top: 0, cur: 0, n: 12, curSeq: 0},
		},
		{
			name: "pgup from the end moves a screen", rows: 5,
			steps: []vpStep{vpArrive(12), vpPgUp},
			want:  vpWant{top: 6, cur: 6, n: 12, curSeq: 6},
		},
		{
			name: "pgdown at the end follows", rows: 5,
			steps: []vpStep{vpArrive(12), vpHome, vpPgDown, vpPgDown, vpPgDown, vpArrive(3)},
			want:  vpWant{top: 10, cur: 14, n: 15, curSeq: 14, follow: true},
		},
		{
			name: "pgdown short of the end scrolls the page", rows: 5,
			steps: []vpStep{vpArrive(12), vpHome, vpPgDown},
			want:  vpWant{top: 1, cur: 5, n: 12, curSeq: 5},
		},
		{
			name: "g then G: back to the end", rows: 5,
			steps: []vpStep{vpArrive(12), vpHome, vpEnd, vpArrive(1)},
			want:  vpWant{top: 8, cur: 12, n: 13, curSeq: 12, follow: true},
		},
		{
			name: "keys on an empty buffer do nothing", rows: 5,
			steps: []vpStep{vpUp, vpPgDown, vpHome, vpDetail},
			want:  vpWant{top: 0, cur: -1, n: 0},
		},
		{
			name: "pause freezes what is shown", rows: 5,
			steps: []vpStep{vpArrive(10), vpPause, vpArrive(7)},
			want:  vpWant{top: 5, cur: 9, n: 10, curSeq: 9, follow: true, newPaused: 7},
		},
		{
			name: "pause, then the buffer drops what was shown", capacity: 10, rows: 5,
			steps: []vpStep{vpArrive(10), vpPause, vpArrive(12)},
			want:  vpWant{top: 0, cur: -1, n: 0, follow: true, newPaused: 12},
		},
		{
			name: "resume shows what arrived meanwhile", rows: 5,
			steps: []vpStep{vpArrive(10), vpPause, vpArrive(7), vpResume},
			want:  vpWant{top: 12, cur: 16, n: 17, curSeq: 16, follow: true},
		},
		{
			name: "scrolled and paused: the cursor keeps its record", rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpPause, vpArrive(7), vpUp},
			want:  vpWant{top: 5, cur: 7, n: 10, curSeq: 7, newPaused: 7},
		},
		{
			name: "pin keeps the pinned record while records arrive", rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpDetail, vpArrive(6)},
			want:  vpWant{top: 5, cur: 8, n: 16, curSeq: 8, pinned: true, pinSeq: 8, newer: 7},
		},
		{
			name: "down onto the newest row with the pane open does not follow", rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpDetail, vpDownMoved, vpArrive(2)},
			want:  vpWant{top: 5, cur: 9, n: 12, curSeq: 9, pinned: true, pinSeq: 9, newer: 2},
		},
		{
			name: "pin left the buffer: the pane still shows it and says so", capacity: 10, rows: 5,
			steps: []vpStep{vpArrive(10), vpHome, vpDetail, vpArrive(4)},
			want:  vpWant{top: 0, cur: 0, n: 10, curSeq: 4, pinned: true, pinSeq: 0, pinLeft: true, newer: 10},
		},
		{
			name: "moving after the pin left re-pins under the cursor", capacity: 10, rows: 5,
			steps: []vpStep{vpArrive(10), vpHome, vpDetail, vpArrive(4), vpDownMoved},
			want:  vpWant{top: 0, cur: 1, n: 10, curSeq: 5, pinned: true, pinSeq: 5, newer: 8},
		},
		{
			name: "closing the pane lets go of the pin", rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpDetail, vpCloseIt, vpArrive(3)},
			want:  vpWant{top: 5, cur: 8, n: 13, curSeq: 8},
		},
		{
			name: "G with the pane open follows and the pane shows the cursor", rows: 5,
			steps: []vpStep{vpArrive(10), vpUp, vpDetail, vpEnd, vpArrive(3)},
			want:  vpWant{top: 8, cur: 12, n: 13, curSeq: 12, follow: true},
		},
		{
			name: "filter: rows are the matches, the cursor keeps its record", rows: 3, filtered: true,
			steps: []vpStep{vpArriveMatching(20, 2), vpUp, vpUp, vpArriveMatching(10, 2)},
			want:  vpWant{top: 7, cur: 7, n: 15, curSeq: 14},
		},
		{
			name: "low bandwidth: a following table turns pages", rows: 4, low: true,
			steps: []vpStep{vpArrive(1), vpArrive(7)},
			// Pages of 4 from seq 0: the newest (7) is on [4, 8), of which
			// the turn shows half.
			want: vpWant{top: 4, cur: 5, n: 6, curSeq: 5, follow: true},
		},
		{
			name: "low bandwidth: the page fills up below", rows: 4, low: true,
			steps: []vpStep{vpArrive(1), vpArrive(7), vpArrive(0)},
			want:  vpWant{top: 4, cur: 7, n: 8, curSeq: 7, follow: true},
		},
		{
			name: "low bandwidth with a filter: pages of matches", rows: 2, low: true, filtered: true,
			steps: []vpStep{vpArriveMatching(1, 1), vpArriveMatching(10, 2)},
			want:  vpWant{top: 4, cur: 5, n: 6, curSeq: 9, follow: true},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &vpSim{p: newViewport(), capacity: tc.capacity, rows: tc.rows, low: tc.low, filtered: tc.filtered}
			var done []string
			for _, st := range tc.steps {
				st.do(s)
				done = append(done, st.name)
			}
			top, cur, n := s.p.settle(s.set(), s.rows, s.low)
			got := vpWant{top: top, cur: cur, n: n, follow: s.p.follow, newPaused: s.p.newWhilePaused(s.next)}
			if n > 0 {
				got.curSeq = s.p.cur
			}
			if seq, ok := s.p.pinned(); ok {
				got.pinned, got.pinSeq = true, seq
				got.pinLeft = s.p.pinLeft(s.first)
				got.newer = s.p.newerThanPin(s.set())
			}
			if got != tc.want {
				t.Errorf("after %v:\n got %+v\nwant %+v", done, got, tc.want)
			}
		})
	}
}

// TestViewportFillFrom: after a jump the rows fill from the top and the
// list stays there, past a screenful.
func TestViewportFillFrom(t *testing.T) {
	s := &vpSim{p: newViewport(), rows: 5}
	vpArrive(30).do(s)
	s.p.reset(s.next)
	s.first = s.next // the buffer was cleared
	s.p.fillFrom(s.next)
	vpArrive(3).do(s)
	if top, cur, n := s.p.settle(s.set(), s.rows, false); top != 0 || cur != 0 || n != 3 {
		t.Fatalf("after 3: top %d cur %d n %d, want 0 0 3", top, cur, n)
	}
	vpArrive(9).do(s)
	if top, cur, n := s.p.settle(s.set(), s.rows, false); top != 0 || cur != 0 || n != 12 || s.p.cur != 30 {
		t.Fatalf("after 12: top %d cur %d (seq %d) n %d, want 0 0 (seq 30) 12", top, cur, s.p.cur, n)
	}
}

// TestViewportShowAll: closing a paused tail ends the pause and shows
// every buffered record at once, past the pace.
func TestViewportShowAll(t *testing.T) {
	s := &vpSim{p: newViewport(), rows: 5}
	vpArrive(4).do(s)
	vpPause.do(s)
	s.next += 6 // arrived, not let through
	s.p.showAll(s.next)
	if s.p.paused || s.p.rows(s.set()) != 10 {
		t.Fatalf("paused %v, rows %d; want false, 10", s.p.paused, s.p.rows(s.set()))
	}
}
