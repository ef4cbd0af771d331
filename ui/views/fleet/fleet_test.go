package fleet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
)

var at = time.Date(2026, 12, 4, 10, 1, 40, 0, time.UTC)

func testView(w, h int) *View {
	ctx := common.NewContext(config.DefaultContext(), false, nil)
	v := New(ctx)
	v.SetSize(w, h)
	return v
}

func freshRow(i int, name string, alerts ...health.Alert) Row {
	pts := make([]float64, 10)
	for j := range pts {
		pts[j] = float64(j * 10)
	}
	return Row{Index: i, Name: name, Target: name + ".example:5000", State: Fresh, NodesUp: 3, Nodes: 3, Leader: "node 1 (QM1)",
		Words: []WordCount{{health.Stopped, 1}, {health.OK, 4}}, WorstLag: 1234, WorstGroup: "billing",
		In: 120, Out: 118, InPts: pts, OutPts: pts, Alerts: alerts}
}

// A cluster whose lists are stale shows that, never its last words or
// alerts (docs/HEALTH.md: no health without fresh data); an unreachable
// one says since when, and its alert is labelled; the rows go worst first.
func TestFleetRowsStaleAndUnreachable(t *testing.T) {
	v := testView(200, 30)
	stopped := health.Alert{Level: health.LevelCritical, Kind: health.KindGroupStopped, Text: "group billing stopped"}
	stale := freshRow(0, "stale", stopped)
	stale.State, stale.Since, stale.Reason = Stale, at, "no answer for 12s"
	gone := Row{Index: 1, Name: "gone", Target: "ilink-9.example:5000", State: Unreachable, Since: at, Reason: "connect: connection refused"}
	warn := freshRow(2, "warn", health.Alert{Level: health.LevelWarning, Kind: health.KindDLQGrowing, Text: "dead-letter queue X.DLQ growing"})
	ok := freshRow(3, "ok")
	v.SetRows([]Row{ok, stale, warn, gone}, at)
	s := ansi.Strip(v.View())

	if l := viewtest.RowOf(s, "stale"); !strings.Contains(l, "stale: no fresh data since 10:01:40") || strings.Contains(l, "STOPPED") || strings.Contains(l, "billing") {
		t.Errorf("stale row: %q", l)
	}
	if strings.Contains(s, "group billing stopped") {
		t.Errorf("a stale cluster's alert is shown:\n%s", s)
	}
	if l := viewtest.RowOf(s, "gone"); !strings.Contains(l, "cannot reach ilink-9.example:5000 since 10:01:40: connect: connection refused") {
		t.Errorf("unreachable row: %q", l)
	}
	if !strings.Contains(s, "CRIT gone") || !strings.Contains(s, "WARN warn         dead-letter queue X.DLQ growing") {
		t.Errorf("alerts not labelled with their context:\n%s", s)
	}
	var order []string
	for _, r := range v.Rows() {
		order = append(order, r.Name)
	}
	if got := strings.Join(order, ","); got != "gone,warn,stale,ok" {
		t.Errorf("order %s, want gone,warn,stale,ok (unreachable, warning, stale, OK)", got)
	}
	if l := viewtest.RowOf(s, "ok"); !strings.Contains(l, "1 STOPPED · 4 OK") || !strings.Contains(l, "1.23k billing") || !strings.Contains(l, "3/3") {
		t.Errorf("fresh row: %q", l)
	}
}

// BenchmarkFleetRender draws the Fleet tab of ten clusters (one
// unreachable, every other with three alerts) at 200×50: the goal is
// 2 ms a frame (issue 27).
func BenchmarkFleetRender(b *testing.B) {
	v := testView(200, 50)
	rows := make([]Row, 10)
	for i := range rows {
		a := health.Alert{Level: health.LevelWarning, Kind: health.KindGroupLagging, Text: fmt.Sprintf("group g%d lagging", i)}
		rows[i] = freshRow(i, fmt.Sprintf("cluster-%02d", i), a, a, a)
	}
	rows[3] = Row{Index: 3, Name: "cluster-03", Target: "ilink-3.example:5000", State: Unreachable, Since: at, Reason: "no answer in time"}
	v.SetRows(rows, at)
	b.ReportAllocs()
	for b.Loop() {
		_ = v.View()
	}
}

// More clusters than the body holds: the table scrolls to keep the
// selection in view and says which rows show, the alerts keep lines of
// their own, and a click opens the row it is on. The rows ran past the
// bottom: G selected a cluster that was not on the screen, and the
// alerts were never seen.
func TestFleetScrollsToTheSelection(t *testing.T) {
	v := testView(120, 21) // an 80×24 terminal's body, but wider
	rows := make([]Row, 25)
	for i := range rows {
		rows[i] = Row{Index: i, Name: fmt.Sprintf("c%02d", i), Target: "t", State: Unreachable, Since: at, Reason: "connect: connection refused"}
	}
	rows[24] = freshRow(24, "live", health.Alert{Level: health.LevelCritical, Kind: health.KindGroupStopped, Text: "group billing stopped"})
	v.SetRows(rows, at)
	s := ansi.Strip(v.View())
	if n := len(strings.Split(s, "\n")); n > 21 {
		t.Fatalf("%d lines in a body of 21:\n%s", n, s)
	}
	if !strings.Contains(s, "rows 1–13 of 25") || !strings.Contains(s, "Alerts") {
		t.Fatalf("the top of 25 rows:\n%s", s)
	}
	v.Update(keyPress('G'))
	s = ansi.Strip(v.View())
	if l := viewtest.RowOf(s, "live"); !strings.HasPrefix(l, "▸ live") {
		t.Fatalf("G selected the last row, not shown:\n%s", s)
	}
	if !strings.Contains(s, "rows 13–25 of 25") || strings.Contains(s, "c11 ") {
		t.Fatalf("scrolled to the bottom:\n%s", s)
	}
	// Body line 2 is the first row shown.
	v.Click(2)
	if v.Selected() != 12 {
		t.Fatalf("a click on the first row shown selects cluster %d, want 12", v.Selected())
	}
	// Up past the top scrolls back.
	for range 13 {
		v.Update(keyPress('k'))
	}
	s = ansi.Strip(v.View())
	if l := viewtest.RowOf(s, "c00"); !strings.HasPrefix(l, "▸ c00") {
		t.Fatalf("k to the first row:\n%s", s)
	}
	// Rows that fit are all shown, without the note.
	v.SetSize(120, 40)
	if s = ansi.Strip(v.View()); strings.Contains(s, "rows ") || viewtest.RowOf(s, "live") == "" {
		t.Fatalf("25 rows in 40 lines:\n%s", s)
	}
}

func keyPress(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// The cluster opened (enter) keeps the selection when the operator comes
// back (0), even as the rows resort worst first: it went back to the
// worst row unless the selection had been moved with j/k first.
func TestFleetSelectionStaysOnTheClusterOpened(t *testing.T) {
	v := testView(160, 30)
	stopped := health.Alert{Level: health.LevelCritical, Kind: health.KindGroupStopped, Text: "group billing stopped"}
	rows := []Row{freshRow(0, "alpha", stopped), freshRow(1, "bravo")}
	v.SetRows(rows, at)
	if v.Selected() != 0 {
		t.Fatalf("selected %d at start, want the worst (alpha)", v.Selected())
	}
	if cmd := v.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); cmd == nil || cmd().(OpenMsg).Index != 0 {
		t.Fatal("enter did not open alpha")
	}
	// While alpha was open, bravo became the worse.
	v.SetRows([]Row{freshRow(0, "alpha"), freshRow(1, "bravo", stopped)}, at.Add(time.Second))
	if v.Selected() != 0 {
		t.Fatalf("back on the Fleet: selected cluster %d, want alpha (0), the one opened", v.Selected())
	}
}

// / filters the clusters by name or address (any case; !text excludes):
// the title says how many of all show and still counts every cluster's
// trouble, the alerts heading counts those of the clusters hidden, enter
// keeps the filter and esc clears it.
func TestFleetFilter(t *testing.T) {
	v := testView(160, 30)
	stopped := health.Alert{Level: health.LevelCritical, Kind: health.KindGroupStopped, Text: "group billing stopped"}
	down := Row{Index: 2, Name: "staging", Target: "stg.example:5000", State: Unreachable, Since: at, Reason: "connect: connection refused"}
	v.SetRows([]Row{freshRow(0, "prod-eu", stopped), freshRow(1, "prod-us"), down}, at)
	type1 := func(s string) {
		for _, r := range s {
			v.Update(keyPress(r))
		}
	}
	v.Update(keyPress('/'))
	if !v.Capturing() {
		t.Fatal("/ did not open the filter input")
	}
	type1("PROD-")
	v.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	s := ansi.Strip(v.View())
	if v.Capturing() || viewtest.RowOf(s, "staging") != "" || viewtest.RowOf(s, "prod-eu") == "" || viewtest.RowOf(s, "prod-us") == "" {
		t.Fatalf("filter PROD-:\n%s", s)
	}
	if !strings.Contains(s, "Fleet · 2 of 3 clusters · 1 unreachable · 1 with alerts") || !strings.Contains(s, "/PROD- (esc clears)") ||
		!strings.Contains(s, "Alerts · the clusters shown · 1 more alert on clusters the filter hides") {
		t.Fatalf("the title and the alerts under a filter:\n%s", s)
	}
	v.Update(keyPress('/'))
	v.Update(tea.KeyPressMsg{Code: tea.KeyBackspace}) // the filter in force is selected: one key clears it
	type1("!prod")
	v.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if s = ansi.Strip(v.View()); viewtest.RowOf(s, "staging") == "" || viewtest.RowOf(s, "prod-eu") != "" {
		t.Fatalf("filter !prod:\n%s", s)
	}
	v.Update(keyPress('/'))
	type1("nothing")
	if s = ansi.Strip(v.View()); !strings.Contains(s, "no cluster matches the filter (esc clears it)") {
		t.Fatalf("a filter that keeps none:\n%s", s)
	}
	v.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if s = ansi.Strip(v.View()); v.Capturing() || !strings.Contains(s, "Fleet · 3 clusters") || strings.Contains(s, "esc clears") {
		t.Fatalf("esc did not clear the filter:\n%s", s)
	}
}
