package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/admin/history"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
)

// exporter over several contexts (issue 27): one /metrics with each
// cluster's series under its context label and each family once; a
// cluster that cannot be reached is its own cluster_reachable 0 and
// /healthz's reason, while the other's series keep coming.
func TestExporterOverSeveralContexts(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	up := startTestEngine(t, engine.Config{})
	if err := up.CreateTopic("ORDERS", "partitions=2"); err != nil {
		t.Fatal(err)
	}
	const iv = "200ms"
	refresh := fmt.Sprintf("refresh: {overview: %s, topics: %s, groups: %s, queues: %s, cluster: %s}", iv, iv, iv, iv, iv)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	yaml := fmt.Sprintf("contexts:\n  prod: {admin: '%s', %s}\n  gone: {admin: '127.0.0.1:1', %s}\n", up.AdminAddrs()[0], refresh, refresh)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	ex := startCLIEnv(t, stateEnv(state), cfg, "exporter", "--all-contexts", "--listen", "127.0.0.1:0")
	base := "http://" + regexpAddr(t, ex)
	var text string
	ilinktest.WaitFor(t, exporterWait, "both clusters on /metrics", func() bool {
		_, text = httpGet(t, base+"/metrics")
		p, okp := seriesValue(text, `ilinkdash_cluster_reachable{context="prod"}`)
		g, okg := seriesValue(text, `ilinkdash_cluster_reachable{context="gone"}`)
		return okp && okg && p == 1 && g == 0 && strings.Contains(text, `ilinkdash_topic_partitions_offline{context="prod",topic="ORDERS"} 0`)
	})
	for _, fam := range []string{"ilinkdash_cluster_reachable", "ilinkdash_poll_errors_total", "go_goroutines"} {
		if n := strings.Count(text, "# TYPE "+fam+" "); n != 1 {
			t.Errorf("%s: %d TYPE lines, want 1", fam, n)
		}
	}
	code, body := httpGet(t, base+"/healthz")
	if code != 503 || !strings.Contains(body, "gone: cannot reach 127.0.0.1:1") || strings.Contains(body, "prod:") {
		t.Fatalf("/healthz: %d %q; want 503 naming the unreachable context only", code, body)
	}
	if code, _ := httpGet(t, base+"/livez"); code != 200 {
		t.Fatalf("/livez: %d", code)
	}
	if err := ex.stop(t); err != nil {
		t.Fatalf("stop: %v", err)
	}
	// A lag history per context: prod's holds its topic's rates; gone's
	// was opened, with nothing to record.
	st, _, err := history.Open(lagFile(state, "prod"), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if pts, err := st.Query(history.TopicIn("ORDERS"), time.Hour); err != nil || len(pts) == 0 {
		t.Errorf("prod's history of ORDERS: %v (%v), want points", pts, err)
	}
	if _, err := os.Stat(lagFile(state, "gone")); err != nil {
		t.Errorf("gone's history: %v", err)
	}
}

func regexpAddr(t *testing.T, ex *runningCLI) string {
	t.Helper()
	return ex.addr(t, exporterListening)
}
