// Package notify tells the world when an alert starts and when it
// resolves (`--notify-webhook URL`, `--notify-command CMD` of `ilinkdash
// exporter` and `serve`): a Tracker turns the successive alert lists of a
// watched cluster (watch.Snapshot.Alerts: the Overview's list and
// check's, docs/HEALTH.md) into start and resolve events, each once per
// alert, and each sink delivers them from its own bounded queue, so a slow
// or dead receiver never holds up the polling: when a queue is full the
// oldest event goes, counted and logged.
package notify

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
)

// Event is what a sink delivers: an alert that started or resolved. Its
// JSON is the webhook's body and the command's stdin.
type Event struct {
	Event   string `json:"event"` // "start" or "resolve"
	Kind    string `json:"kind"`  // docs/HEALTH.md's kinds: node-down, group-stalled, …
	Level   string `json:"level"` // WARNING or CRITICAL, as check -o json says
	Subject string `json:"subject"`
	Text    string `json:"text"`               // the alert's text (raw names: JSON escapes them)
	Since   string `json:"since"`              // when the condition began (RFC 3339, UTC)
	At      string `json:"at"`                 // when the start or the resolve was observed
	Lag     *int64 `json:"lag,omitempty"`      // group alerts: the group's lag
	Context string `json:"context"`            // the watched cluster
	Earlier bool   `json:"since_earlier"`      // the condition held at the first observation already
	Seq     uint64 `json:"seq"`                // this process's event number, in order
	Host    string `json:"exporter,omitempty"` // who sends (set by the caller)
}

// Start and Resolve are Event.Event's values.
const (
	Start   = "start"
	Resolve = "resolve"
)

// JSON is the event's body.
func (e Event) JSON() []byte {
	b, _ := json.Marshal(e)
	return b
}

// Key is an alert's identity: its kind and subject, as the Overview lists
// it. The topic alerts (partitions offline, under-replicated) are one
// alert each whose subject lists the topics, so their identity is the
// kind alone: a topic joining the list is no new alert.
func Key(a health.Alert) string {
	if a.Kind == health.KindOffline || a.Kind == health.KindUnderReplicated {
		return string(a.Kind)
	}
	return string(a.Kind) + "\x00" + a.Subject
}

// Tracker turns alert lists into events. It is not safe for concurrent
// use (the Notifier serializes it).
type Tracker struct {
	context string
	active  map[string]health.Alert
	seq     uint64
}

// NewTracker returns a tracker of the cluster named context.
func NewTracker(context string) *Tracker {
	return &Tracker{context: context, active: map[string]health.Alert{}}
}

// Update takes the alerts now (observed at `at`) and returns the events:
// a start for each alert not active before, a resolve for each active one
// that is gone. An alert whose level changes (a lagging group passing
// max-lag-critical) is the same alert: no event. The first list starts
// every alert in it.
func (t *Tracker) Update(alerts []health.Alert, at time.Time) []Event {
	now := make(map[string]health.Alert, len(alerts))
	var out []Event
	for _, a := range alerts {
		k := Key(a)
		if _, dup := now[k]; dup {
			continue
		}
		now[k] = a
		if _, was := t.active[k]; !was {
			out = append(out, t.event(Start, a, at))
		}
	}
	var gone []string
	for k := range t.active {
		if _, still := now[k]; !still {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		out = append(out, t.event(Resolve, t.active[k], at))
	}
	t.active = now
	return out
}

func (t *Tracker) event(what string, a health.Alert, at time.Time) Event {
	t.seq++
	e := Event{Event: what, Kind: string(a.Kind), Level: a.Level.String(), Subject: a.Subject, Text: a.Text,
		Since: a.Since.UTC().Format(time.RFC3339Nano), At: at.UTC().Format(time.RFC3339Nano), Context: t.context,
		Earlier: a.SinceEarlier, Seq: t.seq}
	if strings.HasPrefix(string(a.Kind), "group-") {
		lag := a.Lag
		e.Lag = &lag
	}
	return e
}

// Counts are a sink's counters.
type Counts struct {
	Sent, Failed, Dropped uint64
}

// Sink delivers events from its bounded queue.
type Sink interface {
	Name() string
	// Enqueue hands an event over without blocking (a full queue drops its
	// oldest event).
	Enqueue(Event)
	Counts() Counts
}

// Notifier feeds the sinks from a watcher's snapshots.
type Notifier struct {
	mu      sync.Mutex
	tracker *Tracker
	lastSeq uint64
	sinks   []Sink
}

// New returns a notifier of the cluster named context over sinks.
func New(context string, sinks ...Sink) *Notifier {
	return &Notifier{tracker: NewTracker(context), sinks: sinks}
}

// Observe takes a new snapshot (watch.Config.OnSnapshot): its alerts'
// starts and resolves go to every sink's queue. It never blocks on a
// sink. A snapshot older than one already taken is ignored.
func (n *Notifier) Observe(s *watch.Snapshot) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if s.Seq != 0 && s.Seq <= n.lastSeq {
		return
	}
	n.lastSeq = s.Seq
	for _, e := range n.tracker.Update(s.Alerts, latest(s)) {
		for _, k := range n.sinks {
			k.Enqueue(e)
		}
	}
}

// latest is when the snapshot's newest answer arrived.
func latest(s *watch.Snapshot) time.Time {
	var t time.Time
	for _, l := range s.Lists {
		for _, x := range []time.Time{l.OKAt, l.ErrSince} {
			if x.After(t) {
				t = x
			}
		}
	}
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// Sinks returns the sinks.
func (n *Notifier) Sinks() []Sink { return n.sinks }
