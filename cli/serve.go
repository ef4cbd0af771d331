package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui"
	"ilinkdash/ui/common"
	"ilinkdash/ui/live"
	"ilinkdash/ui/serve"
)

// serveFlags are the serve command's own flags; each overrides its field
// of the config file's serve section when given.
type serveFlags struct {
	listen, authorizedKeys, operatorKeys, hostKey, auditLog, saveDir string
	maxSessions, maxTails, tailBuffer, maxColumns, maxRows           int
	maxStartups, maxPerKey                                           int
	tailBufferBytes, saveMaxBytes                                    string
	idleTimeout, openTimeout                                         time.Duration
	// metrics is --metrics (the exposition's listen address, "" for none);
	// monitor the notification and cardinality flags exporter shares.
	metrics string
	monitor monitorFlags
	// allContexts serves every context of the config file (as --context
	// a,b,c names several): the Fleet tab first.
	allContexts bool
}

// shutdownGrace bounds a graceful stop: sessions told, tails closed.
const shutdownGrace = 15 * time.Second

func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the dashboard over SSH, one shared poller for every operator",
		Long: "serve runs an SSH server: every `ssh -p PORT HOST` with a known key gets the\n" +
			"dashboard of the selected context (--context, --addr/--admin; none: the embedded\n" +
			"demo). Keys in --authorized-keys get a read-only dashboard, keys in --operator-keys\n" +
			"may change the cluster; every other key is refused. All sessions share one poller,\n" +
			"so the cluster's admin load does not grow with the number of operators.\n" +
			"--metrics HOST:PORT also serves the exporter's /metrics and /healthz, and\n" +
			"--notify-webhook/--notify-command its alert notifications, through the same\n" +
			"shared poller (no admin load of their own while sessions poll).\n" +
			"With several contexts (--context a,b,c or --all-contexts) each cluster has its own\n" +
			"shared poller, a session starts on the Fleet tab, and `ssh -t HOST CONTEXT` opens\n" +
			"that context's tabs (0 returns to the fleet); --metrics serves every cluster's\n" +
			"series (their context label) and the notifications say their context.\n" +
			"Settings: flags > the config file's serve section > defaults. SIGINT/SIGTERM stop\n" +
			"it gracefully.",
		Example: "  ilinkdash serve --context prod --operator-keys ~/.ssh/ops_keys\n" +
			"  ilinkdash serve --context prod,staging,dr --authorized-keys ~/.ssh/viewers\n" +
			"  ssh -t -p 2222 jumphost staging",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runServe(cmd, &f) },
	}
	d := config.DefaultServe()
	fs := cmd.Flags()
	fs.StringVar(&f.listen, "listen", d.Listen, "SSH listen address host:port")
	fs.StringVar(&f.authorizedKeys, "authorized-keys", "", "OpenSSH authorized_keys file of read-only viewers")
	fs.StringVar(&f.operatorKeys, "operator-keys", "", "OpenSSH authorized_keys file of operators (may mutate)")
	fs.StringVar(&f.hostKey, "host-key", "", "ed25519 host key, created on first start (default "+config.DefaultHostKey()+")")
	fs.IntVar(&f.maxSessions, "max-sessions", d.MaxSessions, "dashboards served at once")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", d.IdleTimeout, "close a session without input for this long (0: never)")
	fs.IntVar(&f.maxTails, "max-tails", d.MaxTails, "tails running at once over all sessions (0: no tailing)")
	fs.IntVar(&f.tailBuffer, "tail-buffer", d.TailBuffer, "records each session's tail keeps")
	fs.StringVar(&f.tailBufferBytes, "tail-buffer-bytes", config.FormatBytes(d.TailBufferBytes), "bytes of records each session's tail keeps (e.g. 16MiB)")
	fs.IntVar(&f.maxColumns, "max-columns", d.MaxColumns, "clamp every session's terminal to this many columns")
	fs.IntVar(&f.maxRows, "max-rows", d.MaxRows, "clamp every session's terminal to this many rows")
	fs.DurationVar(&f.openTimeout, "open-timeout", d.OpenTimeout, "close a connection that has no dashboard this long after authenticating")
	fs.IntVar(&f.maxStartups, "max-startups", d.MaxStartups, "connections without a dashboard yet (handshaking, authenticating, opening) at once")
	fs.IntVar(&f.maxPerKey, "max-sessions-per-key", d.MaxSessionsPerKey, "dashboards one key may hold at once")
	fs.StringVar(&f.saveDir, "save-dir", "", "the one directory operators' tail saves are written to, with names the server chooses (default: saving off)")
	fs.StringVar(&f.saveMaxBytes, "save-max-bytes", config.FormatBytes(d.SaveMaxBytes), "largest file one tail save writes")
	fs.StringVar(&f.auditLog, "audit-log", "", "append every mutating action, connect and disconnect to this file (JSON lines)")
	fs.StringVar(&f.metrics, "metrics", "", "also serve the Prometheus exposition (/metrics, /healthz) on this HTTP host:port, fed by the shared poller (e.g. "+defaultMetricsListen+")")
	fs.BoolVar(&f.allContexts, "all-contexts", false, "serve every context of the config file (as --context a,b,c names some): each on its own shared poller, sessions start on the Fleet tab")
	f.monitor.register(fs)
	return cmd
}

// serveSettings applies the given flags over the serve section of the
// config file at path (the file in use, named when no key file is given).
func serveSettings(cmd *cobra.Command, file config.Serve, path string, f *serveFlags, getenv func(string) string) (config.Serve, error) {
	s := file
	set := cmd.Flags().Changed
	if set("listen") {
		s.Listen = f.listen
	}
	if set("authorized-keys") {
		s.AuthorizedKeys = f.authorizedKeys
	}
	if set("operator-keys") {
		s.OperatorKeys = f.operatorKeys
	}
	if set("host-key") {
		s.HostKey = f.hostKey
	}
	if set("max-sessions") {
		s.MaxSessions = f.maxSessions
	}
	if set("idle-timeout") {
		s.IdleTimeout = f.idleTimeout
	}
	if set("max-tails") {
		s.MaxTails = f.maxTails
	}
	if set("tail-buffer") {
		s.TailBuffer = f.tailBuffer
	}
	if set("audit-log") {
		s.AuditLog = f.auditLog
	}
	if set("max-columns") {
		s.MaxColumns = f.maxColumns
	}
	if set("max-rows") {
		s.MaxRows = f.maxRows
	}
	if set("open-timeout") {
		s.OpenTimeout = f.openTimeout
	}
	if set("max-startups") {
		s.MaxStartups = f.maxStartups
	}
	if set("max-sessions-per-key") {
		s.MaxSessionsPerKey = f.maxPerKey
	}
	if set("save-dir") {
		dir, err := filepath.Abs(f.saveDir)
		if err != nil {
			return s, fmt.Errorf("--save-dir: %w", err)
		}
		s.SaveDir = dir
	}
	for _, b := range []struct {
		flag, v string
		dst     *int64
	}{{"tail-buffer-bytes", f.tailBufferBytes, &s.TailBufferBytes}, {"save-max-bytes", f.saveMaxBytes, &s.SaveMaxBytes}} {
		if !set(b.flag) {
			continue
		}
		n, err := config.ParseBytes(b.v)
		if err != nil {
			return s, fmt.Errorf("--%s: %w", b.flag, err)
		}
		*b.dst = n
	}
	if s.HostKey == "" {
		s.HostKey = config.DefaultHostKeyFor(getenv)
	}
	if err := config.CheckListen(s.Listen); err != nil {
		return s, fmt.Errorf("--listen: %w", err)
	}
	if err := s.Check(); err != nil {
		return s, err
	}
	if s.AuthorizedKeys == "" && s.OperatorKeys == "" {
		where := "a config file (--config)" // --config "": no file
		if path != "" {
			where = path
		}
		return s, fmt.Errorf("nobody could connect: give --authorized-keys (read-only viewers) and/or --operator-keys, or set them in the serve section of %s", where)
	}
	return s, nil
}

func (a *app) runServe(cmd *cobra.Command, f *serveFlags) error {
	if cmd.Flags().Changed("metrics") {
		if err := checkMetricsListen("metrics", f.metrics); err != nil {
			return err
		}
	}
	if err := f.monitor.check(cmd); err != nil {
		return err
	}
	// A hub's spokes listed at start are served one by one, each with its
	// shared poller; the server follows the hub for those that link later.
	rs, hubs, spokes, err := a.resolveWatched(cmd, f.allContexts)
	if err != nil {
		return err
	}
	sc, err := serveSettings(cmd, rs[0].File.Serve, rs[0].File.Path, f, a.getenv)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := serve.CheckFiles(sc); err != nil {
		return &exitError{code: 2, err: err} // before any cluster starts
	}
	// serve is no TUI: its log goes to stderr (the client's debug log, with
	// --debug, to --log-file as usual).
	out := cmd.ErrOrStderr()
	srvLog := log.New(out, "", log.LstdFlags)
	set := &servedSet{cmd: cmd}
	clusters, targets, err := startServed(set, rs)
	if err != nil {
		return err
	}
	defer set.close()
	open, _ := a.lagOpener() // each keeper closes what it opened
	lag := openServeLag(open, rs, srvLog.Printf)
	defer lag.close() // after the monitor: deferred before it

	joins := &spokeJoins{set: set, open: open, lag: lag, logf: srvLog.Printf}
	srv, err := serve.New(serve.Config{Serve: sc, Clusters: clusters, Hubs: serveHubs(hubs, joins), LagHistory: lag.stores(), Logf: srvLog.Printf})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	ln, err := net.Listen("tcp", sc.Listen)
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return &exitError{code: 2, err: fmt.Errorf("--listen: %w", err)}
	}
	watched, err := startServeMonitor(cmd, f, spokes, targets, srv.PolledIn, srvLog.Printf, lag)
	if err != nil {
		_ = ln.Close()
		_ = srv.Shutdown(context.Background())
		return err
	}
	joins.monitor, joins.polled = watched, srv.PolledIn
	printServeBanner(out, srv, sc, rs, ln.Addr())
	watched.banner(out)
	defer watched.stop()
	lag.record(cmd.Context(), srv.PolledIn)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		_ = srv.Shutdown(context.Background())
		return err
	case <-watched.done:
		_ = srv.Shutdown(context.Background())
		<-served
		return watched.err
	case <-cmd.Context().Done(): // SIGINT/SIGTERM
	}
	srvLog.Printf("serve: shutting down, telling the open sessions (%d)", len(srv.Sessions()))
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(ctx)
	<-served
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	srvLog.Printf("serve: stopped")
	return nil
}

// servedSet is what serve's clusters hold open: each context's cluster
// (the embedded demo when nothing is configured) and its two roles'
// backends, the viewer's read-only, the operator's read-only too when the
// context is. A spoke linking later is added from its hub's follower
// (serve.Hub.Spoke); close closes everything.
type servedSet struct {
	cmd *cobra.Command
	log commandLog
	closers
}

// close closes what the clusters hold, then the debug log they wrote to.
func (set *servedSet) close() {
	set.closers.close()
	set.log.close()
}

// start starts r's cluster and backends; target is the admin address
// they reach.
func (set *servedSet) start(r config.Resolved) (c serve.Cluster, target string, err error) {
	cfg, stopCluster, err := startLogged(set.cmd, r, &set.log)
	if err != nil {
		return c, "", err
	}
	set.add(stopCluster)
	viewerCfg := cfg
	viewerCfg.ReadOnly = true
	viewer, err := live.New(viewerCfg)
	if err != nil {
		return c, "", err
	}
	set.add(func() { viewer.Close() })
	operator, err := live.New(cfg) // read-only too when the context is
	if err != nil {
		return c, "", err
	}
	set.add(func() { operator.Close() })
	return serve.Cluster{Context: r.Context, Demo: r.Embedded, Viewer: viewer, Operator: operator}, viewer.Target(), nil
}

// closers are what a command holds open, closed last first; a cluster
// joining later (a spoke) adds its own from another goroutine.
type closers struct {
	mu  sync.Mutex
	fns []func()
}

func (c *closers) add(closer func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fns = append(c.fns, closer)
}

func (c *closers) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.fns) - 1; i >= 0; i-- {
		c.fns[i]()
	}
	c.fns = nil
}

// startServed starts each context's cluster and backends (servedSet);
// targets are the admin addresses the backends reach.
func startServed(set *servedSet, rs []config.Resolved) (cs []serve.Cluster, targets []string, err error) {
	for _, r := range rs {
		if len(rs) > 1 && (r.Embedded || (r.Context.Admin == "" && r.Context.Hub == "")) {
			err = errors.New("no admin address: serving several contexts watches configured clusters")
		} else {
			var c serve.Cluster
			var target string
			c, target, err = set.start(r)
			cs, targets = append(cs, c), append(targets, target)
		}
		var exit *exitError
		switch {
		case err == nil:
			continue
		case errors.As(err, &exit):
		case len(rs) > 1:
			err = &exitError{code: 2, err: fmt.Errorf("context %s: %w", r.Context.Name, err)}
		default:
			err = &exitError{code: 2, err: err}
		}
		set.close()
		return nil, nil, err
	}
	return cs, targets, nil
}

// serveHubs are the followed hubs of serve (serve.Hub): each hub's list
// read again on its context's node-list interval, a spoke linking later
// served as CONTEXT/SPOKE (at most maxSpokes per hub) as j says.
func serveHubs(hubs []fleetHub, j *spokeJoins) []serve.Hub {
	out := make([]serve.Hub, 0, len(hubs))
	for _, h := range hubs {
		rc := h.r.Context
		out = append(out, serve.Hub{Name: rc.Name, Every: rc.Refresh.Cluster, Max: maxSpokes, Known: h.known,
			List:  func(ctx context.Context) ([]admin.SpokeProperty, error) { return listSpokes(ctx, rc) },
			Spoke: func(spoke string) (serve.Cluster, error) { return j.spoke(h.member(spoke).r) },
			Added: j.added})
	}
	return out
}

// spokeJoins is what serve does for a spoke that links after start: its
// cluster and backends are started on set and its lag history opened
// with them (its sessions chart it); once served, it is watched by the
// monitor when one runs (--metrics, --notify-*: its series, its
// notifications, its history recorded), else by a watcher of its own
// recording the history. monitor and polled are set before Serve.
type spokeJoins struct {
	set     *servedSet
	open    ui.LagOpener
	lag     *serveLag
	logf    func(string, ...any)
	monitor *serveMonitor
	polled  func(int) func(context.Context, common.ResID) (any, error)

	mu   sync.Mutex
	kept map[string]spokeJoin // by context name, from spoke to added
}

type spokeJoin struct {
	r      config.Resolved
	target string
	lag    *lagKeeper
}

// spoke is serve.Hub.Spoke: r's cluster, backends and lag history.
func (j *spokeJoins) spoke(r config.Resolved) (serve.Cluster, error) {
	c, target, err := j.set.start(r)
	if err != nil {
		return c, err
	}
	k := openLagHistory(j.open, r, j.logf)
	c.LagHistory = k.st
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.kept == nil {
		j.kept = map[string]spokeJoin{}
	}
	j.kept[r.Context.Name] = spokeJoin{r: r, target: target, lag: k}
	return c, nil
}

// added is serve.Hub.Added: served context i is watched.
func (j *spokeJoins) added(i int, c serve.Cluster) {
	j.mu.Lock()
	sj, ok := j.kept[c.Context.Name]
	delete(j.kept, c.Context.Name)
	j.mu.Unlock()
	if !ok {
		return
	}
	j.lag.join(sj.r, sj.lag)
	if fw := j.monitor.fw; fw != nil {
		// The hub context's thresholds, checked at start.
		fw.add(watchedCluster{resolved: sj.r, target: sj.target, health: health.Config(sj.r.Context.Health), read: j.polled(i)}, sj.lag.attach)
		return
	}
	j.lag.watch(sj.r, sj.lag, j.polled(i))
}

// serveMonitor is serve's watched clusters (--metrics, --notify-*): a
// fleetWatch reading each served context through its shared poller,
// running until stop.
type serveMonitor struct {
	fw     *fleetWatch
	ln     net.Listener
	done   chan struct{} // closed when the monitor ended (stopped, or its HTTP server failed)
	err    error         // why, once done is closed
	cancel context.CancelFunc
}

// startServeMonitor starts serve's monitor when --metrics or a
// notification flag asks for one (otherwise a monitor that never ends):
// one watcher per served context i (lag.rs[i], at targets[i]) reading
// through its shared poller, polledIn(i): no admin request of its own
// while sessions poll. Each records into its context's lag history too.
// spokes: the contexts are a hub's, labelled even alone.
func startServeMonitor(cmd *cobra.Command, f *serveFlags, spokes bool, targets []string, polledIn func(int) func(context.Context, common.ResID) (any, error),
	logf func(string, ...any), lag *serveLag) (*serveMonitor, error) {
	sm := &serveMonitor{done: make(chan struct{}), cancel: func() {}}
	if f.metrics == "" && !f.monitor.notifies() {
		return sm, nil
	}
	hcfgs, err := monitorHealth(lag.rs)
	if err != nil {
		return nil, err
	}
	members := make([]watchedCluster, len(lag.rs))
	for i, r := range lag.rs {
		members[i] = watchedCluster{resolved: r, target: targets[i], health: hcfgs[i], read: polledIn(i)}
	}
	sm.fw = newFleetWatch(members, &f.monitor, logf, spokes)
	for i, m := range sm.fw.ms {
		lag.keepers[i].attach(m)
	}
	if f.metrics != "" {
		ln, err := net.Listen("tcp", f.metrics)
		if err != nil {
			return nil, &exitError{code: 2, err: fmt.Errorf("--metrics: %w", err)}
		}
		sm.ln = ln
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	sm.cancel = cancel
	go func() { sm.err = sm.fw.run(ctx, sm.ln); close(sm.done) }()
	return sm, nil
}

func (sm *serveMonitor) banner(w io.Writer) {
	if sm.fw == nil {
		return
	}
	if sm.ln != nil {
		through := "the shared poller"
		if len(sm.fw.names) > 1 {
			through = "each context's shared poller: " + strings.Join(sm.fw.names, ", ")
		}
		fmt.Fprintf(w, "metrics: listening on %s (/metrics, /healthz), through %s\n", sm.ln.Addr(), through)
	}
	sm.fw.printNotify(w)
}

// stop ends the monitor and waits for it.
func (sm *serveMonitor) stop() {
	if sm.fw == nil {
		return
	}
	sm.cancel()
	select {
	case <-sm.done:
	case <-time.After(2 * metricsShutdownGrace):
	}
}

func printServeBanner(w io.Writer, srv *serve.Server, sc config.Serve, rs []config.Resolved, addr net.Addr) {
	r := rs[0]
	target := monitorTarget(r)
	if r.Context.ReadOnly {
		target += " (read-only: operators are read-only too)"
	}
	if len(rs) > 1 {
		var names, ro []string
		for _, r := range rs {
			names = append(names, r.Context.Name)
			if r.Context.ReadOnly {
				ro = append(ro, r.Context.Name)
			}
		}
		target = "contexts " + strings.Join(names, ", ") + " (sessions start on the Fleet tab; ssh -t HOST CONTEXT opens one)"
		if len(ro) > 0 {
			target += "; read-only, for operators too: " + strings.Join(ro, ", ")
		}
	}
	fmt.Fprintf(w, "ilinkdash serve: listening on %s, serving %s\n", addr, target)
	created := ""
	if srv.HostKeyCreated() {
		created = " (created)"
	}
	fmt.Fprintf(w, "host key %s%s: %s\n", srv.HostKeyPath(), created, srv.HostKeyFingerprint())
	ops, views := srv.KeyCounts()
	fmt.Fprintf(w, "keys: %d operator (%s), %d viewer (%s)\n", ops, orNone(sc.OperatorKeys), views, orNone(sc.AuthorizedKeys))
	fmt.Fprintf(w, "limits: %d sessions (%d per key), %d tails of at most %s each, terminals up to %dx%d, idle timeout %v; audit log %s\n",
		sc.MaxSessions, sc.MaxSessionsPerKey, sc.MaxTails, config.FormatBytes(sc.TailBufferBytes), sc.MaxColumns, sc.MaxRows, sc.IdleTimeout, orNone(sc.AuditLog))
	save := "off"
	if sc.SaveDir != "" {
		save = sc.SaveDir + " (operators, at most " + config.FormatBytes(sc.SaveMaxBytes) + " a file)"
	}
	fmt.Fprintf(w, "connections: %d without a dashboard at once, each closed %v after authenticating without one; tail saves: %s\n", sc.MaxStartups, sc.OpenTimeout, save)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
