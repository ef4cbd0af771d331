package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/metrics"
	"ilinkdash/ui"
	"ilinkdash/ui/common"
	"ilinkdash/ui/live"
	"ilinkdash/ui/views/tab"
)

// runFleetExporter is the exporter over several contexts (--context a,b,c,
// --all-contexts, a `spokes: all` hub): one client per cluster, watched
// by a fleetWatch; each hub of hubs is followed, a spoke that links later
// watched like the others.
func (a *app) runFleetExporter(cmd *cobra.Command, listen string, f *monitorFlags, rs []config.Resolved, hubs []fleetHub) error {
	out := cmd.ErrOrStderr()
	logf := log.New(out, "", log.LstdFlags).Printf
	hcfgs, err := monitorHealth(rs)
	if err != nil {
		return err
	}
	open, _ := a.lagOpener() // each lag.close closes what it opened
	ex := &exportedSet{cmd: cmd, open: open, logf: logf}
	defer ex.close() // after run: the watchers have stopped
	members := make([]watchedCluster, len(rs))
	lags := make([]*lagKeeper, len(rs))
	for i, r := range rs {
		if members[i], lags[i], err = ex.start(r, hcfgs[i]); err != nil {
			return err
		}
	}
	fw := newFleetWatch(members, f, logf, true)
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--listen: %w", err)}
	}
	fmt.Fprintf(out, "ilinkdash exporter: listening on %s (/metrics, /healthz), watching contexts %s\n", ln.Addr(), strings.Join(fw.names, ", "))
	fw.printNotify(out)
	for i, m := range fw.ms {
		lags[i].attach(m) // one file per context
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	var following sync.WaitGroup
	defer following.Wait() // before ex.close: no spoke joins then
	defer cancel()
	for _, h := range hubs {
		following.Go(func() { ex.follow(ctx, h, fw) })
	}
	return fw.run(ctx, ln)
}

// exportedSet is what the fleet exporter's clusters hold open (each its
// debug log, client and lag history), closed after the watchers stopped;
// a spoke that links later joins from its hub's follower.
type exportedSet struct {
	cmd  *cobra.Command
	open ui.LagOpener
	logf func(string, ...any)
	log  commandLog

	closers
}

// close closes what the clusters hold, then the debug log they wrote to.
func (ex *exportedSet) close() {
	ex.closers.close()
	ex.log.close()
}

// start opens r's client and lag history: the member watched through
// it, and the history its monitor records into (lagKeeper.attach).
func (ex *exportedSet) start(r config.Resolved, hcfg health.Config) (watchedCluster, *lagKeeper, error) {
	cfg, stop, err := startLogged(ex.cmd, r, &ex.log)
	if err != nil {
		return watchedCluster{}, nil, err
	}
	ex.add(stop)
	cfg.ReadOnly = true
	src, err := live.New(cfg)
	if err != nil {
		return watchedCluster{}, nil, &exitError{code: 2, err: fmt.Errorf("context %s: %w", r.Context.Name, err)}
	}
	ex.add(func() { src.Close() })
	lag := openLagHistory(ex.open, r, ex.logf)
	ex.add(lag.close)
	fetch := tab.Fetchers(src)
	return watchedCluster{resolved: r, target: src.Target(), health: hcfg,
		read: func(ctx context.Context, id common.ResID) (any, error) { return fetch[id](ctx) }}, lag, nil
}

// follow reads h's list on its context's node-list interval until ctx
// ends (ui.SpokeSet: the dashboard's diff and cap, at most maxSpokes): a
// spoke that links later is watched by fw with its client and lag
// history; a list that cannot be read is said once.
func (ex *exportedSet) follow(ctx context.Context, h fleetHub, fw *fleetWatch) {
	rc := h.r.Context
	set := ui.SpokeSet{Hub: rc.Name, Max: maxSpokes}
	set.Take(h.known, nil, time.Now(), nil) // watched from the start
	said := ""
	ui.FollowSpokes(ctx, rc.Refresh.Cluster, func(ctx context.Context) ([]admin.SpokeProperty, error) { return listSpokes(ctx, rc) },
		func(list []admin.SpokeProperty, err error, now time.Time) {
			set.Take(list, err, now, func(spoke string) error {
				mr := h.member(spoke).r
				mb, lag, err := ex.start(mr, health.Config(rc.Health)) // the hub context's, checked at start
				if err != nil {
					return err
				}
				fw.add(mb, lag.attach)
				ex.logf("context %s: spoke %s linked, watched as %s", rc.Name, spoke, mr.Context.Name)
				return nil
			})
			if msg := errorText(set.Err); msg != said {
				if said = msg; msg != "" {
					ex.logf("context %s: the spokes of hub %s: %s", rc.Name, rc.Hub, msg)
				}
			}
		})
}

// errorText is err's text, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// monitorHealth is each context's health thresholds, checked; with
// several contexts an error names its context.
func monitorHealth(rs []config.Resolved) ([]health.Config, error) {
	out := make([]health.Config, len(rs))
	for i, r := range rs {
		out[i] = health.Config(r.Context.Health)
		if err := out[i].Validate(); err != nil {
			if len(rs) > 1 {
				err = fmt.Errorf("context %s: %w", r.Context.Name, err)
			}
			return nil, &exitError{code: 2, err: err}
		}
	}
	return out, nil
}

// watchedCluster is one cluster of a fleetWatch and how its lists are read:
// the exporter's own client, or serve's shared poller of that context
// (serve.Server.PolledIn).
type watchedCluster struct {
	resolved config.Resolved
	target   string // the admin address the unreachable alert names
	health   health.Config
	read     func(context.Context, common.ResID) (any, error)
}

// fleetWatch is the watched clusters of the exporter and of serve
// (--metrics, --notify-*): one monitor per cluster, each its own watcher
// on its own intervals and its own notification sinks (its events carry
// its context), so an unreachable cluster slows none of the others; one
// /metrics with every cluster's series under their context label, and
// /healthz holding while every cluster was reached, naming those that
// were not.
type fleetWatch struct {
	flags *monitorFlags
	logf  func(string, ...any)
	// labelled serves the fleet's exposition and probes even for one
	// member (a hub's spokes: its probes name the spoke).
	labelled bool

	mu    sync.Mutex
	ms    []*monitor
	names []string // the context labels, in the members' order
	// h serves the members' exposition and probes; a member joining
	// (add) rebuilds it.
	h http.Handler
	// ctx is run's while it runs (a member joining then starts at once),
	// stopped once run stops them.
	ctx     context.Context
	stopped bool
	wg      sync.WaitGroup
}

func newFleetWatch(members []watchedCluster, f *monitorFlags, logf func(string, ...any), labelled bool) *fleetWatch {
	fw := &fleetWatch{flags: f, logf: logf, labelled: labelled || len(members) > 1}
	for i, mb := range members {
		fw.ms = append(fw.ms, fw.member(mb, i > 0))
		fw.names = append(fw.names, contextLabel(mb.resolved))
	}
	return fw
}

// member is mb's monitor; noRuntime for every member but the first.
func (fw *fleetWatch) member(mb watchedCluster, noRuntime bool) *monitor {
	return newMonitor(monitorConfig{resolved: mb.resolved, target: mb.target, health: mb.health,
		flags: fw.flags, logf: fw.logf, read: mb.read, noRuntime: noRuntime})
}

// add watches mb too (a spoke that linked after start), on /metrics
// from the next scrape; attach, when set, joins the monitor before it
// runs (its lag history).
func (fw *fleetWatch) add(mb watchedCluster, attach func(*monitor)) {
	m := fw.member(mb, true)
	if attach != nil {
		attach(m)
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.ms = append(fw.ms, m)
	fw.names = append(fw.names, contextLabel(mb.resolved))
	fw.h = nil
	if fw.ctx != nil && !fw.stopped {
		fw.start(m)
	}
}

// start runs m's watcher and sinks until run stops (under mu).
func (fw *fleetWatch) start(m *monitor) {
	ctx := fw.ctx
	fw.wg.Go(func() { _ = m.run(ctx, nil) }) // HTTP is the fleet's
}

// handler serves /metrics, /healthz and /livez of every member.
func (fw *fleetWatch) handler() http.Handler {
	if !fw.labelled {
		return fw.ms[0].handler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fw.members().ServeHTTP(w, r) })
}

// members is the handler of the members now, built again after a join.
func (fw *fleetWatch) members() http.Handler {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.h != nil {
		return fw.h
	}
	var exps []*metrics.Exporter
	var healthz, livez []func() (bool, string)
	for i, m := range fw.ms {
		exps = append(exps, m.exp)
		healthz = append(healthz, labelled(fw.names[i], metrics.Reached(m.w, time.Now)))
		livez = append(livez, labelled(fw.names[i], metrics.Alive(m.w, time.Now)))
	}
	fw.h = metrics.NewFleet(exps...).Handler(healthz, livez)
	return fw.h
}

// printNotify says where the notifications go (every member's sinks are
// the same flags').
func (fw *fleetWatch) printNotify(w io.Writer) { fw.ms[0].printNotify(w) }

// run watches every member until ctx ends, serving the exposition on ln
// (nil: no HTTP, only the notifications), then stops the server, the
// watchers and the sinks.
func (fw *fleetWatch) run(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fw.mu.Lock()
	fw.ctx = ctx
	for _, m := range fw.ms {
		fw.start(m) // the watcher and its sinks; HTTP is the fleet's
	}
	fw.mu.Unlock()
	var err error
	if ln != nil {
		err = serveMetricsHTTP(ctx, ln, fw.handler())
	} else {
		<-ctx.Done()
	}
	cancel()
	fw.mu.Lock()
	fw.stopped = true
	fw.mu.Unlock()
	fw.wg.Wait()
	return err
}

// labelled prefixes a probe rule's text with the context it is about.
func labelled(name string, rule func() (bool, string)) func() (bool, string) {
	return func() (bool, string) {
		ok, why := rule()
		return ok, name + ": " + why
	}
}
