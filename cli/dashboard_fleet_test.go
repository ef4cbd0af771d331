package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
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
// traffic's topics, staging a node down, dr the stopped group billing.
func TestFleetDemoClusters(t *testing.T) {
	ctx := context.Background()
	ms, stop, err := startFleetDemo(ctx, config.Resolved{Context: config.DefaultContext()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if len(ms) != 3 || ms[0].r.Context.Name != "prod" || ms[1].r.Context.Name != "staging" || ms[2].r.Context.Name != "dr" {
		t.Fatalf("the demo's contexts: %+v", ms)
	}
	q := func(m fleetMember) *admin.Qmgr {
		_, q := adminAt(t, m.live.AdminAddrs[0])
		return q
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		nodes, err := q(ms[1]).Nodes(ctx)
		down := 0
		for _, n := range nodes {
			if n.State == admin.NodeDown || n.State == admin.NodeStopped {
				down++
			}
		}
		if err == nil && down == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("staging: %d nodes down (%v), want 1: %+v", down, err, nodes)
		}
		time.Sleep(100 * time.Millisecond)
	}
	gs, err := q(ms[2]).GroupList(ctx)
	if err != nil || len(gs) != 1 || gs[0].Name != "billing" || gs[0].Members != 0 {
		t.Fatalf("dr's groups: %v %+v", err, gs)
	}
}
