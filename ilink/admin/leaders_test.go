package admin

import (
	"testing"
	"time"

	"ilinkdash/ilink/engine"
)

func TestRebalanceThroughAdmin(t *testing.T) {
	t.Parallel()
	e, s, q, ctx := startAdmin(t, engine.Config{ElectionDelay: 50 * time.Millisecond}, 1)
	noErr(t, q.CreateTopic(ctx, "RB", "partitions=3"))
	noErr(t, q.ForceElection(ctx, "RB", 1, 3)) // node 2's partition to node 3
	lt := must[ClusterLeadTable](t)(s.ClusterLeadTableParsed(ctx, ""))
	bal := ComputeLeaderBalance(lt.Rows)
	if bal.Partitions != 3 || bal.OnPreferred != 2 || len(bal.NotPreferred) != 1 || bal.NotPreferred[0].Partition != 1 {
		t.Fatalf("balance %+v", bal)
	}
	if im := bal.Imbalance(); im < 0.33 || im > 0.34 {
		t.Fatalf("imbalance %v, want 1/3", im)
	}
	if len(bal.Nodes) != 3 || bal.Nodes[1] != (NodeLeadership{Node: 2, Leads: 0, Preferred: 1}) || bal.Nodes[2] != (NodeLeadership{Node: 3, Leads: 2, Preferred: 1}) {
		t.Fatalf("per node %+v", bal.Nodes)
	}
	plan := must[LeaderRebalance](t)(q.PlanRebalanceLeaders(ctx))
	if plan.Movable() != 1 || plan.Moves[0] != (LeaderMove{Topic: "RB", Partition: 1, From: 3, To: 2}) || e.PartitionLeader("RB", 1) != 3 {
		t.Fatalf("plan %+v (leader %d)", plan, e.PartitionLeader("RB", 1))
	}
	done := must[LeaderRebalance](t)(q.RebalanceLeaders(ctx))
	if done.Movable() != 1 || e.PartitionLeader("RB", 1) != 2 {
		t.Fatalf("rebalance %+v (leader %d)", done, e.PartitionLeader("RB", 1))
	}
	lt = must[ClusterLeadTable](t)(s.ClusterLeadTableParsed(ctx, ""))
	if b := ComputeLeaderBalance(lt.Rows); b.OnPreferred != 3 || b.Imbalance() != 0 {
		t.Fatalf("after the rebalance %+v", b)
	}
}
