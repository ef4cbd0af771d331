package tail

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
