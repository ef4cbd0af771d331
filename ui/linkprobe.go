package ui

import (
	"sync/atomic"
	"time"
)

// LinkProbe notices a terminal that lags behind the program before any
// write blocks. Every ProbeEvery the dashboard writes a cursor-position
// query with its frames; the terminal answers it only once it has drawn
// everything written before it, so the time to the answer is the backlog
// between the program and the screen plus the link's round trip. Over SSH
// the buffers on the way (the TCP send buffer, sshd, the jump host) hold
// many seconds of a thin link's output before a write blocks (Meter), so
// the answer's delay is the earlier sign.
//
// The backlog is the delay above the least delay seen (the round trip
// itself is no backlog: a satellite link is slow to answer, not behind).
// A backlog above SlowEcho — an answer that late, or a query still
// unanswered that long — marks the terminal slow, and the low-bandwidth
// budget applies (common.Pace.SlowTerminal): for SlowHold, twice as long
// each time it falls behind again soon after (markSlow). A terminal
// that never answers is never judged: after probeGiveUp unanswered
// queries the probe stops asking.
//
// The model's goroutine sends and answers; Slow may be called from any.
type LinkProbe struct {
	sentAt   atomic.Int64 // Unix ns of the query outstanding; 0: none
	minRTT   atomic.Int64 // least delay seen, ns; 0: no answer yet
	slowTil  atomic.Int64 // Unix ns
	hold     time.Duration
	unasked  int // queries sent that were never answered (before the first answer)
	answered bool
}

// The probe's timing.
const (
	ProbeEvery = time.Second
	SlowEcho   = 300 * time.Millisecond
	// maxSlowHold bounds the hold, which doubles from SlowHold each time
	// the terminal falls behind again within a hold of the last one: a
	// link that keeps falling behind as soon as the budget lifts is thin,
	// and every lift costs the seconds a flood takes to drain.
	maxSlowHold = 4 * time.Minute
	probeGiveUp = 3
	// probeUnanswered: before the first answer, a query is given up after
	// this long (the terminal may not answer at all) — long enough for the
	// slowest link's first answer, so it is not mistaken for one to a
	// later query.
	probeUnanswered = 5 * time.Second
	// probeLost: a query outstanding this long, from a terminal that
	// answers, is taken as lost (its answer read as a key, say): the
	// terminal counts as slow, and a new query goes.
	probeLost = 20 * time.Second
)

// Due reports whether a query should be sent now: none is outstanding
// (before the first answer, one is given up after probeUnanswered), and
// the terminal has not shown that it never answers.
func (p *LinkProbe) Due(now time.Time) bool {
	if !p.answered && p.unasked >= probeGiveUp {
		return false
	}
	sent := p.sentAt.Load()
	if sent == 0 {
		return true
	}
	waited := now.Sub(time.Unix(0, sent))
	switch {
	case !p.answered && waited >= probeUnanswered:
		p.unasked++
		p.sentAt.Store(0)
		return p.unasked < probeGiveUp
	case p.answered && waited >= probeLost:
		p.markSlow(now)
		p.sentAt.Store(0)
		return true
	}
	return false
}

// GaveUp reports that the terminal never answered probeGiveUp queries:
// the probe asks no more.
func (p *LinkProbe) GaveUp() bool { return !p.answered && p.unasked >= probeGiveUp }

// Sent records that a query was written at now.
func (p *LinkProbe) Sent(now time.Time) { p.sentAt.Store(now.UnixNano()) }

// Answer records the terminal's answer at now and returns the delay.
func (p *LinkProbe) Answer(now time.Time) time.Duration {
	sent := p.sentAt.Swap(0)
	if sent == 0 {
		return 0 // an answer to a query not ours (or a key read as one)
	}
	d := now.Sub(time.Unix(0, sent))
	p.answered = true
	if m := p.minRTT.Load(); m == 0 || int64(d) < m {
		p.minRTT.Store(max(int64(d), 1))
	}
	if d-time.Duration(p.minRTT.Load()) > SlowEcho {
		p.markSlow(now)
	}
	return d
}

// markSlow holds the slow verdict from now: for SlowHold, or twice the
// last hold when the terminal fell behind again within a hold of its end.
func (p *LinkProbe) markSlow(now time.Time) {
	til := time.Unix(0, p.slowTil.Load())
	switch {
	case p.hold == 0 || now.After(til.Add(p.hold)):
		p.hold = SlowHold
	case now.After(til):
		p.hold = min(2*p.hold, maxSlowHold)
	}
	if t := now.Add(p.hold); t.After(til) {
		p.slowTil.Store(t.UnixNano())
	}
}

// Slow reports whether the terminal lags: a late answer within SlowHold,
// or a query outstanding for longer than the least delay plus SlowEcho.
func (p *LinkProbe) Slow(now time.Time) bool {
	if now.UnixNano() < p.slowTil.Load() {
		return true
	}
	min, sent := p.minRTT.Load(), p.sentAt.Load()
	return min > 0 && sent > 0 && now.Sub(time.Unix(0, sent))-time.Duration(min) > SlowEcho
}
