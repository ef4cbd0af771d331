package tail

import (
	"context"
	"math"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

func (v *View) ingest(r *Record) {
	if _, seen := v.intern[r.Topic]; !seen {
		v.topics++
		v.topicW = max(v.topicW, min(sanitize.Width(sanitize.String(r.Topic)), 24))
	}
	v.dropped += int64(v.ring.push(newEntry(r, v.intern)))
	v.total++
	seq := v.ring.next - 1
	if v.filter != nil && v.filter.match(v.ring.at(seq)) {
		v.matches.add(seq)
	}
	if r.Offset >= 1_000_000 && v.offW < 12 {
		v.offW = max(v.offW, min(len(strconv.FormatInt(r.Offset, 10)), 12))
	}
}

// drain takes what the stream has, without blocking, dropping batches
// read before the last jump.
func (v *View) drain() (n int, ended bool) {
	ch := v.stream.Records()
	for n < tailMaxBatch {
		select {
		case b, ok := <-ch:
			if !ok {
				return n, true
			}
			if b.Epoch < v.epoch {
				continue
			}
			for i := range b.Records {
				v.ingest(&b.Records[i])
			}
			n += len(b.Records)
			if b.Held && v.filling {
				v.filling, v.held, v.waiting = false, true, -1
			}
		default:
			return n, false
		}
	}
	return n, false
}

func (v *View) tick() tea.Cmd {
	v.ticks++
	return v.After(v.every, v.Gen, tailTickMsg{seq: v.ticks})
}

// started takes the stream StartTail opened, or its error; gen is the
// start's (a superseded stream is closed).
func (v *View) started(gen uint64, m tailStartedMsg) tea.Cmd {
	if gen != v.Gen || v.state != tailStarting {
		if m.stream != nil {
			return closeStream(m.stream) // superseded
		}
		return nil
	}
	if m.err != nil {
		v.state, v.err, v.note = tailClosed, m.err, ""
		if v.cancel != nil {
			v.cancel()
			v.cancel = nil
		}
		v.closed()
		return nil
	}
	v.stream, v.state = m.stream, tailLive
	v.truth = fetchTruth{since: v.Ctx.Now(), unreachSince: v.truth.unreachSince}
	v.rate.Add(v.Ctx.Now(), v.total)
	v.countGate.Reset()
	v.pace(v.Ctx.Now())
	if v.vp.paused { // space was pressed while the stream was starting
		s := v.stream
		return tea.Batch(v.tick(), v.Call(func(ctx context.Context) any {
			return tailPauseMsg{paused: true, err: s.Pause(ctx, true)}
		}))
	}
	return v.tick()
}

// ticked drains the stream, paces the screen and arms the next tick (or
// closes the tail when the stream ended).
func (v *View) ticked(m tailTickMsg) tea.Cmd {
	if m.seq != v.ticks || v.state != tailLive || v.stream == nil {
		return nil
	}
	n, ended := v.drain()
	v.matches.dropBefore(v.ring.first())
	now := v.Ctx.Now()
	if n > 0 {
		v.truth.lastRecord = now
	}
	v.truth.f = v.stream.Fetching()
	v.rate.Add(now, v.total)
	if v.vp.paused || v.held {
		if w, ok := v.stream.Waiting(); ok {
			v.waiting = w
		}
	}
	v.topicsNow = len(v.stream.Topics())
	held := v.pace(now)
	if ended {
		s := v.stream
		v.stream = nil
		v.state, v.err = tailClosed, s.Err()
		if v.err == nil {
			v.note = "the stream ended"
		}
		if v.cancel != nil {
			v.cancel()
			v.cancel = nil
		}
		v.closed()
		return closeStream(s)
	}
	if n > 0 || held {
		v.every = tailFast
	} else {
		v.every = min(v.every*2, tailSlow)
	}
	return v.tick()
}

// sought takes the end of a seek (a jump, or G after one): the buffer
// starts again from the target, filling and then holding for a jump.
func (v *View) sought(m tailSeekMsg) tea.Cmd {
	if v.state != tailSeeking {
		return nil
	}
	v.state = tailLive
	v.every = tailFast
	if m.err != nil {
		return tea.Batch(v.tick(), v.ActionFailed(m.dlgGen, m.err, "jump failed: ", "jump failed: "))
	}
	if v.DialogOpen(m.dlgGen) {
		v.CloseDialog()
	}
	v.clearBuffer()
	v.epoch = max(v.epoch, m.epoch)
	v.vp.resume() // a seek resumes the stream
	v.waiting = -1
	v.filling, v.held = m.fill != (Fill{}), false
	v.truth.since = v.Ctx.Now()
	v.note = "jumped to " + m.label
	v.from = "jumped to " + m.label
	v.pace(v.Ctx.Now())
	if !v.filling {
		if m.dlgGen == 0 { // G at the end, not a jump asked for
			v.from = "from " + m.label
		}
		return tea.Batch(v.tick(), common.Flash(common.LevelOK, "tail at "+m.label+" (buffer cleared)"))
	}
	// The first row is the record at the target: rows then fill
	// downwards from the top, and the list stays there.
	v.vp.fillFrom(v.ring.next)
	return tea.Batch(v.tick(), common.Flash(common.LevelOK, "tail jumped to "+m.label+" (buffer cleared): it fills the buffer from there, then holds · space resumes · G goes to the end"))
}

// pace lets the rows and the counters change as often as the bandwidth
// budget allows (common.Pace). It reports whether it held something back,
// which then shows at a later tick.
func (v *View) pace(now time.Time) (held bool) {
	p := v.Ctx.Pace
	if v.vp.behind(v.ring.next) {
		if p.Room(now) && v.tableGate.Allow(now, p.Table()) {
			v.vp.advance(v.rowSet(), p.Low(), v.listRowsFor)
		} else {
			held = true
		}
	}
	c := tailCounters{
		total: v.total, dropped: v.dropped, buffered: v.ring.n,
		waiting: v.waiting, newer: v.newWhilePaused(),
	}
	if v.state == tailLive && !v.vp.paused {
		c.rate = v.rate.Rate(now, v.total)
		if p.Low() {
			c.rate = roughRate(c.rate)
		}
	}
	if c != v.shown {
		if v.countGate.Allow(now, p.Counters()) {
			v.shown = c
		} else {
			held = true
		}
	}
	return held
}

// roughRate rounds a rate to two significant digits, so that a steady
// stream's rate does not change a digit on every update.
func roughRate(r float64) float64 {
	if r < 10 {
		return math.Round(r)
	}
	scale := math.Pow(10, math.Floor(math.Log10(r))-1)
	return math.Round(r/scale) * scale
}
