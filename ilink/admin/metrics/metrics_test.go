package metrics

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
)

// allLists is a Source whose every list is polled (the tests feed the
// watcher with Observe; the functions are never called).
var allLists = watch.Source{
	Nodes:      func(context.Context) ([]admin.NodeInfo, error) { return nil, nil },
	Topics:     func(context.Context) ([]admin.TopicInfo, error) { return nil, nil },
	Groups:     func(context.Context) ([]admin.GroupInfo, error) { return nil, nil },
	Queues:     func(context.Context) ([]admin.QueueInfo, error) { return nil, nil },
	Definition: func(context.Context) (admin.ClusterProperty, error) { return admin.ClusterProperty{}, nil },
}

// hostile is a name with every character the text format escapes, and a
// byte that is not UTF-8.
const hostile = "evil\"group\\with\nnewline\xff"

// smallCluster feeds w a cluster with something in every family: a node
// down, a node defined but absent, an under-replicated topic, a deep
// queue, a stopped group, a group of members caught up, a group with a
// partition of unknown lag, and a hostile name.
func smallCluster(w *watch.Watcher, t0 time.Time) {
	nodes := []admin.NodeInfo{{ID: 1, QueueManager: "QM1", Role: admin.RoleLeader, State: admin.NodeRunning},
		{ID: 2, QueueManager: "QM2", Role: admin.RoleFollower, State: admin.NodeSyncing, LagRecords: 42},
		{ID: 3, QueueManager: "QM3", Role: admin.RoleNone, State: admin.NodeDown}}
	def := admin.ClusterProperty{Name: "c", Nodes: []admin.ClusterNode{{Number: 1, QueueManager: "QM1"}, {Number: 2, QueueManager: "QM2"},
		{Number: 3, QueueManager: "QM3"}, {Number: 4, QueueManager: "QM4"}}}
	topics := []admin.TopicInfo{{Name: "orders", Partitions: 2, UnderReplicated: 1}, {Name: hostile, Partitions: 1, Offline: 1}}
	queues := []admin.QueueInfo{{Name: "Q.IN", Depth: 20000}, {Name: "Q.OUT", Depth: 3}}
	groups := func(end int64) []admin.GroupInfo {
		return []admin.GroupInfo{
			{Name: "stopped", State: admin.GroupEmpty, Durable: true, Topics: []string{"orders"}, Partitions: []admin.PartitionOffsets{
				{Topic: "orders", Partition: 0, Committed: 10, LogStart: 0, End: end}, {Topic: "orders", Partition: 1, Committed: -1, LogStart: 5, End: end}}},
			{Name: "fine", State: admin.GroupStable, Members: 2, Durable: true, Topics: []string{"orders"}, Partitions: []admin.PartitionOffsets{
				{Topic: "orders", Partition: 0, Committed: end, LogStart: 0, End: end}, {Topic: "orders", Partition: 1, Committed: end, LogStart: 0, End: end}}},
			{Name: hostile, State: admin.GroupStable, Members: 1, Durable: true, Topics: []string{hostile}, Partitions: []admin.PartitionOffsets{
				{Topic: hostile, Partition: 0, Committed: -1, LogStart: -1, End: -1}}},
		}
	}
	for i := range 3 {
		at := t0.Add(time.Duration(i) * 5 * time.Second)
		w.Observe(watch.Nodes, nodes, nil, at)
		w.Observe(watch.Definition, def, nil, at)
		w.Observe(watch.Topics, topics, nil, at)
		w.Observe(watch.Queues, queues, nil, at)
		w.Observe(watch.Groups, groups(100+int64(i)), nil, at)
	}
}

func testExporter(t *testing.T, per bool) (*Exporter, *watch.Watcher, *time.Time) {
	t.Helper()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	now := t0.Add(11 * time.Second)
	w := watch.New(watch.Config{Context: "prod", Target: "ilink-1.example:5000", Health: health.DefaultConfig()}, allLists)
	smallCluster(w, t0)
	e := New("prod", w.Snapshot, Options{PerPartition: per, Now: func() time.Time { return now }})
	return e, w, &now
}

// snapshotText is the text sink's output alone (without the registry's).
func (e *Exporter) snapshotText() []byte {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	e.coll.writeTo(newTextSink(bw))
	if err := bw.Flush(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func scrape(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// The text the handler writes is what client_golang's registry gathers
// from the Collector: the same families, series, labels and values,
// hostile names escaped alike.
func TestTextMatchesCollector(t *testing.T) {
	for _, per := range []bool{true, false} {
		e, _, _ := testExporter(t, per)
		text := e.snapshotText()
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(e.Collector())
		if err := testutil.GatherAndCompare(reg, bytes.NewReader(text)); err != nil {
			t.Errorf("per-partition %v: the text differs from the registry's:\n%v\n%s", per, err, text)
		}
		if n := testutil.CollectAndCount(e.Collector()); n != strings.Count(string(text), "\n")-2*strings.Count(string(text), "# TYPE") {
			t.Errorf("per-partition %v: %d series collected, the text has others:\n%s", per, n, text)
		}
	}
}

// promtool-style lint of the whole exposition (client_golang's promlint):
// names, units, help, counters' _total.
func TestExpositionLint(t *testing.T) {
	e, _, _ := testExporter(t, true)
	e.ObservePoll(watch.Groups, 30*time.Millisecond, nil)
	e.ObservePoll(watch.Groups, 30*time.Millisecond, errors.New("boom"))
	e.NotifyCounters("webhook", func() SinkCounts { return SinkCounts{Sent: 2, Dropped: 1} })
	out := scrape(t, e.Handler(Probes{}))
	problems, err := promlint.New(strings.NewReader(out)).Lint()
	if err != nil {
		t.Fatalf("lint: %v\n%s", err, out)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(e.Collector())
	if ps, err := testutil.GatherAndLint(prometheus.Gatherers{reg, e.Registry()}); err != nil || len(ps) > 0 {
		t.Errorf("GatherAndLint: %v %+v", err, ps)
	}
}

func has(t *testing.T, out, series string) {
	t.Helper()
	if !strings.Contains(out, "\n"+series+"\n") {
		t.Errorf("no %s in\n%s", series, out)
	}
}

func hasNot(t *testing.T, out, prefix string) {
	t.Helper()
	if strings.Contains(out, "\n"+prefix) {
		t.Errorf("%s… exported:\n%s", prefix, out)
	}
}

// The figures are the health rules' (the monitor's words, the lag rule,
// the alerts): the same the dashboard and check show.
func TestSeriesAreTheRulesFigures(t *testing.T) {
	e, w, now := testExporter(t, true)
	out := scrape(t, e.Handler(Probes{}))
	s := w.Snapshot()
	for _, g := range s.Groups {
		if g.Info.Name == "stopped" && (g.Word != health.Stopped || g.Lag.Records != 102-10+102-5) {
			t.Fatalf("the monitor: %s %v lag %d", g.Info.Name, g.Word, g.Lag.Records)
		}
	}
	has(t, out, `ilinkdash_cluster_reachable{context="prod"} 1`)
	has(t, out, `ilinkdash_group_total_lag{context="prod",group="stopped"} 189`)
	has(t, out, `ilinkdash_group_lag{context="prod",group="stopped",partition="0",topic="orders"} 92`)
	has(t, out, `ilinkdash_group_lag{context="prod",group="stopped",partition="1",topic="orders"} 97`)
	has(t, out, `ilinkdash_group_health{context="prod",group="stopped",health="STOPPED"} 1`)
	has(t, out, `ilinkdash_group_health{context="prod",group="stopped",health="OK"} 0`)
	has(t, out, `ilinkdash_group_health{context="prod",group="fine",health="OK"} 1`)
	has(t, out, `ilinkdash_group_total_lag{context="prod",group="fine"} 0`)
	has(t, out, `ilinkdash_group_members{context="prod",group="fine"} 2`)
	has(t, out, `ilinkdash_group_commit_rate{context="prod",group="fine"} 0.4`) // 2 partitions × 2 advances of 1 in 10 s
	has(t, out, `ilinkdash_topic_partition_end_offset{context="prod",partition="1",topic="orders"} 102`)
	has(t, out, `ilinkdash_topic_partitions_under_replicated{context="prod",topic="orders"} 1`)
	has(t, out, `ilinkdash_node_up{context="prod",node="2",queue_manager="QM2"} 1`)
	has(t, out, `ilinkdash_node_up{context="prod",node="3",queue_manager="QM3"} 0`)
	has(t, out, `ilinkdash_node_up{context="prod",node="4",queue_manager="QM4"} 0`)
	has(t, out, `ilinkdash_node_replication_lag_records{context="prod",node="2"} 42`)
	has(t, out, `ilinkdash_queue_depth{context="prod",queue="Q.IN"} 20000`)
	has(t, out, `ilinkdash_alerts{context="prod",kind="group-stopped",level="critical"} 1`)
	has(t, out, `ilinkdash_alerts{context="prod",kind="node-down",level="critical"} 1`)
	has(t, out, `ilinkdash_alerts{context="prod",kind="queue-depth",level="warning"} 1`)
	has(t, out, `ilinkdash_alerts{context="prod",kind="unreachable",level="critical"} 0`)
	has(t, out, `ilinkdash_data_fresh{context="prod",list="groups"} 1`)
	// The alert counts are the snapshot's alerts, one for one.
	var n int
	for _, a := range s.Alerts {
		n++
		_ = a
	}
	if got := sumFamily(out, "ilinkdash_alerts"); got != float64(n) {
		t.Errorf("ilinkdash_alerts sum to %v, the monitor has %d alerts: %+v", got, n, s.Alerts)
	}
	// A partition of unknown lag has no lag series (never -1); its group
	// has no total (every partition unknown).
	hasNot(t, out, `ilinkdash_group_lag{context="prod",group="evil`)
	hasNot(t, out, `ilinkdash_group_total_lag{context="prod",group="evil`)
	// The hostile name is escaped, its bad byte replaced.
	has(t, out, `ilinkdash_group_members{context="prod",group="evil\"group\\with\nnewline`+"\uFFFD"+`"} 1`)
	_ = now
}

func sumFamily(out, name string) float64 {
	var sum float64
	re := regexp.MustCompile(`(?m)^` + name + `\{[^}]*\} ([0-9.e+]+)$`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		var v float64
		for _, c := range m[1] {
			v = v*10 + float64(c-'0')
		}
		sum += v
	}
	return sum
}

// Per-partition series switched off: the per-group and per-topic ones stay.
func TestPerPartitionOff(t *testing.T) {
	e, _, _ := testExporter(t, false)
	out := scrape(t, e.Handler(Probes{}))
	hasNot(t, out, "ilinkdash_group_lag{")
	hasNot(t, out, "ilinkdash_topic_partition_end_offset{")
	has(t, out, `ilinkdash_group_total_lag{context="prod",group="stopped"} 189`)
}

// Never health without fresh data: a list older than three intervals, or
// whose latest poll failed, exports none of its series, and its alert
// kinds go; an unreachable cluster says so.
func TestStaleAndUnreachable(t *testing.T) {
	e, w, now := testExporter(t, true)
	*now = now.Add(6 * time.Second) // 7 s after the latest lists: past their 6 s (3 × 2 s)
	out := scrape(t, e.Handler(Probes{}))
	has(t, out, `ilinkdash_data_fresh{context="prod",list="groups"} 0`)
	has(t, out, `ilinkdash_data_age_seconds{context="prod",list="groups"} 7`)
	hasNot(t, out, "ilinkdash_group_")
	hasNot(t, out, "ilinkdash_node_up")
	hasNot(t, out, `ilinkdash_alerts{context="prod",kind="group-stopped"`)
	has(t, out, `ilinkdash_alerts{context="prod",kind="unreachable",level="critical"} 0`)

	// The node list's poll cannot reach the cluster.
	*now = now.Add(-6 * time.Second)
	down := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	w.Observe(watch.Nodes, nil, down, *now)
	if !health.Unreachable(down) {
		t.Fatal("the test's error is not an unreachable one")
	}
	out = scrape(t, e.Handler(Probes{}))
	has(t, out, `ilinkdash_cluster_reachable{context="prod"} 0`)
	has(t, out, `ilinkdash_alerts{context="prod",kind="unreachable",level="critical"} 1`)
	has(t, out, `ilinkdash_data_fresh{context="prod",list="nodes"} 0`)
	hasNot(t, out, "ilinkdash_node_up")
	hasNot(t, out, `ilinkdash_alerts{context="prod",kind="node-down"`)
	has(t, out, `ilinkdash_group_total_lag{context="prod",group="stopped"} 189`) // the group list is still fresh
	if a := w.Snapshot().Alerts[0]; a.Kind != health.KindUnreachable || a.Text != "cannot reach ilink-1.example:5000: dial tcp: connection refused" {
		t.Errorf("the unreachable alert: %+v", a)
	}
}

// A group missing from the list (its coordinator moving) says UNKNOWN and
// exports none of the figures of the list it was last in.
func TestUnlistedGroupIsUnknown(t *testing.T) {
	e, w, now := testExporter(t, true)
	s := w.Snapshot()
	var gs []admin.GroupInfo
	for _, g := range s.Groups {
		if g.Info.Name != "stopped" {
			gs = append(gs, g.Info)
		}
	}
	w.Observe(watch.Groups, gs, nil, *now)
	out := scrape(t, e.Handler(Probes{}))
	has(t, out, `ilinkdash_group_health{context="prod",group="stopped",health="UNKNOWN"} 1`)
	has(t, out, `ilinkdash_group_health{context="prod",group="stopped",health="STOPPED"} 0`)
	hasNot(t, out, `ilinkdash_group_total_lag{context="prod",group="stopped"}`)
	has(t, out, `ilinkdash_alerts{context="prod",kind="group-unlisted",level="warning"} 1`)
}

// Gzip for scrapers that ask; /healthz says whether the latest polls
// reached the cluster, /livez whether the watcher polls at all.
func TestHandler(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	now := t0
	clock := func() time.Time { return now }
	w := watch.New(watch.Config{Context: "prod", Target: "ilink-1.example:5000", Health: health.DefaultConfig()}, allLists)
	e := New("prod", w.Snapshot, Options{PerPartition: true, Now: clock})
	h := e.Handler(Probes{Healthz: Reached(w, clock), Livez: Alive(w, clock)})
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "gzip" || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Errorf("gzip scrape: %v", rec.Header())
	}
	probe := func(path string, code int, text string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != code || !strings.Contains(rec.Body.String(), text) {
			t.Errorf("%s: %d %q, want %d %q", path, rec.Code, rec.Body, code, text)
		}
	}
	probe("/healthz", 503, "starting: no poll completed yet")
	probe("/livez", 200, "starting")

	smallCluster(w, t0)
	now = t0.Add(11 * time.Second)
	probe("/healthz", 200, "ok: the cluster was reached")
	probe("/livez", 200, "ok: polling")

	down := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	w.Observe(watch.Groups, nil, down, now)
	probe("/healthz", 503, "cannot reach ilink-1.example:5000: dial tcp: connection refused")
	probe("/livez", 200, "the cluster is not reachable")

	now = now.Add(w.MaxPollGap() + time.Second)
	probe("/healthz", 503, "stuck: no poll completed for")
	probe("/livez", 503, "stuck: no poll completed for")
}

// docs/METRICS.md lists every metric the exporter exports, and the
// exporter exports every metric it lists.
func TestMetricsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../../docs/METRICS.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(ilinkdash_[a-z_]+)`").FindAllStringSubmatch(string(b), -1) {
		documented = append(documented, m[1])
	}
	e, w, now := testExporter(t, true)
	e.ObservePoll(watch.Groups, time.Millisecond, nil)
	e.NotifyCounters("webhook", func() SinkCounts { return SinkCounts{} })
	w.Observe(watch.Nodes, nil, errors.New("x"), *now) // not unreachable: the node list fails, the rest stays
	out := scrape(t, e.Handler(Probes{}))
	var exported []string
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (ilinkdash_[a-z_]+) `).FindAllStringSubmatch(out, -1) {
		exported = append(exported, m[1])
	}
	// The node families are exported while the node list is fresh.
	e2, _, _ := testExporter(t, true)
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (ilinkdash_[a-z_]+) `).FindAllStringSubmatch(scrape(t, e2.Handler(Probes{})), -1) {
		if !slices.Contains(exported, m[1]) {
			exported = append(exported, m[1])
		}
	}
	for _, f := range e.coll.f.all {
		if !slices.Contains(exported, f.name) {
			t.Errorf("the test exports no %s: feed it", f.name)
		}
	}
	for _, name := range exported {
		if !slices.Contains(documented, name) {
			t.Errorf("%s is exported but not in docs/METRICS.md", name)
		}
	}
	for _, name := range documented {
		if !slices.Contains(exported, name) {
			t.Errorf("docs/METRICS.md lists %s, which is not exported", name)
		}
	}
	if len(documented) < 15 {
		t.Errorf("docs/METRICS.md lists only %v", documented)
	}
}

// The exposition is streamed (issue 26): a body many times the write
// buffer comes out whole, each family once (the text parser refuses a
// family split in two), the same plain (two scrapes at once), gzipped
// (also from a reused gzip writer) and through Scrape.
func TestStreamedExposition(t *testing.T) {
	now := time.Now()
	_, s := bigSnapshot(500, 200, now)
	e := New("big", func() *watch.Snapshot { return s }, Options{PerPartition: true, Now: func() time.Time { return now }})
	e.ObservePoll(watch.Groups, 30*time.Millisecond, nil)
	want, err := e.Scrape(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 8*scrapeBufSize {
		t.Fatalf("the body is %d bytes, want several buffers' worth", len(want))
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v", err)
	}
	if n := len(fams); n != strings.Count(string(want), "# TYPE ") {
		t.Errorf("%d families parsed, %d TYPE lines", n, strings.Count(string(want), "# TYPE "))
	}
	h := e.Handler(Probes{})
	// Scrapes share no buffer now: two at once (under -race) give the same.
	got := make([]string, 2)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
			got[i] = rec.Body.String()
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != string(want) {
			t.Errorf("plain /metrics %d (%d bytes) differs from Scrape (%d bytes)", i, len(g), len(want))
		}
	}
	for i := range 2 {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/metrics", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("gzip scrape %d: %d, Content-Encoding %q", i, rec.Code, rec.Header().Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("gzip scrape %d: %v, %d bytes, want the %d of Scrape", i, err, len(got), len(want))
		}
	}
}

// gzip is what the scraper accepts: "gzip;q=0" (RFC 9110: not
// acceptable) was gzipped all the same, as any parameter after gzip was
// ignored.
func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "gzip, deflate": true, "deflate, gzip;q=1.0": true, "gzip;q=0.5": true,
		"gzip;q=0": false, "gzip; q=0.000": false, "identity": false, "deflate, gzip;q=0": false, "GZIP": true,
	} {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if h != "" {
			r.Header.Set("Accept-Encoding", h)
		}
		if got := acceptsGzip(r); got != want {
			t.Errorf("Accept-Encoding %q: gzip %v, want %v", h, got, want)
		}
	}
}
