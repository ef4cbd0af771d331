package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/live"
)

// followedHub serves hub as the `spokes: all` context "hub" (Config.Hubs),
// its spokes at start as clusters hub/SPOKE, reached through the hub as
// cli builds them.
func followedHub(t *testing.T, hub *engine.Engine, every time.Duration) func(*Config, config.Context) {
	list := func(ctx context.Context) ([]admin.SpokeProperty, error) {
		return admin.ListSpokes(ctx, hub.AdminAddrs()[0], admin.Options{})
	}
	return func(cfg *Config, cc config.Context) {
		spoke := func(name string) (Cluster, error) {
			c := cc
			c.Name, c.Hub, c.Spoke = "hub/"+name, hub.AdminAddrs()[0], name
			b := func(ro bool) *live.Sources {
				src, err := live.New(live.Config{Hub: c.Hub, Spoke: name, ClientName: "serve-test", ReadOnly: ro})
				if err != nil {
					t.Error(err)
					return nil
				}
				t.Cleanup(func() { _ = src.Close() })
				return src
			}
			return Cluster{Context: c, Viewer: b(true), Operator: b(false)}, nil
		}
		known, err := list(context.Background())
		if err != nil || len(known) != 2 {
			t.Fatalf("the hub's spokes: %v, %v", known, err)
		}
		cfg.Clusters = nil
		for _, sp := range known {
			c, _ := spoke(sp.Name)
			cfg.Clusters = append(cfg.Clusters, c)
		}
		cfg.Hubs = []Hub{{Name: "hub", Every: every, List: list, Spoke: spoke, Known: known}}
	}
}

// serve follows a `spokes: all` hub once for every session (issue 27
// point 6): with two sessions open the hub sees one follower's list
// reads, not one per session; plant-3 linking mid-test appears in both
// open sessions' Fleets on its own shared poller, `ssh HOST hub/plant-3`
// opens it, and when it unlinks its row stays with the hub's word.
func TestServeFollowsAHubsSpokes(t *testing.T) {
	t.Parallel()
	const every = 300 * time.Millisecond
	hub := enginetest.Hub(t, "plant-1", "plant-2")
	r := startRig(t, rigOpts{refresh: every, configure: followedHub(t, hub, every)})
	rowsOK := func(n string, names ...string) func(string) bool {
		return func(s string) bool {
			for _, name := range names {
				if !strings.Contains(viewtest.RowOf(s, name), "OK") {
					return false
				}
			}
			return strings.Contains(s, "Fleet · "+n+" clusters")
		}
	}
	fl := r.open(r.viewer, sessOpts{})
	op := r.open(r.operator, sessOpts{})
	for _, c := range []*client{fl, op} {
		c.waitScreen("the Fleet tab with both spokes' rows", rowsOK("2", "hub/plant-1", "hub/plant-2"))
	}

	// Two sessions, one follower: the hub sees one list read per interval.
	before := hub.RequestCounts()[wire.CodeSpokeList]
	start := time.Now()
	ilinktest.WaitFor(t, deadline, "8 spoke list reads at the hub", func() bool {
		return hub.RequestCounts()[wire.CodeSpokeList]-before >= 8
	})
	took := time.Since(start)
	d := hub.RequestCounts()[wire.CodeSpokeList] - before
	t.Logf("SPOKE LIST: %d requests in %v with two sessions open", d, took.Round(time.Millisecond))
	if limit := int64(took/every) + 2; d > limit {
		t.Errorf("SPOKE LIST: %d requests in %v from two sessions, want at most %d (one follower's, one per %v)", d, took, limit, every)
	}

	// plant-3 links: both open sessions get its row, on its own poller.
	p3 := enginetest.LinkSpoke(t, hub, "plant-3")
	for _, c := range []*client{fl, op} {
		c.waitScreen("plant-3's row in an open session", rowsOK("3", "hub/plant-1", "hub/plant-2", "hub/plant-3"))
	}
	if i := r.srv.clusterNamed("hub/plant-3"); i != 2 {
		t.Fatalf("hub/plant-3 is served as cluster %d, want 2", i)
	}
	if _, err := r.srv.PolledIn(2)(context.Background(), 0); err != nil {
		t.Fatalf("plant-3's shared poller: %v", err)
	}

	// A session opened on the new spoke by name lands on its tabs.
	p3s := r.open(r.viewer, sessOpts{cmd: "hub/plant-3"})
	p3s.waitText("0 Fleet › hub/plant-3", "Overview")
	p3s.send("0")
	p3s.waitScreen("the Fleet tab of a later session", rowsOK("3", "hub/plant-3"))

	// plant-3 unlinks: its row stays and says what the hub says.
	_ = p3.Close()
	for _, c := range []*client{fl, op, p3s} {
		c.waitScreen("plant-3's row saying the hub lists it not running", func(s string) bool {
			return strings.Contains(viewtest.RowOf(s, "hub/plant-3"), "hub: not running since ") && strings.Contains(s, "Fleet · 3 clusters")
		})
	}
	quitAll(t, []*client{fl, op, p3s})
}
