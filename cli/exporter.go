package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/metrics"
	"ilinkdash/ilink/admin/notify"
	"ilinkdash/ilink/admin/watch"
	"ilinkdash/ui/common"
	"ilinkdash/ui/live"
	"ilinkdash/ui/views/tab"
)

// `ilinkdash exporter` (and `serve --metrics`): the cluster under watch
// for the monitoring stack. One watch.Watcher polls the admin lists on
// the context's intervals and judges them by the dashboard's rules; the
// Prometheus exposition (/metrics, /healthz, /livez) is built from its
// latest snapshot at every scrape (docs/METRICS.md), and the alert
// notifications and the lag history (lagKeeper) hear each snapshot
// (OnSnapshot).

// defaultMetricsListen is the exporter's listen address: loopback, so
// exposing the cluster's figures beyond the host is a choice made on the
// command line. The port is next to the exporters' registry's.
const defaultMetricsListen = "127.0.0.1:9469"

// metricsShutdownGrace bounds the HTTP server's stop, well inside the
// headless commands' stop guard (stopGrace).
const metricsShutdownGrace = time.Second

// monitorFlags are the flags exporter and serve share.
type monitorFlags struct {
	webhook, command  string
	noPartitionSeries bool
}

func (m *monitorFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&m.webhook, "notify-webhook", "", "POST each alert's start and resolve as JSON to this http(s) URL (retried with backoff, never holding up the polls)")
	fs.StringVar(&m.command, "notify-command", "", "run this shell command (sh -c) for each alert's start and resolve, the event as JSON on its stdin")
	fs.BoolVar(&m.noPartitionSeries, "no-partition-series", false, "leave out the per-partition series (ilinkdash_group_lag, ilinkdash_topic_partition_end_offset) for very large clusters")
}

// check validates the notification flags (cmd: whether each was given).
func (m *monitorFlags) check(cmd *cobra.Command) error {
	if cmd.Flags().Changed("notify-webhook") {
		u, err := url.Parse(m.webhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageErr("--notify-webhook %q: want an http:// or https:// URL with a host", m.webhook)
		}
	}
	if cmd.Flags().Changed("notify-command") && strings.TrimSpace(m.command) == "" {
		return usageErr("--notify-command: empty command")
	}
	return nil
}

func (m *monitorFlags) notifies() bool { return m.webhook != "" || m.command != "" }

// checkMetricsListen validates a metrics listen address, naming its flag.
func checkMetricsListen(flag, addr string) error {
	if addr == "" {
		return usageErr("--%s: want HOST:PORT (e.g. %s)", flag, defaultMetricsListen)
	}
	if err := config.CheckListen(addr); err != nil {
		return usageErr("--%s: %v", flag, err)
	}
	return nil
}

func (a *app) exporterCommand() *cobra.Command {
	var f monitorFlags
	var allContexts bool
	var memLimit string
	listen := defaultMetricsListen
	cmd := &cobra.Command{
		Use:   "exporter [--listen HOST:PORT] [--notify-webhook URL] [--notify-command CMD] [--no-partition-series] [--memory-limit SIZE]",
		Short: "Serve the cluster's lag, health words and alerts to Prometheus (/metrics, /healthz)",
		Long: "exporter watches the selected context's cluster (none: the embedded demo) with the\n" +
			"dashboard's rules (docs/HEALTH.md) and serves its figures in the Prometheus text\n" +
			"format on /metrics (docs/METRICS.md; gzipped when the scraper asks), /healthz (200\n" +
			"while the latest polls reached the cluster, else 503 with the reason) and /livez\n" +
			"(200 while it polls). --notify-webhook and --notify-command hear each alert when it\n" +
			"starts and when it resolves. SIGINT/SIGTERM stop it.",
		Example: "  ilinkdash exporter --context prod --listen 127.0.0.1:9469\n" +
			"  ilinkdash exporter --all-contexts\n" +
			"  ilinkdash exporter --notify-webhook https://alerts.example/hook\n" +
			"  ilinkdash exporter --notify-command 'logger -t ilinkdash'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			restore, err := applyMemoryLimit(cmd, memLimit)
			if err != nil {
				return err
			}
			defer restore()
			return a.runExporter(cmd, listen, &f, allContexts)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", defaultMetricsListen, "HTTP listen address host:port of /metrics and /healthz")
	cmd.Flags().BoolVar(&allContexts, "all-contexts", false, "watch every context of the config file (as --context a,b,c names some), one poller each, on one /metrics")
	cmd.Flags().StringVar(&memLimit, "memory-limit", "", "soft limit of the process's Go memory, e.g. 48MiB: the collector runs as the heap nears it (default: none, or GOMEMLIMIT's; docs/METRICS.md)")
	f.register(cmd.Flags())
	return cmd
}

func (a *app) runExporter(cmd *cobra.Command, listen string, f *monitorFlags, allContexts bool) error {
	if err := checkMetricsListen("listen", listen); err != nil {
		return err
	}
	if err := f.check(cmd); err != nil {
		return err
	}
	// A hub's spokes are watched one by one, as listed at start, and the
	// hub followed for those that link later.
	rs, hubs, spokes, err := a.resolveWatched(cmd, allContexts)
	if err != nil {
		return err
	}
	if len(rs) > 1 || spokes {
		return a.runFleetExporter(cmd, listen, f, rs, hubs)
	}
	r := rs[0]
	hcfg := health.Config(r.Context.Health)
	if err := hcfg.Validate(); err != nil {
		return &exitError{code: 2, err: err}
	}
	var debugLog commandLog
	defer debugLog.close() // deferred first: closed last
	cfg, stop, err := startLogged(cmd, r, &debugLog)
	if err != nil {
		return err
	}
	defer stop()
	cfg.ReadOnly = true // the exporter only reads
	src, err := live.New(cfg)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer src.Close()
	fetch := tab.Fetchers(src)
	out := cmd.ErrOrStderr()
	logf := log.New(out, "", log.LstdFlags).Printf
	m := newMonitor(monitorConfig{resolved: r, target: src.Target(), health: hcfg, flags: f, logf: logf,
		read: func(ctx context.Context, id common.ResID) (any, error) { return fetch[id](ctx) }})
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--listen: %w", err)}
	}
	fmt.Fprintf(out, "ilinkdash exporter: listening on %s (/metrics, /healthz), watching %s\n", ln.Addr(), monitorTarget(r))
	m.printNotify(out)
	open, _ := a.lagOpener() // lag.close closes what it opens
	lag := openLagHistory(open, r, logf)
	defer lag.close() // after run: the watcher has stopped
	lag.attach(m)
	return m.run(cmd.Context(), ln)
}

// commandLog is a command's one debug log (--debug), opened for its first
// cluster and shared by the others, a spoke linking later included: the
// file rotates by its size, and two writers on it would each rotate it
// under the other.
type commandLog struct {
	mu     sync.Mutex
	opened bool
	debugf func(string, ...any)
	closer io.Closer
}

func (l *commandLog) open(r config.Resolved) (func(string, ...any), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.opened {
		debugf, closer, err := debugLogger(r)
		if err != nil {
			return nil, &exitError{code: 2, err: err}
		}
		l.opened, l.debugf, l.closer = true, debugf, closer
	}
	return l.debugf, nil
}

// close closes the log, after every cluster that wrote to it has stopped.
func (l *commandLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closer != nil {
		l.closer.Close()
		l.closer = nil
	}
}

// startLogged starts the cluster of r (startCluster: the embedded demo
// when nothing is configured) logging to the command's debug log, as
// serve and the exporter do; stop stops the cluster.
func startLogged(cmd *cobra.Command, r config.Resolved, log *commandLog) (cfg live.Config, stop func(), err error) {
	if !r.Embedded && r.Context.Admin == "" && r.Context.Hub == "" {
		// Said as check says it, naming the context and its file.
		if r.Context.Name == "" {
			return live.Config{}, nil, &exitError{code: 2, err: errors.New("no admin address: give --admin, or a context with an admin address")}
		}
		return live.Config{}, nil, &exitError{code: 2, err: fmt.Errorf("context %s has no admin address: set admin: HOST:PORT in %s (or give --admin)", r.Context.Name, r.File.Path)}
	}
	debugf, err := log.open(r)
	if err != nil {
		return live.Config{}, nil, err
	}
	return startCluster(cmd.Context(), r, debugf)
}

// monitorTarget says what is watched, for the banners.
func monitorTarget(r config.Resolved) string {
	switch {
	case r.Embedded:
		return "the embedded demo engine"
	case r.Context.Name == "":
		return "admin " + r.Context.Admin
	}
	return "context " + r.Context.Name
}

// monitorConfig is what newMonitor needs.
type monitorConfig struct {
	resolved config.Resolved
	target   string // the admin address the unreachable alert names
	health   health.Config
	flags    *monitorFlags
	logf     func(string, ...any)
	// read reads one polled resource: the exporter's own client, or serve's
	// shared poller (serve.Server.Polled).
	read func(context.Context, common.ResID) (any, error)
	// noRuntime leaves out the Go runtime's series (a fleet's members but
	// its first: the process is one).
	noRuntime bool
}

// monitor is one watched cluster: the watcher, its exposition and its
// notification sinks.
type monitor struct {
	w     *watch.Watcher
	exp   *metrics.Exporter
	sinks []func(context.Context) // the sinks' delivery loops
	names []string
	// observers hear every snapshot (watch.Config.OnSnapshot): the
	// notifier, and whatever else joins before run (lagKeeper.attach).
	observers []func(*watch.Snapshot)
}

// contextLabel is the `context` label: the context's name, else
// "embedded" for the embedded demo, else the admin address.
func contextLabel(r config.Resolved) string {
	switch {
	case r.Context.Name != "":
		return r.Context.Name
	case r.Embedded:
		return "embedded"
	}
	return r.Context.Admin
}

func newMonitor(c monitorConfig) *monitor {
	name := contextLabel(c.resolved)
	m := &monitor{}
	var sinks []notify.Sink
	if c.flags.webhook != "" {
		wh := notify.NewWebhook(notify.WebhookConfig{URL: c.flags.webhook, Logf: c.logf})
		sinks, m.sinks = append(sinks, wh), append(m.sinks, wh.Run)
		m.names = append(m.names, "webhook "+redactedURL(c.flags.webhook))
	}
	if c.flags.command != "" {
		cm := notify.NewCommand(notify.CommandConfig{Command: c.flags.command, Logf: c.logf})
		sinks, m.sinks = append(sinks, cm), append(m.sinks, cm.Run)
		m.names = append(m.names, "command "+c.flags.command)
	}
	m.exp = metrics.New(name, func() *watch.Snapshot { return m.w.Snapshot() },
		metrics.Options{PerPartition: !c.flags.noPartitionSeries, Runtime: !c.noRuntime})
	for _, s := range sinks {
		m.exp.NotifyCounters(s.Name(), func() metrics.SinkCounts { return metrics.SinkCounts(s.Counts()) })
	}
	if len(sinks) > 0 {
		m.observers = append(m.observers, notify.New(name, sinks...).Observe)
	}
	ctx := common.Context{Config: c.resolved.Context}
	var iv [watch.NumLists]time.Duration
	for l, id := range watchResources {
		iv[l] = ctx.Interval(id)
	}
	m.w = watch.New(watch.Config{Context: name, Target: c.target, Health: c.health, Interval: iv,
		OnPoll: m.exp.ObservePoll,
		OnSnapshot: func(s *watch.Snapshot) {
			for _, o := range m.observers {
				o(s)
			}
		}}, watchSource(c.read))
	return m
}

// watchResources are the dashboard's polled resources each watched list
// is read as (the node list comes with the cluster summary).
var watchResources = [watch.NumLists]common.ResID{watch.Nodes: common.ResSummary, watch.Topics: common.ResTopics,
	watch.Groups: common.ResGroups, watch.Queues: common.ResQueues, watch.Definition: common.ResCluster}

// watchSource reads the watched lists as the dashboard's resources.
func watchSource(read func(context.Context, common.ResID) (any, error)) watch.Source {
	return watch.Source{
		Nodes: func(ctx context.Context) ([]admin.NodeInfo, error) {
			s, err := readAs[tab.ClusterSummary](ctx, read, common.ResSummary)
			return s.Nodes, err
		},
		Topics: func(ctx context.Context) ([]admin.TopicInfo, error) {
			return readAs[[]admin.TopicInfo](ctx, read, common.ResTopics)
		},
		Groups: func(ctx context.Context) ([]admin.GroupInfo, error) {
			return readAs[[]admin.GroupInfo](ctx, read, common.ResGroups)
		},
		Queues: func(ctx context.Context) ([]admin.QueueInfo, error) {
			return readAs[[]admin.QueueInfo](ctx, read, common.ResQueues)
		},
		Definition: func(ctx context.Context) (admin.ClusterProperty, error) {
			return readAs[admin.ClusterProperty](ctx, read, common.ResCluster)
		},
	}
}

func readAs[T any](ctx context.Context, read func(context.Context, common.ResID) (any, error), id common.ResID) (T, error) {
	v, err := read(ctx, id)
	t, _ := v.(T)
	return t, err
}

// redactedURL is raw with its password, if any, as xxxxx: the banner goes
// to the service's log.
func redactedURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// printNotify says where the notifications go.
func (m *monitor) printNotify(w io.Writer) {
	if len(m.names) > 0 {
		fmt.Fprintf(w, "alert notifications: %s\n", strings.Join(m.names, ", "))
	}
}

// run watches until ctx ends, serving the exposition on ln (nil: no HTTP,
// only the notifications), then stops the server, the watcher and the
// sinks.
func (m *monitor) run(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { m.w.Run(ctx) })
	for _, run := range m.sinks {
		wg.Go(func() { run(ctx) })
	}
	var err error
	if ln != nil {
		err = m.serveHTTP(ctx, ln)
	} else {
		<-ctx.Done()
	}
	cancel()
	wg.Wait()
	return err
}

// serveHTTP serves the handler on ln until ctx ends or the listener fails.
func (m *monitor) serveHTTP(ctx context.Context, ln net.Listener) error {
	return serveMetricsHTTP(ctx, ln, m.handler())
}

// serveMetricsHTTP serves h on ln until ctx ends (then within
// metricsShutdownGrace) or the listener fails.
func serveMetricsHTTP(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("metrics server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), metricsShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close() // a scrape still writing after the grace
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics server: %w", err)
	}
	return nil
}

func (m *monitor) handler() http.Handler {
	return m.exp.Handler(metrics.Probes{Healthz: metrics.Reached(m.w, time.Now), Livez: metrics.Alive(m.w, time.Now)})
}
