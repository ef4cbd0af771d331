package views

import (
	"time"

	"ilinkdash/ilink/admin"
)

// Health is a group's one-word verdict in the groups table.
type Health int

// Health words, from best to worst attention-wise.
const (
	HealthOK Health = iota
	HealthEmpty
	HealthRebalancing
	HealthLagging
	HealthStalled
	HealthDead
)

func (h Health) String() string {
	switch h {
	case HealthOK:
		return "OK"
	case HealthEmpty:
		return "EMPTY"
	case HealthRebalancing:
		return "REBALANCING"
	case HealthLagging:
		return "LAGGING"
	case HealthStalled:
		return "STALLED"
	case HealthDead:
		return "DEAD"
	}
	return "?"
}

// Health evaluation parameters.
const (
	// healthWindow is how far back the evaluation looks.
	healthWindow = 30 * time.Second
	// healthMinSpan is the shortest window that supports LAGGING or
	// STALLED: three auto-commit periods (5 s each), so a consumer that
	// commits every 5 s is never judged between two commits.
	healthMinSpan = 15 * time.Second
	// healthMinSamples is the fewest samples that support a verdict.
	healthMinSamples = 3
	// lagHistory is how many samples a group keeps (sparkline and window).
	lagHistory = 60
)

// lagSample is one observation of a group from the group list.
type lagSample struct {
	At  time.Time
	Lag int64 // TotalLag; -1 = no commit at all
	// Consumed is an estimate of the group's committed offsets summed over
	// its topics: Σ end offsets of its topics − lag, the end offsets taken
	// from the topic list and extrapolated to At with the topic's inbound
	// rate (the two lists are polled independently). Valid only when
	// HasConsumed.
	Consumed    float64
	HasConsumed bool
}

// EvaluateHealth computes a group's health word from its state and its lag
// history (oldest first), in the spirit of Burrow's consumer evaluation:
// verdicts come from the trend over a sliding window, never from one
// sample, and a consumer is judged on progress, not on lag size.
//
// Rules, in order:
//
//  1. State Dead (unknown group)                      → DEAD
//  2. State PreparingRebalance / CompletingRebalance  → REBALANCING
//  3. State Empty, or no member                       → EMPTY
//  4. Newest lag ≤ 0 (caught up, or nothing committed) → OK
//  5. Fewer than 3 samples in the last 30 s, or they span less than 15 s
//     (three auto-commit periods)                     → OK (not enough data)
//  6. Lag was 0 at some sample in the window (Burrow: a consumer that
//     caught up within the window is fine)            → OK
//  7. No progress: the committed-offset estimate did not advance over the
//     window (by more than 0.5% of the lag, to absorb polling skew); when
//     no estimate is available, the lag never decreased between two
//     samples (no commit moved it)                    → STALLED
//  8. Lag trending up: newest lag > oldest lag in the window and the
//     smallest lag of the newer half is above the smallest lag of the older
//     half (minima, so the saw-tooth of periodic commits does not hide a
//     trend)                                           → LAGGING
//  9. Otherwise                                        → OK
func EvaluateHealth(state admin.GroupState, members int, hist []lagSample, now time.Time) Health {
	switch state {
	case admin.GroupDead:
		return HealthDead
	case admin.GroupPreparingRebalance, admin.GroupCompletingRebalance:
		return HealthRebalancing
	case admin.GroupEmpty:
		return HealthEmpty
	}
	if members == 0 {
		return HealthEmpty
	}
	if len(hist) == 0 || hist[len(hist)-1].Lag <= 0 {
		return HealthOK
	}
	win := healthWindowOf(hist, now)
	if len(win) < healthMinSamples || win[len(win)-1].At.Sub(win[0].At) < healthMinSpan {
		return HealthOK
	}
	for _, s := range win {
		if s.Lag == 0 {
			return HealthOK
		}
	}
	first, last := win[0], win[len(win)-1]
	if first.HasConsumed && last.HasConsumed {
		progress := last.Consumed - first.Consumed
		if progress <= float64(last.Lag)*0.005+1 {
			return HealthStalled
		}
	} else {
		decreased := false
		for i := 1; i < len(win); i++ {
			if win[i].Lag < win[i-1].Lag {
				decreased = true
				break
			}
		}
		if !decreased {
			return HealthStalled
		}
	}
	half := len(win) / 2
	minOf := func(ss []lagSample) int64 {
		m := ss[0].Lag
		for _, s := range ss[1:] {
			m = min(m, s.Lag)
		}
		return m
	}
	if last.Lag > first.Lag && minOf(win[half:]) > minOf(win[:half]) {
		return HealthLagging
	}
	return HealthOK
}

// healthWindowOf returns the samples of hist (oldest first) within
// healthWindow of now: the window EvaluateHealth judges on, and the one
// every figure shown with a verdict (the overview's lag growth, the
// consumption rate) is computed over.
func healthWindowOf(hist []lagSample, now time.Time) []lagSample {
	start := len(hist)
	for start > 0 && now.Sub(hist[start-1].At) <= healthWindow {
		start--
	}
	return hist[start:]
}
