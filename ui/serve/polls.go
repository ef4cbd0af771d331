package serve

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

// polls is the one poller every session reads the polled admin resources
// through: a cache in front of one tab.Sources, with one fetch in
// flight per resource at a time (later askers wait for it) and a
// freshness bound of one polling interval. Each session keeps its own
// poller state machine (ui/poll.go: ticks, backoff, stale replies); when
// its tick asks, it gets the cached reply if that is younger than one
// interval, so however many sessions tick, the cluster sees at most one
// request per resource per interval, and no session's data is older than
// one interval plus the session's own tick.
//
// A failed fetch is cached like a success: during an outage the cluster
// still sees one request per interval, and every session shows the error
// and backs off as a lone dashboard does. A mutation (any session's)
// invalidates everything, so the refresh that follows it is a real read.
//
// The fetch runs on the server's context with the poller's timeout, not
// on the asking session's: a session that goes away does not cancel the
// read the others wait for; its own wait ends with its context.
type polls struct {
	fetch   []func(context.Context) (any, error) // by common.ResID: tab.Fetchers
	refresh config.Refresh
	base    context.Context
	now     func() time.Time

	mu  sync.Mutex
	gen uint64 // bumped by invalidate
	res map[string]*pollEntry
}

// maxEntries bounds the cache: the polled resources and one entry per
// detail some session opened; past it, entries older than a minute go.
const maxEntries = 256

type pollEntry struct {
	has    bool
	gen    uint64
	sent   time.Time
	val    any
	err    error
	flight *pollFlight
}

type pollFlight struct {
	gen  uint64
	done chan struct{}
	val  any
	err  error
}

// newPolls builds the poller over src (the read-only role's client, so
// the shared reads can never mutate): every declared resource
// (tab.Polled), and extra (a test's own).
func newPolls(base context.Context, src tab.Sources, refresh config.Refresh, extra ...tab.Resource) *polls {
	p := &polls{refresh: refresh, base: base, now: time.Now, res: map[string]*pollEntry{}}
	p.fetch = tab.Fetchers(src, extra...)
	return p
}

// interval is the resource's polling interval, the dashboard's own rule.
func (p *polls) interval(id common.ResID) time.Duration {
	return (&common.Context{Config: config.Context{Refresh: p.refresh}}).Interval(id)
}

// fetchTimeout bounds one shared read, as the dashboard's poller does.
func (p *polls) fetchTimeout(id common.ResID) time.Duration { return 10*time.Second + p.interval(id) }

// get returns the resource: cached when younger than one interval, else
// from the fetch in flight or a new one.
func (p *polls) get(ctx context.Context, id common.ResID) (any, error) {
	if id < 0 || int(id) >= len(p.fetch) || p.fetch[id] == nil {
		return nil, fmt.Errorf("serve: no polled resource %d (%v) is declared", id, id)
	}
	return p.shared(ctx, "res/"+strconv.Itoa(int(id)), p.interval(id), p.fetchTimeout(id), p.fetch[id])
}

// last is id's last reply without asking the cluster: its value and when
// it was asked for; false when there is none yet or it was an error.
func (p *polls) last(id common.ResID) (any, time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.res["res/"+strconv.Itoa(int(id))]
	if e == nil || !e.has || e.err != nil {
		return nil, time.Time{}, false
	}
	return e.val, e.sent, true
}

// detail is a session's detail read (a topic or a group described, a
// topic's stat series) under the same rule: however many sessions have
// the same detail open, the cluster sees it read once per its interval.
// key names the call and its arguments; like is the polled resource
// whose interval the detail's view re-reads it at.
func (p *polls) detail(ctx context.Context, key string, like common.ResID, fetch func(context.Context) (any, error)) (any, error) {
	return p.shared(ctx, "detail/"+key, p.interval(like), p.fetchTimeout(like), fetch)
}

// shared is the cache: key's reply when younger than fresh, else the
// fetch in flight for it, or a new one bounded by timeout.
func (p *polls) shared(ctx context.Context, key string, fresh, timeout time.Duration, fetch func(context.Context) (any, error)) (any, error) {
	p.mu.Lock()
	now := p.now()
	e := p.res[key]
	if e == nil {
		p.trimLocked(now)
		e = &pollEntry{}
		p.res[key] = e
	}
	if e.has && e.gen == p.gen && now.Sub(e.sent) < fresh {
		v, err := e.val, e.err
		p.mu.Unlock()
		return v, err
	}
	f := e.flight
	if f == nil || f.gen != p.gen {
		f = &pollFlight{gen: p.gen, done: make(chan struct{})}
		e.flight = f
		go p.run(e, f, now, timeout, fetch)
	}
	p.mu.Unlock()
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// trimLocked drops, once the cache is full, the entries nobody asked for
// in the last minute (none in flight).
func (p *polls) trimLocked(now time.Time) {
	if len(p.res) < maxEntries {
		return
	}
	for k, e := range p.res {
		if e.flight == nil && now.Sub(e.sent) > time.Minute {
			delete(p.res, k)
		}
	}
}

func (p *polls) run(e *pollEntry, f *pollFlight, sent time.Time, timeout time.Duration, fetch func(context.Context) (any, error)) {
	ctx, cancel := context.WithTimeout(p.base, timeout)
	f.val, f.err = fetch(ctx)
	cancel()
	p.mu.Lock()
	if e.flight == f {
		e.flight = nil
	}
	// A reply from before an invalidation is handed to those who waited
	// for it, but not cached.
	if f.gen == p.gen {
		e.has, e.gen, e.sent, e.val, e.err = true, f.gen, sent, f.val, f.err
	}
	p.mu.Unlock()
	close(f.done)
}

// invalidate forgets every cached reply and every fetch in flight (for
// new askers): the next read of each resource goes to the cluster.
func (p *polls) invalidate() {
	p.mu.Lock()
	p.gen++
	p.mu.Unlock()
}

// Polled reads the polled resource id through the shared poller, as a
// session's poll does: the cached reply when younger than one interval,
// else the read in flight or a new one. `serve --metrics` and the alert
// notifications watch the cluster through it, so they add no admin
// request while any session polls the same list, and one dashboard's
// worth while none does. With several contexts it reads the first;
// PolledIn reads the others.
func (s *Server) Polled(ctx context.Context, id common.ResID) (any, error) {
	return s.servedList()[0].polls.get(ctx, id)
}

// PolledIn is Polled of the served context i (in the order given, then
// the spokes that linked later: Hub.Added's index).
func (s *Server) PolledIn(i int) func(context.Context, common.ResID) (any, error) {
	return s.servedList()[i].polls.get
}
