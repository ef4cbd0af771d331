package cli

import (
	"strings"
	"testing"
)

func TestClusterRebalanceAndMoveLeader(t *testing.T) {
	e, tgt := topicEngine(t, "RB", "partitions=3")
	mv := jsonOf[moveLeaderJSON](t, with(tgt, "cluster", "move-leader", "RB", "1", "--to", "3")...)
	if mv.From != 2 || mv.To != 3 || e.PartitionLeader("RB", 1) != 3 {
		t.Fatalf("move-leader %+v", mv)
	}
	_, _, err := runAdminCLI(t, with(tgt, "cluster", "move-leader", "RB", "7")...)
	wantExit(t, err, 2, "topic RB has 3 partitions")
	plan := jsonOf[rebalanceJSON](t, with(tgt, "cluster", "rebalance")...)
	if plan.Executed || plan.Partitions != 3 || plan.Preferred != 2 || plan.Movable != 1 || len(plan.Moves) != 1 || plan.Moves[0].To != 2 {
		t.Fatalf("plan %+v", plan)
	}
	out, _, err := runAdminCLI(t, with(tgt, "cluster", "rebalance")...)
	if err != nil || !strings.Contains(out, "2 of 3 partitions led by their preferred replica (imbalance 33%); 1 moves planned") || !strings.Contains(out, "imbalance after: 0%") {
		t.Fatalf("plan table: %v\n%s", err, out)
	}
	if e.PartitionLeader("RB", 1) != 3 {
		t.Fatal("the plan moved a leader")
	}
	_, _, err = runAdminCLI(t, with(tgt, "cluster", "rebalance", "--execute", "--read-only")...)
	if err == nil || !strings.Contains(err.Error(), "RebalanceLeaders refused: read-only mode") {
		t.Fatalf("--read-only: %v", err)
	}
	done := jsonOf[rebalanceJSON](t, with(tgt, "cluster", "rebalance", "--execute")...)
	if !done.Executed || done.Movable != 1 || e.PartitionLeader("RB", 1) != 2 {
		t.Fatalf("rebalance --execute %+v (leader %d)", done, e.PartitionLeader("RB", 1))
	}
}
