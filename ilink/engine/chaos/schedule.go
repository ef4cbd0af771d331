package chaos

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// The fault schedule: a seeded sequence of faults, one every
// FaultGapMin..FaultGapMax, each with its own heal (a restart, a start,
// the removal of a reply control) due a little later. At most one node is
// down at a time, and a node goes down only if every partition keeps
// another in-sync replica running.

type heal struct {
	at time.Time
	do func()
}

// ScheduleConfig configures a Schedule.
type ScheduleConfig struct {
	Seed           int64
	Faults         []string      // kinds drawn from (nil: all)
	GapMin, GapMax time.Duration // between two faults (default 300 ms .. 1.2 s)
	Topic          string        // target of kill-leader, move-leader and grow-topic
	Group          string        // target of move-coordinator
	MaxPartitions  int           // grow-topic bound (default 12)
	Logf           func(format string, args ...any)
	// OnFault, when set, is told of every fault applied (parts: the
	// topic's partitions after it). For a windowed fault (delay and drop
	// replies) the function it returns, if any, is called when the fault
	// is healed.
	OnFault func(kind, detail string, parts int, windowed bool) (healed func(time.Time))
	// CrashMember, when set, makes the crash-member fault possible: it
	// crashes one member of the group's clients (pick chooses which) and
	// returns what to say of it and the restart of a new member, or false
	// when no member may crash now; OnFault is called right after. The
	// schedule owns no client, so without it crash-member is not drawn.
	CrashMember func(pick int) (detail string, restart func(), ok bool)
}

// Schedule is a seeded random fault schedule over an engine (the one Run
// uses; bench/cmd/soak runs it under the demo). It is not safe for
// concurrent use.
type Schedule struct {
	e       *engine.Engine
	cfg     ScheduleConfig
	rng     *rand.Rand
	counts  map[string]int
	skipped int
}

// NewSchedule checks cfg and returns its schedule.
func NewSchedule(e *engine.Engine, cfg ScheduleConfig) (*Schedule, error) {
	if cfg.Faults == nil {
		cfg.Faults = Kinds
		if cfg.CrashMember == nil {
			cfg.Faults = slices.DeleteFunc(slices.Clone(Kinds), func(k string) bool { return k == CrashMember })
		}
	}
	for _, k := range cfg.Faults {
		if !slices.Contains(Kinds, k) {
			return nil, fmt.Errorf("chaos: unknown fault kind %q (known: %v)", k, Kinds)
		}
		if k == CrashMember && cfg.CrashMember == nil {
			return nil, fmt.Errorf("chaos: fault kind %s needs ScheduleConfig.CrashMember", k)
		}
	}
	if cfg.GapMin == 0 {
		cfg.GapMin = 300 * time.Millisecond
	}
	if cfg.GapMax == 0 {
		cfg.GapMax = 1200 * time.Millisecond
	}
	if cfg.GapMin <= 0 || cfg.GapMax < cfg.GapMin {
		return nil, fmt.Errorf("chaos: fault gap %v..%v", cfg.GapMin, cfg.GapMax)
	}
	if cfg.MaxPartitions == 0 {
		cfg.MaxPartitions = 12
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.OnFault == nil {
		cfg.OnFault = func(string, string, int, bool) func(time.Time) { return nil }
	}
	return &Schedule{e: e, cfg: cfg, rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x63686130)), counts: map[string]int{}}, nil
}

// Counts is the faults applied, by kind; Skipped the draws for which no
// kind could be applied safely.
func (s *Schedule) Counts() map[string]int { return maps.Clone(s.counts) }

// Skipped is the number of draws for which no fault could be applied safely.
func (s *Schedule) Skipped() int { return s.skipped }

// Run applies faults until end (or ctx ends), then heals everything:
// every node up and running, every reply control removed.
func (r *Schedule) Run(ctx context.Context, end time.Time) {
	var heals []heal
	down := 0 // the node down, 0 = none
	next := time.Now().Add(r.gap())
	runHeals := func(now time.Time, all bool) {
		keep := heals[:0]
		for _, h := range heals {
			if all || !now.Before(h.at) {
				h.do()
			} else {
				keep = append(keep, h)
			}
		}
		heals = keep
	}
	for ctx.Err() == nil {
		now := time.Now()
		runHeals(now, false)
		if !now.Before(end) {
			break
		}
		if now.Before(next) {
			wake := next
			for _, h := range heals {
				if h.at.Before(wake) {
					wake = h.at
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(min(time.Until(wake), time.Until(end)) + time.Millisecond):
			}
			continue
		}
		next = now.Add(r.gap())
		kinds := slices.Clone(r.cfg.Faults)
		r.rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
		applied := false
		for _, k := range kinds {
			if h, ok := r.apply(k, &down); ok {
				if h.do != nil {
					heals = append(heals, h)
				}
				r.counts[k]++
				applied = true
				break
			}
		}
		if !applied {
			r.skipped++
		}
	}
	runHeals(time.Now(), true)
}

func (r *Schedule) gap() time.Duration {
	lo, hi := r.cfg.GapMin, r.cfg.GapMax
	return lo + time.Duration(r.rng.Int64N(int64(hi-lo)+1))
}

func (r *Schedule) dwell(lo, hi time.Duration) time.Time {
	return time.Now().Add(lo + time.Duration(r.rng.Int64N(int64(hi-lo)+1)))
}

func (r *Schedule) partitions() int {
	ps, _ := r.e.TopicPartitions(r.cfg.Topic)
	return len(ps)
}

// apply applies one fault of kind k if it can be applied safely now, and
// returns its heal (do nil: none).
func (r *Schedule) apply(k string, down *int) (heal, bool) {
	parts := r.partitions()
	if parts == 0 && (k == KillLeader || k == MoveLeader || k == GrowTopic) {
		return heal{}, false
	}
	switch k {
	case KillLeader, KillNode, StopNode:
		return r.takeNodeDown(k, parts, down)
	case Sever:
		r.e.SeverConnections()
		r.cfg.OnFault(k, "", parts, false)
		return heal{}, true
	case DelayReplies, DropReplies:
		return r.disturbReplies(k, parts)
	case MoveLeader:
		return r.moveLeader(parts)
	case MoveCoordinator:
		return r.moveCoordinator(parts)
	case CrashMember:
		return r.crashGroupMember(parts)
	case GrowTopic:
		return r.growTopic(parts)
	}
	return heal{}, false
}

// takeNodeDown applies kill-leader, kill-node or stop-node (k): one node
// down while none is (*down), if the cluster stays safe without it. The
// heal brings it back and clears *down.
func (r *Schedule) takeNodeDown(k string, parts int, down *int) (heal, bool) {
	e := r.e
	if *down != 0 {
		return heal{}, false
	}
	var node int
	if k == KillLeader {
		node = e.PartitionLeader(r.cfg.Topic, r.rng.IntN(parts))
	} else {
		node = 1 + r.rng.IntN(len(e.Nodes()))
	}
	if node == 0 || !r.safeToTakeDown(node) {
		return heal{}, false
	}
	var err error
	if k == StopNode {
		err = e.StopNode(node)
	} else {
		err = e.KillNode(node)
	}
	if err != nil {
		r.cfg.Logf("chaos: %s %d: %v", k, node, err)
		return heal{}, false
	}
	r.cfg.OnFault(k, fmt.Sprintf("node %d", node), parts, false)
	*down = node
	return heal{at: r.dwell(300*time.Millisecond, 1500*time.Millisecond), do: func() {
		var err error
		if k == StopNode {
			err = e.StartNode(node)
		} else {
			err = e.RestartNode(node)
		}
		if err != nil {
			r.cfg.Logf("chaos: bring node %d back: %v", node, err)
		}
		*down = 0
	}}, true
}

// disturbReplies applies delay-replies or drop-replies (k): a reply
// control for a window, removed by the heal.
func (r *Schedule) disturbReplies(k string, parts int) (heal, bool) {
	remove := r.e.Control(replyControl(r.rng.Uint64(), k == DropReplies))
	healed := r.cfg.OnFault(k, "", parts, true)
	return heal{at: r.dwell(500*time.Millisecond, 1500*time.Millisecond), do: func() {
		remove()
		if healed != nil {
			healed(time.Now())
		}
	}}, true
}

// replyControl is the control of a reply window: with drop, 5% of the
// replies to produce, fetch, commit, heartbeat and join dropped; without,
// a third of all replies delayed by 50..400 ms. salt seeds which.
func replyControl(salt uint64, drop bool) func(*engine.ControlEvent) engine.ControlAction {
	var n atomic.Uint64
	return func(ev *engine.ControlEvent) engine.ControlAction {
		x := mix(n.Add(1) ^ salt)
		if drop {
			switch ev.Code {
			case wire.CodeProduce, wire.CodeFetch, wire.CodeOffsetCommit, wire.CodeHeartbeat, wire.CodeJoinGroup:
				if x%100 < 5 {
					return engine.ControlAction{DropReply: true}
				}
			}
			return engine.ControlAction{}
		}
		if x%3 == 0 {
			return engine.ControlAction{Delay: time.Duration(50+x%350) * time.Millisecond}
		}
		return engine.ControlAction{}
	}
}

// moveLeader applies move-leader: a random partition of the topic led by
// another of its in-sync replicas. No heal.
func (r *Schedule) moveLeader(parts int) (heal, bool) {
	topic := r.cfg.Topic
	p := r.rng.IntN(parts)
	infos, err := r.e.TopicPartitions(topic)
	if err != nil || p >= len(infos) {
		return heal{}, false
	}
	var to []int
	for _, n := range infos[p].InSync {
		if n != infos[p].Leader {
			to = append(to, n)
		}
	}
	if len(to) == 0 || infos[p].Leader == 0 {
		return heal{}, false
	}
	node := to[r.rng.IntN(len(to))]
	if err := r.e.MovePartitionLeader(topic, p, node); err != nil {
		r.cfg.Logf("chaos: move %s/%d to %d: %v", topic, p, node, err)
		return heal{}, false
	}
	r.cfg.OnFault(MoveLeader, fmt.Sprintf("%s/%d to node %d", topic, p, node), parts, false)
	return heal{}, true
}

// moveCoordinator applies move-coordinator: the group's coordinator moved
// to another node. No heal.
func (r *Schedule) moveCoordinator(parts int) (heal, bool) {
	to, err := r.e.MoveCoordinator(r.cfg.Group)
	if err != nil {
		r.cfg.Logf("chaos: move coordinator: %v", err)
		return heal{}, false
	}
	r.cfg.OnFault(MoveCoordinator, fmt.Sprintf("%s to node %d", r.cfg.Group, to), parts, false)
	return heal{}, true
}

// crashGroupMember applies crash-member through ScheduleConfig.CrashMember;
// the heal starts the new member.
func (r *Schedule) crashGroupMember(parts int) (heal, bool) {
	detail, restart, ok := r.cfg.CrashMember(r.rng.IntN(1 << 30))
	if !ok {
		return heal{}, false
	}
	r.cfg.OnFault(CrashMember, detail, parts, false)
	return heal{at: r.dwell(500*time.Millisecond, 2*time.Second), do: restart}, true
}

// growTopic applies grow-topic: two more partitions, up to MaxPartitions.
// No heal.
func (r *Schedule) growTopic(parts int) (heal, bool) {
	topic := r.cfg.Topic
	if parts+2 > r.cfg.MaxPartitions {
		return heal{}, false
	}
	if err := r.e.AlterTopic(topic, fmt.Sprintf("partitions=%d", parts+2)); err != nil {
		r.cfg.Logf("chaos: grow: %v", err)
		return heal{}, false
	}
	// Recovery covers the new partitions too: they get records and
	// readers without an error first.
	r.cfg.OnFault(GrowTopic, fmt.Sprintf("%s from %d to %d partitions", topic, parts, parts+2), parts+2, false)
	return heal{}, true
}

// safeToTakeDown reports whether node may go down: every partition of
// every topic (SYSTEM.GROUPS included) that has node in its in-sync set
// has another in-sync replica, which holds every acknowledged record.
func (r *Schedule) safeToTakeDown(node int) bool {
	for _, st := range r.e.Nodes() {
		if !st.Running {
			return false
		}
	}
	for _, ti := range r.e.Topics() {
		infos, err := r.e.TopicPartitions(ti.Name)
		if err != nil {
			return false
		}
		for _, p := range infos {
			if p.Leader == 0 {
				return false
			}
			if slices.Contains(p.InSync, node) && len(p.InSync) < 2 {
				return false
			}
		}
	}
	return true
}

// mix is splitmix64's finaliser: a counter becomes a well-spread number.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
