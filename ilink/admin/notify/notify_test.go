package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
	"ilinkdash/ilink/ilinktest"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func stalled(name string) health.Alert {
	return health.Alert{Level: health.LevelCritical, Kind: health.KindGroupStalled, Subject: name, Since: t0, Lag: 7,
		Text: "group " + name + " stalled: lag 7, no commit advanced since 10:00:00"}
}

func snap(seq uint64, alerts ...health.Alert) *watch.Snapshot {
	s := &watch.Snapshot{Seq: seq, Context: "prod", Alerts: alerts}
	s.Lists[watch.Groups] = watch.ListState{Polled: true, OKAt: t0.Add(time.Duration(seq) * time.Second)}
	return s
}

// Each alert starts once and resolves once, whatever the number of lists
// that repeat it; a level change is the same alert; the topic alerts are
// one alert whatever topics they list.
func TestTrackerOncePerAlert(t *testing.T) {
	tr := NewTracker("prod")
	lag := health.Alert{Level: health.LevelWarning, Kind: health.KindGroupLagging, Subject: "slow", Since: t0, Lag: 2000}
	ur := health.Alert{Level: health.LevelWarning, Kind: health.KindUnderReplicated, Subject: "a,b", Since: t0}
	var events []Event
	for i, alerts := range [][]health.Alert{
		{stalled("g"), lag, ur},
		{stalled("g"), lag, ur},
		{stalled("g"), {Level: health.LevelCritical, Kind: health.KindGroupLagging, Subject: "slow", Since: t0, Lag: 200000},
			{Level: health.LevelWarning, Kind: health.KindUnderReplicated, Subject: "a,b,c", Since: t0}},
		{stalled("g")},
		{},
		{},
	} {
		events = append(events, tr.Update(alerts, t0.Add(time.Duration(i)*time.Second))...)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.Event+" "+e.Kind+" "+e.Subject)
	}
	want := []string{"start group-stalled g", "start group-lagging slow", "start under-replicated a,b",
		"resolve group-lagging slow", "resolve under-replicated a,b,c", "resolve group-stalled g"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	e := events[0]
	if e.Level != "CRITICAL" || e.Context != "prod" || e.Since != "2026-05-01T10:00:00Z" || e.Lag == nil || *e.Lag != 7 || e.Seq != 1 ||
		e.Text != "group g stalled: lag 7, no commit advanced since 10:00:00" {
		t.Errorf("the start event: %+v", e)
	}
	if r := events[5]; r.At != "2026-05-01T10:00:04Z" {
		t.Errorf("the resolve is stamped with the list that ended it: %+v", r)
	}
}

// receiver is a loopback webhook receiver recording the events it got.
type receiver struct {
	mu     sync.Mutex
	events []Event
	status atomic.Int32 // the answer; 0 = 204
	posts  atomic.Int32
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.posts.Add(1)
	if s := r.status.Load(); s != 0 {
		w.WriteHeader(int(s))
		return
	}
	var e Event
	b, _ := io.ReadAll(req.Body)
	if err := json.Unmarshal(b, &e); err != nil || req.Header.Get("Content-Type") != "application/json" {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.Event+" "+e.Subject)
	}
	return out
}

func runSink(t *testing.T, run func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// A loopback receiver gets the start and the resolve of an alert once
// each, however many snapshots repeat them (and a snapshot older than the
// latest is ignored).
func TestWebhookStartAndResolveOnce(t *testing.T) {
	r := &receiver{}
	srv := httptest.NewServer(r)
	defer srv.Close()
	wh := NewWebhook(WebhookConfig{URL: srv.URL})
	runSink(t, wh.Run)
	n := New("prod", wh)
	n.Observe(snap(1, stalled("g")))
	n.Observe(snap(3, stalled("g")))
	n.Observe(snap(2)) // older than 3: ignored (no resolve)
	n.Observe(snap(4, stalled("g")))
	n.Observe(snap(5))
	n.Observe(snap(6))
	n.Observe(snap(7, stalled("marker"))) // comes after anything the earlier ones could have sent
	ilinktest.WaitFor(t, 10*time.Second, "the marker's start", func() bool { return len(r.got()) >= 3 })
	want := "start g,resolve g,start marker"
	if got := strings.Join(r.got(), ","); got != want {
		t.Fatalf("the receiver got %s, want %s", got, want)
	}
	if c := wh.Counts(); c.Sent != 3 || c.Failed != 0 || c.Dropped != 0 {
		t.Errorf("counts %+v", c)
	}
}

// Retries are bounded: a receiver answering 503 gets each event Attempts
// times, then it counts as failed; a 400 is not retried.
func TestWebhookRetriesBounded(t *testing.T) {
	r := &receiver{}
	r.status.Store(http.StatusServiceUnavailable)
	srv := httptest.NewServer(r)
	defer srv.Close()
	wh := NewWebhook(WebhookConfig{URL: srv.URL, Attempts: 3, Backoff: 5 * time.Millisecond})
	runSink(t, wh.Run)
	wh.Enqueue(Event{Event: Start, Kind: "group-stalled", Subject: "g"})
	ilinktest.WaitFor(t, 10*time.Second, "the event given up", func() bool { return wh.Counts().Failed == 1 })
	if p := r.posts.Load(); p != 3 {
		t.Errorf("%d POSTs for 3 attempts", p)
	}
	r.status.Store(http.StatusBadRequest)
	wh.Enqueue(Event{Event: Start, Kind: "group-stalled", Subject: "h"})
	ilinktest.WaitFor(t, 10*time.Second, "the 400 given up", func() bool { return wh.Counts().Failed == 2 })
	if p := r.posts.Load(); p != 4 {
		t.Errorf("a 400 was retried: %d POSTs in all", p)
	}
}

// A receiver that is down never holds up the poller: Observe returns at
// once however many events wait, the queue keeps its bound by dropping
// the oldest (counted), and the sink keeps trying, boundedly.
func TestWebhookDownDoesNotBlock(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/hook"
	ln.Close() // nobody listens there now: connections are refused
	var logged atomic.Int32
	wh := NewWebhook(WebhookConfig{URL: url, Queue: 4, Attempts: 2, Backoff: time.Hour, // stuck in its first retry wait
		Logf: func(format string, args ...any) {
			if strings.Contains(format, "queue full") {
				logged.Add(1)
			}
		}})
	runSink(t, wh.Run)
	n := New("prod", wh)
	start := time.Now()
	for i := range 1000 {
		if i%2 == 0 {
			n.Observe(snap(uint64(i+1), stalled("g")))
		} else {
			n.Observe(snap(uint64(i + 1)))
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("1,000 snapshots took %v with the receiver down", d)
	}
	// 1,000 events: at most one in delivery and 4 queued, the rest dropped.
	ilinktest.WaitFor(t, 10*time.Second, "the drops counted", func() bool { return wh.Counts().Dropped >= 995 })
	if c := wh.Counts(); c.Dropped > 996 || c.Sent != 0 {
		t.Errorf("counts %+v", c)
	}
	if logged.Load() != 1 {
		t.Errorf("the drops were logged %d times (once per 10 s)", logged.Load())
	}
}

// The command gets the event as JSON on stdin; a run past its timeout is
// killed and counted as failed; at most Concurrency run at once.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "events")
	c := NewCommand(CommandConfig{Command: "cat >> " + out + "; echo \"$ILINKDASH_ALERT_EVENT $ILINKDASH_ALERT_KIND\" >> " + out + ".env"})
	runSink(t, c.Run)
	n := New("prod", c)
	n.Observe(snap(1, stalled("g")))
	n.Observe(snap(2))
	ilinktest.WaitFor(t, 10*time.Second, "two commands run", func() bool { return c.Counts().Sent == 2 })
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdin: %q", b)
	}
	for _, l := range lines {
		var e Event
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Subject != "g" || e.Kind != "group-stalled" || e.Context != "prod" {
			t.Errorf("stdin line %q: %v", l, err)
		}
	}
	if env, _ := os.ReadFile(out + ".env"); !strings.Contains(string(env), "start group-stalled") || !strings.Contains(string(env), "resolve group-stalled") {
		t.Errorf("environment: %q", env)
	}

	slow := NewCommand(CommandConfig{Command: "sleep 30", Timeout: 100 * time.Millisecond})
	runSink(t, slow.Run)
	begin := time.Now()
	slow.Enqueue(Event{Event: Start, Kind: "node-down", Subject: "3"})
	ilinktest.WaitFor(t, 10*time.Second, "the slow command killed", func() bool { return slow.Counts().Failed == 1 })
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the 100 ms bound took %v", d)
	}

	// Four runs of 300 ms at most two at once take at least 600 ms.
	two := NewCommand(CommandConfig{Command: "sleep 0.3", Concurrency: 2})
	runSink(t, two.Run)
	begin = time.Now()
	for i := range 4 {
		two.Enqueue(Event{Event: Start, Kind: "node-down", Subject: string(rune('1' + i))})
	}
	ilinktest.WaitFor(t, 10*time.Second, "four runs", func() bool { return two.Counts().Sent == 4 })
	if d := time.Since(begin); d < 600*time.Millisecond {
		t.Errorf("four 300 ms runs took %v: more than two ran at once", d)
	}
}

// A webhook URL that redirects with 301, 302 or 303 fails, saying where
// it points (its password hidden): the client followed it as a GET
// without the event and counted it sent. A 307 posts the event again.
func TestWebhookRedirects(t *testing.T) {
	var gets, posts atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/new", func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodGet {
			gets.Add(1)
			return
		}
		if b, _ := io.ReadAll(req.Body); strings.Contains(string(b), `"subject":"g"`) {
			posts.Add(1)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/moved", func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, "http://user:secret@"+srv.Listener.Addr().String()+"/new", http.StatusFound)
	})
	mux.HandleFunc("/temp", func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, "/new", http.StatusTemporaryRedirect)
	})
	var logMu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	moved := NewWebhook(WebhookConfig{URL: srv.URL + "/moved", Attempts: 1, Logf: logf})
	runSink(t, moved.Run)
	moved.Enqueue(Event{Event: Start, Kind: "group-stalled", Subject: "g"})
	ilinktest.WaitFor(t, 10*time.Second, "the redirected event given up", func() bool { return moved.Counts().Failed == 1 })
	logMu.Lock()
	all := strings.Join(logged, "\n")
	logMu.Unlock()
	if c := moved.Counts(); c.Sent != 0 || gets.Load() != 0 ||
		!strings.Contains(all, "HTTP 302 Found: the webhook URL redirects to http://user:xxxxx@") || strings.Contains(all, "secret") {
		t.Fatalf("a 302: counts %+v, %d GETs, log %q", c, gets.Load(), all)
	}
	temp := NewWebhook(WebhookConfig{URL: srv.URL + "/temp", Attempts: 1})
	runSink(t, temp.Run)
	temp.Enqueue(Event{Event: Start, Kind: "group-stalled", Subject: "g"})
	ilinktest.WaitFor(t, 10*time.Second, "the 307 delivered", func() bool { return temp.Counts().Sent == 1 })
	if posts.Load() != 1 {
		t.Fatalf("a 307: %d POSTs of the event at its new URL, want 1", posts.Load())
	}
}
