package views_test

import (
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
)

// firstRow is the name on the table's first body line below the header
// that contains head.
func firstRow(t *testing.T, screen, head string) string {
	t.Helper()
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.Contains(l, head) && i+1 < len(lines) {
			return strings.Fields(lines[i+1])[0]
		}
	}
	t.Fatalf("no header %q in\n%s", head, screen)
	return ""
}

func TestShiftSortTopicsByInRate(t *testing.T) {
	r := viewtest.New(t, false, topicsView)
	r.Poll()
	r.Key("I") // IN/s, largest first
	if got := r.V.Status(); !strings.Contains(got, "in/s ↓") {
		t.Fatalf("status %q after I", got)
	}
	if got := firstRow(t, r.Screen(), "IN/s↓"); got != "AUDIT.LOG" { // 800/s
		t.Fatalf("first row %q, want AUDIT.LOG (IN/s 800)", got)
	}
	r.Key("I") // again: reversed
	if got := r.V.Status(); !strings.Contains(got, "in/s ↑") {
		t.Fatalf("status %q after I I", got)
	}
	if got := firstRow(t, r.Screen(), "IN/s↑"); got != "SHIPMENT.STATUS" { // 0/s
		t.Fatalf("first row %q, want SHIPMENT.STATUS (IN/s 0)", got)
	}
	r.Key("N")
	if got := r.V.Status(); !strings.Contains(got, "name ↑") {
		t.Fatalf("status %q after N", got)
	}
	r.Key("s") // s still cycles from the sorted column
	if got := r.V.Status(); !strings.Contains(got, "part ↑") {
		t.Fatalf("status %q after s", got)
	}
}

func TestShiftSortGroupsByLag(t *testing.T) {
	r := viewtest.New(t, false, groupsView)
	r.Poll()
	r.Key("A") // LAG (L moves a leader)
	if got := r.V.Status(); !strings.Contains(got, "lag ↓") {
		t.Fatalf("status %q after A", got)
	}
	down := firstRow(t, r.Screen(), "LAG↓")
	r.Key("A")
	if got := r.V.Status(); !strings.Contains(got, "lag ↑") {
		t.Fatalf("status %q after A A", got)
	}
	if up := firstRow(t, r.Screen(), "LAG↑"); up == down {
		t.Fatalf("reversing kept %q first", up)
	}
}

func refusals(r *viewtest.Rig) []string {
	var out []string
	for _, f := range took[common.FlashMsg](r) {
		out = append(out, f.Text)
	}
	return out
}

func TestQueueKeysOnTheListSayWhy(t *testing.T) {
	r := viewtest.New(t, false, queuesView)
	r.Poll()
	for _, k := range []string{"P", "T", "M"} {
		r.Key(k)
		if f := refusals(r); len(f) != 1 || f[0] != "open a queue first (enter): "+k+" acts on the open queue" {
			t.Fatalf("%s on the queue list: flash %q", k, f)
		}
		if r.V.Capturing() {
			t.Fatalf("%s on the list opened something", k)
		}
	}
}

func TestClusterKeysOutsideTheirPaneSayWhy(t *testing.T) {
	r := viewtest.New(t, false, clusterView)
	r.Poll()
	r.Key("L") // nodes pane
	if f := refusals(r); len(f) != 1 || !strings.Contains(f[0], "open the partitions or balance pane first (v)") {
		t.Fatalf("L on the nodes pane: flash %q", f)
	}
	r.Key("v", "v") // leadership
	r.Key("D")
	if f := refusals(r); len(f) != 1 || f[0] != "D removes a node: open the nodes pane first (v)" {
		t.Fatalf("D on the leadership pane: flash %q", f)
	}
	r.Key("v") // balance: L applies
	r.Key("L")
	if f := refusals(r); len(f) != 0 {
		t.Fatalf("L on the balance pane refused: %q", f)
	}
}

func TestCosmeticsQueueRedeliveries(t *testing.T) {
	r := viewtest.New(t, false, queuesView)
	r.Poll()
	r.Key("/")
	r.TypeText("PAYMENTS.IN")
	r.Key("enter", "enter")
	r.MustShow("after 3 redeliveries")
	r.MustNotShow("redeliverys")
}

func TestCosmeticsOneActiveMember(t *testing.T) {
	r := viewtest.New(t, false, groupsView)
	r.Src.SetMembers("audit-archiver", 1)
	r.Poll()
	r.Key("o", "ctrl+s") // latest, planned
	r.Key("enter")       // apply: refused
	r.MustShow("MIMQE_GROUP_NOT_EMPTY (1 active member)")
	r.MustNotShow("1 active members")
}

func TestCosmeticsLagReasonWrapsAt120(t *testing.T) {
	r := viewtest.New(t, false, groupsView)
	r.Poll()
	r.Key("/")
	r.TypeText("payment-audit")
	r.Key("enter", "enter")
	r.Step(12)
	r.MustShow("LAGGING", "commits advance but the lag grew on 3 partitions")
	for _, l := range strings.Split(r.Screen(), "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "parti") {
			t.Fatalf("reason cut: %q", l)
		}
	}
}

func TestCosmeticsTopicConfigInInputForms(t *testing.T) {
	r := viewtest.New(t, false, topicsView)
	r.Poll()
	r.Key("c") // AUDIT.LOG: 30 days, 1 GiB
	r.MustShow("retention 30d · retention.bytes 1GiB per partition")
	r.MustNotShow("2592000000", "(1 GiB)")
}

func TestCosmeticsElectionHasNoEpoch(t *testing.T) {
	r := viewtest.New(t, false, clusterView)
	r.Poll()
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

// At 80 columns the Queues list keeps DLQ (the sparkline goes first).
func TestQueuesAt80KeepDLQ(t *testing.T) {
	r := viewtest.New(t, false, queuesView)
	r.V.SetSize(80, 20)
	r.Poll()
	r.MustShow("DLQ", "PAYMENTS.DLQ")
	r.MustNotShow("DEPTH TREND")
	r.V.SetSize(70, 20)
	r.MustShow("DLQ")
}
