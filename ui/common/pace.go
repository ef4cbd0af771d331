package common

import "time"

// Pace is the dashboard's bandwidth budget: how often what changes by
// itself (a live table, counters, rates) may change on screen. Bubble
// Tea's renderer already writes only the cells that differ from the last
// frame, and nothing when the frame is unchanged; what it cannot cut is a
// view that changes every frame. So the views ask their Gates before they
// let such a change show, and the frame stays the same in between.
//
// Two budgets: the default one keeps a flooded tail under about 40 kB/s
// at 120×40; LowBandwidth (--low-bandwidth, a context's `low-bandwidth:
// true`, ILINKDASH_LOW_BANDWIDTH) fits a 64 kbit/s link (8,000 B/s): the
// tail advances at most twice a second and by whole pages, counters
// change at most once a second, and nothing animates. When the terminal's
// writes block (SlowTerminal), the low-bandwidth budget applies until
// they stop blocking.
type Pace struct {
	// LowBandwidth selects the low-bandwidth budget.
	LowBandwidth bool
	// SlowTerminal, when set, reports that writes to the terminal are
	// blocking now (see ui.Meter); the low-bandwidth budget then applies.
	SlowTerminal func() bool
	// Budget, when set, holds what the screen changes by itself to a byte
	// rate in low-bandwidth mode, from the bytes really written (see
	// ui.Meter): a live table advances only while the budget has room, so
	// the link stays about half free and a key's frame never waits behind
	// more than one page.
	Budget *Budget
}

// Budget intervals.
const (
	TableEvery    = 250 * time.Millisecond // a live table advances at most 4×/s
	CountersEvery = 250 * time.Millisecond
	LowTableEvery = 500 * time.Millisecond // 2×/s
	LowCounters   = time.Second            // 1×/s
)

// LowBudget is the byte rate the low-bandwidth budget lets a live table
// use (half of a 64 kbit/s link); BudgetBurst is what it may save up.
const (
	LowBudget   = 4000
	BudgetBurst = 4000
)

// Room reports whether the byte budget lets a live table advance now
// (always without a Budget, or outside low-bandwidth mode).
func (p Pace) Room(now time.Time) bool {
	if p.Budget == nil || !p.Low() {
		return true
	}
	return p.Budget.Room(now, LowBudget, BudgetBurst)
}

// Low reports whether the low-bandwidth budget applies now.
func (p Pace) Low() bool {
	return p.LowBandwidth || (p.SlowTerminal != nil && p.SlowTerminal())
}

// Table is how often a live table may advance.
func (p Pace) Table() time.Duration {
	if p.Low() {
		return LowTableEvery
	}
	return TableEvery
}

// Counters is how often counters and rates may change.
func (p Pace) Counters() time.Duration {
	if p.Low() {
		return LowCounters
	}
	return CountersEvery
}

// Gate lets a change through at most once per interval: Allow reports
// whether the interval has passed since the change it last let through
// (the first always passes). The caller keeps what it did not show and
// asks again at its next tick, so the last change is never lost, only
// late by at most one interval.
type Gate struct{ last time.Time }

// Allow reports whether a change may show at now, every apart from the
// last one let through, and if so counts it as shown.
func (g *Gate) Allow(now time.Time, every time.Duration) bool {
	if !g.last.IsZero() && !now.Before(g.last) && now.Sub(g.last) < every {
		return false
	}
	g.last = now
	return true
}

// Reset makes the next Allow pass (a user action shows at once).
func (g *Gate) Reset() { g.last = time.Time{} }

// Budget is a token bucket over the bytes written to the terminal: it
// fills at a rate, up to a burst, and every byte written (whatever wrote
// it: a table, a counter, a key's echo) takes one out.
type Budget struct {
	written   func() int64 // bytes written so far
	tokens    float64
	last      time.Time
	lastBytes int64
}

// NewBudget returns a budget over the byte counter written (ui.Meter.Bytes).
func NewBudget(written func() int64) *Budget {
	return &Budget{written: written, tokens: BudgetBurst}
}

// Room refills the bucket for the time since the last look, takes out
// what was written meanwhile, and reports whether any room is left.
func (b *Budget) Room(now time.Time, rate, burst float64) bool {
	w := b.written()
	if !b.last.IsZero() && now.After(b.last) {
		b.tokens += rate * now.Sub(b.last).Seconds()
	}
	b.tokens = min(b.tokens, burst) - float64(w-b.lastBytes)
	b.last, b.lastBytes = now, w
	return b.tokens >= 0
}
