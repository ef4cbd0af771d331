package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
)

// A fleet's exposition has each family once, with every cluster's series
// under it, lints clean, and each cluster's series are the ones its own
// exporter serves.
func TestFleetExpositionMergesFamilies(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return t0.Add(11 * time.Second) }
	watched := func(name string) *watch.Watcher {
		w := watch.New(watch.Config{Context: name, Target: name + ".example:9998", Health: health.DefaultConfig()}, allLists)
		smallCluster(w, t0)
		return w
	}
	wp, wd := watched("prod"), watched("dr")
	prod := New("prod", wp.Snapshot, Options{PerPartition: true, Runtime: true, Now: now})
	dr := New("dr", wd.Snapshot, Options{PerPartition: true, Now: now})
	prod.ObservePoll(watch.Groups, 20*time.Millisecond, nil)
	dr.ObservePoll(watch.Groups, 40*time.Millisecond, nil)
	f := NewFleet(prod, dr)
	healthy := func() (bool, string) { return true, "ok" }
	down := func() (bool, string) { return false, "cannot reach ilink-9.example:9998: connection refused" }
	out := scrape(t, f.Handler([]func() (bool, string){healthy, down}, []func() (bool, string){healthy, healthy}))
	problems, err := promlint.New(strings.NewReader(out)).Lint()
	if err != nil {
		t.Fatalf("lint: %v\n%s", err, out)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	for _, name := range []string{"ilinkdash_group_total_lag", "ilinkdash_cluster_reachable", "ilinkdash_poll_duration_seconds"} {
		if n := strings.Count(out, "# TYPE "+name+" "); n != 1 {
			t.Errorf("%s: %d TYPE lines, want 1", name, n)
		}
	}
	// Each cluster's series are its own exporter's, as it serves them alone.
	for _, e := range []*Exporter{prod, dr} {
		alone := string(e.snapshotText())
		for _, line := range strings.Split(alone, "\n") {
			if line != "" && !strings.HasPrefix(line, "#") && !strings.Contains(out, "\n"+line+"\n") {
				t.Fatalf("%s's series %q is not in the fleet's exposition", e.ctxName, line)
			}
		}
	}
	if !strings.Contains(out, `ilinkdash_poll_duration_seconds_count{context="dr",list="groups"} 1`) ||
		!strings.Contains(out, `ilinkdash_poll_duration_seconds_count{context="prod",list="groups"} 1`) {
		t.Fatalf("the poll histograms of both clusters:\n%s", out)
	}
	if strings.Count(out, "# TYPE go_goroutines ") != 1 {
		t.Fatalf("the runtime's series once")
	}
	rec := httptest.NewRecorder()
	f.Handler([]func() (bool, string){healthy, down}, nil).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), "cannot reach ilink-9.example:9998") {
		t.Fatalf("/healthz with one cluster down: %d %q", rec.Code, rec.Body)
	}
}
