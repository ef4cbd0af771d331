package admin

import (
	"context"
	"sort"
	"strings"

	"ilinkdash/ilink/wire"
)

// LeaderMove is one partition of a leadership rebalance: from its leader
// to its preferred replica, or why it stays (Skipped).
type LeaderMove struct {
	Topic     string
	Partition int32
	From, To  int
	Skipped   string // "" = moved (planned: would move)
}

// LeaderRebalance is the outcome or plan of RebalanceLeaders.
type LeaderRebalance struct {
	Partitions int // partitions of non-internal topics
	Preferred  int // led by their preferred replica before
	Moves      []LeaderMove
}

// Movable counts the moves that are (or would be) made.
func (r LeaderRebalance) Movable() int {
	n := 0
	for _, m := range r.Moves {
		if m.Skipped == "" {
			n++
		}
	}
	return n
}

func (q *Qmgr) rebalance(ctx context.Context, dryRun bool) (LeaderRebalance, error) {
	var rep wire.RebalanceReply
	req := &wire.RebalanceRequest{Qmgr: q.qmgr(), DryRun: dryRun}
	if err := q.svc.readOrWrite(ctx, dryRun, wire.CodeRebalance, req, &rep); err != nil {
		return LeaderRebalance{}, err
	}
	out := LeaderRebalance{Partitions: rep.Partitions, Preferred: rep.Preferred, Moves: make([]LeaderMove, len(rep.Moves))}
	for i, m := range rep.Moves {
		out.Moves[i] = LeaderMove{Topic: m.Topic, Partition: m.Partition, From: m.From, To: m.To, Skipped: m.Skipped}
	}
	return out, nil
}

// PlanRebalanceLeaders returns the moves RebalanceLeaders would make,
// changing nothing.
func (q *Qmgr) PlanRebalanceLeaders(ctx context.Context) (LeaderRebalance, error) {
	return q.rebalance(ctx, true)
}

// RebalanceLeaders moves the leadership of every partition of every
// non-internal topic back to its preferred replica (the first of its
// placement) where that replica runs and is in sync.
func (q *Qmgr) RebalanceLeaders(ctx context.Context) (LeaderRebalance, error) {
	if err := q.svc.mutate("RebalanceLeaders"); err != nil {
		return LeaderRebalance{}, err
	}
	return q.rebalance(ctx, false)
}

// NodeLeadership is one node's share of the partitions' leadership.
type NodeLeadership struct {
	Node      int
	Leads     int // partitions it leads now
	Preferred int // partitions whose preferred replica it is
}

// LeaderBalance summarises preferred against current leaders.
type LeaderBalance struct {
	Partitions   int // partitions with a replica set (non-internal topics)
	OnPreferred  int // led by their preferred replica
	Offline      int // without a leader
	Nodes        []NodeLeadership
	NotPreferred []LeadRow // the partition rows led by another replica (or none)
}

// Imbalance is the share of partitions not led by their preferred replica,
// 0..1 (0 for no partition).
func (b LeaderBalance) Imbalance() float64 {
	if b.Partitions == 0 {
		return 0
	}
	return float64(b.Partitions-b.OnPreferred) / float64(b.Partitions)
}

// ComputeLeaderBalance reads the partition rows of a lead table. SYSTEM.
// topics are left out, like RebalanceLeaders leaves them.
func ComputeLeaderBalance(rows []LeadRow) LeaderBalance {
	var b LeaderBalance
	nodes := map[int]*NodeLeadership{}
	node := func(id int) *NodeLeadership {
		n := nodes[id]
		if n == nil {
			n = &NodeLeadership{Node: id}
			nodes[id] = n
		}
		return n
	}
	for _, r := range rows {
		switch {
		case r.Kind == "node":
			node(r.Node)
			continue
		case r.Kind != "partition" || len(r.Replicas) == 0 || strings.HasPrefix(r.Topic, "SYSTEM."):
			continue
		}
		b.Partitions++
		pref := r.Replicas[0]
		node(pref).Preferred++
		switch {
		case r.Node == 0:
			b.Offline++
			b.NotPreferred = append(b.NotPreferred, r)
		case r.Node == pref:
			b.OnPreferred++
			node(r.Node).Leads++
		default:
			node(r.Node).Leads++
			b.NotPreferred = append(b.NotPreferred, r)
		}
	}
	for _, n := range nodes {
		b.Nodes = append(b.Nodes, *n)
	}
	sort.Slice(b.Nodes, func(i, j int) bool { return b.Nodes[i].Node < b.Nodes[j].Node })
	return b
}
