package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/groups"
	"ilinkdash/ui/views/overview"
	"ilinkdash/ui/views/tab"
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
	ctx, tr, ov, gv := sharedHealth()
	temp := viewtest.GroupOnT("tail-tmp", 1, 5, 5)
	temp.Durable = false
	churn := func(i int) admin.GroupInfo {
		g := viewtest.GroupOnT("crashloop", 0, 10, 500) // no member, unread: STOPPED
		g.Generation = int32(i)                         // a new generation every poll: rebalancing repeatedly
		return g
	}
	lists := [][]admin.GroupInfo{
		{viewtest.GroupOnT("billing", 1, 100, 100), viewtest.GroupOnT("moving", 1, 50, 50), temp, churn(1)},
		{viewtest.GroupOnT("billing", 1, 100, 100), viewtest.GroupOnT("moving", 1, 50, 50), temp, churn(2)},
		{viewtest.GroupOnT("billing", 1, 100, 100), viewtest.GroupOnT("moving", 1, 50, 50), temp, churn(3)},
		// moving's coordinator moves: it is missing from the list.
		{viewtest.GroupOnT("billing", 1, 100, 100), temp, churn(4)},
	}
	var os, gs string
	for i, l := range lists {
		ctx.Now = func() time.Time { return viewtest.PollAt(i) }
		viewtest.FeedLists(tr, ov, viewtest.PollAt(i))
		fanOutGroups(tr, ov, gv, viewtest.PollAt(i), l)
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

// sharedHealth makes the overview and the groups view over one tracker,
// as the root has them, the overview fed fresh node, topic and queue
// lists at the first poll.
func sharedHealth() (*common.Context, *tab.HealthTracker, *overview.View, *groups.View) {
	ctx := viewtest.BenchContext(common.Plain)
	tr := tab.NewHealthTracker(health.DefaultConfig())
	ov := overview.New(ctx, tr)
	gv := groups.New(ctx, nil, tr)
	ov.SetSize(120, 37)
	gv.SetSize(120, 37)
	viewtest.FeedLists(tr, ov, viewtest.PollAt(0))
	return ctx, tr, ov, gv
}

// fanOutGroups is the root's fan-out of a polled group list: the
// tracker takes it in once, then the overview and the groups view, which
// only read it.
func fanOutGroups(tr *tab.HealthTracker, ov, gv common.View, at time.Time, list []admin.GroupInfo) {
	msg := common.DataMsg{Res: common.ResGroups, At: at, Data: list}
	tr.Observe(msg)
	ov.Update(msg)
	gv.Update(msg)
}

// TestOverviewAndGroupsShareOneHealth: the overview's group alerts are the
// groups view's words — one HealthTracker, fed once per poll by the root.
func TestOverviewAndGroupsShareOneHealth(t *testing.T) {
	ctx, tr, ov, gv := sharedHealth()
	groups := func(i int) []admin.GroupInfo {
		return []admin.GroupInfo{
			viewtest.GroupOnT("slow", 1, int64(i*100), 900+int64(i*400)),     // consumes 50/s of 200/s: LAGGING
			viewtest.GroupOnT("keeping-up", 1, int64(i*100), int64(i*100)+3), // OK
			viewtest.GroupOnT("stuck", 1, 10, 7_000+int64(i)),                // no commit moves: STALLED
			viewtest.GroupOnT("left", 0, 10, 2_000),                          // no member, unread: STOPPED
		}
	}
	for i := 0; i < 15; i++ {
		ctx.Now = func() time.Time { return viewtest.PollAt(i) }
		fanOutGroups(tr, ov, gv, viewtest.PollAt(i), groups(i))
		want := map[string]health.Word{}
		for _, r := range tr.Groups() {
			switch r.St.Word {
			case health.Stalled, health.Stopped, health.Lagging:
				want[r.St.Info.Name] = r.St.Word
			}
		}
		got := map[string]health.Word{}
		for _, a := range ov.Alerts() {
			for _, w := range []health.Word{health.Stalled, health.Stopped, health.Lagging} {
				if f := strings.Fields(a.Text); len(f) > 2 && f[0] == "group" && strings.HasPrefix(f[2], strings.ToLower(w.String())) {
					got[f[1]] = w
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("poll %d: overview alerts %v, groups view words %v", i, got, want)
		}
		for n, w := range want {
			if got[n] != w {
				t.Fatalf("poll %d: overview alerts %v, groups view words %v", i, got, want)
			}
		}
		if n := len(want); n > 0 && !strings.Contains(ansi.Strip(ov.View()), "("+strconv.Itoa(n)+" "+common.Agree(n, "needs", "need")+" attention)") {
			t.Fatalf("poll %d: overview count disagrees with %v:\n%s", i, want, ansi.Strip(ov.View()))
		}
	}
	words := map[string]health.Word{}
	for _, r := range tr.Groups() {
		words[r.St.Info.Name] = r.St.Word
	}
	if words["slow"] != health.Lagging || words["keeping-up"] != health.OK || words["stuck"] != health.Stalled || words["left"] != health.Stopped {
		t.Fatalf("words %v", words)
	}
	// Each poll was taken in once: the rate of keeping-up is 100 per 2 s.
	if r := tr.Row("keeping-up"); r.St.Rate != 50 {
		t.Fatalf("keeping-up rate %v, want 50/s (a list observed twice would halve it)", r.St.Rate)
	}
	// The groups table shows the same words and lags.
	s := ansi.Strip(gv.View())
	for _, want := range []string{"1 STOPPED", "1 STALLED", "1 LAGGING", "STOPPED", "1.99k"} {
		if !strings.Contains(s, want) {
			t.Fatalf("groups view lacks %q:\n%s", want, s)
		}
	}
}
