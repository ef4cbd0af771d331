// Package chaos is a Jepsen-style checker for the engine and the client:
// idempotent acks=all producers and a consumer group run against an
// in-process engine while a seeded random schedule applies faults from the
// engine's fault API; at the end every partition is read back and the
// history is checked (lost, duplicated and reordered records, commits that
// went backwards, consumer re-reads, recovery time after each fault).
//
// Run is the whole experiment for one seed; bench/cmd/chaos runs many
// seeds and prints the figures, and this package's tests run a short form.
package chaos

import (
	"fmt"
	"slices"
	"time"
)

// Fault kinds. Kill and stop take one node down at a time and are applied
// only when every partition keeps another in-sync replica running (killing
// the last one loses acknowledged records by design, which is not what the
// checker looks for); the node comes back after a short dwell.
const (
	KillLeader      = "kill-leader"      // kill the leader of a random partition; restart it later
	KillNode        = "kill-node"        // kill a random node; restart it later
	StopNode        = "stop-node"        // stop a random node's queue manager; start it later
	Sever           = "sever"            // close every client connection
	DelayReplies    = "delay-replies"    // hold a third of the replies 50–400 ms, for a while
	DropReplies     = "drop-replies"     // handle 5 % of produce/fetch/group requests and close without replying, for a while
	MoveLeader      = "move-leader"      // move a random partition's leadership to another in-sync node
	MoveCoordinator = "move-coordinator" // move the group's coordinator
	GrowTopic       = "grow-topic"       // add two partitions (up to MaxPartitions)
	// CrashMember kills a consumer group member without a final commit or
	// a LEAVE (its group requests are cut, then it is closed), like a
	// process that dies; its partitions move once the coordinator expires
	// it, and the records it was handed since its last commit are read
	// again: the re-reads. A new member takes its place later.
	CrashMember = "crash-member"
)

// Kinds lists every fault kind.
var Kinds = []string{KillLeader, KillNode, StopNode, Sever, DelayReplies, DropReplies, MoveLeader, MoveCoordinator, GrowTopic, CrashMember}

// Config is one experiment. Zero fields take the defaults.
type Config struct {
	Seed     int64
	Duration time.Duration // fault phase; default 10s

	Producers     int // idempotent acks=all producers; default 3
	Members       int // consumer group members; default 3
	Partitions    int // partitions at the start; default 6
	MaxPartitions int // grow-topic bound; default 12
	Keys          int // keys per producer; default 64
	Rate          int // records per second per producer; default 400

	// Faults are the kinds the schedule draws from (nil: all); a fault
	// happens every FaultGapMin..FaultGapMax (default 300 ms .. 1.2 s).
	Faults                   []string
	FaultGapMin, FaultGapMax time.Duration

	ElectionDelay time.Duration // engine; default 500 ms

	// PlantedBug turns the engine's idempotent de-duplication off
	// (engine.Config.PlantedBugNoDedup): the checker must then report
	// duplicates.
	PlantedBug bool

	Logf func(format string, args ...any) // engine and client diagnostics; nil = silent
}

func (c Config) withDefaults() (Config, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Duration == 0 {
		c.Duration = 10 * time.Second
	}
	def(&c.Producers, 3)
	def(&c.Members, 3)
	def(&c.Partitions, 6)
	def(&c.MaxPartitions, 12)
	def(&c.Keys, 64)
	def(&c.Rate, 400)
	if c.FaultGapMin == 0 {
		c.FaultGapMin = 300 * time.Millisecond
	}
	if c.FaultGapMax == 0 {
		c.FaultGapMax = 1200 * time.Millisecond
	}
	if c.ElectionDelay == 0 {
		c.ElectionDelay = 500 * time.Millisecond
	}
	if c.Faults == nil {
		c.Faults = Kinds
	}
	for _, k := range c.Faults {
		if !slices.Contains(Kinds, k) {
			return c, fmt.Errorf("chaos: unknown fault kind %q (known: %v)", k, Kinds)
		}
	}
	switch {
	case c.Duration < 0, c.Producers < 1, c.Members < 1, c.Partitions < 1, c.Keys < 1, c.Rate < 1:
		return c, fmt.Errorf("chaos: Duration, Producers, Members, Partitions, Keys and Rate must be positive")
	case c.MaxPartitions < c.Partitions:
		return c, fmt.Errorf("chaos: MaxPartitions %d below Partitions %d", c.MaxPartitions, c.Partitions)
	case c.FaultGapMin <= 0 || c.FaultGapMax < c.FaultGapMin:
		return c, fmt.Errorf("chaos: fault gap %v..%v", c.FaultGapMin, c.FaultGapMax)
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c, nil
}
