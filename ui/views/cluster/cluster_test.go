package cluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
)

func TestClusterShowsDefinitionReplicationLeadership(t *testing.T) {
	r := viewtest.New(t, false, clusterView)
	if got := r.V.Wants(); len(got) != 3 {
		t.Fatalf("cluster wants %v", got)
	}
	r.Poll()
	r.MustShow("Cluster DEMO", "definition version 7", "replicas 3", "minSync 2", "PLACEMENT on", "QM3", "127.0.0.1:5003", "follower", "leader node 1")
	r.Key("v")
	r.MustShow("Partitions (28)", "FOLLOWERS", "3:4.20k!") // the out-of-sync follower
	r.Key("v")
	r.MustShow("election", "forced election at 09:12:04", "SYSTEM.GROUPS")
}

// openEdit sets replicas to 2 and sends it.
func editReplicas(r *viewtest.Rig, val string) {
	r.Key("e", "enter") // the dialog opens navigating: enter edits replicas
	r.TypeText(val)
	r.Key("enter") // review
	r.MustShow("Sent with base version 7", "replicas: 3 → "+val)
	r.Key("enter") // send
}

func TestClusterNotCommittedRereadResend(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Src.SetPropErrs = []error{fakes.ErrNotCommitted}
	editReplicas(r, "2")
	r.MustShow("Not committed yet", "controller may", "Re-reading the definition")
	refresh := viewtest.Took[common.RefreshMsg](r)
	if len(refresh) != 1 || refresh[0].Res[0] != common.ResCluster {
		t.Fatalf("no re-read asked: %+v", refresh)
	}
	// A read that went out before the refusal proves nothing.
	cp, _ := r.Src.ClusterProperty(context.Background())
	r.Send(common.DataMsg{Res: common.ResCluster, Sent: r.Now.Add(-time.Second), At: r.Now, Data: cp})
	r.MustShow("Re-reading the definition")
	r.Poll() // the re-read: still version 7
	r.MustShow("still at version 7", "Resending it with version 7 is safe", "MIMQE_CLUSTER_DEF_MOVED", "r resend same version")
	r.Key("r")
	if n := r.Src.Calls("SetClusterProperty"); n != 2 {
		t.Fatalf("SetClusterProperty called %d times, want 2", n)
	}
	if f := viewtest.Took[common.FlashMsg](r); len(f) != 1 || !strings.Contains(f[0].Text, "replicas: 3 → 2") {
		t.Fatalf("flash %+v", f)
	}
	r.Poll()
	r.MustShow("definition version 8", "replicas 2")
}

func TestClusterNotCommittedThenCommitted(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Src.SetPropErrs = []error{errors.New("MIMQE_CLUSTER_NOT_COMMITTED (outcome unknown - check VIEW CLUSTER)")}
	editReplicas(r, "2")
	r.MustShow("outcome is unknown", "reply was lost")
	// Meanwhile the first attempt commits.
	two := 2
	if err := r.Src.SetClusterProperty(context.Background(), admin.ClusterPropertyChange{BaseVersion: 7, Replicas: &two}); err != nil {
		t.Fatal(err)
	}
	r.Poll()
	r.MustShow("moved from version 7 to 8", "do not resend")
	r.Key("r")
	if n := r.Src.Calls("SetClusterProperty"); n != 2 {
		t.Fatalf("resend was offered after the definition moved (%d calls)", n)
	}
}

func TestClusterDefMovedAndPending(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Key("e") // form opened at version 7
	one := 1
	_ = r.Src.SetClusterProperty(context.Background(), admin.ClusterPropertyChange{BaseVersion: 7, MinSync: &one})
	r.Key("enter") // edit replicas
	r.TypeText("2")
	r.Key("enter", "enter")
	r.MustShow("Definition moved", "MIMQE_CLUSTER_DEF_MOVED", "read at version 7")
	r.Poll()
	r.MustShow("at version 8 now")
	r.Key("esc")

	r.Src.SetPropErrs = []error{errors.New("MIMQE_CLUSTER_NOT_COMMITTED (earlier change still pending - retry)")}
	r.Key("e")
	r.Key("tab", "tab", "right", "right") // PLACEMENT off
	r.Key("enter")
	r.MustShow("PLACEMENT: on → off")
	r.Key("enter")
	r.MustShow("NOT submitted", "earlier change is still waiting")
	r.Poll()
	r.Key("r")
	r.Poll()
	r.MustShow("PLACEMENT off", "definition version 9")
}

func TestClusterInvalidAndNodes(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Key("e", "enter")
	r.TypeText("5")
	r.Key("enter")
	r.MustShow("exceeds the 3 data nodes")
	r.Key("enter")
	r.MustShow("Value refused", "REPLICAS 5 exceeds 3 data")
	r.Key("esc")
	// Add an existing node: the engine names it.
	r.Key("a")
	r.MustShow("PLACEMENT is on", "per-partition count")
	r.Key("enter") // edit the first field; tab keeps editing
	r.TypeText("QM2")
	r.Key("tab")
	r.TypeText("127.0.0.1")
	r.Key("tab")
	r.TypeText("5002")
	r.Key("enter", "enter")
	r.MustShow("Node already in the definition", "node 2's")
	r.Key("esc")
	// Add a new one, then remove it.
	r.Key("a", "enter")
	r.TypeText("QM4")
	r.Key("tab")
	r.TypeText("ilink-4.example")
	r.Key("tab")
	r.TypeText("5004")
	r.Key("enter", "enter")
	r.Poll()
	r.MustShow("QM4", "ilink-4.example:5004", "definition version 8")
	r.Key("G", "D")
	r.MustShow("Remove node 4", "Type 4 to confirm")
	r.Key("enter") // edit the name line
	r.TypeText("4")
	r.Key("enter")
	r.Poll()
	r.MustNotShow("QM4")
}

func TestClusterReadOnly(t *testing.T) {
	r := viewtest.Polled(t, true, clusterView)
	r.Key("e", "a", "D")
	if r.V.Capturing() {
		t.Fatal("a definition dialog opened read-only")
	}
	viewtest.AssertNoMutatingHelp(t, r)
}
