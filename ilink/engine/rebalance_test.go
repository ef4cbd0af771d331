package engine

import (
	"strings"
	"testing"
	"time"
)

func TestRebalanceRestoresPreferredLeadersAfterARestart(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{ElectionDelay: 50 * time.Millisecond}, "RB.A", "partitions=6")
	mustCreateTopic(t, e, "RB.B", "partitions=3,replicas=2")
	// Partition i is placed on nodes i+1, i+2, ... (mod 3), whatever the
	// replica count: its preferred leader is node i%3+1.
	preferred := func(_ string, p int) int { return p%3 + 1 }
	parts := map[string]int{"RB.A": 6, "RB.B": 3}
	balanced := func() bool {
		for topic, n := range parts {
			for p := 0; p < n; p++ {
				if e.PartitionLeader(topic, p) != preferred(topic, p) {
					return false
				}
			}
		}
		return true
	}
	if !balanced() {
		t.Fatal("a new topic is not led by its preferred replicas")
	}
	if b, _ := e.RebalanceLeaders(true); b.Partitions != 9 || b.Preferred != 9 || len(b.Moves) != 0 {
		t.Fatalf("plan of a balanced cluster: %+v", b)
	}

	if err := e.KillNode(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node 2's partitions to fail over", func() bool {
		for topic, n := range parts {
			for p := 0; p < n; p++ {
				if l := e.PartitionLeader(topic, p); l == 0 || l == 2 {
					return false
				}
			}
		}
		return true
	})
	// While node 2 is down the plan moves nothing and says why.
	b, err := e.RebalanceLeaders(true)
	if err != nil || b.Preferred != 6 || len(b.Moves) != 3 {
		t.Fatalf("plan with node 2 down: %+v %v", b, err)
	}
	for _, m := range b.Moves {
		if m.To != 2 || m.Skipped != "preferred node 2 is not running" {
			t.Fatalf("move with node 2 down: %+v", m)
		}
	}
	if err := e.RestartNode(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node 2 back in every in-sync set", func() bool {
		b, _ := e.RebalanceLeaders(true)
		for _, m := range b.Moves {
			if m.Skipped != "" {
				return false
			}
		}
		return len(b.Moves) == 3
	})
	if balanced() {
		t.Fatal("node 2 leads again without a rebalance: nothing to test")
	}
	plan, _ := e.RebalanceLeaders(true)
	if balanced() || plan.Preferred != 6 {
		t.Fatalf("the plan moved leaders: %+v", plan)
	}
	done, err := e.RebalanceLeaders(false)
	if err != nil || len(done.Moves) != 3 {
		t.Fatalf("rebalance: %+v %v", done, err)
	}
	for _, m := range done.Moves {
		if m.Skipped != "" || m.To != 2 {
			t.Fatalf("move %+v", m)
		}
	}
	if !balanced() {
		t.Fatal("the rebalance did not restore the preferred leaders")
	}
	if after, _ := e.RebalanceLeaders(true); after.Preferred != 9 || len(after.Moves) != 0 {
		t.Fatalf("plan after the rebalance: %+v", after)
	}
	table, eb := e.leadTable("")
	if eb != nil || strings.Count(table, "preferred leader rebalance") != 3 {
		t.Fatalf("lead table lacks the 3 forced elections:\n%s", table)
	}
}
