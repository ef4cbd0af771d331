package views

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
)

func plainCtx() *common.Context {
	ctx := common.NewContext(config.DefaultContext(), false, nil)
	ctx.Mode = common.Plain
	ctx.Rebuild()
	ctx.Width, ctx.Height = 120, 40
	ctx.Now = func() time.Time { return t0 }
	return ctx
}

// sawLag is a lag that climbs 150 per 2 s poll in a saw-tooth (a commit
// every third poll takes 300 back): the consumer progresses but falls
// behind. Its lag at the first LAGGING verdict is above the lag a poll
// later, which is what made the old alert read "+0" or "-300".
func sawLag(i int) int64 {
	return 10_000 + int64(i)*150 + [3]int64{0, 200, -100}[i%3]
}

func groupList(name string, lag int64) []admin.GroupInfo {
	return []admin.GroupInfo{{Name: name, State: admin.GroupStable, Members: 1, TotalLag: lag}}
}

var growingRe = regexp.MustCompile(`lag growing: ([0-9,]+) \(\+([0-9,]+) in ([0-9a-z]+)\)`)

func unthousands(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// TestOverviewLagGrowingShowsGrowthOverTheJudgedWindow: a "lag growing"
// alert shows a positive growth, equal to the lag's growth over the health
// window the verdict was given on, with the thousands separator.
func TestOverviewLagGrowingShowsGrowthOverTheJudgedWindow(t *testing.T) {
	ctx := plainCtx()
	v := NewOverview(ctx, nil)
	v.SetSize(120, 37)
	lagging := 0
	var lags []int64
	for i := 0; i < 40; i++ {
		at := t0.Add(time.Duration(i) * 2 * time.Second)
		lags = append(lags, sawLag(i))
		v.Update(common.DataMsg{Res: common.ResGroups, At: at, Data: groupList("archiver", sawLag(i))})
		for _, a := range v.Alerts() {
			if !strings.Contains(a.Text, "archiver") {
				continue
			}
			if strings.Contains(a.Text, "stalled") {
				t.Fatalf("poll %d: a progressing group reported stalled: %q", i, a.Text)
			}
			m := growingRe.FindStringSubmatch(a.Text)
			if m == nil {
				t.Fatalf("poll %d: alert %q: want \"lag growing: N (+G in D)\"", i, a.Text)
			}
			lagging++
			growth := unthousands(t, m[2])
			// The window EvaluateHealth judged on: samples within 30 s.
			first := i
			for first > 0 && at.Sub(t0.Add(time.Duration(first-1)*2*time.Second)) <= healthWindow {
				first--
			}
			want := lags[i] - lags[first]
			if growth <= 0 || growth != want {
				t.Fatalf("poll %d: %q: growth %d, want %d (lag %d − %d, the window's first sample)", i, a.Text, growth, want, lags[i], lags[first])
			}
			if m[2] != common.Thousands(growth) || m[1] != common.Thousands(lags[i]) {
				t.Fatalf("poll %d: %q: numbers not formatted like the rest (common.Thousands)", i, a.Text)
			}
			if span := common.Dur(at.Sub(t0.Add(time.Duration(first) * 2 * time.Second))); m[3] != span {
				t.Fatalf("poll %d: %q: window %s, want %s", i, a.Text, m[3], span)
			}
		}
	}
	if lagging < 10 {
		t.Fatalf("the group was LAGGING in only %d polls", lagging)
	}
}

// TestOverviewAndGroupsShareOneHealth: the overview's group alerts are the
// groups view's verdicts — one GroupHealth, fed once per poll whichever
// view sees the list first.
func TestOverviewAndGroupsShareOneHealth(t *testing.T) {
	ctx := plainCtx()
	health := NewGroupHealth()
	ov := NewOverview(ctx, health)
	gv := NewGroups(ctx, nil, health)
	ov.SetSize(120, 37)
	gv.SetSize(120, 37)
	ov.Update(common.DataMsg{Res: common.ResSummary, At: t0, Data: ClusterSummary{QueueManager: "QM1"}})
	names := []string{"archiver", "billing", "keeping-up", "stuck"}
	lag := func(name string, i int) int64 {
		switch name {
		case "archiver":
			return sawLag(i)
		case "billing":
			return 500 + int64(i)*40 + [2]int64{0, -60}[i%2]
		case "keeping-up":
			return [3]int64{120, 60, 0}[i%3]
		}
		return 7_000 // no commit moves it: STALLED
	}
	for i := 0; i < 30; i++ {
		at := t0.Add(time.Duration(i) * 2 * time.Second)
		var gs []admin.GroupInfo
		for _, n := range names {
			gs = append(gs, groupList(n, lag(n, i))...)
		}
		msg := common.DataMsg{Res: common.ResGroups, At: at, Data: gs}
		// The root's fan-out order: the overview first, then the groups view.
		ov.Update(msg)
		gv.Update(msg)
		want := map[string]string{}
		for _, n := range names {
			r := health.row(n)
			if r == nil || len(r.hist) != i+1 {
				t.Fatalf("poll %d: %s has %d samples: each poll must be taken in once", i, n, len(r.hist))
			}
			switch r.health {
			case HealthStalled:
				want[n] = "stalled"
			case HealthLagging:
				want[n] = "lag growing"
			}
		}
		got := map[string]string{}
		for _, a := range ov.Alerts() {
			for _, n := range names {
				if strings.HasPrefix(a.Text, "group "+n+" ") {
					w := "lag growing"
					if strings.Contains(a.Text, "stalled") {
						w = "stalled"
					}
					got[n] = w
				}
			}
		}
		if len(got) != len(want) {
			t.Fatalf("poll %d: overview alerts %v, groups view verdicts %v", i, got, want)
		}
		for n, w := range want {
			if got[n] != w {
				t.Fatalf("poll %d: overview alerts %v, groups view verdicts %v", i, got, want)
			}
		}
		// The counts agree too.
		head := ansi.Strip(gv.View())
		if n := len(want); n > 0 && !strings.Contains(ansi.Strip(ov.View()), "("+strconv.Itoa(n)+" "+common.Agree(n, "needs", "need")+" attention)") {
			t.Fatalf("poll %d: overview count disagrees with %v:\n%s\ngroups: %s", i, want, ansi.Strip(ov.View()), strings.SplitN(head, "\n", 2)[0])
		}
	}
	if r := health.row("stuck"); r.health != HealthStalled {
		t.Fatalf("stuck is %v", r.health)
	}
	if r := health.row("archiver"); r.health != HealthLagging {
		t.Fatalf("archiver is %v", r.health)
	}
}

// TestOverviewPlurals: one of a thing is singular, in the counts line, the
// attention count and the status bar text.
func TestOverviewPlurals(t *testing.T) {
	ctx := plainCtx()
	v := NewOverview(ctx, nil)
	v.SetSize(120, 37)
	v.Update(common.DataMsg{Res: common.ResSummary, At: t0, Data: ClusterSummary{
		QueueManager: "QM1", Leader: 1, Nodes: []admin.NodeInfo{{ID: 1, QueueManager: "QM1", Role: admin.RoleLeader, State: admin.NodeRunning}},
	}})
	v.Update(common.DataMsg{Res: common.ResTopics, At: t0, Data: []admin.TopicInfo{{Name: "ORDERS"}}})
	v.Update(common.DataMsg{Res: common.ResQueues, At: t0, Data: []admin.QueueInfo{{Name: "Q1"}}})
	for i := 0; i < 12; i++ { // a group whose lag never moves: STALLED
		v.Update(common.DataMsg{Res: common.ResGroups, At: t0.Add(time.Duration(i) * 2 * time.Second), Data: groupList("stuck", 500)})
	}
	s := ansi.Strip(v.View())
	if !strings.Contains(s, "1 node · 1 topic · 1 queue · 1 group (1 needs attention)") {
		t.Fatalf("counts line:\n%s", s)
	}
	if got := v.Status(); got != "1 alert" {
		t.Fatalf("status %q, want \"1 alert\"", got)
	}
	for i := 12; i < 14; i++ {
		gs := append(groupList("stuck", 500), groupList("stuck-too", 900)...)
		v.Update(common.DataMsg{Res: common.ResGroups, At: t0.Add(time.Duration(i) * 2 * time.Second), Data: gs})
	}
	if s := ansi.Strip(v.View()); !strings.Contains(s, "1 queue · 2 groups (1 needs attention)") {
		t.Fatalf("counts line:\n%s", s)
	}
}
