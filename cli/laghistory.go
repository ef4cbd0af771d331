package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"ilinkdash/config"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/history"
	"ilinkdash/ui"
	"ilinkdash/ui/common"
)

// lagKeeper is the lag history a headless command (exporter, serve) keeps
// of one context: the dashboard's file of that context (lagOpener), fed
// every snapshot of the context's watcher by a history.Recorder, so the
// dashboard opened later (or serve's sessions) chart what was watched.
type lagKeeper struct {
	st   *history.Store // nil: no history this run
	rec  *history.Recorder
	logf func(string, ...any)
}

// lagContext is the name r's history file is kept under, so the
// dashboard, serve and the exporter of one cluster share one file: a
// context's name, demo on the embedded engine; without a context the
// cluster is only its addresses, so "default-" and a digest of them. Two
// clusters given by --admin shared history-default.db, one's lag charted
// as the other's under the same group names.
func lagContext(r config.Resolved) string {
	name := common.ContextName(r.Context, r.Embedded)
	if r.Context.Name != "" || r.Embedded {
		return name
	}
	addrs := append([]string{r.Context.Admin, r.Context.Hub, r.Context.Spoke, r.Context.SpokeKey}, r.Context.Addresses...)
	slices.Sort(addrs[4:])
	sum := sha256.Sum256([]byte(strings.Join(addrs, "\n")))
	return name + "-" + hex.EncodeToString(sum[:4])
}

// openLagHistory opens r's history with open (lagOpener's). A file set
// aside is said on logf and a fresh one kept; one that cannot be opened
// (another ilinkdash holds its lock) is said too and the command runs
// without history: the history is a convenience, the watch is the job.
func openLagHistory(open ui.LagOpener, r config.Resolved, logf func(string, ...any)) *lagKeeper {
	k := &lagKeeper{logf: logf}
	st, warn, err := open(lagContext(r))
	if warn != nil {
		logf("lag history: %v", warn)
	}
	if err != nil {
		logf("no lag history this run: %v", err)
		return k
	}
	k.st = st
	logf("lag history: recording into %s", st.Path())
	return k
}

// attach records every snapshot of m's watcher (before m runs).
func (k *lagKeeper) attach(m *monitor) {
	if k.st == nil {
		return
	}
	k.rec = history.NewRecorder(k.st, k.logf)
	m.observers = append(m.observers, k.rec.Record)
}

// close writes the snapshot in hand and what the store observed, and
// closes the file; after the watcher stopped.
func (k *lagKeeper) close() {
	if k.rec != nil {
		k.rec.Close()
	}
	if k.st != nil {
		if err := k.st.Close(); err != nil {
			k.logf("lag history: %v", err)
		}
	}
}

// serveLag is serve's lag histories, one per served context, opened
// before the server: its sessions read them (serve.Config.LagHistory,
// ui.WithSharedLagHistory) and never write. A context whose monitor serve
// runs anyway (--metrics, --notify-*) is recorded by it (attach); the
// others by a watcher of their own over their shared poller: no admin
// request of its own while sessions poll, one dashboard's worth while
// none does, so the history has no hole while nobody watches.
type serveLag struct {
	mu      sync.Mutex // join's, against close
	rs      []config.Resolved
	keepers []*lagKeeper
	ctx     context.Context // record's: the watchers run on it
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// openServeLag opens a lag history for each of rs; each keeper closes
// what it opened through open.
func openServeLag(open ui.LagOpener, rs []config.Resolved, logf func(string, ...any)) *serveLag {
	l := &serveLag{rs: rs, cancel: func() {}}
	for _, r := range rs {
		l.keepers = append(l.keepers, openLagHistory(open, r, logf))
	}
	return l
}

// stores are the histories opened, by context name.
func (l *serveLag) stores() map[string]*history.Store {
	m := map[string]*history.Store{}
	for i, k := range l.keepers {
		if k.st != nil {
			m[l.rs[i].Context.Name] = k.st
		}
	}
	return m
}

// record starts a watcher for every history no monitor records (attach),
// reading served context i through polled(i), its shared poller.
func (l *serveLag) record(ctx context.Context, polled func(int) func(context.Context, common.ResID) (any, error)) {
	l.ctx, l.cancel = context.WithCancel(ctx)
	for i, k := range l.keepers {
		l.watch(l.rs[i], k, polled(i))
	}
}

// watch starts r's watcher recording into k over read, unless k has no
// file or a monitor records it.
func (l *serveLag) watch(r config.Resolved, k *lagKeeper, read func(context.Context, common.ResID) (any, error)) {
	if k.st == nil || k.rec != nil {
		return
	}
	hcfg := health.Config(r.Context.Health)
	if err := hcfg.Validate(); err != nil {
		k.logf("no lag history this run: %v", err)
		return
	}
	m := newMonitor(monitorConfig{resolved: r, health: hcfg, flags: &monitorFlags{}, logf: k.logf, read: read, noRuntime: true})
	k.attach(m)
	ctx := l.ctx
	l.wg.Go(func() { _ = m.run(ctx, nil) })
}

// join keeps k, the history of a context served after start (a spoke that
// linked later), closed with the others; after record.
func (l *serveLag) join(r config.Resolved, k *lagKeeper) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rs, l.keepers = append(l.rs, r), append(l.keepers, k)
}

// close stops the watchers and closes every history (after serve's own
// monitor stopped: it may record into the first).
func (l *serveLag) close() {
	l.cancel()
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range l.keepers {
		k.close()
	}
}
