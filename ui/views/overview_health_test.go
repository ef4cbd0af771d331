package views

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
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

// gi is a group on one partition of T, committed at c of end.
func gi(name string, members int, c, end int64) admin.GroupInfo {
	st := admin.GroupStable
	if members == 0 {
		st = admin.GroupEmpty
	}
	return admin.GroupInfo{Name: name, State: st, Members: members, Topics: []string{"T"}, Durable: true,
		Partitions: []admin.PartitionOffsets{{Topic: "T", Partition: 0, Committed: c, LogStart: 0, End: end}}}
}

func pollAt(i int) time.Time { return t0.Add(time.Duration(i) * 2 * time.Second) }

// feedAll gives the overview fresh node, topic and queue lists at `at`.
func feedAll(v common.View, at time.Time) {
	v.Update(common.DataMsg{Res: common.ResSummary, At: at, Data: ClusterSummary{QueueManager: "QM1", Leader: 1,
		Nodes: []admin.NodeInfo{{ID: 1, QueueManager: "QM1", Role: admin.RoleLeader, State: admin.NodeRunning}}}})
	v.Update(common.DataMsg{Res: common.ResTopics, At: at, Data: []admin.TopicInfo{{Name: "T", Partitions: 1}}})
	v.Update(common.DataMsg{Res: common.ResQueues, At: at, Data: []admin.QueueInfo{{Name: "Q1"}}})
}

// TestOverviewAndGroupsShareOneHealth: the overview's group alerts are the
// groups view's words — one HealthTracker, fed once per poll whichever
// view sees the list first.
func TestOverviewAndGroupsShareOneHealth(t *testing.T) {
	ctx := plainCtx()
	tr := NewHealthTracker(health.DefaultConfig())
	ov := NewOverview(ctx, tr)
	gv := NewGroups(ctx, nil, tr)
	ov.SetSize(120, 37)
	gv.SetSize(120, 37)
	feedAll(ov, t0)
	groups := func(i int) []admin.GroupInfo {
		return []admin.GroupInfo{
			gi("slow", 1, int64(i*100), 900+int64(i*400)),     // consumes 50/s of 200/s: LAGGING
			gi("keeping-up", 1, int64(i*100), int64(i*100)+3), // OK
			gi("stuck", 1, 10, 7_000+int64(i)),                // no commit moves: STALLED
			gi("left", 0, 10, 2_000),                          // no member, unread: STOPPED
		}
	}
	for i := 0; i < 15; i++ {
		ctx.Now = func() time.Time { return pollAt(i) }
		msg := common.DataMsg{Res: common.ResGroups, At: pollAt(i), Data: groups(i)}
		// The root's fan-out order: the overview first, then the groups view.
		ov.Update(msg)
		gv.Update(msg)
		want := map[string]health.Word{}
		for _, r := range tr.groups() {
			switch r.st.Word {
			case health.Stalled, health.Stopped, health.Lagging:
				want[r.st.Info.Name] = r.st.Word
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
	for _, r := range tr.groups() {
		words[r.st.Info.Name] = r.st.Word
	}
	if words["slow"] != health.Lagging || words["keeping-up"] != health.OK || words["stuck"] != health.Stalled || words["left"] != health.Stopped {
		t.Fatalf("words %v", words)
	}
	// Each poll was taken in once: the rate of keeping-up is 100 per 2 s.
	if r := tr.row("keeping-up"); r.st.Rate != 50 {
		t.Fatalf("keeping-up rate %v, want 50/s (a list observed twice would halve it)", r.st.Rate)
	}
	// The groups table shows the same words and lags.
	s := ansi.Strip(gv.View())
	for _, want := range []string{"1 STOPPED", "1 STALLED", "1 LAGGING", "STOPPED", "1.99k"} {
		if !strings.Contains(s, want) {
			t.Fatalf("groups view lacks %q:\n%s", want, s)
		}
	}
}

// TestOverviewPlurals: one of a thing is singular, in the counts line, the
// attention count and the status bar text.
func TestOverviewPlurals(t *testing.T) {
	ctx := plainCtx()
	v := NewOverview(ctx, nil)
	v.SetSize(120, 37)
	feedAll(v, t0)
	for i := 0; i < 12; i++ { // a group whose commit never moves: STALLED
		v.Update(common.DataMsg{Res: common.ResGroups, At: pollAt(i), Data: []admin.GroupInfo{gi("stuck", 1, 10, 510)}})
	}
	s := ansi.Strip(v.View())
	if !strings.Contains(s, "1 node · 1 topic · 1 queue · 1 group (1 needs attention)") {
		t.Fatalf("counts line:\n%s", s)
	}
	if got := v.Status(); got != "1 alert" {
		t.Fatalf("status %q, want \"1 alert\"", got)
	}
	v.Update(common.DataMsg{Res: common.ResGroups, At: pollAt(12), Data: []admin.GroupInfo{gi("stuck", 1, 10, 510), gi("new", 1, 10, 900)}})
	if s := ansi.Strip(v.View()); !strings.Contains(s, "1 queue · 2 groups (1 needs attention)") {
		t.Fatalf("counts line:\n%s", s)
	}
}

// TestOverviewConnectionTruth (issue 10, connection truth): the overview
// says where it connects until the first answer; a refused connection is
// "cannot reach <addr>: <reason>" with its age, in the alert list; data
// older than three polling intervals is marked stale; and "nothing to
// report" needs fresh data from every list.
func TestOverviewConnectionTruth(t *testing.T) {
	ctx := plainCtx()
	ctx.Target = "127.0.0.1:1"
	now := t0
	ctx.Now = func() time.Time { return now }
	v := NewOverview(ctx, nil)
	v.SetSize(120, 30)
	screen := func() string { return ansi.Strip(v.View()) }

	s := screen()
	if !strings.Contains(s, "connecting to 127.0.0.1:1…") || strings.Contains(s, "nothing to report") {
		t.Fatalf("before the first answer:\n%s", s)
	}
	refused := &ilink.Error{Name: ilink.NameConnectFailed, Tail: "127.0.0.1:1: connect: connection refused", Kind: ilink.KindSession}
	for _, r := range feeds {
		v.Update(common.PollErrMsg{Res: r, At: now, Err: refused})
	}
	now = now.Add(12 * time.Second)
	s = screen()
	if !strings.Contains(s, "✖ cannot reach 127.0.0.1:1: connect: connection refused (for 12s, no data yet)") ||
		!strings.Contains(s, "not connected: cannot reach 127.0.0.1:1") || strings.Contains(s, "nothing to report") {
		t.Fatalf("refused:\n%s", s)
	}
	if v.Status() != "1 alert" {
		t.Fatalf("status %q", v.Status())
	}

	// Fresh data: nothing to report (no group).
	feedAll(v, now)
	v.Update(common.DataMsg{Res: common.ResGroups, At: now, Data: []admin.GroupInfo{}})
	if s := screen(); !strings.Contains(s, "✓ nothing to report") || strings.Contains(s, "cannot reach") || strings.Contains(s, "stale") {
		t.Fatalf("fresh:\n%s", s)
	}
	// The engine hangs: no answer, no error yet; 7 s later (3 intervals of
	// 2 s are 6 s) the data is stale and "nothing to report" goes.
	at := now
	now = now.Add(7 * time.Second)
	s = screen()
	if !strings.Contains(s, "stale: data from "+common.Clock(at)+", 7s ago") || strings.Contains(s, "nothing to report") {
		t.Fatalf("stale:\n%s", s)
	}
	// One list failing while the others answer: the line says so, with
	// the time of the oldest data.
	feedAll(v, now)
	v.Update(common.PollErrMsg{Res: common.ResGroups, At: now, Err: refused})
	now = now.Add(3 * time.Second)
	if s := screen(); !strings.Contains(s, "✖ cannot reach 127.0.0.1:1: connect: connection refused (for 3s, data from "+common.Clock(at)+")") {
		t.Fatalf("groups failing:\n%s", s)
	}
	// An engine error is not "cannot reach".
	v.Update(common.PollErrMsg{Res: common.ResGroups, At: now, Err: &ilink.Error{Name: "MIMQE_QMGR_NOT_RUNNING", Tail: "QM1"}})
	if s := screen(); !strings.Contains(s, "the cluster answers with an error: MIMQE_QMGR_NOT_RUNNING (QM1)") {
		t.Fatalf("engine error:\n%s", s)
	}
}

// TestOverviewJudgingIsNotFine: while a group with unread records is not
// judged yet, the overview does not claim "nothing to report" outright.
func TestOverviewJudgingIsNotFine(t *testing.T) {
	ctx := plainCtx()
	v := NewOverview(ctx, nil)
	v.SetSize(120, 30)
	feedAll(v, t0)
	v.Update(common.DataMsg{Res: common.ResGroups, At: t0, Data: []admin.GroupInfo{gi("new", 1, 10, 500)}})
	if s := ansi.Strip(v.View()); !strings.Contains(s, "✓ nothing to report so far · 1 group not judged yet (the health window is 10s)") {
		t.Fatalf("judging:\n%s", s)
	}
}
