package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
)

// fleetOf builds a Fleet over n fake demo clusters on a fixed clock
// (cluster down is unreachable: its summary fails with a timeout), and
// gives each cluster one poll of every resource, delivered as the program
// would (a clusterMsg of the poller's own reply).
func fleetOf(t testing.TB, n, down int, now *time.Time) *Fleet {
	t.Helper()
	var models []*Model
	var srcs []*fakes.Source
	for i := 0; i < n; i++ {
		m, src := fakeCluster(fmt.Sprintf("cluster-%02d", i), i == down, now)
		models, srcs = append(models, m), append(srcs, src)
	}
	*now = srcs[0].Now()
	fctx := NewContext(config.DefaultContext(), false, func(string) string { return "" })
	fctx.Now = func() time.Time { return *now }
	f := NewFleet(fctx, models)
	f.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	for i := range f.clusters {
		pollOnce(f, i)
	}
	return f
}

// fakeCluster is a Fleet cluster's dashboard over a fake demo cluster on
// the clock now; down: its summary fails with a timeout (unreachable).
func fakeCluster(name string, down bool, now *time.Time) (*Model, *fakes.Source) {
	src := fakes.NewDemo()
	if down {
		src.Fail("ClusterSummary", context.DeadlineExceeded)
	}
	cfg := config.DefaultContext()
	cfg.Name = name
	ctx := NewContext(cfg, false, func(string) string { return "" })
	ctx.Now = func() time.Time { return *now }
	return New(ctx, src, WithoutLinkProbe()), src
}

// pollOnce gives cluster i one poll of every resource, delivered as the
// program would (a clusterMsg of the poller's own reply).
func pollOnce(f *Fleet, i int) {
	for id := common.ResID(0); id < common.NumRes; id++ {
		if cmd := f.clusters[i].m.poll.fetch(id); cmd != nil {
			f.Update(clusterMsg{i: i, msg: cmd()})
		}
	}
}

// The rows come from each cluster's own poller and tracker: the
// unreachable one says so, the others show their nodes and groups;
// 0 on a cluster's tabs returns to the Fleet tab, other keys are the
// cluster's.
func TestFleetRowsFromEachCluster(t *testing.T) {
	var now time.Time
	f := fleetOf(t, 3, 1, &now)
	s := ansi.Strip(f.View().Content)
	if !strings.Contains(s, "▸ cluster-01   cannot reach the cluster since 10:00:00: no answer in time") {
		t.Fatalf("the failing cluster's row (first):\n%s", s)
	}
	for _, name := range []string{"cluster-00", "cluster-02"} {
		if !hasRow(s, name, "CRITICAL", "3/3", "node 1 (QM1)", "1/0", "1 STOPPED") {
			t.Fatalf("%s's row:\n%s", name, s)
		}
	}
	if !strings.Contains(s, "CRIT cluster-02   group reporting-batch stopped") {
		t.Fatalf("cluster-02's alert is not labelled:\n%s", s)
	}
	// Time alone makes the reachable clusters' lists stale: their rows
	// then say so instead of their words.
	now = now.Add(time.Hour)
	f.Update(fleetClockMsg{})
	s = ansi.Strip(f.View().Content)
	if strings.Count(s, "stale: no fresh data since") != 2 || strings.Contains(s, "OK ") {
		t.Fatalf("an hour without polls, the rows:\n%s", s)
	}
	// Enter's OpenMsg comes back through the program: deliver it.
	_, cmd := f.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter gave no command")
	}
	f.Update(cmd())
	if f.Shown() < 0 || !strings.Contains(ansi.Strip(f.View().Content), "0 Fleet › ") {
		t.Fatalf("enter did not open a cluster:\n%s", ansi.Strip(f.View().Content))
	}
	f.Update(tea.KeyPressMsg{Code: '2', Text: "2"})
	if !strings.Contains(ansi.Strip(f.View().Content), "Topics") || f.Shown() < 0 {
		t.Fatal("a tab key on a cluster's tabs left it")
	}
	f.Update(tea.KeyPressMsg{Code: '0', Text: "0"})
	if f.Shown() != -1 {
		t.Fatal("0 did not return to the Fleet tab")
	}
}

// hasRow reports whether the table line of name holds every one of cells.
func hasRow(s, name string, cells ...string) bool {
	l := viewtest.RowOf(s, name)
	if l == "" {
		return false
	}
	for _, c := range cells {
		if !strings.Contains(l, c) {
			return false
		}
	}
	return true
}

// BenchmarkFleetFrame10 is a whole Fleet frame (tab bar, ten rows, the
// alerts of every cluster, hint and status lines) over ten demo clusters,
// one unreachable, with the rows recomputed from the ten trackers as a
// poll reply does: the goal is 2 ms (issue 27).
func BenchmarkFleetFrame10(b *testing.B) {
	var now time.Time
	f := fleetOf(b, 10, 3, &now)
	b.ReportAllocs()
	for b.Loop() {
		f.refreshRows()
		_ = f.View()
	}
}

// A followed hub's list: a new spoke gets a row (started and sized like
// the others) until Max, the rest are counted in the title; a spoke the
// list leaves out keeps its row, which says so and since when; a list
// that cannot be read changes no row and is said in the title.
func TestFleetFollowsSpokeList(t *testing.T) {
	var now time.Time
	a, srcA := fakeCluster("hub/a", false, &now)
	b, _ := fakeCluster("hub/b", true, &now)
	now = srcA.Now()
	var built []string
	follow := SpokeFollow{Hub: "hub", Every: time.Second, Max: 3,
		Known: []admin.SpokeProperty{{Name: "a", Running: true}, {Name: "b", Running: true}},
		List:  func(context.Context) ([]admin.SpokeProperty, error) { return nil, errors.New("not called here") },
		New: func(spoke string) (*Model, error) {
			built = append(built, spoke)
			m, _ := fakeCluster("hub/"+spoke, false, &now)
			return m, nil
		}}
	fctx := NewContext(config.DefaultContext(), false, func(string) string { return "" })
	fctx.Now = func() time.Time { return now }
	f := NewFleet(fctx, []*Model{a, b}, WithSpokes(follow))
	f.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	f.started = true // as after Init (whose polls this test makes by hand)

	// b is gone from the list; c and d linked; e is past the cap.
	now = now.Add(time.Minute)
	list := []admin.SpokeProperty{{Name: "a", Running: true}, {Name: "c", Running: true}, {Name: "d"}, {Name: "e", Running: true}}
	_, cmd := f.Update(spokeListMsg{f: 0, list: list, at: now})
	if cmd == nil || strings.Join(built, ",") != "c" || len(f.clusters) != 3 {
		t.Fatalf("built %v, %d clusters: want c alone (the cap is 3 rows)", built, len(f.clusters))
	}
	if f.clusters[2].m.ctx.Width != 200 || !f.clusters[2].m.inFleet {
		t.Fatal("the new spoke's dashboard is not sized as the fleet or not in it")
	}
	for i := range f.clusters[:2] {
		pollOnce(f, i) // c's first polls are in the command returned
	}
	s := ansi.Strip(f.View().Content)
	if !hasRow(s, "hub/b", "cannot reach", "hub: no longer listed since 10:01:00; no answer in time") {
		t.Fatalf("b's row does not say the hub no longer lists it:\n%s", s)
	}
	if !hasRow(s, "hub/c", "connecting to the cluster…") || !hasRow(s, "hub/a", "CRITICAL") {
		t.Fatalf("c's row (new) or a's:\n%s", s)
	}
	if !strings.Contains(s, "Fleet · 3 clusters") || !strings.Contains(s, "2 more spokes of hub not shown (at most 3)") {
		t.Fatalf("the title does not count d and e, not shown:\n%s", s)
	}

	// A list that fails: the rows stay, the title says why.
	f.Update(spokeListMsg{f: 0, err: errors.New("dial tcp ilink-hub.example:9998: connection refused"), at: now})
	s = ansi.Strip(f.View().Content)
	if len(f.clusters) != 3 || !strings.Contains(s, "spokes of hub: dial tcp ilink-hub.example:9998: connection refused") {
		t.Fatalf("a failed list read:\n%s", s)
	}
}

// A cluster's row rates are its last complete second's: a stat series
// ends with the current second, still counting (PROTOCOL.md, STAT
// SERIES), which a quarter of the way in said a quarter of the rate.
func TestFleetRateIsTheLastCompleteSecond(t *testing.T) {
	pts := make([]admin.StatPoint, 900)
	for i := range pts {
		pts[i] = admin.StatPoint{RecordsIn: 400, RecordsOut: 200}
	}
	pts[899].RecordsIn, pts[899].RecordsOut = 100, 50 // the current second, a quarter counted
	var c fleetCluster
	c.take(admin.StatSeries{Resolution: time.Second, Points: pts})
	if c.in != 400 || c.out != 200 {
		t.Fatalf("rates in %v, out %v; want the last complete second's 400 and 200", c.in, c.out)
	}
	for i := range c.inPts {
		if c.inPts[i] != 400 || c.outPts[i] != 200 {
			t.Fatalf("sparkline points in %v, out %v: the counting second is in them", c.inPts, c.outPts)
		}
	}
}

// A cluster that does not answer holds its summary's first poll for the
// whole timeout; a list that could not reach it meanwhile makes its row
// unreachable (with its alert), not "stale … answers with an error" (a
// timeout is no answer), and so it stays while that list's latest poll
// does not reach it, the summary answering or not.
func TestFleetUnreachableBeforeTheSummaryAnswers(t *testing.T) {
	var now time.Time
	m, src := fakeCluster("hung", false, &now)
	now = src.Now()
	src.Fail("ListTopics", context.DeadlineExceeded)
	fctx := NewContext(config.DefaultContext(), false, func(string) string { return "" })
	fctx.Now = func() time.Time { return now }
	f := NewFleet(fctx, []*Model{m})
	f.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	f.Update(clusterMsg{i: 0, msg: f.clusters[0].m.poll.fetch(common.ResTopics)()})
	unreachable := func(when string) {
		t.Helper()
		s := ansi.Strip(f.View().Content)
		if l := viewtest.RowOf(s, "hung"); !strings.Contains(l, "cannot reach the cluster since 10:00:00: no answer in time") ||
			!strings.Contains(s, "1 unreachable") || !strings.Contains(s, "CRIT hung") || strings.Contains(s, "answers with an error") {
			t.Fatalf("%s:\n%s", when, s)
		}
	}
	unreachable("the summary still out, the topic list not answered in time")
	f.Update(clusterMsg{i: 0, msg: f.clusters[0].m.poll.fetch(common.ResSummary)()})
	unreachable("the summary answered, the topic list not")
}

// A hub whose list could not be read at start (SpokeFollow.Err, no
// Known): the title says why it has no rows, and the first list read
// gives its spokes their rows and ends the note.
func TestFleetFollowsHubDownAtStart(t *testing.T) {
	var now time.Time
	a, srcA := fakeCluster("a", false, &now)
	now = srcA.Now()
	follow := SpokeFollow{Hub: "plants", Every: time.Second, Err: errors.New("MIMQE_CONNECT_FAILED (127.0.0.1:1: connect: connection refused)"),
		List: func(context.Context) ([]admin.SpokeProperty, error) { return nil, errors.New("not called here") },
		New: func(spoke string) (*Model, error) {
			m, _ := fakeCluster("plants/"+spoke, false, &now)
			return m, nil
		}}
	fctx := NewContext(config.DefaultContext(), false, func(string) string { return "" })
	fctx.Now = func() time.Time { return now }
	f := NewFleet(fctx, []*Model{a}, WithSpokes(follow))
	f.Update(tea.WindowSizeMsg{Width: 250, Height: 50})
	f.started = true
	s := ansi.Strip(f.View().Content)
	if !strings.Contains(s, "spokes of plants: MIMQE_CONNECT_FAILED (127.0.0.1:1: connect: connection refused)") || len(f.clusters) != 1 {
		t.Fatalf("the hub not read at start:\n%s", s)
	}
	f.Update(spokeListMsg{f: 0, list: []admin.SpokeProperty{{Name: "p1", Running: true}}, at: now})
	s = ansi.Strip(f.View().Content)
	if len(f.clusters) != 2 || !hasRow(s, "plants/p1", "connecting to the cluster…") || strings.Contains(s, "spokes of plants") {
		t.Fatalf("the hub answering later:\n%s", s)
	}
}

// The Fleet's filter input has the keyboard while it is typed: q and ?
// are text there, not quit and help; enter keeps the filter.
func TestFleetFilterTakesEveryKey(t *testing.T) {
	var now time.Time
	f := fleetOf(t, 3, -1, &now)
	for _, r := range "/q?02" {
		_, cmd := f.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		if cmd != nil {
			if _, quit := cmd().(tea.QuitMsg); quit {
				t.Fatalf("%q in the filter quit", r)
			}
		}
	}
	f.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	s := ansi.Strip(f.View().Content)
	if f.helpOpen || !strings.Contains(s, "/q?02 (esc clears)") || !strings.Contains(s, "no cluster matches the filter") {
		t.Fatalf("the filter q?02:\n%s", s)
	}
	f.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	f.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
	for _, r := range "02" {
		f.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	f.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if s = ansi.Strip(f.View().Content); !hasRow(s, "cluster-02") || hasRow(s, "cluster-00") {
		t.Fatalf("the filter 02:\n%s", s)
	}
}
