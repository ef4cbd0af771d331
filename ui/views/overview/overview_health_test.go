package overview

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tab"
)

// TestOverviewPlurals: one of a thing is singular, in the counts line, the
// attention count and the status bar text.
func TestOverviewPlurals(t *testing.T) {
	v, _ := withStalledGroup(common.Plain)
	s := ansi.Strip(v.View())
	if !strings.Contains(s, "1 node · 1 topic · 1 queue · 1 group (1 needs attention)") {
		t.Fatalf("counts line:\n%s", s)
	}
	if got := v.Status(); got != "1 alert" {
		t.Fatalf("status %q, want \"1 alert\"", got)
	}
	v.Update(common.DataMsg{Res: common.ResGroups, At: viewtest.PollAt(12), Data: []admin.GroupInfo{viewtest.GroupOnT("stuck", 1, 10, 510), viewtest.GroupOnT("new", 1, 10, 900)}})
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
	ctx := viewtest.BenchContext(common.Plain)
	ctx.Target = "127.0.0.1:1"
	now := t0
	ctx.Now = func() time.Time { return now }
	v := New(ctx, nil)
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
	viewtest.FeedLists(nil, v, now)
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
	viewtest.FeedLists(nil, v, now)
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
	ctx := viewtest.BenchContext(common.Plain)
	v := New(ctx, nil)
	v.SetSize(120, 30)
	viewtest.FeedLists(nil, v, t0)
	v.Update(common.DataMsg{Res: common.ResGroups, At: t0, Data: []admin.GroupInfo{viewtest.GroupOnT("new", 1, 10, 500)}})
	if s := ansi.Strip(v.View()); !strings.Contains(s, "✓ nothing to report so far · 1 group not judged yet (the health window is 10s)") {
		t.Fatalf("judging:\n%s", s)
	}
}

// The alert under the cursor is highlighted across its whole line, mark
// and text, as a table's cursor row is: the mark's own style used to end
// the highlight after its two cells, so the alert enter opens did not
// show (and the cursor, which stays on its alert as the list grows, could
// sit on the last row unseen while the operator read the first).
func TestOverviewAlertCursorRowHighlightsTheText(t *testing.T) {
	v, ctx := withStalledGroup(common.FullColor)
	a, ok := v.SelectedAlert()
	if !ok {
		t.Fatalf("no alert under the cursor: %+v", v.Alerts())
	}
	sel := ctx.Styles.Selected.Render("x")
	pre := sel[:strings.IndexByte(sel, 'x')]
	if want := pre + "✖ " + a.Text; !strings.Contains(v.View(), want) {
		t.Fatalf("the cursor row does not highlight %q:\n%q", a.Text, v.View())
	}
}

// withStalledGroup is the Overview (120x37, in mode) over one node, topic
// and queue and one group whose commit never moves (STALLED, an alert).
func withStalledGroup(mode common.ColorMode) (*View, *common.Context) {
	ctx := viewtest.BenchContext(mode)
	v := New(ctx, nil)
	v.SetSize(120, 37)
	viewtest.FeedLists(nil, v, t0)
	for i := 0; i < 12; i++ {
		v.Update(common.DataMsg{Res: common.ResGroups, At: viewtest.PollAt(i), Data: []admin.GroupInfo{viewtest.GroupOnT("stuck", 1, 10, 510)}})
	}
	return v, ctx
}

// Until the operator moves it, the alert cursor is on the first alert,
// the most severe, which enter opens: it stayed on whichever came first
// (a deep queue), when a node went down above it. Moved, it follows its
// alert as the list changes.
func TestOverviewAlertCursorOnTheMostSevereUntilMoved(t *testing.T) {
	ctx := viewtest.BenchContext(common.Plain)
	v := New(ctx, nil)
	v.SetSize(120, 37)
	viewtest.FeedLists(nil, v, t0)
	v.Update(common.DataMsg{Res: common.ResQueues, At: t0, Data: []admin.QueueInfo{{Name: "DEEP.Q", Depth: 50000}}})
	if a, ok := v.SelectedAlert(); !ok || !strings.Contains(a.Text, "DEEP.Q") {
		t.Fatalf("first alert %+v %v", a, ok)
	}
	down := tab.ClusterSummary{QueueManager: "QM1", Leader: 1, Nodes: []admin.NodeInfo{
		{ID: 1, QueueManager: "QM1", Role: admin.RoleLeader, State: admin.NodeRunning},
		{ID: 2, QueueManager: "QM1", Role: admin.RoleFollower, State: admin.NodeDown}}}
	v.Update(common.DataMsg{Res: common.ResSummary, At: t0.Add(time.Second), Data: down})
	a, ok := v.SelectedAlert()
	if len(v.Alerts()) < 2 || !ok || a.Text != v.Alerts()[0].Text || strings.Contains(a.Text, "DEEP.Q") {
		t.Fatalf("the cursor on %q, want the first, most severe, of %+v", a.Text, v.Alerts())
	}
	v.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	moved, _ := v.SelectedAlert()
	v.Update(common.DataMsg{Res: common.ResSummary, At: t0.Add(2 * time.Second), Data: down})
	if again, _ := v.SelectedAlert(); again.Text != moved.Text {
		t.Fatalf("a moved cursor left its alert %q for %q", moved.Text, again.Text)
	}
}
