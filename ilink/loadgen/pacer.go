package loadgen

import (
	"context"
	"math"
	"time"
)

// Pacer is an open-loop schedule of Rate records a second from a start:
// record n is due n/Rate after the start (record 0 at once), rounded up to
// a whole tick when the pacer has one. A late wake-up or a blocking send
// delays records without moving when they were due, so a caller that
// stamps each record with At(n) measures without coordinated omission.
// A Pacer without a rate (Rate <= 0) lets every record through at once.
// Not safe for concurrent use.
type Pacer struct {
	rate  float64
	start time.Time
	tick  time.Duration
	timer *time.Timer
	due   int64 // records known due (Run's cache; saves a clock read per record)
}

// NewPacer returns a pacer of rate records a second from start.
func NewPacer(rate float64, start time.Time) *Pacer {
	return &Pacer{rate: rate, start: start}
}

// WithTick makes the schedule whole ticks of d: the records falling due
// within a tick are due at its end, together (the benchmarks' 1 ms ticks).
func (p *Pacer) WithTick(d time.Duration) *Pacer {
	p.tick = d
	return p
}

// Paced reports whether the pacer has a rate at all.
func (p *Pacer) Paced() bool { return p.rate > 0 }

// Start is the schedule's origin.
func (p *Pacer) Start() time.Time { return p.start }

// At is when record n is due (the start without a rate).
func (p *Pacer) At(n int64) time.Time {
	if p.rate <= 0 {
		return p.start
	}
	// n·1e9 first, then the division: exact for whole rates.
	d := time.Duration(math.Ceil(float64(n) * float64(time.Second) / p.rate))
	if p.tick > 0 {
		d = (d + p.tick - 1) / p.tick * p.tick
	}
	return p.start.Add(d)
}

// Due is how many records are due at t: records 0 .. Due(t)-1 (1<<62
// without a rate).
func (p *Pacer) Due(t time.Time) int64 {
	if p.rate <= 0 {
		return 1 << 62
	}
	e := t.Sub(p.start)
	if e < 0 {
		return 0
	}
	if p.tick > 0 {
		e = e / p.tick * p.tick
	}
	// Record n is due once n/rate <= e: n <= e·rate (ns·rate first, then
	// the division, as in At).
	return int64(math.Floor(float64(e)*p.rate/float64(time.Second))) + 1
}

// Wait sleeps until record n is due (one timer, no spinning); false when
// ctx ended first.
func (p *Pacer) Wait(ctx context.Context, n int64) bool {
	d := time.Until(p.At(n))
	if d <= 0 {
		return ctx.Err() == nil
	}
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	select {
	case <-p.timer.C:
		return true
	case <-ctx.Done():
		p.timer.Stop()
		return false
	}
}

// Run calls send for records 0, 1, 2, … each when it is due, until send
// returns false (it sent nothing then: the source ended, the count is
// reached or the run must stop) or ctx ends. It returns how many records
// send accepted. Records due together go out in a burst; between bursts
// Run sleeps (Wait). ctx is checked before every record (an atomic load).
func (p *Pacer) Run(ctx context.Context, send func(n int64) bool) int64 {
	var n int64
	for ctx.Err() == nil {
		if n >= p.due {
			if p.due = p.Due(time.Now()); n >= p.due {
				if !p.Wait(ctx, n) {
					break
				}
				continue
			}
		}
		if !send(n) {
			break
		}
		n++
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	return n
}
