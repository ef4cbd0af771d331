package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/schema"
)

// The dashboard's fleet flags: --demo takes only fleet and no context;
// several contexts resolve through config.ResolveMany (a name not in the
// file, or --all-contexts with --context, is an error naming it) and then
// need a terminal like the single dashboard.
func TestDashboardFleetFlags(t *testing.T) {
	e := startTestEngine(t, engine.Config{})
	file := filepath.Join(t.TempDir(), "config.yaml")
	cfg := fmt.Sprintf("contexts:\n  a: {admin: '%s'}\n  b: {admin: '127.0.0.1:1'}\n", e.AdminAddrs()[0])
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--demo", "nope"}, `--demo "nope": the only demo is "fleet"`},
		{[]string{"--demo", "fleet", "--context", "a"}, "drop --context and --all-contexts"},
		{[]string{"--context", "a,nosuch"}, "nosuch"},
		{[]string{"--all-contexts", "--context", "a"}, "--all-contexts and --context"},
		{[]string{"--context", "a,b"}, "the dashboard needs a terminal"},
		{[]string{"--all-contexts"}, "the dashboard needs a terminal"},
	} {
		r := runWithConfig(t, file, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("ilinkdash %s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}

// --demo fleet's clusters are in the states it promises: prod has the demo
// traffic's topics; through the hub, hub/plant-1 has a node down and
// hub/plant-2 the stopped group billing.
func TestFleetDemoClusters(t *testing.T) {
	ctx := context.Background()
	ms, hub, stop, err := startFleetDemo(ctx, config.Resolved{Context: config.DefaultContext()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if len(ms) != 2 || ms[0].r.Context.Name != "prod" || ms[1].r.Context.Name != "dr" || len(hub.known) != 2 {
		t.Fatalf("the demo's contexts: %+v, the hub's spokes %+v", ms, hub.known)
	}
	// dr is the healthy one: every node running, its topics in sync, no group.
	drSvc, err := admin.Connect(ctx, ms[1].live.AdminAddrs[0], admin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer drSvc.Close()
	dr := drSvc.AccessAdminQmgr("")
	ilinktest.WaitFor(t, 30*time.Second, "dr: three nodes running, no partition under-replicated", func() bool {
		nodes, err := dr.Nodes(ctx)
		if err != nil || len(nodes) != 3 {
			return false
		}
		for _, n := range nodes {
			if n.State != admin.NodeRunning {
				return false
			}
		}
		ts, err := dr.Topics(ctx)
		if err != nil || len(ts) == 0 {
			return false
		}
		for _, tp := range ts {
			if tp.UnderReplicated > 0 {
				return false
			}
		}
		return true
	})
	if gs, err := dr.GroupList(ctx); err != nil || len(gs) != 0 {
		t.Fatalf("dr's groups (a healthy standby has none to lag): %v %+v", err, gs)
	}
	ms = append(ms[:1], hub.member(hub.known[0].Name), hub.member(hub.known[1].Name))
	if ms[1].r.Context.Name != "hub/plant-1" || ms[2].r.Context.Name != "hub/plant-2" {
		t.Fatalf("the hub's spokes' contexts: %+v", ms[1:])
	}
	q := func(m fleetMember) *admin.Qmgr {
		if m.live.Hub == "" || len(m.live.AdminAddrs) != 0 {
			t.Fatalf("%s is not watched through its hub: %+v", m.r.Context.Name, m.live)
		}
		svc, err := admin.ConnectToSpoke(ctx, m.live.Hub, m.live.Spoke, admin.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		return svc.AccessAdminQmgr("")
	}
	plant1 := q(ms[1])
	var nodes []admin.NodeInfo
	ilinktest.WaitFor(t, 30*time.Second, "one node of hub/plant-1 down, seen through the hub", func() bool {
		var err error
		nodes, err = plant1.Nodes(ctx)
		down := 0
		for _, n := range nodes {
			if n.State == admin.NodeDown || n.State == admin.NodeStopped {
				down++
			}
		}
		return err == nil && down == 1 && len(nodes) == 3
	})
	gs, err := q(ms[2]).GroupList(ctx)
	if err != nil || len(gs) != 1 || gs[0].Name != "billing" || gs[0].Members != 0 {
		t.Fatalf("hub/plant-2's groups: %v %+v", err, gs)
	}
}

// A spoke name from the hub becomes a context, tab, log line and file
// name: one with terminal escapes, an empty one or a too long one is left
// out of the list (another hub than ours may list them).
func TestPlainSpokesLeavesOutNamesTheTerminalWouldEscape(t *testing.T) {
	in := []admin.SpokeProperty{{Name: "plant-1"}, {Name: "evil\x1b[2J\x1b]0;owned\x07"}, {Name: ""},
		{Name: strings.Repeat("p", maxSpokeName+1)}, {Name: "plant-2\nforged log line"}, {Name: strings.Repeat("q", maxSpokeName)}}
	var got []string
	for _, sp := range plainSpokes(in) {
		got = append(got, sp.Name)
	}
	if want := []string{"plant-1", strings.Repeat("q", maxSpokeName)}; !slices.Equal(got, want) {
		t.Fatalf("plainSpokes kept %q, want %q", got, want)
	}
}

// A `spokes: all` hub that does not answer at start keeps none of a
// fleet's other clusters from view: it is followed with no rows and why
// (the title says it, and its list is read again); alone it is the usage
// error it was. It stopped the whole fleet dashboard before it started.
func TestFleetTargetsHubDownAtStart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	cfg := "contexts:\n  a: {admin: '127.0.0.1:1'}\n  plants: {hub: '127.0.0.1:1', spokes: all}\n"
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	resolve := func(names string) []config.Resolved {
		t.Helper()
		a := newTestApp(t, nil)
		fs := a.root.PersistentFlags()
		if err := fs.Parse([]string{"--config", file, "--context", names}); err != nil {
			t.Fatal(err)
		}
		rs, err := config.ResolveMany(fs, &a.flags, a.getenv, false)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	rs := resolve("a,plants")
	ms, hubs, err := fleetTargets(context.Background(), rs, make([]*schema.Set, len(rs)), nil)
	if err != nil || len(ms) != 1 || ms[0].r.Context.Name != "a" || len(hubs) != 1 || hubs[0].r.Context.Name != "plants" ||
		len(hubs[0].known) != 0 || hubs[0].err == nil || !strings.Contains(hubs[0].err.Error(), "connect") {
		t.Fatalf("a,plants with the hub down: members %d, hubs %+v, %v", len(ms), hubs, err)
	}
	rs = resolve("plants")
	if _, _, err := fleetTargets(context.Background(), rs, make([]*schema.Set, len(rs)), nil); err == nil ||
		!strings.Contains(err.Error(), "context plants: the spokes of hub 127.0.0.1:1") {
		t.Fatalf("plants alone with the hub down: %v", err)
	}
}
