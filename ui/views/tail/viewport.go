package tail

import "slices"

// rowSet is what the tail's rows are made of: the seqs the buffer holds,
// [first, next), or with a filter the matching ones among them
// (ascending). It is plain numbers, so that the viewport is tested
// without a buffer.
type rowSet struct {
	first, next uint64
	filtered    bool
	matches     []uint64 // with a filter: the matching seqs
}

// count is the number of rows whose seq is below limit.
func (s rowSet) count(limit uint64) int {
	if s.filtered {
		i, _ := slices.BinarySearch(s.matches, limit)
		return i
	}
	if limit <= s.first {
		return 0
	}
	return int(limit - s.first)
}

// seq is the seq of row i.
func (s rowSet) seq(i int) uint64 {
	if s.filtered {
		return s.matches[i]
	}
	return s.first + uint64(i)
}

// rowOf is the index of the first row whose seq is ≥ seq.
func (s rowSet) rowOf(seq uint64) int {
	if s.filtered {
		i, _ := slices.BinarySearch(s.matches, seq)
		return i
	}
	if seq > s.first {
		return int(seq - s.first)
	}
	return 0
}

// viewport is where the tail's list stands: the cursor and the first row
// shown, whether they follow the newest record, how far the table pace
// let the rows through, the pause, and the record pinned for the detail
// pane. It holds seqs, not rows: a row's index changes as the buffer drops
// its oldest records and as the filter changes, a record's seq never. Its
// methods take the rows (a rowSet), the number of rows on screen and the
// low-bandwidth flag, and return what to draw; View keeps the records.
type viewport struct {
	follow   bool   // the cursor is on the newest row shown
	cur, top uint64 // cursor and first-row seqs when not following

	// Pacing: rows below showEnd are on screen (the table advances at the
	// budget's pace).
	showEnd uint64
	pageTop uint64 // low bandwidth: first seq of the page on screen

	paused   bool
	pauseEnd uint64 // while paused, rows are the seqs below pauseEnd

	// detail: the detail pane is open on the pinned record, which it
	// keeps while records arrive, even after it left the buffer, until
	// the operator moves.
	detail bool
	pin    pinMark
}

type pinMark struct {
	on  bool
	seq uint64
}

func newViewport() viewport { return viewport{follow: true} }

// limit is the exclusive upper bound of the seqs shown: the pause's, or
// what the table pace let through.
func (p *viewport) limit(next uint64) uint64 {
	if p.paused {
		return min(p.pauseEnd, next)
	}
	return min(p.showEnd, next)
}

// rows is the number of rows offered (after the filter and the pause).
func (p *viewport) rows(s rowSet) int { return s.count(p.limit(s.next)) }

// newWhilePaused counts the records received since the pause.
func (p *viewport) newWhilePaused(next uint64) int64 {
	if !p.paused || next <= p.pauseEnd {
		return 0
	}
	return int64(next - p.pauseEnd)
}

// settle computes the cursor and first row for rows lines on screen, from
// the follow flag or the remembered seqs, and remembers them again: rows
// [top, top+rows) of the n offered are drawn, cur highlighted (-1: none).
// A remembered seq the buffer dropped lands on the oldest row kept.
func (p *viewport) settle(s rowSet, rows int, low bool) (top, cur, n int) {
	n = p.rows(s)
	if n == 0 {
		return 0, -1, 0
	}
	rows = max(rows, 1)
	if p.follow {
		cur = n - 1
		top = max(0, n-rows)
		// Low bandwidth: the page flipPage chose, while the newest row is
		// on it (new rows are written below the old ones).
		if low && p.pageTop >= s.first && p.pageTop < p.limit(s.next) {
			if pt := s.rowOf(p.pageTop); pt <= cur && cur < pt+rows {
				top = pt
			}
		}
	} else {
		cur = min(s.rowOf(p.cur), n-1)
		top = min(s.rowOf(p.top), n-1)
		if cur < top {
			top = cur
		}
		if cur >= top+rows {
			top = cur - rows + 1
		}
		top = max(0, min(top, n-rows))
	}
	p.cur, p.top = s.seq(cur), s.seq(top)
	return top, cur, n
}

// move moves the cursor d rows (up when negative; the page keys move a
// screen's rows), within the rows offered. Moving down onto the newest row
// follows again, except with the detail pane open (it stays on its
// record). It reports whether there was a row to move to.
func (p *viewport) move(s rowSet, rows, d int, low bool) bool {
	_, cur, n := p.settle(s, rows, low)
	if n == 0 {
		return false
	}
	cur = max(0, min(cur+d, n-1))
	p.follow = cur == n-1 && d > 0 && !p.detail
	p.cur = s.seq(cur)
	return true
}

// home (g) puts the cursor and the first row on the oldest row; it
// reports whether there is one.
func (p *viewport) home(s rowSet) bool {
	p.follow = false
	if p.rows(s) == 0 {
		return false
	}
	p.cur, p.top = s.seq(0), s.seq(0)
	return true
}

// pick puts the cursor on row i (a click), no longer following.
func (p *viewport) pick(s rowSet, i int) {
	p.follow = false
	p.cur = s.seq(i)
}

// fillFrom puts the cursor and the first row on next, the first record
// still to come (after a jump): rows then fill downwards from the top and
// the list stays there.
func (p *viewport) fillFrom(next uint64) {
	p.follow = false
	p.cur, p.top = next, next
}

// reset is the viewport of an emptied buffer whose next record is next:
// following, nothing paged, the detail pane closed.
func (p *viewport) reset(next uint64) {
	p.follow = true
	p.closeDetail()
	p.pauseEnd = next
	p.showEnd, p.pageTop = next, next
}

// showAll ends the pause and shows every record below next (a closed
// tail: nothing fetches any more, nothing is held back).
func (p *viewport) showAll(next uint64) {
	p.paused = false
	p.showEnd = next
}

// pause freezes the rows shown (those let through so far); next is the
// buffer's next seq.
func (p *viewport) pause(next uint64) {
	p.paused, p.pauseEnd = true, p.limit(next)
}

// resume lets the rows advance again (at the table's pace).
func (p *viewport) resume() { p.paused = false }

// behind reports whether records arrived that the table has not let
// through yet (none while paused: the pause holds them).
func (p *viewport) behind(next uint64) bool { return !p.paused && p.showEnd < next }

// advance lets the table through to the newest record: at once, or, for a
// following low-bandwidth table, by pages (flipPage, for which rows says
// how many rows the screen shows; it is asked only then).
func (p *viewport) advance(s rowSet, low bool, rows func() int) {
	if low && p.follow {
		p.flipPage(s, rows())
		return
	}
	p.showEnd = s.next
}

// flipPage advances a following low-bandwidth table (rows appended below
// the old ones, never a scroll that rewrites every row), in steps of at
// most half a page, so that no frame is larger than half a page: a key's
// frame never waits long behind one on a thin link. While the newest row
// still falls on the page, the page fills up below; when it does not,
// the page turns to the one that holds it (pages are counted in seqs from
// where paging began, so records leaving the buffer do not shift them)
// and shows its first half. With a filter the same happens in rows.
func (p *viewport) flipPage(s rowSet, rows int) {
	rows = max(rows, 1)
	step := max(rows/2, 1)
	if s.filtered {
		p.showEnd = s.next
		n := p.rows(s)
		if n == 0 {
			return
		}
		top := 0
		if p.pageTop >= s.first {
			top = min(s.rowOf(p.pageTop), n-1)
		}
		if n-top > rows {
			top += (n - 1 - top) / rows * rows
		}
		p.pageTop = s.seq(top)
		return
	}
	newest := s.next
	if newest-p.pageTop > uint64(rows) {
		p.pageTop += (newest - 1 - p.pageTop) / uint64(rows) * uint64(rows)
		p.showEnd = p.pageTop
	}
	p.showEnd = max(p.showEnd, p.pageTop)
	p.showEnd = min(newest, p.showEnd+uint64(step))
}

// openDetail opens the detail pane on the row under the cursor and pins
// it: the list stops following. opened is false when there is no row;
// pinned says the pin moved to p.pin.seq (the caller keeps a copy of that
// record).
func (p *viewport) openDetail(s rowSet, rows int, low bool) (opened, pinned bool) {
	_, cur, n := p.settle(s, rows, low)
	if n == 0 || cur < 0 {
		return false, false
	}
	p.detail, p.follow = true, false
	p.cur = s.seq(cur)
	return true, p.pinAt(s, p.cur)
}

// closeDetail closes the detail pane and lets go of the pin.
func (p *viewport) closeDetail() {
	p.detail, p.pin = false, pinMark{}
}

// pinAt pins seq if the buffer holds it, and reports whether it did.
func (p *viewport) pinAt(s rowSet, seq uint64) bool {
	if seq < s.first || seq >= s.next {
		return false
	}
	p.pin = pinMark{on: true, seq: seq}
	return true
}

// repin moves the pin to the cursor after the operator moved it (with
// the detail pane open); it reports whether the pin moved.
func (p *viewport) repin(s rowSet) bool {
	return p.detail && p.pin.seq != p.cur && p.pinAt(s, p.cur)
}

// pinned returns the seq the detail pane is pinned on; ok is false when
// the pane follows the cursor instead (closed, unpinned or following).
func (p *viewport) pinned() (seq uint64, ok bool) {
	return p.pin.seq, p.detail && p.pin.on && !p.follow
}

// pinLeft reports whether the pinned record left the buffer (first is
// its oldest seq): the pane still shows its copy, and says so.
func (p *viewport) pinLeft(first uint64) bool { return p.pin.seq < first }

// newerThanPin counts the rows offered after the pinned record (all of
// them once it left the buffer).
func (p *viewport) newerThanPin(s rowSet) int64 {
	n := p.rows(s)
	if p.pinLeft(s.first) {
		return int64(n)
	}
	return int64(n - min(s.rowOf(p.pin.seq+1), n))
}
