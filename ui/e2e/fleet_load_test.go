package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/internal/viewtest"
)

// A fleet cluster asks its engine what a single-cluster dashboard on its
// Overview (the tab it opens on) asks (issue 27 point 3): three clusters
// of a Fleet and a single dashboard, side by side on their own engines at
// the same intervals, and a fourth Fleet cluster that hangs (a black hole:
// accepts, never answers). Over the same window each fleet engine sees, of
// every request code either engine sees, as many requests as the single
// dashboard's engine, give or take one poll: no list more often (the Fleet
// row's stat series is the Overview's own poll), none more (a cluster left
// on its Cluster tab reads its replication and leaders only while its tabs
// show), none missing, and none held back by the hung cluster, whose reads
// wait out their timeout the whole window.
func TestFleetClusterAsksWhatASingleDashboardAsks(t *testing.T) {
	// Not parallel: it compares two dashboards' request counts within one poll.
	const every = 200 * time.Millisecond
	var es []*engine.Engine
	for range 4 {
		es = append(es, startEngine(t, engineOpts{nodes: 1}))
	}
	hole := ilinktest.NewBlackHole(t)
	single := startDash(t, es[3], dashOpts{refresh: every, noProbe: true})
	names := []string{"alpha", "bravo", "charlie"}
	cs := []fleetCluster{{name: "hung", addr: hole.Addr}}
	for i, n := range names {
		cs = append(cs, fleetCluster{name: n, e: es[i]})
	}
	fl := startFleet(t, every, cs)
	t.Cleanup(hole.Drop) // before the fleet's adapters close: its hung reads end

	single.waitFor("the single dashboard's Overview with its nodes", func(s string) bool {
		return strings.Contains(s, "Overview") && strings.Contains(s, "node 1")
	})
	fl.waitFor("the three reachable rows OK, the hung one connecting", func(s string) bool {
		for _, n := range names {
			if !strings.Contains(viewtest.RowOf(s, n), " OK ") {
				return false
			}
		}
		return viewtest.RowOf(s, "hung") != "" && !strings.Contains(viewtest.RowOf(s, "hung"), " OK ")
	})
	// alpha is left on its Cluster tab (which reads the replication status
	// and the leadership table): behind the Fleet tab it asks no more.
	fl.press("j")
	fl.waitFor("alpha selected, second after the hung one", func(s string) bool { return strings.HasPrefix(viewtest.RowOf(s, "alpha"), "▸ alpha") })
	fl.press("enter")
	fl.waitText("0 Fleet › alpha", "Overview")
	fl.press("4")
	fl.waitText("0 Fleet › alpha", "Partitions (3)", "Leadership (")
	fl.press("0")
	fl.waitText("Fleet · 4 clusters")

	all := func() []map[wire.Code]int64 {
		out := make([]map[wire.Code]int64, len(es))
		for i, e := range es {
			out[i] = e.RequestCounts()
		}
		return out
	}
	const polls = 15
	before, start := all(), time.Now()
	ilinktest.WaitFor(t, deadline, fmt.Sprintf("%d topic list reads of the single dashboard", polls), func() bool {
		return es[3].RequestCounts()[wire.CodeTopicList]-before[3][wire.CodeTopicList] >= polls
	})
	after, took := all(), time.Since(start)
	if n := hole.Accepts(); n == 0 {
		t.Fatal("the hung cluster never dialled the black hole: nothing hung")
	}

	delta := func(i int, c wire.Code) int64 { return after[i][c] - before[i][c] }
	var codes []wire.Code
	for i := range es {
		for c := range after[i] {
			if delta(i, c) > 0 && !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
	}
	slices.Sort(codes)
	for _, c := range codes {
		want := delta(3, c)
		line := fmt.Sprintf("%-24v single %3d", c, want)
		for i, n := range names {
			got := delta(i, c)
			line += fmt.Sprintf("  %s %3d", n, got)
			if got < want-1 || got > want+1 {
				t.Errorf("%s: %d requests %v in %v, the single dashboard's engine %d (±1 poll)", n, got, c, took.Round(time.Millisecond), want)
			}
		}
		t.Log(line)
	}
}
