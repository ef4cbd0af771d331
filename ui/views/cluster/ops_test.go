package cluster_test

import (
	"context"
	"testing"

	"ilinkdash/ui/internal/viewtest"
)

// The operator panes on the fake: every mutating flow shows its preview
// first, and nothing changes until the preview is confirmed.

func TestClusterBalanceAndRebalancePreview(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.MustShow("leaders 26/27 on preferred (imbalance 3%)")
	r.Key("v", "v", "v")
	r.MustShow("Balance (1 off)", "PREFERRED", "not preferred", "node 1 leads 11 (preferred for 10)")
	r.Key("b")
	r.MustShow("Rebalance leaders — preview", "26 of 27 partitions", "ORDER.EVENT [2]  node 1 → node 3", "imbalance after: 0%")
	if n := r.Src.Calls("RebalanceLeaders"); n != 1 {
		t.Fatalf("%d plan calls, want 1", n)
	}
	lt, _ := r.Src.ClusterLeadTable(context.Background())
	for _, row := range lt.Rows {
		if row.Topic == "ORDER.EVENT" && row.Partition == 2 && row.Node != 1 {
			t.Fatalf("the preview moved the leader to %d", row.Node)
		}
	}
	r.Key("enter")
	r.Poll()
	r.MustShow("27/27 on preferred (imbalance 0%)", "Balance (0 off)")
	r.MustNotShow("not preferred")
	// Nothing to do: the preview says so and enter only closes it.
	r.Key("b")
	r.MustShow("Every partition is on its preferred leader")
	r.Key("enter")
	if r.V.Capturing() {
		t.Fatal("the empty preview stayed open")
	}
}

func TestClusterMoveLeaderPreview(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Key("v", "v", "v") // Balance: AUDIT.LOG [0] first, led by node 1
	r.Key("L")
	r.MustShow("Move the leader of AUDIT.LOG [0]", "placement 1,2,3", "‹ node 2 ›")
	r.Key("right", "enter")
	r.MustShow("Move leader — preview", "AUDIT.LOG [0]: leader node 1 → node 3")
	if r.Src.Calls("MovePartitionLeader") != 0 {
		t.Fatal("the preview moved the leader")
	}
	r.Key("enter")
	r.Poll()
	r.MustShow("25/27 on preferred")
}

func TestOperatorPanesReadOnly(t *testing.T) {
	viewtest.AssertReadOnlyKeys(t, "cluster", clusterView, "b", "L")
}
