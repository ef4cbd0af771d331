package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
)

// TestGetGroupsOneSampleWords: `get groups` without --window reads one
// group list, and says what one list decides: STOPPED (no member, records
// unread), EMPTY (no member, caught up), OK (members, caught up) and, for
// members with records unread, ACTIVE: never UNKNOWN, which would tell the
// operator to wait for a window a one-shot command never has (the repro:
// UNKNOWN for 6 of 8 groups). With --window the same cluster is sampled
// over the window and the trend word appears: the member that stopped
// committing is STALLED.
func TestGetGroupsOneSampleWords(t *testing.T) {
	s := newScenario(t, 1)
	s.topicWithRecords("G.T", "partitions=1", 50)

	// stuck: a member that read 10 records, committed them and stands still.
	s.member("stuck", "G.T", consumer.CommitManual, 10)
	// idle: read 20, then left: STOPPED. drained: read all 50, left: EMPTY.
	idle := s.member("idle", "G.T", consumer.CommitManual, 20)
	_ = idle.Close()
	drained := s.member("drained", "G.T", consumer.CommitManual, 50)
	_ = drained.Close()
	// caught: a member that read everything.
	s.member("caught", "G.T", consumer.CommitManual, 50)
	s.waitMembers("idle", 0)
	s.waitMembers("drained", 0)

	words := func(args ...string) map[string]groupJSON {
		t.Helper()
		out, code := s.cli(append([]string{"get", "groups", "-o", "json"}, args...)...)
		var gs []groupJSON
		if err := json.Unmarshal([]byte(out), &gs); code != 0 || err != nil {
			t.Fatalf("get groups %v: exit %d, %v: %s", args, code, err, out)
		}
		m := map[string]groupJSON{}
		for _, g := range gs {
			m[g.Name] = g
		}
		return m
	}
	one := words()
	for name, want := range map[string]string{"stuck": "ACTIVE", "idle": "STOPPED", "drained": "EMPTY", "caught": "OK"} {
		g, ok := one[name]
		if !ok || g.Health != want {
			t.Errorf("one list: %s is %q (%s), want %s", name, g.Health, g.HealthReason, want)
		}
		if g.Health == "UNKNOWN" {
			t.Errorf("one list: %s UNKNOWN, which a one-shot command can never resolve", name)
		}
	}
	if g := one["stuck"]; !strings.Contains(g.HealthReason, "40 records unread") || !strings.Contains(g.HealthReason, "--window") {
		t.Errorf("one list: stuck's reason %q does not say what is unread and how to judge the trend", g.HealthReason)
	}
	table, code := s.cli("get", "groups")
	if code != 0 || strings.Contains(table, "UNKNOWN") || !strings.Contains(table, "ACTIVE") {
		t.Errorf("get groups (table): exit %d:\n%s", code, table)
	}

	// Over a window (the context's stall-after, 2 s, is the span): stuck
	// has not committed for the stall time.
	win := words("--window", scenWindow.String())
	if g := win["stuck"]; g.Health != "STALLED" {
		t.Errorf("--window %v: stuck is %q (%s), want STALLED", scenWindow, g.Health, g.HealthReason)
	}
	if g := win["caught"]; g.Health != "OK" {
		t.Errorf("--window %v: caught is %q, want OK", scenWindow, g.Health)
	}
	for _, g := range win {
		if g.Health == "ACTIVE" {
			t.Errorf("--window: %s is ACTIVE, a word of one list only", g.Name)
		}
	}
}

// get groups --window samples for the window (or the context's
// stall-after, when longer) and then has --timeout for its calls, as
// check has: a window longer than --timeout (--window 1m with the default
// 30s) failed every time with "context deadline exceeded".
func TestGetGroupsWindowLongerThanTimeout(t *testing.T) {
	t.Parallel()
	e := startTestEngine(t, engine.Config{})
	file := filepath.Join(t.TempDir(), "config.yaml")
	cfg := fmt.Sprintf("contexts:\n  c: {admin: '%s', health: {window: 300ms, stall-after: 300ms}}\ncurrent-context: c\n", e.AdminAddrs()[0])
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWithConfig(t, file, "get", "groups", "--window", "1500ms", "--timeout", "500ms", "-o", "json")
	var gs []groupJSON
	if err := json.Unmarshal([]byte(r.stdout), &gs); r.code != 0 || err != nil {
		t.Fatalf("get groups --window 1500ms --timeout 500ms: exit %d, %v\nstdout %q\nstderr %q", r.code, err, r.stdout, r.stderr)
	}
}
