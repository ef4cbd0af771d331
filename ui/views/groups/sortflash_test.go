package groups_test

import (
	"strings"
	"testing"

	"ilinkdash/ui/internal/viewtest"
)

func TestShiftSortGroupsByLag(t *testing.T) {
	r := viewtest.Polled(t, false, groupsView)
	r.Key("A") // LAG (L moves a leader)
	if got := r.V.Status(); !strings.Contains(got, "lag ↓") {
		t.Fatalf("status %q after A", got)
	}
	down := viewtest.FirstRow(t, r.Screen(), "LAG↓")
	r.Key("A")
	if got := r.V.Status(); !strings.Contains(got, "lag ↑") {
		t.Fatalf("status %q after A A", got)
	}
	if up := viewtest.FirstRow(t, r.Screen(), "LAG↑"); up == down {
		t.Fatalf("reversing kept %q first", up)
	}
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
	r := viewtest.Polled(t, false, groupsView)
	r.OpenRow("payment-audit")
	r.Step(12)
	r.MustShow("LAGGING", "commits advance but the lag grew on 3 partitions")
	for _, l := range strings.Split(r.Screen(), "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "parti") {
			t.Fatalf("reason cut: %q", l)
		}
	}
}
