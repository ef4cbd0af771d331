package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// The admin surface (issue 5): the requests of the admin listener and the
// group-admin codes' neighbours, the cluster definition with its
// controller (clusterdef.go), queue-manager properties, quarantine, load
// counters, the leadership log and hub/spoke relaying.
//
// Ownership: every piece below has its own mutex, and each one is a leaf
// (nothing else is taken while it is held) with two exceptions: the
// cluster calls the leadership log's hooks (leadLog.mu) under cluster.mu,
// which is fine because leadLog.mu is a leaf; and REINJECT holds
// quarantine.mu while it appends to a queue (quarantine.mu → queueStore.mu;
// nothing takes them the other way). Readers of topic state take one
// partition.mu at a time and nothing else meanwhile. Handlers that wait (a
// definition change waiting for the controller) run in r.async; handlers
// that use the fault API (node control, shutdown, patch) run it in a
// goroutine of their own, because the fault API waits for connections,
// the handler's own included, to finish.

// adminState is the engine's admin-side state. It is a value inside
// Engine; initAdmin fills it during Start, before any listener serves.
type adminState struct {
	defs   clusterDefs // clusterdef.go
	props  qmgrProps   // admin_props.go
	leads  leadLog     // admin_leads.go
	quar   quarantine  // admin_quarantine.go
	rates  queueRates  // admin_queues.go
	qprops queuePropsStore
	reqs   []atomic.Int64 // requests handled per node (index id-1), VIEW LOAD
	// codes counts requests per code (every node), for RequestCounts. The
	// map is built before the listeners serve and only read afterwards.
	codes map[wire.Code]*atomic.Int64
	load  loadSampler

	patchMu sync.Mutex
	patches []patchRecord

	// admin_spoke.go: set once under faultMu, read without it (handlers run
	// on connection goroutines, which must never wait for faultMu: the
	// fault API holds it while waiting for connections to finish).
	hub  atomic.Pointer[hub]       // non-nil when this engine is a hub
	link atomic.Pointer[spokeLink] // non-nil when this engine is linked to a hub
}

type patchRecord struct {
	Node     int
	FileName string
	Size     int
	At       time.Time
}

// initAdmin prepares the admin state. Called by Start before the
// listeners serve.
func (e *Engine) initAdmin() {
	a := &e.adm
	a.reqs = make([]atomic.Int64, len(e.nodes))
	a.codes = make(map[wire.Code]*atomic.Int64, len(routes))
	for code := range routes {
		a.codes[code] = new(atomic.Int64)
	}
	a.props.init()
	a.defs.init(e)
	a.leads.init(len(e.nodes))
}

// startAdmin runs after the listeners serve: it starts the configured
// spokes (Config.Spokes). An error closes nothing; Start closes the engine.
func (e *Engine) startAdmin() error {
	if len(e.cfg.Spokes) == 0 {
		return nil
	}
	return e.startSpokes(e.cfg.Spokes)
}

// closeAdmin stops the admin side's goroutines and spoke engines; Close
// calls it (under faultMu) after the listeners are closed.
func (e *Engine) closeAdmin() {
	a := &e.adm
	a.defs.shutdown()
	if l := a.link.Load(); l != nil {
		l.stop()
	}
	if h := a.hub.Load(); h != nil {
		h.stop()
	}
}

// countRequest is the dispatch hook of VIEW LOAD and RequestCounts.
func (e *Engine) countRequest(node int, code wire.Code) {
	if node >= 1 && node <= len(e.adm.reqs) {
		e.adm.reqs[node-1].Add(1)
	}
	if c := e.adm.codes[code]; c != nil {
		c.Add(1)
	}
}

// RequestCounts returns how many requests of each known code the engine's
// nodes have dispatched since Start (codes never received are absent). It
// is what load tests count: the admin requests a client really made.
func (e *Engine) RequestCounts() map[wire.Code]int64 {
	out := make(map[wire.Code]int64)
	for code, c := range e.adm.codes {
		if n := c.Load(); n > 0 {
			out[code] = n
		}
	}
	return out
}

// loadSampler turns request counters into rates: a sample is taken when
// VIEW LOAD asks, and the rate is computed against the previous sample at
// least a second old (no background goroutine).
type loadSampler struct {
	mu   sync.Mutex
	prev []int64
	at   time.Time
	rate []float64
}

func (l *loadSampler) sample(now time.Time, cur []int64) []float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.prev == nil || len(l.prev) != len(cur) {
		l.prev, l.at, l.rate = cur, now, make([]float64, len(cur))
		return append([]float64(nil), l.rate...)
	}
	if dt := now.Sub(l.at).Seconds(); dt >= 1 {
		for i := range cur {
			l.rate[i] = max(0, float64(cur[i]-l.prev[i])/dt)
		}
		l.prev, l.at = cur, now
	}
	return append([]float64(nil), l.rate...)
}
