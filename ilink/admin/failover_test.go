package admin

import (
	"strconv"
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// TestFailoverToAnotherNode: the node of the admin connection goes away,
// stopped (its admin listener answers MIMQE_QMGR_NOT_RUNNING) or killed
// (nothing answers): with LeaveStoppedNode a read is answered by another
// node's admin address, learned from the handshake's node list, and the
// switch is recorded and said in words.
func TestFailoverToAnotherNode(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	addrs := e.AdminAddrs()
	s := connect(t, e, 1, Options{LeaveStoppedNode: true})
	ctx := testCtx(t)
	q := s.AccessAdminQmgr("")
	if via, node := s.Via(); via != addrs[0] || node != 1 {
		t.Fatalf("via %s (node %d), want %s (node 1)", via, node, addrs[0])
	}
	noErr(t, e.StopNode(1))
	nodes, err := q.Nodes(ctx)
	if err != nil {
		t.Fatalf("node list with node 1 stopped: %v", err)
	}
	if len(nodes) != 3 || nodes[0].State != NodeStopped {
		t.Fatalf("node list: %+v", nodes)
	}
	fs := s.Failovers()
	if len(fs) != 1 {
		t.Fatalf("failovers: %+v", fs)
	}
	f := fs[0]
	if f.FromNode != 1 || f.FromAddr != addrs[0] || !f.Stopped || f.ToNode == 1 || f.ToNode == 0 {
		t.Fatalf("failover: %+v", f)
	}
	want := "admin: node 1 not running, using " + f.ToAddr + " (node "
	if !strings.HasPrefix(f.Text(), want) {
		t.Errorf("failover text %q, want %q…", f.Text(), want)
	}
	if via, node := s.Via(); via != f.ToAddr || node != f.ToNode {
		t.Errorf("via %s (node %d) after the failover %+v", via, node, f)
	}

	// The node now in use is killed: the next read is answered by the
	// third one, and that switch says "unreachable".
	noErr(t, e.KillNode(f.ToNode))
	if _, err := q.Nodes(ctx); err != nil {
		t.Fatalf("node list with node %d killed: %v", f.ToNode, err)
	}
	fs = s.Failovers()
	if len(fs) != 2 || fs[1].FromNode != f.ToNode || fs[1].Stopped || fs[1].ToNode == 1 || fs[1].ToNode == f.ToNode {
		t.Fatalf("failovers after the kill: %+v", fs)
	}
	if want := "admin: node " + strconv.Itoa(f.ToNode) + " unreachable, using " + fs[1].ToAddr; !strings.HasPrefix(fs[1].Text(), want) {
		t.Errorf("failover text %q, want %q…", fs[1].Text(), want)
	}
}

// TestFailoverPastTwoStoppedNodes: with two of three nodes stopped one
// after the other, each the one in use, a read is answered by the third
// node, in the one call: the two stopped nodes do not take turns.
func TestFailoverPastTwoStoppedNodes(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	s := connect(t, e, 1, Options{LeaveStoppedNode: true})
	ctx := testCtx(t)
	q := s.AccessAdminQmgr("")
	noErr(t, e.StopNode(1))
	if _, err := q.Nodes(ctx); err != nil {
		t.Fatalf("node list with node 1 stopped: %v", err)
	}
	_, second := s.Via()
	noErr(t, e.StopNode(second))
	third := 6 - 1 - second
	for i := range 3 {
		if _, err := q.Nodes(ctx); err != nil {
			t.Fatalf("read %d with nodes 1 and %d stopped: %v", i, second, err)
		}
		if _, node := s.Via(); node != third {
			t.Fatalf("read %d answered through node %d, want node %d", i, node, third)
		}
	}
	fs := s.Failovers()
	if last := fs[len(fs)-1]; last.FromNode != second || !last.Stopped || last.ToNode != third {
		t.Errorf("failovers %+v: want the last from node %d (stopped) to node %d", fs, second, third)
	}
	// Only the third node is running: reading never went back to a stopped one.
	for _, f := range fs[1:] {
		if f.ToNode != third {
			t.Errorf("failover to node %d after node %d stopped: %+v", f.ToNode, second, fs)
		}
	}
}
