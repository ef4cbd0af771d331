// Package health judges a cluster from timestamped observations of its
// admin lists: one health word per consumer group, evaluated per partition
// over a sliding window of committed-offset history (Burrow's consumer
// status evaluation is the model), and the cluster's alerts (nodes,
// partitions, queues, dead-letter queues, groups). The dashboard's
// overview and groups tab and `ilinkdash check` feed the same Monitor, so
// they judge by the very same rules; docs/HEALTH.md states every rule.
//
// The package has no UI dependency: texts carry the engine's names as they
// are, and every caller that shows them on a terminal sanitizes them.
//
// Usage:
//
//	m := health.New(cfg)
//	m.ObserveGroups(groups, at) // and ObserveNodes, ObserveTopics, ObserveQueues
//	for _, g := range m.Groups() { … g.Word … }
//	alerts := m.Alerts(now)
//
// Every verdict is a function of the observations and their times only
// (never of the wall clock), so tests drive it with explicit times.
package health

import (
	"fmt"
	"time"
)

// Word is a group's one-word health.
type Word int

// The words, from the least to the most in need of attention (the order
// sorts the groups table and picks a group's word from its partitions').
const (
	// Unknown: not judged yet. The group has members and unread records,
	// and the history is shorter than the window needs. Never shown as OK.
	Unknown Word = iota
	// Active: one list only (OneSample): members present and records
	// unread. Whether they keep up (OK), fall behind (LAGGING) or stand
	// still (STALLED) is a trend, which one list cannot show. The Monitor
	// itself never gives it: it says UNKNOWN until its window is full.
	Active
	// OK: caught up within the window, or consuming without falling
	// behind.
	OK
	// Empty: no member and nothing unread.
	Empty
	// Rebalancing: the group is reassigning its partitions.
	Rebalancing
	// Lagging: commits advance, but the lag grew over the window.
	Lagging
	// Rewound: a commit moved backwards within the window.
	Rewound
	// Stalled: members present, records unread, no commit advanced for
	// the stall time.
	Stalled
	// Stopped: no member while records are unread.
	Stopped
	// Dead: the group is unknown to the cluster.
	Dead
)

func (w Word) String() string {
	switch w {
	case OK:
		return "OK"
	case Active:
		return "ACTIVE"
	case Empty:
		return "EMPTY"
	case Rebalancing:
		return "REBALANCING"
	case Lagging:
		return "LAGGING"
	case Rewound:
		return "REWOUND"
	case Stalled:
		return "STALLED"
	case Stopped:
		return "STOPPED"
	case Dead:
		return "DEAD"
	}
	return "UNKNOWN"
}

// Words lists every word, in Word order.
var Words = []Word{Unknown, Active, OK, Empty, Rebalancing, Lagging, Rewound, Stalled, Stopped, Dead}

// Config holds the thresholds (the `health:` block of a context). It has
// the fields of config.Health, in the same order, so that a caller
// converts one to the other (`health.Config(ctx.Health)`) and this package
// needs nothing of config (TestConfigDefaultsAgree keeps them equal).
type Config struct {
	// Window is the sliding window the trend rules look at (LAGGING,
	// REWOUND, "caught up within the window", the consumption rate).
	Window time.Duration
	// StallAfter is how long a partition with members and unread records
	// may go without a commit advancing before it is STALLED. It must be
	// longer than the consumers' commit interval.
	StallAfter time.Duration
	// MaxLagWarning and MaxLagCritical: a LAGGING group raises a warning
	// alert once its lag reaches MaxLagWarning, a critical one at
	// MaxLagCritical (0: never critical for lag alone).
	MaxLagWarning  int64
	MaxLagCritical int64
	// QueueDepth: a queue deeper than this raises a warning (0: off).
	QueueDepth int64
	// DLQWindow: a dead-letter queue is "growing" while its depth rose
	// within this long.
	DLQWindow time.Duration
}

// Defaults. The window covers two commits of a consumer with the default
// 5 s auto-commit; the stall time the same, so one missed commit is not a
// stall but two are.
const (
	DefaultWindow         = 10 * time.Second
	DefaultStallAfter     = 10 * time.Second
	DefaultMaxLagWarning  = 1000
	DefaultMaxLagCritical = 100000
	DefaultQueueDepth     = 10000
	DefaultDLQWindow      = 5 * time.Minute
)

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{Window: DefaultWindow, StallAfter: DefaultStallAfter, MaxLagWarning: DefaultMaxLagWarning,
		MaxLagCritical: DefaultMaxLagCritical, QueueDepth: DefaultQueueDepth, DLQWindow: DefaultDLQWindow}
}

// Validate reports the first setting out of range, naming it as the
// config file does.
func (c Config) Validate() error {
	switch {
	case c.Window <= 0:
		return fmt.Errorf("window must be positive, got %v", c.Window)
	case c.StallAfter <= 0:
		return fmt.Errorf("stall-after must be positive, got %v", c.StallAfter)
	case c.MaxLagWarning < 0:
		return fmt.Errorf("max-lag-warning must not be negative, got %d", c.MaxLagWarning)
	case c.MaxLagCritical < 0:
		return fmt.Errorf("max-lag-critical must not be negative, got %d", c.MaxLagCritical)
	case c.MaxLagCritical > 0 && c.MaxLagCritical < c.MaxLagWarning:
		return fmt.Errorf("max-lag-critical (%d) is below max-lag-warning (%d)", c.MaxLagCritical, c.MaxLagWarning)
	case c.QueueDepth < 0:
		return fmt.Errorf("queue-depth must not be negative, got %d", c.QueueDepth)
	case c.DLQWindow <= 0:
		return fmt.Errorf("dlq-window must be positive, got %v", c.DLQWindow)
	}
	return nil
}

// horizon is how far back a partition's history must reach.
func (c Config) horizon() time.Duration { return max(c.Window, c.StallAfter) }

// Level is an alert's severity; it orders alerts and gives `check` its
// exit code (0 OK, 1 warning, 2 critical).
type Level int

// Levels.
const (
	LevelOK Level = iota
	LevelWarning
	LevelCritical
)

func (l Level) String() string {
	switch l {
	case LevelWarning:
		return "WARNING"
	case LevelCritical:
		return "CRITICAL"
	}
	return "OK"
}
