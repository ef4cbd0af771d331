package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/admin/history"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// lagFile is context's lag history file under the test's state directory.
func lagFile(state, context string) string {
	return filepath.Join(state, "ilinkdash", history.FileName(context))
}

// wantLagPoints opens the history file (its writer closed) and wants
// group's lag, and the cluster's in and out, recorded; the last lag point
// is lag.
func wantLagPoints(t *testing.T, path, group string, lag float64) {
	t.Helper()
	st, warn, err := history.Open(path, history.Options{})
	if err != nil || warn != nil {
		t.Fatalf("history %s: %v, %v", path, err, warn)
	}
	defer st.Close()
	pts, err := st.Query(history.GroupLag(group), 15*time.Minute)
	if err != nil || len(pts) == 0 || pts[len(pts)-1].V != lag {
		t.Errorf("%s's lag in %s: %v (%v), want the last point %v", group, path, pts, err, lag)
	}
	for _, se := range []history.Series{history.ClusterIn(), history.ClusterOut()} {
		if pts, err := st.Query(se, 15*time.Minute); err != nil || len(pts) == 0 {
			t.Errorf("%v in %s: %v (%v), want points", se, path, pts, err)
		}
	}
}

// stateEnv is the environment of a command whose state directory is dir.
func stateEnv(dir string) map[string]string { return map[string]string{"XDG_STATE_HOME": dir} }

// idleGroupCluster is an engine with the group idle stopped at lag 15,
// and the test's state directory (XDG_STATE_HOME: stateEnv). It runs the
// test in parallel: all it shares is its own engine and directory.
func idleGroupCluster(t *testing.T) (state string, e *engine.Engine) {
	t.Helper()
	t.Parallel()
	state = t.TempDir()
	e = startTestEngine(t, engine.Config{})
	_, q := adminAt(t, e.AdminAddrs()[0])
	topicWithRecords(t, q, "H.T", "partitions=1", 20)
	groupCommittedAt(t, q, "idle", "H.T", 5)
	return state, e
}

// The exporter records what it watches into the context's lag history,
// the file the dashboard of that context reads: after a run, the file
// holds a stopped group's lag as /metrics said it. While another ilinkdash
// holds the file, the exporter says so and serves /metrics without it.
func TestExporterKeepsLagHistory(t *testing.T) {
	state, e := idleGroupCluster(t)
	cfgPath := watchedConfig(t, t.TempDir(), e, 200*time.Millisecond)
	path := lagFile(state, "m")

	// Held by another: a warning, and the exporter runs.
	held, _, err := history.Open(path, history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex := startCLIEnv(t, stateEnv(state), cfgPath, "exporter", "--listen", "127.0.0.1:0")
	base := "http://" + ex.addr(t, exporterListening)
	ilinktest.WaitFor(t, exporterWait, "the lag history's warning", func() bool {
		return strings.Contains(ex.out.String(), "no lag history this run: history "+path+": in use by another ilinkdash")
	})
	waitGroupLag(t, base, "idle", 15, 1)
	if err := ex.stop(t); err != nil {
		t.Fatalf("exporter without its history: %v\n%s", err, ex.out.String())
	}
	if pts, _ := held.Query(history.GroupLag("idle"), time.Hour); len(pts) != 0 {
		t.Errorf("the exporter wrote into a history it did not hold: %v", pts)
	}
	held.Close()

	// Free: every snapshot recorded, the file closed at the stop.
	ex = startCLIEnv(t, stateEnv(state), cfgPath, "exporter", "--listen", "127.0.0.1:0")
	base = "http://" + ex.addr(t, exporterListening)
	ilinktest.WaitFor(t, exporterWait, "the recording line", func() bool {
		return regexp.MustCompile(`lag history: recording into ` + regexp.QuoteMeta(path)).MatchString(ex.out.String())
	})
	waitGroupLag(t, base, "idle", 15, 3)
	if err := ex.stop(t); err != nil {
		t.Fatalf("exporter: %v\n%s", err, ex.out.String())
	}
	wantLagPoints(t, path, "idle", 15)
}

// waitGroupLag waits until /metrics at base says group's lag is lag and
// the groups were polled polls times more after that was first seen.
func waitGroupLag(t *testing.T, base, group string, lag float64, polls float64) {
	t.Helper()
	var seen string
	groupPolls := func() (float64, float64) {
		_, seen = httpGet(t, base+"/metrics")
		n, _ := seriesValue(seen, `ilinkdash_poll_duration_seconds_count{context="m",list="groups"}`)
		v, ok := seriesValue(seen, `ilinkdash_group_total_lag{context="m",group="`+group+`"}`)
		if !ok {
			v = -1
		}
		return n, v
	}
	var from float64
	if !ilinktest.Poll(exporterWait, func() bool {
		n, v := groupPolls()
		from = n
		return v == lag
	}) {
		t.Fatalf("timed out after %v waiting for %s's lag %v on /metrics; its group and freshness series:\n%s", exporterWait, group, lag,
			grepLines(seen, "ilinkdash_group_", "ilinkdash_data_", "ilinkdash_poll_", "ilinkdash_cluster_", "ilinkdash_topic_"))
	}
	ilinktest.WaitFor(t, exporterWait, "more group polls", func() bool {
		n, _ := groupPolls()
		return n >= from+polls
	})
}

// grepLines is text's lines that start with one of prefixes.
func grepLines(text string, prefixes ...string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				b.WriteString(line)
				break
			}
		}
	}
	return b.String()
}

// serve keeps each served context's lag history from its shared poller:
// without --metrics a watcher of its own reads through it and records;
// after the stop the file holds the stopped group's lag.
func TestServeKeepsLagHistory(t *testing.T) {
	state, e := idleGroupCluster(t)
	dir := t.TempDir()
	_, keys := operatorKey(t, dir)
	path := lagFile(state, "m")
	sv := startCLIEnv(t, stateEnv(state), watchedConfig(t, dir, e, 200*time.Millisecond), "serve", "--listen", "127.0.0.1:0", "--operator-keys", keys,
		"--host-key", filepath.Join(dir, "hostkey"))
	sv.addr(t, regexp.MustCompile(`serve: listening on (127\.0\.0\.1:\d+)`))
	if !strings.Contains(sv.out.String(), "lag history: recording into "+path) {
		t.Fatalf("serve did not say where it records:\n%s", sv.out.String())
	}
	// No session: the group list is read by the history's watcher alone.
	from := e.RequestCounts()[wire.CodeGroupList]
	ilinktest.WaitFor(t, exporterWait, "three group polls", func() bool { return e.RequestCounts()[wire.CodeGroupList] >= from+3 })
	if err := sv.stop(t); err != nil {
		t.Fatalf("serve: %v\n%s", err, sv.out.String())
	}
	wantLagPoints(t, path, "idle", 15)
}

// Without a context a cluster is only its addresses: two clusters given
// by --admin keep two history files (they shared history-default.db, one
// cluster's lag charted as the other's); the same addresses in another
// order are the same cluster. A context keeps its name, the demo "demo".
func TestLagContextOfAClusterWithoutAContext(t *testing.T) {
	of := func(admin string, data ...string) string {
		return lagContext(config.Resolved{Context: config.Context{Admin: admin, Addresses: data}})
	}
	a, b := of("ilink-1.example:5001", "ilink-1.example:5000", "ilink-2.example:5000"), of("ilink-9.example:5001", "ilink-9.example:5000")
	if a == b || !strings.HasPrefix(a, "default-") || len(a) != len("default-")+8 {
		t.Fatalf("two clusters: %q and %q", a, b)
	}
	if again := of("ilink-1.example:5001", "ilink-2.example:5000", "ilink-1.example:5000"); again != a {
		t.Fatalf("the same cluster, its data addresses in another order: %q, want %q", again, a)
	}
	if got := lagContext(config.Resolved{Context: config.Context{Name: "prod", Admin: "ilink-1.example:5001"}}); got != "prod" {
		t.Fatalf("a context: %q", got)
	}
	if got := lagContext(config.Resolved{Embedded: true}); got != "demo" {
		t.Fatalf("the demo: %q", got)
	}
}
