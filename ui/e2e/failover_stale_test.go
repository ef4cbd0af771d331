package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// failoverRE is the admin client's switch, said in the status line and
// in the overview's events.
var failoverRE = regexp.MustCompile(`admin: node (\d) (not running|unreachable), using 127\.0\.0\.1:\d+ \(node (\d)\)`)

// TestNodeGoneAdminFallbackAndStaleRows: the node of the dashboard's admin
// connection goes away, and the dashboard follows the cluster, saying so;
// when no node answers, the node rows it keeps are marked stale, never a
// fresh-looking "leader running".
//
//  1. Node 1 (the admin connection's node, the leader) has its queue
//     manager stopped: its admin listener answers every query with
//     MIMQE_QMGR_NOT_RUNNING. Before the fix the dashboard stayed on it,
//     every poll failed, and the overview kept "1 … leader running". Now
//     the admin client falls back to another node's admin address and
//     says "admin: node 1 not running, using 127.0.0.1:X (node N)"; the
//     node list from there shows node 1 stopped.
//  2. That node is killed: "admin: node N unreachable, using … (node M)".
//  3. The last running node is killed: what still answers is node 1's
//     admin listener, with MIMQE_QMGR_NOT_RUNNING; the polls fail, and
//     the overview keeps the last rows, greyed, STATE "stale", under
//     "node list stale since".
func TestNodeGoneAdminFallbackAndStaleRows(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{election: 300 * time.Millisecond})
	d := startDash(t, e, dashOpts{})
	d.waitFor("three running nodes, node 1 leading", func(s string) bool {
		_, r1, s1 := overviewNode(s, "1")
		return r1 == "leader" && s1 == "running" && nodeState(s, "2") == "running" && nodeState(s, "3") == "running"
	})

	// 1. Node 1's queue manager stops.
	d.markNow()
	if err := e.StopNode(1); err != nil {
		t.Fatal(err)
	}
	s := d.waitFor("the fallback said, node 1 stopped, another leader", func(s string) bool {
		m := failoverRE.FindStringSubmatch(s)
		_, r1, s1 := overviewNode(s, "1")
		return m != nil && m[1] == "1" && m[2] == "not running" && m[3] != "1" &&
			s1 == "stopped" && r1 != "leader" && strings.Contains(s, "node 1 (QM1) stopped since")
	})
	to := failoverRE.FindStringSubmatch(s)[3]
	if !strings.Contains(statusBar(s), "admin: node 1 not running") && !strings.Contains(s, "admin: node 1 not running, using") {
		t.Errorf("the fallback is not said:\n%s", s)
	}
	t.Logf("node 1 stopped:\n%s", s)

	// 2. The node now in use dies.
	d.markNow()
	other := "2"
	if to == "2" {
		other = "3"
	}
	if err := e.KillNode(int(to[0] - '0')); err != nil {
		t.Fatal(err)
	}
	// A kill takes the node out of the membership before its sockets
	// close, so a poll in that window hears "not running" from it and may
	// try node 1 (stopped) on the way; what must hold is that leaving the
	// node is said and the admin ends on the last running one.
	d.waitFor("the second fallback said", func(s string) bool {
		left, landed := false, false
		for _, m := range failoverRE.FindAllStringSubmatch(s, -1) {
			left = left || m[1] == to
			landed = landed || m[3] == other
		}
		return left && landed && nodeState(s, to) == "down"
	})

	// 3. The last running node dies: every poll fails.
	d.markNow()
	if err := e.KillNode(int(other[0] - '0')); err != nil {
		t.Fatal(err)
	}
	s = d.waitFor("the last rows marked stale", func(s string) bool {
		return strings.Contains(statusBar(s), "MIMQE_QMGR_NOT_RUNNING") && strings.Contains(s, "▲ node list stale since") &&
			nodeState(s, "1") == "stale" && nodeState(s, to) == "stale" && nodeState(s, other) == "stale"
	})
	// No frame says its data is stale and shows a fresh-looking leader.
	for _, f := range d.fr.since(d.mark) {
		if !strings.Contains(f.plain, "stale: data from") {
			continue
		}
		for _, id := range []string{"1", "2", "3"} {
			if role, state := nodeRow(f.plain, id); state == "running" && role == "leader" {
				t.Fatalf("stale data shown as a fresh \"leader running\" (node %s):\n%s", id, f.plain)
			}
		}
	}
	t.Logf("no node answers:\n%s", s)
}
