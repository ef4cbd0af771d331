package views

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
)

// TestGroupCountsAgreeAcrossTabs: the overview's "N groups (K need
// attention)" and the groups tab's "N groups" are one count, from the one
// tracker. Before issue 22 they came apart (the repro: "6 groups" on one
// tab, "7 groups (3 need attention)" on the other): the overview counted
// the list, but its attention counted alerts, so a durable group missing
// from the list (still tracked, with its alert) was attention without
// being a group anywhere, and a group with two alerts (stopped, and
// rebalancing repeatedly) counted twice. Now the missing group is a row
// of both (STATE "unlisted"), temporary groups are said, and attention is
// distinct groups.
func TestGroupCountsAgreeAcrossTabs(t *testing.T) {
	ctx := plainCtx()
	tr := NewHealthTracker(health.DefaultConfig())
	ov := NewOverview(ctx, tr)
	gv := NewGroups(ctx, nil, tr)
	ov.SetSize(120, 37)
	gv.SetSize(120, 37)
	feedAll(ov, t0)
	temp := gi("tail-tmp", 1, 5, 5)
	temp.Durable = false
	churn := func(i int) admin.GroupInfo {
		g := gi("crashloop", 0, 10, 500) // no member, unread: STOPPED
		g.Generation = int32(i)          // a new generation every poll: rebalancing repeatedly
		return g
	}
	lists := [][]admin.GroupInfo{
		{gi("billing", 1, 100, 100), gi("moving", 1, 50, 50), temp, churn(1)},
		{gi("billing", 1, 100, 100), gi("moving", 1, 50, 50), temp, churn(2)},
		{gi("billing", 1, 100, 100), gi("moving", 1, 50, 50), temp, churn(3)},
		// moving's coordinator moves: it is missing from the list.
		{gi("billing", 1, 100, 100), temp, churn(4)},
	}
	var os, gs string
	for i, l := range lists {
		ctx.Now = func() time.Time { return pollAt(i) }
		feedAll(ov, pollAt(i))
		msg := common.DataMsg{Res: common.ResGroups, At: pollAt(i), Data: l}
		ov.Update(msg)
		gv.Update(msg)
		os, gs = ansi.Strip(ov.View()), ansi.Strip(gv.View())
	}
	const want = "4 groups (1 temporary, 1 missing from the list)"
	if !strings.Contains(os, want+" (2 need attention)") {
		t.Errorf("overview lacks %q (2 need attention: crashloop once, moving):\n%s", want, os)
	}
	if !strings.Contains(gs, want) {
		t.Errorf("groups tab lacks %q:\n%s", want, gs)
	}
	var movingRow string
	for _, l := range strings.Split(gs, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "moving ") {
			movingRow = l
		}
	}
	if !strings.Contains(movingRow, "unlisted") || !strings.Contains(movingRow, "UNKNOWN") {
		t.Errorf("the group missing from the list is not a marked row of the groups tab: %q\n%s", movingRow, gs)
	}
	for _, k := range []string{"group crashloop stopped", "group crashloop rebalanced", "group moving missing from the group list"} {
		if !strings.Contains(os, k) {
			t.Errorf("overview lacks the alert %q:\n%s", k, os)
		}
	}
}
