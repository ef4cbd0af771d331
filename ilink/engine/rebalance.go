package engine

import (
	"fmt"

	"ilinkdash/ilink/wire"
)

// Leadership rebalance (REBALANCE LEADERS 2004). A partition's preferred
// leader is the first replica of its placement: CreateTopic and
// AlterTopic place partition i on nodes (i+k) mod N, so preferred leaders
// spread evenly. Failover moves leadership away from a lost node and
// nothing brings it back; a rebalance moves every partition whose leader
// is not its preferred replica back to it, when that replica runs and is
// in the in-sync set (MovePartitionLeader: it first takes what it lacks,
// so nothing is lost). SYSTEM. topics keep their leaders: the leader of a
// SYSTEM.GROUPS partition is the coordinator of its groups, and moving it
// makes every one of them rejoin (MoveCoordinator does that on purpose).

// LeaderMove is one partition of a rebalance: from its current leader to
// its preferred one, or why it stays.
type LeaderMove struct {
	Topic     string
	Partition int32
	From, To  int
	Skipped   string // "" = moved (planned: would move)
}

// LeaderBalance is a rebalance's outcome or plan.
type LeaderBalance struct {
	Partitions int // partitions of non-internal topics
	Preferred  int // led by their preferred replica before the rebalance
	Moves      []LeaderMove
}

// RebalanceLeaders moves the leadership of every partition of every
// non-internal topic to its preferred replica where possible; dryRun only
// plans. Moves are recorded as forced elections (lead table).
func (e *Engine) RebalanceLeaders(dryRun bool) (LeaderBalance, error) {
	var out LeaderBalance
	for _, t := range e.topics.snap.Load().list {
		if t.internal {
			continue
		}
		for _, p := range t.partitions() {
			out.Partitions++
			p.mu.Lock()
			from, pref := p.leader, p.reps[0].node
			var skip string
			switch {
			case from == pref:
				out.Preferred++
				p.mu.Unlock()
				continue
			case !e.topics.isRunning(pref):
				skip = fmt.Sprintf("preferred node %d is not running", pref)
			case from != 0 && p.isr&bit(pref) == 0:
				skip = fmt.Sprintf("preferred node %d is not in sync yet", pref)
			case from == 0 && p.lastISR&bit(pref) == 0:
				skip = fmt.Sprintf("preferred node %d may lack committed records", pref)
			}
			p.mu.Unlock()
			m := LeaderMove{Topic: t.name, Partition: p.id, From: from, To: pref, Skipped: skip}
			if skip == "" && !dryRun {
				if err := e.MovePartitionLeader(t.name, int(p.id), pref); err != nil {
					// It changed under us (a node died, the topic went): say so.
					m.Skipped = wireError(err).Tail
				} else {
					e.adm.leads.partitionElection(t.name, p.id, from, pref, true, "preferred leader rebalance")
				}
			}
			out.Moves = append(out.Moves, m)
		}
	}
	if !dryRun {
		n := 0
		for _, m := range out.Moves {
			if m.Skipped == "" {
				n++
			}
		}
		e.logf("engine: leadership rebalance: %d partitions moved to their preferred leader (%d of %d were there)", n, out.Preferred, out.Partitions)
	}
	return out, nil
}

func handleRebalance(r *request) {
	var req wire.RebalanceRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	b, err := r.c.e.RebalanceLeaders(req.DryRun)
	if err != nil {
		r.fail(wireError(err))
		return
	}
	rep := &wire.RebalanceReply{Partitions: b.Partitions, Preferred: b.Preferred, Moves: make([]wire.LeaderMoveEntry, len(b.Moves))}
	for i, m := range b.Moves {
		rep.Moves[i] = wire.LeaderMoveEntry{Topic: m.Topic, Partition: m.Partition, From: m.From, To: m.To, Skipped: m.Skipped}
	}
	r.reply(rep)
}
