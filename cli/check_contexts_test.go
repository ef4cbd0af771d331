package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
)

// runWithConfig runs ilinkdash with the config file file (runCLIResult
// runs without one).
func runWithConfig(t *testing.T, file string, args ...string) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, err := newTestApp(t, nil).execute(ctx, append(args, "--config", file), strings.NewReader(""), &out, &errb)
	return cliResult{out.String(), errb.String(), code, err}
}

// Three contexts: a healthy cluster, one with a stopped group (CRITICAL)
// and one that cannot be reached (UNKNOWN): one line each, worst first,
// the exit status the worst; -o json an array.
func TestCheckOverSeveralContexts(t *testing.T) {
	t.Parallel()
	healthy := startTestEngine(t, engine.Config{})
	broken := startTestEngine(t, engine.Config{})
	_, q := adminAt(t, broken.AdminAddrs()[0])
	topicWithRecords(t, q, "ORDERS", "partitions=1", 5)
	groupCommittedAt(t, q, "billing", "ORDERS", 1)
	file := filepath.Join(t.TempDir(), "config.yaml")
	h := "health: {window: 300ms, stall-after: 300ms}"
	cfg := fmt.Sprintf("contexts:\n  healthy: {admin: '%s', %s}\n  gone: {admin: '127.0.0.1:1', %s}\n  broken: {admin: '%s', %s}\n",
		healthy.AdminAddrs()[0], h, h, broken.AdminAddrs()[0], h)
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	window := []string{"--window", "300ms", "--timeout", "3s"}
	r := runWithConfig(t, file, append([]string{"check", "--all-contexts"}, window...)...)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != checkCritical || len(lines) != 3 || !strings.HasPrefix(lines[0], "broken: CRITICAL: ") || !strings.Contains(lines[0], "stopped") ||
		!strings.HasPrefix(lines[1], "gone: UNKNOWN: cannot reach 127.0.0.1:1") || !strings.HasPrefix(lines[2], "healthy: OK: ") {
		t.Fatalf("check --all-contexts: exit %d\n%s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = runWithConfig(t, file, append([]string{"check", "--context", "healthy,gone", "-o", "json"}, window...)...)
	var arr []checkContextJSON
	if err := json.Unmarshal([]byte(r.stdout), &arr); err != nil || r.code != checkUnknown || len(arr) != 2 ||
		arr[0].Context != "gone" || arr[0].ExitCode != checkUnknown || arr[1].Context != "healthy" || arr[1].Status != "OK" {
		t.Fatalf("check --context healthy,gone -o json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if !strings.HasPrefix(r.stdout, "[") || !strings.Contains(r.stdout, `"context": "gone"`) {
		t.Fatalf("JSON over contexts is an array with the context first: %s", r.stdout)
	}
	r = runWithConfig(t, file, append([]string{"check", "--context", "healthy"}, window...)...)
	if r.code != checkOK || !strings.HasPrefix(r.stdout, "OK: ") {
		t.Fatalf("one context keeps the single check's output: exit %d %q", r.code, r.stdout)
	}
	r = runWithConfig(t, file, append([]string{"check", "--all-contexts", "--embedded"}, window...)...)
	if r.code != checkUnknown || !strings.Contains(r.stdout, "--embedded with several contexts") {
		t.Fatalf("--embedded over contexts: exit %d %q", r.code, r.stdout)
	}
}

// hubConfig starts a one-node hub with the spokes plant-1 and plant-2,
// plant-2 holding the stopped group billing (ORDERS, lag 4), and writes a
// config whose contexts p1 (spoke: plant-1), p2 (spoke-key: plant-2's
// key) and plants (spokes: all) reach them through it.
func hubConfig(t *testing.T) (hub *engine.Engine, file string) {
	t.Helper()
	hub = startTestEngine(t, engine.Config{Nodes: 1, Spokes: []engine.SpokeConfig{{Name: "plant-1"}, {Name: "plant-2"}}})
	p2 := hub.SpokeEngine("plant-2")
	ilinktest.WaitFor(t, 30*time.Second, "the spokes linked", func() bool { return p2.HubLinked() && hub.SpokeEngine("plant-1").HubLinked() })
	_, q := adminAt(t, p2.AdminAddrs()[0])
	topicWithRecords(t, q, "ORDERS", "partitions=1", 5)
	groupCommittedAt(t, q, "billing", "ORDERS", 1)
	file = filepath.Join(t.TempDir(), "config.yaml")
	h := "health: {window: 300ms, stall-after: 300ms}"
	cfg := fmt.Sprintf("contexts:\n  p1: {hub: '%[1]s', spoke: plant-1, %[2]s}\n  p2: {hub: '%[1]s', spoke-key: %[3]s, %[2]s}\n  plants: {hub: '%[1]s', spokes: all, %[2]s}\n",
		hub.AdminAddrs()[0], h, engine.SpokeKey("plant-2"))
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return hub, file
}

// The headless commands on a spoke context go through the hub (issue 27
// point 6): publish creates the topic and sends on plant-1, tail reads it
// back, search finds a record, get and group list show the spoke's own
// topics and groups (plant-1's, plant-2's by its key), the hub has none
// of them; a `spokes: all` context is refused by a command on one
// cluster, naming it.
func TestHeadlessThroughHub(t *testing.T) {
	hub, file := hubConfig(t)
	r := runWithConfig(t, file, "publish", "SPOKE.T", "--context", "p1", "--partitions", "2", "--key", "k1", "--value", "hello-through-hub", "--count", "3")
	if r.err != nil {
		t.Fatalf("publish through the hub: %v\n%s", r.err, r.stderr)
	}
	if _, err := hub.TopicPartitions("SPOKE.T"); err == nil {
		t.Fatal("the hub has the spoke's topic: publish went to the hub")
	}
	if ps, err := hub.SpokeEngine("plant-1").TopicPartitions("SPOKE.T"); err != nil || len(ps) != 2 {
		t.Fatalf("plant-1's SPOKE.T: %v %v", ps, err)
	}
	r = runWithConfig(t, file, "tail", "SPOKE.T", "--context", "p1", "--from", "earliest", "--count", "3", "--format", "json")
	if r.err != nil || strings.Count(r.stdout, "hello-through-hub") != 3 {
		t.Fatalf("tail through the hub: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	r = runWithConfig(t, file, "search", "SPOKE.T", "--context", "p1", "--value-contains", "through", "-o", "json")
	if r.err != nil || strings.Count(r.stdout, "hello-through-hub") != 3 {
		t.Fatalf("search through the hub: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	r = runWithConfig(t, file, "get", "topics", "--context", "p1")
	if r.err != nil || !strings.Contains(r.stdout, "SPOKE.T") || strings.Contains(r.stdout, "ORDERS") {
		t.Fatalf("get topics on p1: %v\n%s", r.err, r.stdout)
	}
	r = runWithConfig(t, file, "get", "groups", "--context", "p2")
	if r.err != nil || !strings.Contains(r.stdout, "billing") {
		t.Fatalf("get groups on p2 (by key): %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	r = runWithConfig(t, file, "group", "seek", "billing", "--to", "latest", "--execute", "--context", "p2")
	if r.err != nil {
		t.Fatalf("group seek on p2: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	_, q := adminAt(t, hub.SpokeEngine("plant-2").AdminAddrs()[0])
	if gs, err := q.GroupList(context.Background()); err != nil || len(gs) != 1 || gs[0].Lag().Records != 0 {
		t.Fatalf("billing on plant-2 after the seek to latest (lag 0): %+v %v", gs, err)
	}
	r = runWithConfig(t, file, "queue", "create", "SPOKE.Q", "--context", "p1")
	if r.err == nil {
		r = runWithConfig(t, file, "queue", "put", "SPOKE.Q", "--value", "queued-through-hub", "--context", "p1")
	}
	if r.err == nil {
		r = runWithConfig(t, file, "queue", "browse", "SPOKE.Q", "--context", "p1")
	}
	if r.err != nil || !strings.Contains(r.stdout, "queued-through-hub") {
		t.Fatalf("queue create, put, browse on p1: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"get", "topics"}, {"tail", "SPOKE.T"}, {"publish", "SPOKE.T", "--value", "x"}} {
		r = runWithConfig(t, file, append(args, "--context", "plants")...)
		if r.code != 2 || !strings.Contains(r.stderr, "context plants is every spoke of hub") || !strings.Contains(r.stderr, "spoke: NAME") {
			t.Fatalf("%v on a spokes: all context: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}

// check through a hub: one spoke context judges that spoke (plant-2's
// stopped group is CRITICAL); a `spokes: all` context judges every spoke
// the hub lists, one line each named CONTEXT/SPOKE, worst first, the exit
// status the worst; a spoke that is not linked is UNKNOWN with the hub's
// reason.
func TestCheckThroughHub(t *testing.T) {
	t.Parallel()
	hub, file := hubConfig(t)
	window := []string{"--window", "300ms", "--timeout", "3s"}
	r := runWithConfig(t, file, append([]string{"check", "--context", "p2"}, window...)...)
	if r.code != checkCritical || !strings.HasPrefix(r.stdout, "CRITICAL: ") || !strings.Contains(r.stdout, "billing") {
		t.Fatalf("check p2: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runWithConfig(t, file, append([]string{"check", "--context", "plants"}, window...)...)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != checkCritical || len(lines) != 2 || !strings.HasPrefix(lines[0], "plants/plant-2: CRITICAL: ") || !strings.HasPrefix(lines[1], "plants/plant-1: OK: ") {
		t.Fatalf("check plants: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if err := hub.SpokeEngine("plant-1").Close(); err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, 30*time.Second, "the hub lists plant-1 not running", func() bool {
		for _, s := range hub.Spokes() {
			if s.Name == "plant-1" {
				return !s.Running
			}
		}
		return false
	})
	r = runWithConfig(t, file, append([]string{"check", "--context", "plants", "-o", "json"}, window...)...)
	if r.code != checkCritical || !strings.Contains(r.stdout, `"context": "plants/plant-1"`) || !strings.Contains(r.stdout, "not linked") {
		t.Fatalf("check plants with plant-1 down: exit %d\n%s", r.code, r.stdout)
	}
}

// The exporter on a `spokes: all` context watches each spoke the hub
// lists at start as its own cluster, its series labelled CONTEXT/SPOKE,
// and follows the hub: plant-3 linking later gets its series and its lag
// history file.
func TestExporterOverAHubsSpokes(t *testing.T) {
	t.Parallel()
	hub, file := hubConfig(t)
	followQuickly(t, file)
	ex := startCLI(t, file, "exporter", "--context", "plants", "--listen", "127.0.0.1:0")
	base := "http://" + regexpAddr(t, ex)
	text := waitSeries(t, base, "both spokes on /metrics", map[string]float64{
		`ilinkdash_cluster_reachable{context="plants/plant-1"}`: 1, `ilinkdash_cluster_reachable{context="plants/plant-2"}`: 1},
		`ilinkdash_topic_partitions_offline{context="plants/plant-2",topic="ORDERS"} 0`)
	if strings.Contains(text, `ilinkdash_topic_partitions_offline{context="plants/plant-1",topic="ORDERS"}`) {
		t.Fatal("plant-1's series show plant-2's topic")
	}
	linkPlant3(t, hub)
	waitSeries(t, base, "plant-3 on /metrics", map[string]float64{`ilinkdash_cluster_reachable{context="plants/plant-3"}`: 1})
	if out := ex.out.String(); !strings.Contains(out, "history-plants_plant-3.db") || !strings.Contains(out, "spoke plant-3 linked, watched as plants/plant-3") {
		t.Errorf("plant-3's lag history or its line:\n%s", out)
	}
	if err := ex.stop(t); err != nil {
		t.Fatalf("stop: %v", err)
	}
}

// followQuickly has hubConfig's `spokes: all` context read its hub's list
// every 300 ms (refresh.cluster), so a spoke linking is seen soon.
func followQuickly(t *testing.T, file string) {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	quick := strings.Replace(string(text), "spokes: all,", "spokes: all, refresh: {cluster: 300ms},", 1)
	if err := os.WriteFile(file, []byte(quick), 0o600); err != nil {
		t.Fatal(err)
	}
}

// linkPlant3 starts a cluster that links to hub as plant-3.
func linkPlant3(t *testing.T, hub *engine.Engine) {
	t.Helper()
	p3 := startTestEngine(t, engine.Config{Nodes: 1, QueueManager: "QM_plant-3"})
	if err := p3.LinkToHub(hub.SpokeAddr(), "plant-3", ""); err != nil {
		t.Fatal(err)
	}
}

// serve on a `spokes: all` context serves each spoke the hub lists at
// start as one of its contexts, reached through the hub: the Fleet tab
// has a row per spoke, plant-2's with its stopped group; the server
// follows the hub on the context's node-list interval, so plant-3 linking
// later gets its row in the open session and `ssh HOST plants/plant-3`
// opens it.
func TestServeAHubsSpokes(t *testing.T) {
	t.Parallel()
	hub, file := hubConfig(t)
	followQuickly(t, file)
	dir := t.TempDir()
	signer, keys := operatorKey(t, dir)
	sv := startCLIEnv(t, map[string]string{"ILINKDASH_CONTEXT": "plants"}, file, "serve", "--listen", "127.0.0.1:0", "--operator-keys", keys, "--host-key", filepath.Join(dir, "hostkey"))
	addr := sv.addr(t, regexp.MustCompile(`serve: listening on (127\.0\.0\.1:\d+), serving contexts plants/plant-1, plants/plant-2 `))
	_, stdout, _ := operatorShell(t, addr, signer)
	ilinktest.WaitFor(t, serveWait, "the Fleet tab with a row per spoke", func() bool {
		s := stdout.String()
		return strings.Contains(s, "2 clusters watched") && strings.Contains(s, "plants/plant-1 ") && strings.Contains(s, "1 STOPPED")
	})
	linkPlant3(t, hub)
	// The stream redraws what changed: plant-3 is in the tab bar.
	ilinktest.WaitFor(t, serveWait, "plant-3 in the open session", func() bool { return strings.Contains(stdout.String(), " plants/plant-3 ") })
	_, p3out, _ := operatorShell(t, addr, signer, "plants/plant-3")
	ilinktest.WaitFor(t, serveWait, "ssh HOST plants/plant-3 on its tabs", func() bool {
		return strings.Contains(p3out.String(), "Fleet › plants/plant-3")
	})
}

// A context without an admin address, with data addresses or with none
// at all, is its own UNKNOWN line (docs/CLI.md), saying what to set, and
// the others are judged: a context with no address at all made the whole
// check one UNKNOWN line, judging nothing, and the line of one with data
// addresses said to give --admin, which several contexts refuse.
func TestCheckContextsWithoutAdmin(t *testing.T) {
	t.Parallel()
	healthy := startTestEngine(t, engine.Config{})
	file := filepath.Join(t.TempDir(), "config.yaml")
	cfg := fmt.Sprintf("contexts:\n  healthy: {admin: '%s', health: {window: 300ms, stall-after: 300ms}}\n  bare: {read-only: true}\n  data: {addresses: ['127.0.0.1:1']}\n",
		healthy.AdminAddrs()[0])
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWithConfig(t, file, "check", "--all-contexts", "--window", "300ms", "--timeout", "3s")
	want := "bare: UNKNOWN: context bare has no admin address: set admin: HOST:PORT in " + file + "\n" +
		"data: UNKNOWN: context data has no admin address: set admin: HOST:PORT in " + file + "\n"
	if r.code != checkUnknown || !strings.HasPrefix(r.stdout, want) || !regexp.MustCompile(`\nhealthy: OK: [^\n]*\n$`).MatchString(r.stdout) {
		t.Fatalf("check --all-contexts: exit %d\n%s\nstderr %s\nwant first\n%s", r.code, r.stdout, r.stderr, want)
	}
	// One context is the single check: its usage error, as before.
	if r = runWithConfig(t, file, "check", "--context", "bare"); r.code != checkUnknown || !strings.Contains(r.stdout, `context "bare" has no addresses and no admin address`) {
		t.Fatalf("check --context bare: exit %d %q", r.code, r.stdout)
	}
}

// A `spokes: all` hub that does not answer at start, among other
// contexts, is said and followed with no spokes yet, so serve and the
// exporter watch every other cluster: it stopped them both (exit 2).
// Alone, or with only hubs as down, it is the error it was.
func TestExpandHubsOneHubDownAtStart(t *testing.T) {
	prod := config.Resolved{Context: config.Context{Name: "prod", Admin: "ilink-1.example:5001"}}
	plants := config.Resolved{Context: config.Context{Name: "plants", Hub: "127.0.0.1:1", AllSpokes: true}}
	plants2 := plants
	plants2.Context.Name = "plants2"
	var warn bytes.Buffer
	out, hubs, err := expandHubs(context.Background(), []config.Resolved{prod, plants}, maxSpokes, &warn, nil)
	if err != nil || len(out) != 1 || out[0].Context.Name != "prod" || len(hubs) != 1 || hubs[0].r.Context.Name != "plants" || len(hubs[0].known) != 0 {
		t.Fatalf("out %v, hubs %v, err %v; want prod watched and plants followed", out, hubs, err)
	}
	if w := warn.String(); !strings.HasPrefix(w, "ilinkdash: context plants: the spokes of hub 127.0.0.1:1: ") || !strings.HasSuffix(w, "; following it: its spokes are watched once it lists them\n") {
		t.Fatalf("warning %q", w)
	}
	// Its text, names and the network's answer, is one sanitized line.
	hostile := plants
	hostile.Context.Name = "pl\x1b[2Jants"
	warn.Reset()
	if _, _, err := expandHubs(context.Background(), []config.Resolved{prod, hostile}, maxSpokes, &warn, nil); err != nil || strings.Contains(warn.String(), "\x1b") || !strings.Contains(warn.String(), "pl␛[2Jants") {
		t.Fatalf("a hostile context name: %v, warning %q", err, warn.String())
	}
	for _, rs := range [][]config.Resolved{{plants}, {plants, plants2}} {
		if _, _, err := expandHubs(context.Background(), rs, maxSpokes, &warn, nil); err == nil || !strings.Contains(err.Error(), "the spokes of hub 127.0.0.1:1") {
			t.Errorf("%d hubs down and nothing else: err %v, want the hub's", len(rs), err)
		}
	}
}
