package e2e

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
)

// nodeFields returns the fields of node id's row in a node table (the
// overview's: NODE QMGR ADDRESS ROLE STATE …; the cluster tab's: NODE
// QMGR ADDRESS ILCC ROLE STATE …), nil when the screen has none.
func nodeFields(screen, id string) []string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(l)
		if len(f) >= 5 && f[0] == id && strings.HasPrefix(f[1], "QM") {
			return f
		}
	}
	return nil
}

// overviewNode is (address, role, state) of node id in the overview's
// table; clusterNode the same in the cluster tab's.
func overviewNode(screen, id string) (addr, role, state string) {
	if f := nodeFields(screen, id); f != nil {
		return f[2], f[3], f[4]
	}
	return "", "", ""
}

func clusterNode(screen, id string) (addr, role, state string) {
	if f := nodeFields(screen, id); len(f) >= 6 {
		return f[2], f[4], f[5]
	}
	return "", "", ""
}

// TestNodeAddRemoveAgreesAcrossTabs: a node added to and removed from the
// cluster definition (from outside the dashboard) shows the same way in
// the overview and the cluster tab, with the alert that goes with it. The
// in-process engine's definition is bookkeeping (adding a node starts
// nothing), which is exactly the disagreement of the repro: before the
// fix the cluster tab showed 4 nodes and the overview "3 nodes" with no
// alert; after removing node 1, the leader, the cluster tab gave it a
// blank address and the overview still "leader running".
func TestNodeAddRemoveAgreesAcrossTabs(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	q := adminQmgr(t, e)
	svc := q.Service()
	d := startDash(t, e, dashOpts{})
	s := d.waitFor("three running nodes, node 1 leading", func(s string) bool {
		_, r1, s1 := overviewNode(s, "1")
		_, _, s2 := overviewNode(s, "2")
		_, _, s3 := overviewNode(s, "3")
		return r1 == "leader" && s1 == "running" && s2 == "running" && s3 == "running" && strings.Contains(s, "3 nodes ·")
	})
	addr1, _, _ := overviewNode(s, "1")

	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	// 1. QM4 added: defined, not running.
	if _, err := svc.AddNode(ctx, "", admin.ClusterNode{QueueManager: "QM4", Host: "ilink-4.example", Port: 5004, IlccPort: 7000}); err != nil {
		t.Fatalf("add node: %v", err)
	}
	d.markNow()
	d.waitFor("the overview: 4 nodes, node 4 absent, its alert", func(s string) bool {
		addr, role, state := overviewNode(s, "4")
		return strings.Contains(s, "4 nodes (1 absent)") && addr == "ilink-4.example:5004" && role == "-" && state == "absent" &&
			strings.Contains(s, "node 4 (QM4) is in the cluster definition but not in the node list")
	})
	d.keys("4")
	d.waitFor("the cluster tab: the same 4 nodes", func(s string) bool {
		addr, _, state := clusterNode(s, "4")
		a1, _, s1 := clusterNode(s, "1")
		return strings.Contains(s, "Nodes (4)") && addr == "ilink-4.example:5004" && state == "absent" && a1 == addr1 && s1 == "running"
	})

	// 2. Node 1, the leader, removed from the definition: it still runs
	// and leads (nothing stops it), so every tab says "removed", with the
	// same address, and the overview warns.
	if _, err := svc.RemoveNode(ctx, "", 1); err != nil {
		t.Fatalf("remove node 1: %v", err)
	}
	d.markNow()
	d.waitFor("the cluster tab: node 1 removed, its address kept", func(s string) bool {
		addr, role, state := clusterNode(s, "1")
		return strings.Contains(s, "Nodes (4)") && addr == addr1 && role == "leader" && state == "removed"
	})
	d.press("1")
	s = d.waitFor("the overview: node 1 removed, the alert", func(s string) bool {
		addr, role, state := overviewNode(s, "1")
		return addr == addr1 && role == "leader" && state == "removed" && strings.Contains(s, "4 nodes (1 absent, 1 removed)") &&
			strings.Contains(s, "node 1 (QM1) removed from the cluster definition") && strings.Contains(s, "still the leader")
	})
	if _, _, state := overviewNode(s, "1"); state == "running" {
		t.Fatalf("the removed node reads running:\n%s", s)
	}

	// 3. Node 4 removed again: its row and its alert go, in both tabs.
	if _, err := svc.RemoveNode(ctx, "", 4); err != nil {
		t.Fatalf("remove node 4: %v", err)
	}
	d.markNow()
	d.waitFor("the overview: node 4 gone with its alert", func(s string) bool {
		return nodeFields(s, "4") == nil && strings.Contains(s, "3 nodes (1 removed)") && !strings.Contains(s, "node 4 (QM4)") &&
			strings.Contains(s, "node 1 (QM1) removed from the cluster definition")
	})
	d.press("4")
	d.waitFor("the cluster tab: node 4 gone", func(s string) bool {
		_, _, s1 := clusterNode(s, "1")
		return strings.Contains(s, "Nodes (3)") && nodeFields(s, "4") == nil && s1 == "removed"
	})
}
