package views_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/fakes"
)

func TestClusterShowsDefinitionReplicationLeadership(t *testing.T) {
	r := newRig(t, false, clusterView)
	if got := r.v.Wants(); len(got) != 3 {
		t.Fatalf("cluster wants %v", got)
	}
	r.poll()
	r.mustShow("Cluster DEMO", "definition version 7", "replicas 3", "minSync 2", "PLACEMENT on", "QM3", "127.0.0.1:5003", "follower", "leader node 1")
	r.key("v")
	r.mustShow("Partitions (28)", "FOLLOWERS", "3:4.20k!") // the out-of-sync follower
	r.key("v")
	r.mustShow("election", "forced election at 09:12:04", "SYSTEM.GROUPS")
}

// openEdit sets replicas to 2 and sends it.
func editReplicas(r *rig, val string) {
	r.key("e")
	r.typeText(val)
	r.key("enter") // review
	r.mustShow("Sent with base version 7", "replicas: 3 → "+val)
	r.key("enter") // send
}

func TestClusterNotCommittedRereadResend(t *testing.T) {
	r := newRig(t, false, clusterView)
	r.poll()
	r.src.SetPropErrs = []error{fakes.ErrNotCommitted}
	editReplicas(r, "2")
	r.mustShow("Not committed yet", "controller may", "Re-reading the definition")
	refresh := took[common.RefreshMsg](r)
	if len(refresh) != 1 || refresh[0].Res[0] != common.ResCluster {
		t.Fatalf("no re-read asked: %+v", refresh)
	}
	// A read that went out before the refusal proves nothing.
	cp, _ := r.src.ClusterProperty(context.Background())
	r.send(common.DataMsg{Res: common.ResCluster, Sent: r.now.Add(-time.Second), At: r.now, Data: cp})
	r.mustShow("Re-reading the definition")
	r.poll() // the re-read: still version 7
	r.mustShow("still at version 7", "Resending it with version 7 is safe", "MIMQE_CLUSTER_DEF_MOVED", "r resend same version")
	r.key("r")
	if n := r.src.Calls("SetClusterProperty"); n != 2 {
		t.Fatalf("SetClusterProperty called %d times, want 2", n)
	}
	if f := took[common.FlashMsg](r); len(f) != 1 || !strings.Contains(f[0].Text, "replicas: 3 → 2") {
		t.Fatalf("flash %+v", f)
	}
	r.poll()
	r.mustShow("definition version 8", "replicas 2")
}

func TestClusterNotCommittedThenCommitted(t *testing.T) {
	r := newRig(t, false, clusterView)
	r.poll()
	r.src.SetPropErrs = []error{errors.New("MIMQE_CLUSTER_NOT_COMMITTED (outcome unknown - check VIEW CLUSTER)")}
	editReplicas(r, "2")
	r.mustShow("outcome is unknown", "reply was lost")
	// Meanwhile the first attempt commits.
	two := 2
	if err := r.src.SetClusterProperty(context.Background(), admin.ClusterPropertyChange{BaseVersion: 7, Replicas: &two}); err != nil {
		t.Fatal(err)
	}
	r.poll()
	r.mustShow("moved from version 7 to 8", "do not resend")
	r.key("r")
	if n := r.src.Calls("SetClusterProperty"); n != 2 {
		t.Fatalf("resend was offered after the definition moved (%d calls)", n)
	}
}

func TestClusterDefMovedAndPending(t *testing.T) {
	r := newRig(t, false, clusterView)
	r.poll()
	r.key("e") // form opened at version 7
	one := 1
	_ = r.src.SetClusterProperty(context.Background(), admin.ClusterPropertyChange{BaseVersion: 7, MinSync: &one})
	r.typeText("2")
	r.key("enter", "enter")
	r.mustShow("Definition moved", "MIMQE_CLUSTER_DEF_MOVED", "read at version 7")
	r.poll()
	r.mustShow("at version 8 now")
	r.key("esc")

	r.src.SetPropErrs = []error{errors.New("MIMQE_CLUSTER_NOT_COMMITTED (earlier change still pending - retry)")}
	r.key("e")
	r.key("tab", "tab", "right", "right") // PLACEMENT off
	r.key("enter")
	r.mustShow("PLACEMENT: on → off")
	r.key("enter")
	r.mustShow("NOT submitted", "earlier change is still waiting")
	r.poll()
	r.key("r")
	r.poll()
	r.mustShow("PLACEMENT off", "definition version 9")
}

func TestClusterInvalidAndNodes(t *testing.T) {
	r := newRig(t, false, clusterView)
	r.poll()
	r.key("e")
	r.typeText("5")
	r.key("enter")
	r.mustShow("exceeds the 3 data nodes")
	r.key("enter")
	r.mustShow("Value refused", "REPLICAS 5 exceeds 3 data")
	r.key("esc")
	// Add an existing node: the engine names it.
	r.key("a")
	r.mustShow("PLACEMENT is on", "per-partition count")
	r.typeText("QM2")
	r.key("tab")
	r.typeText("127.0.0.1")
	r.key("tab")
	r.typeText("5002")
	r.key("enter", "enter")
	r.mustShow("Node already in the definition", "node 2's")
	r.key("esc")
	// Add a new one, then remove it.
	r.key("a")
	r.typeText("QM4")
	r.key("tab")
	r.typeText("10.0.0.4")
	r.key("tab")
	r.typeText("5004")
	r.key("enter", "enter")
	r.poll()
	r.mustShow("QM4", "10.0.0.4:5004", "definition version 8")
	r.key("G", "D")
	r.mustShow("Remove node 4", "Type 4 to confirm")
	r.typeText("4")
	r.key("enter")
	r.poll()
	r.mustNotShow("QM4")
}

func TestClusterReadOnly(t *testing.T) {
	r := newRig(t, true, clusterView)
	r.poll()
	r.key("e", "a", "D")
	if r.v.Capturing() {
		t.Fatal("a definition dialog opened read-only")
	}
	assertNoMutatingHelp(t, r)
}
