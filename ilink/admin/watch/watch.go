// Package watch keeps a cluster under watch for the headless consumers of
// the health rules (`ilinkdash exporter`, `serve --metrics`, the alert
// notifications): it polls the admin lists on the dashboard's intervals,
// judges them with one health.Monitor — the rules of the dashboard and
// `ilinkdash check` (docs/HEALTH.md) — and keeps the latest Snapshot,
// an immutable value read at any time (a scrape) without touching the
// Monitor.
//
// It reads through a Source, plain functions over the admin client's
// typed values, so the caller decides where the lists come from: its own
// admin connection (the exporter) or a cache other readers share (serve's
// shared poller, which adds no admin load). Whoever wants each new
// snapshot (the notifications; the lag history, later) subscribes with
// Config.OnSnapshot.
package watch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
)

// List names one polled admin list.
type List int

// The lists a Watcher polls.
const (
	Nodes      List = iota // the node list (NODE LIST, through the cluster summary)
	Topics                 // the topic list
	Groups                 // the group list
	Queues                 // the queue list
	Definition             // the cluster definition (getClusterProperty)
	NumLists
)

func (l List) String() string {
	switch l {
	case Nodes:
		return "nodes"
	case Topics:
		return "topics"
	case Groups:
		return "groups"
	case Queues:
		return "queues"
	case Definition:
		return "definition"
	}
	return "list?"
}

// Source reads the lists. A nil function is a list not polled (its
// metrics and alerts are never exported).
type Source struct {
	Nodes      func(context.Context) ([]admin.NodeInfo, error)
	Topics     func(context.Context) ([]admin.TopicInfo, error)
	Groups     func(context.Context) ([]admin.GroupInfo, error)
	Queues     func(context.Context) ([]admin.QueueInfo, error)
	Definition func(context.Context) (admin.ClusterProperty, error)
}

func (s Source) fetch(l List) func(context.Context) (any, error) {
	wrap := func(f func(context.Context) (any, error), ok bool) func(context.Context) (any, error) {
		if !ok {
			return nil
		}
		return f
	}
	switch l {
	case Nodes:
		return wrap(func(c context.Context) (any, error) { return s.Nodes(c) }, s.Nodes != nil)
	case Topics:
		return wrap(func(c context.Context) (any, error) { return s.Topics(c) }, s.Topics != nil)
	case Groups:
		return wrap(func(c context.Context) (any, error) { return s.Groups(c) }, s.Groups != nil)
	case Queues:
		return wrap(func(c context.Context) (any, error) { return s.Queues(c) }, s.Queues != nil)
	case Definition:
		return wrap(func(c context.Context) (any, error) { return s.Definition(c) }, s.Definition != nil)
	}
	return nil
}

// Config is what New needs.
type Config struct {
	// Context names the cluster in every metric and notification (the
	// context's name, or its admin address).
	Context string
	// Target is the address the unreachable alert names ("cannot reach
	// <Target>: <reason>").
	Target string
	// Health holds the thresholds (health.Config of the context's health
	// block): the same as the dashboard's and check's.
	Health health.Config
	// Interval is each list's polling interval (the context's refresh
	// settings, the dashboard's rule); zero takes 2 s.
	Interval [NumLists]time.Duration
	// OnPoll, when set, hears every poll's outcome: its list, how long it
	// took and its error (nil on success).
	OnPoll func(l List, took time.Duration, err error)
	// OnSnapshot, when set, is given every new snapshot, from the polling
	// goroutine of its list (it must not block: hand it over and return).
	// Two lists' snapshots may arrive out of order: Snapshot.Seq orders
	// them.
	OnSnapshot func(*Snapshot)
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// Watcher polls and judges. New, then Run.
type Watcher struct {
	cfg Config
	src Source
	now func() time.Time

	mu    sync.Mutex // the Monitor and the fields below
	mon   *health.Monitor
	lists [NumLists]ListState
	data  Snapshot // the lists' latest data (the snapshot being built)
	seq   uint64

	snap     atomic.Pointer[Snapshot]
	lastPoll atomic.Int64 // unix nanoseconds of the latest completed poll
}

// New returns a Watcher over src.
func New(cfg Config, src Source) *Watcher {
	for l := range cfg.Interval {
		if cfg.Interval[l] <= 0 {
			cfg.Interval[l] = 2 * time.Second
		}
	}
	w := &Watcher{cfg: cfg, src: src, now: cfg.Now, mon: health.New(cfg.Health)}
	w.mon.NoPartitionStatuses() // the snapshot's readers take a partition's lag from its offsets
	if w.now == nil {
		w.now = time.Now
	}
	for l := range NumLists {
		w.lists[l].Polled = src.fetch(l) != nil
	}
	w.mu.Lock()
	w.publishLocked()
	w.mu.Unlock()
	return w
}

// Timeout bounds one read of a list: the dashboard's poller's bound (10 s
// beyond the interval).
func (w *Watcher) Timeout(l List) time.Duration { return 10*time.Second + w.cfg.Interval[l] }

// StaleAfter is when a list's data turns stale: three polling intervals,
// the dashboard's rule (docs/HEALTH.md, "Connection truth").
func (w *Watcher) StaleAfter(l List) time.Duration { return 3 * w.cfg.Interval[l] }

// Run polls every list until ctx ends: one loop per list, each re-armed
// when its reply arrives (never two reads of a list at once), retrying
// after one interval after the first failure and two after the next, as
// the dashboard does.
func (w *Watcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for l := range NumLists {
		if w.src.fetch(l) == nil {
			continue
		}
		wg.Go(func() { w.loop(ctx, l) })
	}
	wg.Wait()
}

func (w *Watcher) loop(ctx context.Context, l List) {
	fails := 0
	for {
		if err := w.Poll(ctx, l); err != nil {
			fails++
		} else {
			fails = 0
		}
		wait := w.cfg.Interval[l]
		if fails > 1 {
			wait *= 2
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Poll reads one list now and takes its answer in (Run calls it; tests
// call it to step). It returns the read's error.
func (w *Watcher) Poll(ctx context.Context, l List) error {
	fetch := w.src.fetch(l)
	if fetch == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	start := w.now()
	c, cancel := context.WithTimeout(ctx, w.Timeout(l))
	data, err := fetch(c)
	cancel()
	if ctx.Err() != nil {
		return ctx.Err() // shutting down: not the cluster's failure
	}
	at := w.now()
	if w.cfg.OnPoll != nil {
		w.cfg.OnPoll(l, at.Sub(start), err)
	}
	w.Observe(l, data, err, at)
	return err
}

// Observe takes in one answer of list l that arrived at `at` (err: the
// read failed; data is then ignored) and publishes a new snapshot.
func (w *Watcher) Observe(l List, data any, err error, at time.Time) {
	w.mu.Lock()
	st := &w.lists[l]
	if err != nil {
		if st.Err == nil {
			st.ErrSince = at
		}
		st.Err = err
	} else {
		st.Err, st.ErrSince, st.OKAt = nil, time.Time{}, at
		w.takeLocked(l, data, at)
	}
	w.lastPoll.Store(at.UnixNano())
	s := w.publishLocked()
	w.mu.Unlock()
	if w.cfg.OnSnapshot != nil {
		w.cfg.OnSnapshot(s)
	}
}

func (w *Watcher) takeLocked(l List, data any, at time.Time) {
	switch l {
	case Nodes:
		d, _ := data.([]admin.NodeInfo)
		w.data.Nodes = d
		w.mon.ObserveNodes(d, at)
	case Topics:
		d, _ := data.([]admin.TopicInfo)
		w.data.Topics = d
		w.mon.ObserveTopics(d, at)
	case Groups:
		d, _ := data.([]admin.GroupInfo)
		w.mon.ObserveGroups(d, at)
		w.data.Groups = w.mon.Groups() // the listed groups and the durable ones missing from the list
	case Queues:
		d, _ := data.([]admin.QueueInfo)
		w.data.Queues = d
		w.mon.ObserveQueues(d, at)
	case Definition:
		d, _ := data.(admin.ClusterProperty)
		w.data.Definition = d
		w.mon.ObserveDefinition(d, at)
	}
}

// publishLocked builds the snapshot of the latest lists and alerts.
func (w *Watcher) publishLocked() *Snapshot {
	s := w.data // the slices are the polls' own, never written again
	w.seq++
	s.Seq = w.seq
	s.Context, s.Target, s.Health, s.Lists = w.cfg.Context, w.cfg.Target, w.mon.Config(), w.lists
	for l := range NumLists {
		s.StaleAfter[l] = w.StaleAfter(l)
	}
	s.Alerts = w.mon.Alerts()
	if a, ok := s.unreachable(); ok {
		s.Alerts = append([]health.Alert{a}, s.Alerts...)
	}
	w.snap.Store(&s)
	return &s
}

// Snapshot returns the latest snapshot (never nil; shared: read only).
func (w *Watcher) Snapshot() *Snapshot { return w.snap.Load() }

// LastPoll is when the latest poll of any list completed (zero before the
// first): /healthz says whether the watcher is alive by it.
func (w *Watcher) LastPoll() time.Time {
	n := w.lastPoll.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// MaxPollGap is the longest a live watcher goes without completing a poll:
// the longest list's retry wait and read timeout.
func (w *Watcher) MaxPollGap() time.Duration {
	var d time.Duration
	for l := range NumLists {
		if w.lists[l].Polled {
			d = max(d, 2*w.cfg.Interval[l]+w.Timeout(l))
		}
	}
	return d
}
