package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/notify"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
)

// exporterWait bounds the exporter tests' waits (the health window and
// stall time are 2 s; the box is loaded).
const exporterWait = 60 * time.Second

// runningCLI is a long-running command (exporter, serve) started in the
// background: its combined output and its end.
type runningCLI struct {
	out    ilinktest.Buffer
	done   chan error
	cancel context.CancelFunc
}

// startCLI runs ilinkdash args in the background with the config file
// cfgPath ("" for none), as Main would after the first SIGINT or SIGTERM
// when stop is called.
func startCLI(t *testing.T, cfgPath string, args ...string) *runningCLI {
	t.Helper()
	return startCLIEnv(t, nil, cfgPath, args...)
}

// startCLIEnv is startCLI reading testEnv(env).
func startCLIEnv(t *testing.T, env map[string]string, cfgPath string, args ...string) *runningCLI {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningCLI{done: make(chan error, 1), cancel: cancel}
	a := newTestApp(t, env)
	a.root.SetOut(&r.out)
	a.root.SetErr(&r.out)
	a.root.SetArgs(append(args, "--config", cfgPath))
	go func() { r.done <- a.root.ExecuteContext(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// addr waits for the banner line matching re (one group: the address).
func (r *runningCLI) addr(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	var addr string
	ilinktest.WaitFor(t, exporterWait, "the banner "+re.String(), func() bool {
		if m := re.FindStringSubmatch(r.out.String()); m != nil {
			addr = m[1]
			return true
		}
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("ended early: %v\n%s", err, r.out.String())
		default:
		}
		return false
	})
	return addr
}

// stop cancels the run (what the first SIGINT/SIGTERM does) and returns
// its error once it ended.
func (r *runningCLI) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		r.done <- err
		return err
	case <-time.After(exporterWait):
		t.Fatalf("did not stop after its context was cancelled:\n%s", r.out.String())
		return nil
	}
}

var exporterListening = regexp.MustCompile(`exporter: listening on (127\.0\.0\.1:\d+)`)

// httpGet GETs url, returning the status and the body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// seriesValue is the value of the series written exactly as series
// (name{labels}) in the exposition text.
func seriesValue(text, series string) (float64, bool) {
	for line := range strings.SplitSeq(text, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// waitSeries scrapes base's /metrics until every series in want has its
// value and the text holds each of also, and returns that scrape.
func waitSeries(t *testing.T, base, what string, want map[string]float64, also ...string) string {
	t.Helper()
	var text string
	ilinktest.WaitFor(t, exporterWait, what, func() bool {
		_, text = httpGet(t, base+"/metrics")
		for series, v := range want {
			if got, ok := seriesValue(text, series); !ok || got != v {
				return false
			}
		}
		for _, a := range also {
			if !strings.Contains(text, a) {
				return false
			}
		}
		return true
	})
	return text
}

// healthWord is the group's ilinkdash_group_health word: its series at 1.
func healthWord(text, ctxName, group string) string {
	re := regexp.MustCompile(`(?m)^ilinkdash_group_health\{context="` + regexp.QuoteMeta(ctxName) + `",group="` +
		regexp.QuoteMeta(group) + `",health="([A-Z]+)"\} 1$`)
	if m := re.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// hookReceiver is a loopback webhook receiver that records every event.
type hookReceiver struct {
	mu     sync.Mutex
	events []notify.Event
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var e notify.Event
	if err := json.NewDecoder(io.LimitReader(req.Body, 1<<20)).Decode(&e); err != nil || req.Method != http.MethodPost {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.events = append(h.events, e)
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// of is the events of the alert kind about subject, in order ("start",
// "resolve").
func (h *hookReceiver) of(kind, subject string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		if e.Kind == kind && e.Subject == subject {
			out = append(out, e.Event)
		}
	}
	return out
}

// TestExporterAgainstTheEngine is issue 26's acceptance: the exporter on
// the in-process engine, scraped over loopback HTTP, says for a stopped, a
// stalled and a healthy group the lag `describe group` says and the word
// `get groups --window` says; its exposition passes promlint (promtool's
// checks); its webhook hears the stalled group's alert start once and,
// after the group catches up, resolve once.
func TestExporterAgainstTheEngine(t *testing.T) {
	s := newScenario(t, 3)
	// gone: read 40 of 300 and left: STOPPED.
	s.topicWithRecords("X.STOP", "partitions=2", 300)
	c := s.member("gone", "X.STOP", consumer.CommitManual, 40)
	_ = c.Close()
	s.waitMembers("gone", 0)
	// sleepy: a member that committed 1 record and stands still while 10
	// more arrive: STALLED.
	s.topicWithRecords("X.STALL", "partitions=1", 50)
	sleepy := s.member("sleepy", "X.STALL", consumer.CommitManual, 1)
	s.publish("X.STALL", 10)
	// caught: a member that read everything: OK.
	s.topicWithRecords("X.OK", "partitions=1", 30)
	s.member("caught", "X.OK", consumer.CommitManual, 30)

	hook := &hookReceiver{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	ex := startCLI(t, s.cfgPath, "exporter", "--listen", "127.0.0.1:0", "--notify-webhook", hs.URL)
	base := "http://" + ex.addr(t, exporterListening)

	want := map[string]string{"gone": "STOPPED", "sleepy": "STALLED", "caught": "OK"}
	var text string
	ilinktest.WaitFor(t, exporterWait, "the three groups' words on /metrics", func() bool {
		_, text = httpGet(t, base+"/metrics")
		for g, w := range want {
			if healthWord(text, "s", g) != w {
				return false
			}
		}
		return true
	})

	// The same words over the same window from get groups, the same lag and
	// members from describe group (the lists are still: nothing is
	// published or committed meanwhile).
	out, code := s.cli("get", "groups", "--window", scenWindow.String(), "-o", "json")
	var gs []groupJSON
	if err := json.Unmarshal([]byte(out), &gs); code != 0 || err != nil {
		t.Fatalf("get groups: exit %d, %v: %s", code, err, out)
	}
	words := map[string]string{}
	for _, g := range gs {
		words[g.Name] = g.Health
	}
	_, text = httpGet(t, base+"/metrics")
	for g, w := range want {
		if got := healthWord(text, "s", g); got != words[g] || got != w {
			t.Errorf("%s: /metrics says %s, get groups --window %s, want %s", g, got, words[g], w)
		}
		out, code := s.cli("describe", "group", g, "-o", "json")
		var d groupDescJSON
		if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || d.Lag == nil {
			t.Fatalf("describe group %s: exit %d, %v: %s", g, code, err, out)
		}
		lag, ok := seriesValue(text, `ilinkdash_group_total_lag{context="s",group="`+g+`"}`)
		if !ok || int64(lag) != *d.Lag {
			t.Errorf("%s: ilinkdash_group_total_lag %v (present %v), describe group says lag %d", g, lag, ok, *d.Lag)
		}
		members, ok := seriesValue(text, `ilinkdash_group_members{context="s",group="`+g+`"}`)
		if !ok || int(members) != len(d.Members) {
			t.Errorf("%s: ilinkdash_group_members %v, describe group lists %d members", g, members, len(d.Members))
		}
	}
	if lag, _ := seriesValue(text, `ilinkdash_group_total_lag{context="s",group="gone"}`); lag <= 0 {
		t.Errorf("the stopped group has no lag: %v", lag)
	}
	if v, _ := seriesValue(text, `ilinkdash_alerts{context="s",kind="group-stalled",level="critical"}`); v != 1 {
		t.Errorf("ilinkdash_alerts group-stalled critical = %v, want 1", v)
	}
	problems, err := promlint.New(strings.NewReader(text)).Lint()
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	if code, body := httpGet(t, base+"/healthz"); code != http.StatusOK || !strings.HasPrefix(body, "ok:") {
		t.Errorf("/healthz: %d %q", code, body)
	}

	// The webhook: the stalled group's alert started once; it catches up
	// and the alert resolves once.
	ilinktest.WaitFor(t, exporterWait, "the group-stalled start on the webhook", func() bool { return len(hook.of("group-stalled", "sleepy")) > 0 })
	s.readCommit(sleepy, 59)
	ilinktest.WaitFor(t, exporterWait, "sleepy OK on /metrics and its resolve on the webhook", func() bool {
		_, text = httpGet(t, base+"/metrics")
		return healthWord(text, "s", "sleepy") == "OK" && len(hook.of("group-stalled", "sleepy")) >= 2
	})
	// A few more group polls: no second start or resolve.
	polls := func() float64 {
		_, text := httpGet(t, base+"/metrics")
		v, _ := seriesValue(text, `ilinkdash_poll_duration_seconds_count{context="s",list="groups"}`)
		return v
	}
	from := polls()
	ilinktest.WaitFor(t, exporterWait, "three more group polls", func() bool { return polls() >= from+3 })
	if got := hook.of("group-stalled", "sleepy"); strings.Join(got, ",") != "start,resolve" {
		t.Errorf("the webhook heard %v for sleepy's stall, want one start and one resolve", got)
	}
	if got := hook.of("group-stopped", "gone"); strings.Join(got, ",") != "start" {
		t.Errorf("the webhook heard %v for gone's stop, want one start", got)
	}
	if sent, _ := seriesValue(text, `ilinkdash_notify_sent_total{context="s",sink="webhook"}`); sent < 2 {
		t.Errorf("ilinkdash_notify_sent_total = %v after two deliveries at least", sent)
	}

	if err := ex.stop(t); err != nil {
		t.Errorf("exporter after its context ended: %v\n%s", err, ex.out.String())
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		c.Close()
		t.Error("still listening after the stop")
	}
}

// A bad listen address or webhook URL is a usage error naming the flag.
func TestExporterBadFlags(t *testing.T) {
	for _, c := range []cliCase{
		{[]string{"exporter", "--listen", "nohostport"}, "--listen"},
		{[]string{"exporter", "--listen", "127.0.0.1:99999"}, "--listen"},
		{[]string{"exporter", "--listen", ""}, "--listen: want HOST:PORT"},
		{[]string{"exporter", "--notify-webhook", "ftp://x.example/"}, `--notify-webhook "ftp://x.example/": want an http:// or https:// URL`},
		{[]string{"exporter", "--notify-command", " "}, "--notify-command: empty command"},
		{[]string{"serve", "--metrics", "localhost"}, "--metrics"},
		{[]string{"exporter", "--memory-limit", "lots"}, `--memory-limit: invalid size "lots"`},
		{[]string{"exporter", "--memory-limit", "48MB"}, "--memory-limit: invalid size \"48MB\": MB is ambiguous"},
		{[]string{"exporter", "--memory-limit", "1MiB"}, "--memory-limit 1MiB: below 16MiB"},
	} {
		r := runCLIResult(t, "", c.args...)
		var ue *usageError
		if r.code != 2 || !errors.As(r.err, &ue) || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, %v, stderr %q; want a usage error with %q", c.args, r.code, r.err, r.stderr, c.want)
		}
	}
}

// watchedConfig writes a config file in dir whose current context, m,
// targets e with every list polled each interval.
func watchedConfig(t *testing.T, dir string, e *engine.Engine, interval time.Duration) string {
	t.Helper()
	path := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf("current-context: m\ncontexts:\n  m:\n    admin: %s\n    addresses: [%s]\n"+
		"    refresh: {overview: %v, topics: %v, groups: %v, queues: %v, cluster: %v}\n",
		e.AdminAddrs()[0], strings.Join(e.DataAddrs(), ", "), interval, interval, interval, interval, interval)
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serve --metrics watches through serve's shared poller: with a session
// open on the Overview and the exporter's watcher polling every list, the
// cluster still sees at most one request per polled list per interval
// (counted at the engine) — what the sessions alone make; an own admin
// client would double them.
func TestServeMetricsSharesThePoller(t *testing.T) {
	t.Parallel()
	const interval = 200 * time.Millisecond
	e := startTestEngine(t, engine.Config{})
	dir := t.TempDir()
	cfgPath := watchedConfig(t, dir, e, interval)
	signer, keys := operatorKey(t, dir)
	sv := startCLI(t, cfgPath, "serve", "--listen", "127.0.0.1:0", "--operator-keys", keys, "--host-key", filepath.Join(dir, "hostkey"),
		"--metrics", "127.0.0.1:0")
	sshAddr := sv.addr(t, regexp.MustCompile(`serve: listening on (127\.0\.0\.1:\d+)`))
	base := "http://" + sv.addr(t, regexp.MustCompile(`metrics: listening on (127\.0\.0\.1:\d+)`))
	_, stdout, _ := operatorShell(t, sshAddr, signer)
	ilinktest.WaitFor(t, serveWait, "the dashboard's first frame", func() bool { return strings.Contains(stdout.String(), "Overview") })

	groupPolls := func() float64 {
		_, text := httpGet(t, base+"/metrics")
		v, _ := seriesValue(text, `ilinkdash_poll_duration_seconds_count{context="m",list="groups"}`)
		return v
	}
	watched := map[wire.Code]string{wire.CodeNodeList: "nodes", wire.CodeTopicList: "topics", wire.CodeGroupList: "groups",
		wire.CodeQueueList: "queues", wire.CodeClusterProperty: "definition"}
	before, from, start := e.RequestCounts(), groupPolls(), time.Now()
	ilinktest.WaitFor(t, exporterWait, "15 group polls of the watcher", func() bool { return groupPolls() >= from+15 })
	after, took := e.RequestCounts(), time.Since(start)
	limit := int64(took/interval) + 2
	for code, name := range watched {
		d := after[code] - before[code]
		t.Logf("%-10s %3d requests in %v", name, d, took.Round(time.Millisecond))
		if d > limit || d == 0 {
			t.Errorf("%s: %d requests in %v with a session and the metrics watcher, want 1..%d (one per %v)", name, d, took, limit, interval)
		}
	}
	code, text := httpGet(t, base+"/metrics")
	if v, _ := seriesValue(text, `ilinkdash_cluster_reachable{context="m"}`); code != http.StatusOK || v != 1 {
		t.Errorf("/metrics through the shared poller: %d, reachable %v", code, v)
	}
	if code, body := httpGet(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if err := sv.stop(t); err != nil {
		t.Errorf("serve after its context ended: %v\n%s", err, sv.out.String())
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		c.Close()
		t.Error("the metrics listener is still open after the stop")
	}
}

// The exporter as a process, with nothing configured: it watches the
// embedded demo (as serve and the dashboard do), answers /healthz once the
// demo was reached, and stops on SIGTERM with status 0, its listener
// closed.
func TestExporterProcessStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it times a stop against the 2 s the issue asks.
	cmd := cliProcess(t, "exporter", "--listen", "127.0.0.1:0")
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
	p := start(t, cmd)
	defer p.cmd.Process.Kill()
	var addr string
	ilinktest.WaitFor(t, exporterWait, "the banner", func() bool {
		m := exporterListening.FindStringSubmatch(p.stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	if !strings.Contains(p.stderr.String(), "watching the embedded demo engine") {
		t.Errorf("banner: %s", p.stderr.String())
	}
	ilinktest.WaitFor(t, exporterWait, "/healthz 200 on the demo", func() bool {
		code, _ := httpGet(t, "http://"+addr+"/healthz")
		return code == http.StatusOK
	})
	if _, text := httpGet(t, "http://"+addr+"/metrics"); !strings.Contains(text, `ilinkdash_cluster_reachable{context="embedded"} 1`) {
		t.Errorf("/metrics on the demo lacks the reachable cluster:\n%.2000s", text)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if !p.exitsWithin(stopBound) {
		t.Fatalf("exporter still running %v after SIGTERM\n%s", stopBound, p.stderr.String())
	}
	if p.code != 0 {
		t.Fatalf("exporter exited %d after SIGTERM\n%s", p.code, p.stderr.String())
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("still listening after SIGTERM")
	}
}

// serve --notify-webhook without --metrics: the watcher runs for the
// notifications alone, through the shared poller, and the webhook hears a
// stopped group's alert start once.
func TestServeNotifyWithoutMetrics(t *testing.T) {
	e := startTestEngine(t, engine.Config{})
	_, q := adminAt(t, e.AdminAddrs()[0])
	topicWithRecords(t, q, "N.T", "partitions=1", 20) // all below the high watermark: the seek lands at 5
	changes, err := q.SeekGroup(context.Background(), "idle", "N.T", admin.SeekTarget{Offset: 5})
	if err != nil || len(changes) != 1 || changes[0].New != 5 || changes[0].End != 20 {
		t.Fatalf("idle's seek to 5 of 20: %+v, %v", changes, err)
	}
	hook := &hookReceiver{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	dir := t.TempDir()
	_, keys := operatorKey(t, dir)
	sv := startCLI(t, watchedConfig(t, dir, e, 200*time.Millisecond), "serve", "--listen", "127.0.0.1:0", "--operator-keys", keys,
		"--host-key", filepath.Join(dir, "hostkey"), "--notify-webhook", hs.URL)
	sv.addr(t, regexp.MustCompile(`serve: listening on (127\.0\.0\.1:\d+)`))
	ilinktest.WaitFor(t, exporterWait, "the group-stopped start on the webhook", func() bool { return len(hook.of("group-stopped", "idle")) > 0 })
	if out := sv.out.String(); strings.Contains(out, "metrics: listening") || !strings.Contains(out, "alert notifications: webhook "+hs.URL) {
		t.Errorf("banner:\n%s", out)
	}
	var ev notify.Event
	hook.mu.Lock()
	for _, x := range hook.events {
		if x.Kind == "group-stopped" && ev.Kind == "" {
			ev = x
		}
	}
	hook.mu.Unlock()
	if ev.Context != "m" || ev.Event != notify.Start || ev.Level != "CRITICAL" || ev.Lag == nil || *ev.Lag != 15 {
		t.Errorf("the webhook's event: %+v", ev)
	}
	if err := sv.stop(t); err != nil {
		t.Errorf("serve after its context ended: %v", err)
	}
	if got := hook.of("group-stopped", "idle"); len(got) != 1 {
		t.Errorf("the webhook heard %v for idle's stop, want one start", got)
	}
}

// --memory-limit sets the process's soft memory limit while the exporter
// runs (issue 26; the RSS it gives: BenchmarkScrapeRSS10kTopics2kGroups)
// and puts the previous one back when it stops.
func TestExporterMemoryLimit(t *testing.T) {
	e := startTestEngine(t, engine.Config{})
	prev := debug.SetMemoryLimit(-1)
	ex := startCLI(t, watchedConfig(t, t.TempDir(), e, 200*time.Millisecond), "exporter", "--listen", "127.0.0.1:0", "--memory-limit", "64MiB")
	ex.addr(t, exporterListening)
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("the memory limit while the exporter runs: %d, want %d", got, 64<<20)
	}
	if !strings.Contains(ex.out.String(), "soft memory limit 64MiB") {
		t.Errorf("banner:\n%s", ex.out.String())
	}
	if err := ex.stop(t); err != nil {
		t.Errorf("exporter after its context ended: %v", err)
	}
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("the memory limit after the exporter stopped: %d, want the previous %d", got, prev)
	}
}

// The banner names the webhook without its password: the URL's user
// information (https://user:token@host/…) was printed whole on stderr,
// into the journal of the service running the exporter.
func TestNotifyBannerHidesWebhookPassword(t *testing.T) {
	f := &monitorFlags{webhook: "https://alerts:s3cret@127.0.0.1:1/hook"}
	m := newMonitor(monitorConfig{flags: f, logf: func(string, ...any) {},
		read: func(context.Context, common.ResID) (any, error) { return nil, errors.New("not polled") }})
	var b strings.Builder
	m.printNotify(&b)
	if out := b.String(); strings.Contains(out, "s3cret") || !strings.Contains(out, "webhook https://alerts:xxxxx@127.0.0.1:1/hook") {
		t.Errorf("banner: %q", out)
	}
}

// A context with data addresses and no admin address is refused by the
// exporter and serve naming the context and the file to set it in, as
// check says it; it was "live: no admin address configured (set --admin
// or the context's admin)", naming neither.
func TestWatchersNameTheContextWithoutAdmin(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "config.yaml")
	keys := filepath.Join(t.TempDir(), "ops.keys")
	if err := os.WriteFile(keys, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("contexts:\n  data: {addresses: ['127.0.0.1:1']}\n  other: {admin: '127.0.0.1:1'}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := "ilinkdash: context data has no admin address: set admin: HOST:PORT in " + file + " (or give --admin)\n"
	for _, args := range [][]string{
		{"exporter", "--context", "data", "--listen", "127.0.0.1:0"},
		{"exporter", "--context", "other,data", "--listen", "127.0.0.1:0"},
		{"serve", "--context", "data", "--operator-keys", keys, "--listen", "127.0.0.1:0"},
	} {
		if r := runWithConfig(t, file, args...); r.code != exitUsage || !strings.HasSuffix(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", args, r.code, r.stderr, want)
		}
	}
}
