package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
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
		src := fakes.NewDemo()
		if i == down {
			src.Fail("ClusterSummary", context.DeadlineExceeded)
		}
		cfg := config.DefaultContext()
		cfg.Name = fmt.Sprintf("cluster-%02d", i)
		ctx := NewContext(cfg, false, func(string) string { return "" })
		ctx.Now = func() time.Time { return *now }
		models = append(models, New(ctx, src, WithoutLinkProbe()))
		srcs = append(srcs, src)
	}
	*now = srcs[0].Now()
	fctx := NewContext(config.DefaultContext(), false, func(string) string { return "" })
	fctx.Now = func() time.Time { return *now }
	f := NewFleet(fctx, models)
	f.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	for i, c := range f.clusters {
		for id := common.ResID(0); id < common.NumRes; id++ {
			if cmd := c.m.poll.fetch(id); cmd != nil {
				f.Update(clusterMsg{i: i, msg: cmd()})
			}
		}
	}
	return f
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
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "  "+name+" ") || strings.HasPrefix(l, "▸ "+name+" ") {
			for _, c := range cells {
				if !strings.Contains(l, c) {
					return false
				}
			}
			return true
		}
	}
	return false
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
