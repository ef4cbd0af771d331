package cluster_test

import (
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
)

func TestClusterKeysOutsideTheirPaneSayWhy(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Key("L") // nodes pane
	if f := viewtest.FlashTexts(r); len(f) != 1 || !strings.Contains(f[0], "open the partitions or balance pane first (v)") {
		t.Fatalf("L on the nodes pane: flash %q", f)
	}
	r.Key("v", "v") // leadership
	r.Key("D")
	if f := viewtest.FlashTexts(r); len(f) != 1 || f[0] != "D removes a node: open the nodes pane first (v)" {
		t.Fatalf("D on the leadership pane: flash %q", f)
	}
	r.Key("v") // balance: L applies
	r.Key("L")
	if f := viewtest.FlashTexts(r); len(f) != 0 {
		t.Fatalf("L on the balance pane refused: %q", f)
	}
}

func TestCosmeticsElectionHasNoEpoch(t *testing.T) {
	r := viewtest.Polled(t, false, clusterView)
	r.Send(common.DataMsg{Res: common.ResLeaders, At: r.Now, Sent: r.Now, Data: admin.ClusterLeadTable{Rows: []admin.LeadRow{
		{Kind: "node", Node: 1, Epoch: 3, Detail: "leader"},
		{Kind: "election", Node: 2, Epoch: 0, Detail: "election at 09:12:04"},
	}}})
	r.Key("v", "v")
	for _, l := range strings.Split(r.Screen(), "\n") {
		if strings.Contains(l, "election at 09:12:04") {
			if f := strings.Fields(l); len(f) < 3 || strings.Contains(l, " 0 ") {
				t.Fatalf("election row shows an epoch 0: %q", l)
			}
			if !strings.Contains(l, " - ") {
				t.Fatalf("election row without '-' for its epoch: %q", l)
			}
			return
		}
	}
	t.Fatalf("no election row:\n%s", r.Screen())
}
