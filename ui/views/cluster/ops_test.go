package cluster_test

import (
	"context"
	"slices"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/cluster"
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

// movePreview is the cluster view with the preview of moving AUDIT.LOG
// [0]'s leader from node 1 to node 3 open.
func movePreview(t *testing.T) *viewtest.Rig {
	t.Helper()
	r := viewtest.Polled(t, false, clusterView)
	r.Key("v", "v", "v") // Balance: AUDIT.LOG [0] first, led by node 1
	r.Key("L")
	r.MustShow("Move the leader of AUDIT.LOG [0]", "placement 1,2,3", "‹ node 2 ›")
	r.Key("right", "enter")
	r.MustShow("Move leader — preview", "AUDIT.LOG [0]: leader node 1 → node 3")
	return r
}

func TestClusterMoveLeaderPreview(t *testing.T) {
	r := movePreview(t)
	if r.Src.Calls("MovePartitionLeader") != 0 {
		t.Fatal("the preview moved the leader")
	}
	r.Key("enter")
	r.Poll()
	r.MustShow("25/27 on preferred")
}

// A leader that changed between the move's preview and its confirmation
// is said, and nothing moves: the preview's "from" was stale.
func TestClusterMoveLeaderOnAChangedLeader(t *testing.T) {
	r := movePreview(t)
	// Meanwhile someone moves it to node 2.
	if err := r.Src.MovePartitionLeader(context.Background(), "AUDIT.LOG", 0, 2); err != nil {
		t.Fatal(err)
	}
	moves := r.Src.Calls("MovePartitionLeader")
	r.Key("enter")
	r.MustShow("Leader changed since the preview", "Nothing was moved: AUDIT.LOG [0] is led by node 2 now, not node 1 as the", "preview showed.")
	if r.Src.Calls("MovePartitionLeader") != moves {
		t.Fatal("the leader was moved from a leader the preview did not show")
	}
}

func TestOperatorPanesReadOnly(t *testing.T) {
	viewtest.AssertReadOnlyKeys(t, "cluster", clusterView, "b", "L")
}

// A leader that moves off its preferred replica between the preview and
// the confirmation is not rebalanced behind the preview's back: nothing
// moves, the new plan is shown to confirm, and only then does it move.
func TestClusterRebalanceMovesOnlyWhatThePreviewShowed(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Key("v", "v", "v")
	r.Key("b")
	r.MustShow("Rebalance leaders — preview", "ORDER.EVENT [2]  node 1 → node 3", "1 partition move;")
	r.MustNotShow("AUDIT.LOG [0]")
	// Meanwhile someone moves AUDIT.LOG [0] (preferred node 1) to node 2.
	if err := r.Src.MovePartitionLeader(context.Background(), "AUDIT.LOG", 0, 2); err != nil {
		t.Fatal(err)
	}
	r.Key("enter")
	r.MustShow("Nothing was moved: the plan changed since the preview",
		"AUDIT.LOG [0]: node 2 → node 1, not in the preview", "2 partitions move;")
	lt, _ := r.Src.ClusterLeadTable(context.Background())
	for _, row := range lt.Rows {
		if row.Kind == "partition" && row.Topic == "AUDIT.LOG" && row.Partition == 0 && row.Node != 2 {
			t.Fatalf("AUDIT.LOG [0] moved to node %d without a preview showing it", row.Node)
		}
	}
	r.Key("enter")
	r.Poll()
	r.MustShow("27/27 on preferred (imbalance 0%)")
	if f := viewtest.FlashTexts(r); len(f) == 0 || f[len(f)-1] != "rebalance: 2 partitions moved to their preferred leader" {
		t.Fatalf("flash %q", f)
	}
}

func TestRebalanceDifferences(t *testing.T) {
	plan := admin.LeaderRebalance{Moves: []admin.LeaderMove{
		{Topic: "A", Partition: 0, From: 2, To: 1},
		{Topic: "A", Partition: 1, From: 3, To: 2},
		{Topic: "B", Partition: 0, From: 2, To: 1, Skipped: "preferred node 1 is not running"},
	}}
	got := admin.LeaderRebalance{Moves: []admin.LeaderMove{
		{Topic: "A", Partition: 1, From: 3, To: 2, Skipped: "node 2 is not running"},
		{Topic: "B", Partition: 0, From: 2, To: 1},
		{Topic: "C", Partition: 4, From: 3, To: 1},
	}}
	want := []string{
		"A [1]: in the preview (node 3 → node 2), not moved: node 2 is not running",
		"B [0]: node 2 → node 1, the preview said it stays (preferred node 1 is not running)",
		"C [4]: node 3 → node 1, not in the preview",
		"A [0]: in the preview (node 2 → node 1), not moved: led by its preferred replica already",
	}
	if d := cluster.RebalanceDifferences(plan, got); !slices.Equal(d, want) {
		t.Fatalf("got\n%q\nwant\n%q", d, want)
	}
	if d := cluster.RebalanceDifferences(plan, plan); len(d) != 0 {
		t.Fatalf("the plan against itself: %q", d)
	}
}
