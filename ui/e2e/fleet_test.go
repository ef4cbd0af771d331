package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ui"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/live"
)

// fleetCluster is one context of startFleet: its name and engine, or the
// spoke reached through hub's admin address, or a cluster at addr alone
// (a black hole's: it never answers).
type fleetCluster struct {
	name  string
	e     *engine.Engine
	hub   *engine.Engine
	spoke string
	addr  string
}

// startFleet runs the dashboard over several clusters the way cli does
// with --context a,b,c: one ui.New per context, each on its own
// adapters, Context and polling interval, under ui.NewFleet (with opts).
func startFleet(t *testing.T, every time.Duration, cs []fleetCluster, opts ...ui.FleetOption) *dash {
	t.Helper()
	var models []*ui.Model
	var srcs []*live.Sources
	for _, c := range cs {
		m, src := fleetModel(t, every, c)
		models, srcs = append(models, m), append(srcs, src)
	}
	fctx := ui.NewContext(config.DefaultContext(), false, func(string) string { return "" })
	fctx.Name = "fleet"
	d := &dash{t: t, fr: &frames{}, src: srcs[0]}
	d.run(ui.NewFleet(fctx, models, opts...), 180, 40, false)
	t.Cleanup(func() {
		d.quit()
		for _, s := range srcs[1:] {
			_ = s.Close()
		}
	})
	return d
}

// fleetModel is one cluster's dashboard of startFleet, on its own
// adapters (closed by the caller, except the first's which dash closes).
func fleetModel(t *testing.T, every time.Duration, c fleetCluster) (*ui.Model, *live.Sources) {
	t.Helper()
	var src *live.Sources
	var err error
	switch {
	case c.hub != nil:
		src, err = live.New(live.Config{Hub: c.hub.AdminAddrs()[0], Spoke: c.spoke, ClientName: "ilinkdash-e2e"})
	case c.addr != "":
		src, err = live.New(live.Config{AdminAddrs: []string{c.addr}, DataAddrs: []string{c.addr}, ClientName: "ilinkdash-e2e"})
	default:
		src = liveSources(t, c.e, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.DefaultContext()
	cfg.Name = c.name
	cfg.Refresh = refreshEvery(every)
	cfg.Health.Window, cfg.Health.StallAfter = 2*every, 2*every
	uctx := ui.NewContext(cfg, false, func(string) string { return "" })
	return ui.New(uctx, src, ui.WithoutLinkProbe()), src
}

// Three engines: one healthy, one with a stopped group, one killed
// mid-test. The killed one's row says "cannot reach … since" within two
// polling intervals while the others keep updating (the stopped group's
// lag grows on its row after the kill); the stopped group's alert is on
// the Fleet tab labelled with its context; Enter opens a cluster (its tab
// bar names it), 0 comes back.
func TestFleetThreeClusters(t *testing.T) {
	// Not parallel: it times a row's change against two poll intervals.
	const every = time.Second
	alpha, bravo, charlie := startEngine(t, engineOpts{}), startEngine(t, engineOpts{}), startEngine(t, engineOpts{})
	q := adminQmgr(t, bravo)
	ctx := context.Background()
	if err := q.CreateTopic(ctx, "ORDERS", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	publishN := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := q.Publish(ctx, "ORDERS", nil, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
	}
	publishN(5)
	enginetest.WaitHighWatermark(t, bravo, "ORDERS", 5) // the seek lands at 1, not below
	if _, err := q.SeekGroup(ctx, "billing", "ORDERS", admin.SeekTarget{Offset: 1}); err != nil {
		t.Fatal(err)
	}
	d := startFleet(t, every, []fleetCluster{{name: "alpha", e: alpha}, {name: "bravo", e: bravo}, {name: "charlie", e: charlie}})

	s := d.waitFor("three rows, bravo's stopped group worst first", func(s string) bool {
		b := viewtest.RowOf(s, "bravo")
		return strings.Contains(s, "Fleet · 3 clusters") && strings.Contains(b, "CRITICAL") && strings.Contains(b, "1 STOPPED") &&
			strings.Contains(b, "4 billing") && strings.Contains(viewtest.RowOf(s, "alpha"), "OK") && strings.Contains(viewtest.RowOf(s, "charlie"), "OK")
	})
	if !strings.HasPrefix(viewtest.RowOf(s, "bravo"), "▸ bravo") {
		t.Fatalf("the worst cluster is not first (selected):\n%s", s)
	}
	// The alert is labelled with its context.
	if !hasLine(s, "CRIT", "bravo", "group billing") {
		t.Fatalf("bravo's alert is not on the Fleet tab labelled bravo:\n%s", s)
	}

	d.markNow()
	killed := time.Now()
	_ = charlie.Close()
	s = d.waitFor("charlie unreachable", func(s string) bool {
		return strings.Contains(viewtest.RowOf(s, "charlie"), "cannot reach")
	})
	took := time.Since(killed)
	if took > 2*every {
		t.Errorf("charlie's row said cannot reach %v after the kill, more than two intervals (%v)", took, 2*every)
	}
	t.Logf("cannot reach on charlie's row %v after the kill (interval %v)", took.Round(time.Millisecond), every)
	if !strings.Contains(viewtest.RowOf(s, "charlie"), " since ") || !hasLine(s, "CRIT", "charlie", "cannot reach") {
		t.Fatalf("charlie's row does not say since when, or its alert is not labelled:\n%s", s)
	}
	if !strings.HasPrefix(strings.SplitN(s, "\n", 5)[3], "▸ charlie") {
		t.Fatalf("the unreachable cluster is not the first row:\n%s", s)
	}
	// The others keep updating: bravo's lag grows on its row.
	d.markNow()
	publishN(5)
	d.waitFor("bravo's lag updated while charlie is down", func(s string) bool {
		return strings.Contains(viewtest.RowOf(s, "bravo"), "9 billing") && strings.Contains(viewtest.RowOf(s, "charlie"), "cannot reach") &&
			strings.Contains(viewtest.RowOf(s, "alpha"), "OK")
	})

	// Enter opens the selected cluster (j moves to bravo, second), its tab
	// bar naming it; 0 comes back, the selection still on bravo.
	d.press("j")
	d.waitFor("bravo selected", func(s string) bool { return strings.HasPrefix(viewtest.RowOf(s, "bravo"), "▸ bravo") })
	d.press("enter")
	d.waitText("0 Fleet › bravo", "Overview")
	d.press("?")
	d.waitText("back to the fleet")
	d.press("esc", "0")
	s = d.waitText("Fleet · 3 clusters", "cannot reach")
	if !strings.HasPrefix(viewtest.RowOf(s, "bravo"), "▸ bravo") {
		t.Fatalf("back on the fleet, the selection moved off bravo:\n%s", s)
	}
}

// hasLine reports whether one line of s holds every one of parts, in order.
func hasLine(s string, parts ...string) bool {
	for _, l := range strings.Split(s, "\n") {
		rest, ok := l, true
		for _, p := range parts {
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

// Two spokes watched through their hub beside a plain cluster: their rows
// show the spokes' own clusters (a stopped group on one), and a spoke that
// stops (its link to the hub down) shows on its row with the hub's reason,
// while the others keep their rows.
func TestFleetSpokesThroughHub(t *testing.T) {
	t.Parallel()
	const every = time.Second
	hub := enginetest.Hub(t, "plant-1", "plant-2")
	p1, p2 := hub.SpokeEngine("plant-1"), hub.SpokeEngine("plant-2")
	ctx := context.Background()
	s2, err := admin.ConnectToSpoke(ctx, hub.AdminAddrs()[0], "plant-2", admin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := s2.AccessAdminQmgr("")
	if err := q.CreateTopic(ctx, "ORDERS", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := q.Publish(ctx, "ORDERS", nil, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	enginetest.WaitHighWatermark(t, p2, "ORDERS", 5) // the seek lands at 1, not below
	if _, err := q.SeekGroup(ctx, "billing", "ORDERS", admin.SeekTarget{Offset: 1}); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	alpha := startEngine(t, engineOpts{})
	d := startFleet(t, every, []fleetCluster{{name: "alpha", e: alpha}, {name: "hub/plant-1", hub: hub, spoke: "plant-1"},
		{name: "hub/plant-2", hub: hub, spoke: "plant-2"}})
	d.waitFor("the spokes' rows through the hub", func(s string) bool {
		return strings.Contains(s, "Fleet · 3 clusters") && strings.Contains(viewtest.RowOf(s, "hub/plant-2"), "1 STOPPED") &&
			strings.Contains(viewtest.RowOf(s, "hub/plant-1"), "OK") && strings.Contains(viewtest.RowOf(s, "alpha"), "OK")
	})
	if p2.Leader() == 0 {
		t.Fatal("plant-2 has no leader")
	}

	d.markNow()
	_ = p1.Close() // the spoke stops: its link to the hub goes down
	// The hub answers for it (the spoke is not linked), so the row goes
	// stale with the hub's reason rather than "cannot reach".
	d.waitFor("plant-1's row says the spoke is not linked", func(s string) bool {
		row := viewtest.RowOf(s, "hub/plant-1")
		return strings.Contains(row, "stale") && strings.Contains(row, "spoke plant-1 is not linked") &&
			strings.Contains(viewtest.RowOf(s, "hub/plant-2"), "1 STOPPED") && strings.Contains(viewtest.RowOf(s, "alpha"), "OK")
	})
}

// A `spokes: all` context follows its hub's spoke list (issue 27 point
// 6): a spoke that links mid-test gets its row, built like the others;
// past the cap the title says how many spokes are not shown; a spoke that
// unlinks keeps its row, which says the hub's word and since when.
func TestFleetFollowsSpokes(t *testing.T) {
	t.Parallel()
	const every = time.Second
	hub := enginetest.Hub(t, "plant-1", "plant-2")
	list := func(ctx context.Context) ([]admin.SpokeProperty, error) {
		return admin.ListSpokes(ctx, hub.AdminAddrs()[0], admin.Options{})
	}
	known, err := list(context.Background())
	if err != nil || len(known) != 2 {
		t.Fatalf("the hub's spokes: %v, %v", known, err)
	}
	var mu sync.Mutex
	var added []*live.Sources
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range added {
			_ = s.Close()
		}
	})
	follow := ui.SpokeFollow{Hub: "hub", Every: every, Max: 3, List: list, Known: known,
		New: func(spoke string) (*ui.Model, error) {
			m, src := fleetModel(t, every, fleetCluster{name: "hub/" + spoke, hub: hub, spoke: spoke})
			mu.Lock()
			added = append(added, src)
			mu.Unlock()
			return m, nil
		}}
	alpha := startEngine(t, engineOpts{})
	// plant-2's row is built from the known list (as cli builds every
	// spoke's), plant-1's given like any cluster's.
	d := startFleet(t, every, []fleetCluster{{name: "alpha", e: alpha}, {name: "hub/plant-1", hub: hub, spoke: "plant-1"}}, ui.WithSpokes(follow))
	d.waitFor("the two spokes' rows", func(s string) bool {
		return strings.Contains(s, "Fleet · 3 clusters") && strings.Contains(viewtest.RowOf(s, "hub/plant-1"), "OK") &&
			strings.Contains(viewtest.RowOf(s, "hub/plant-2"), "OK")
	})

	// plant-3 links to the hub now: its row comes within a list interval.
	p3 := enginetest.LinkSpoke(t, hub, "plant-3")
	d.markNow()
	d.waitFor("plant-3's row, through the hub", func(s string) bool {
		return strings.Contains(s, "Fleet · 4 clusters") && strings.Contains(viewtest.RowOf(s, "hub/plant-3"), "OK") &&
			strings.Contains(viewtest.RowOf(s, "hub/plant-3"), "1/1")
	})

	// plant-4 is past the cap (3 spokes of this hub): no row, the title
	// counts it.
	enginetest.LinkSpoke(t, hub, "plant-4")
	d.markNow()
	s := d.waitText("1 more spoke of hub not shown (at most 3)")
	if viewtest.RowOf(s, "hub/plant-4") != "" || !strings.Contains(s, "Fleet · 4 clusters") {
		t.Fatalf("a spoke past the cap got a row:\n%s", s)
	}

	// plant-3 unlinks: its row stays and says what the hub says, since when.
	d.markNow()
	_ = p3.Close()
	s = d.waitFor("plant-3's row says the hub lists it not running", func(s string) bool {
		row := viewtest.RowOf(s, "hub/plant-3")
		return strings.Contains(row, "hub: not running since ") && strings.Contains(row, "stale") &&
			strings.Contains(viewtest.RowOf(s, "hub/plant-1"), "OK") && strings.Contains(viewtest.RowOf(s, "alpha"), "OK")
	})
	t.Logf("plant-3's row: %s", strings.TrimSpace(viewtest.RowOf(s, "hub/plant-3")))
}
