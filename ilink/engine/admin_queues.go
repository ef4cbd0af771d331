package engine

import (
	"sort"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// Queue administration: QUEUE LIST (depth, in-flight, put/get rates,
// properties), QUEUE PROPERTY and RELOAD QUEUE (3315). Queues live in the
// queue store (queues.go); the list reads the leader's replica.

// queueSnap is one queue as the admin surface reports it.
type queueSnap struct {
	name     string
	depth    int64
	inFlight int64
	putRate  float64
	getRate  float64
	prop     wire.QueuePropertyEntry
}

type queueCounters struct {
	name       string
	cfg        QueueConfig
	depth      int64
	inFlight   int64
	puts, gets uint64
}

// adminQueues reads every queue of the leader's replica (nil, false when
// no leader exists).
func (s *queueStore) adminQueues() ([]queueCounters, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leaderLocked()
	if l == nil {
		return nil, false
	}
	out := make([]queueCounters, 0, len(l.queues))
	for name, q := range l.queues {
		qc := queueCounters{name: name, cfg: q.cfg, depth: int64(len(q.msgs)), puts: q.puts, gets: q.gets}
		for _, m := range q.msgs {
			if m.lockedBy != nil {
				qc.inFlight++
			}
		}
		out = append(out, qc)
	}
	return out, true
}

// queueSnapshot lists the queues sorted by name, with rates and
// properties (empty while no leader exists).
func (e *Engine) queueSnapshot(now time.Time) []queueSnap {
	qs, _ := e.queues.adminQueues()
	sort.Slice(qs, func(i, j int) bool { return qs[i].name < qs[j].name })
	out := make([]queueSnap, len(qs))
	for i, q := range qs {
		put, get := e.adm.rates.rate(now, q.name, q.puts, q.gets)
		out[i] = queueSnap{name: q.name, depth: q.depth, inFlight: q.inFlight, putRate: put, getRate: get, prop: e.queueProperty(q.name, q.cfg, now)}
	}
	return out
}

// queueRates computes per-second put and get rates from the counters,
// sampled when asked (no background goroutine): the rate is measured
// against the oldest sample of the last ~10 s that is at least 1 s old.
// Bound: one rateHist (rateSamples samples) per existing queue; a deleted
// queue's is dropped with it (forgetQueueAdmin), so queue churn does not
// accumulate histories.
type queueRates struct {
	mu sync.Mutex
	m  map[string]*rateHist
}

const rateSamples = 11

type rateHist struct {
	at         [rateSamples]time.Time
	puts, gets [rateSamples]uint64
	n, head    int // samples held; index of the oldest
}

func (q *queueRates) rate(now time.Time, name string, puts, gets uint64) (putRate, getRate float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.m == nil {
		q.m = map[string]*rateHist{}
	}
	h := q.m[name]
	if h == nil {
		h = &rateHist{}
		q.m[name] = h
	}
	if h.n > 0 {
		newest := (h.head + h.n - 1) % rateSamples
		if puts < h.puts[newest] || gets < h.gets[newest] { // a new leader's counters: start over
			h.n, h.head = 0, 0
		}
	}
	// Use the oldest sample within 11 s and at least 1 s old.
	for h.n > 0 && now.Sub(h.at[h.head]) > 11*time.Second {
		h.head = (h.head + 1) % rateSamples
		h.n--
	}
	if h.n > 0 {
		if dt := now.Sub(h.at[h.head]).Seconds(); dt >= 1 {
			putRate = float64(puts-h.puts[h.head]) / dt
			getRate = float64(gets-h.gets[h.head]) / dt
		}
	}
	// Record this sample if the newest is at least a second old.
	newest := (h.head + h.n - 1) % rateSamples
	if h.n == 0 || now.Sub(h.at[newest]) >= time.Second {
		if h.n == rateSamples {
			h.head = (h.head + 1) % rateSamples
			h.n--
		}
		i := (h.head + h.n) % rateSamples
		h.at[i], h.puts[i], h.gets[i] = now, puts, gets
		h.n++
	}
	return putRate, getRate
}

// forget drops a queue's rate history.
func (q *queueRates) forget(name string) {
	q.mu.Lock()
	delete(q.m, name)
	q.mu.Unlock()
}

// queueProps holds when the admin surface first saw each queue (Created);
// bounded like queueRates: a deleted queue's entry goes with it.
// The rest of ILQueueProperty is the queue's QueueConfig (queue_admin.go)
// and fixed values: the frame cap as message size limit, put and get
// enabled, persistent (replicated to every node).
type queuePropsStore struct {
	mu      sync.Mutex
	created map[string]time.Time
}

// forgetQueueAdmin drops a deleted queue's admin state: its creation time
// and its rate history.
func (e *Engine) forgetQueueAdmin(name string) {
	qp := &e.adm.qprops
	qp.mu.Lock()
	delete(qp.created, name)
	qp.mu.Unlock()
	e.adm.rates.forget(name)
}

func (e *Engine) queueProperty(name string, cfg QueueConfig, now time.Time) wire.QueuePropertyEntry {
	qp := &e.adm.qprops
	qp.mu.Lock()
	if qp.created == nil {
		qp.created = map[string]time.Time{}
	}
	c, ok := qp.created[name]
	if !ok {
		c = now
		qp.created[name] = c
	}
	qp.mu.Unlock()
	return wire.QueuePropertyEntry{
		Name: name, Description: cfg.Description, MaxDepth: cfg.MaxDepth, MaxMsgSize: e.cfg.MaxFrame - wire.HeaderSize,
		PutEnabled: true, GetEnabled: true, Persistent: true, CreatedMs: c.UnixMilli(),
		DeadLetterQueue: cfg.DeadLetterQueue, MaxRedeliveries: cfg.MaxRedeliveries,
	}
}

func handleQueueList(r *request) {
	var req wire.QmgrRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	qs := r.c.e.queueSnapshot(time.Now())
	rep := &wire.QueueListReply{Queues: make([]wire.QueueEntry, len(qs))}
	for i, q := range qs {
		rep.Queues[i] = wire.QueueEntry{Depth: q.depth, InFlight: q.inFlight, PutRate: q.putRate, GetRate: q.getRate, Property: q.prop}
	}
	r.reply(rep)
}

// queueDepthNow is a queue's depth on the leader, or the error to answer.
func (e *Engine) queueDepthNow(name string) (int64, *wire.ErrorBody) {
	d, err := e.QueueDepth(name)
	switch {
	case err == ErrNoLeader:
		return 0, errNoLeader()
	case err != nil:
		return 0, errUnknownQueue(name)
	}
	return int64(d), nil
}

func handleQueueProperty(r *request) {
	var req wire.QueueNameRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	e := r.c.e
	if _, eb := e.queueDepthNow(req.Queue); eb != nil {
		r.fail(eb)
		return
	}
	cfg, _ := e.queues.configOf(req.Queue)
	r.reply(&wire.QueuePropertyReply{Property: e.queueProperty(req.Queue, cfg, time.Now())})
}

// handleReloadQueue is RELOAD QUEUE (3315): the in-memory engine has no
// queue file to re-read, so it checks the queue and answers its depth.
func handleReloadQueue(r *request) {
	var req wire.QueueNameRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	d, eb := r.c.e.queueDepthNow(req.Queue)
	if eb != nil {
		r.fail(eb)
		return
	}
	r.c.e.logf("engine: RELOAD QUEUE %s (depth %d)", req.Queue, d)
	r.reply(&wire.ReloadQueueReply{Depth: d})
}
