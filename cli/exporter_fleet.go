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
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/metrics"
	"ilinkdash/ui/common"
	"ilinkdash/ui/live"
	"ilinkdash/ui/views/tab"
)

// runFleetExporter is the exporter over several contexts (--context a,b,c,
// --all-contexts, a `spokes: all` hub): one client per cluster, watched
// by a fleetWatch.
func (a *app) runFleetExporter(cmd *cobra.Command, listen string, f *monitorFlags, rs []config.Resolved) error {
	out := cmd.ErrOrStderr()
	logf := log.New(out, "", log.LstdFlags).Printf
	hcfgs, err := monitorHealth(rs)
	if err != nil {
		return err
	}
	members := make([]watchedCluster, len(rs))
	for i, r := range rs {
		cfg, stop, err := startLogged(cmd, r)
		if err != nil {
			return err
		}
		defer stop()
		cfg.ReadOnly = true
		src, err := live.New(cfg)
		if err != nil {
			return &exitError{code: 2, err: fmt.Errorf("context %s: %w", r.Context.Name, err)}
		}
		defer src.Close()
		fetch := tab.Fetchers(src)
		members[i] = watchedCluster{resolved: r, target: src.Target(), health: hcfgs[i],
			read: func(ctx context.Context, id common.ResID) (any, error) { return fetch[id](ctx) }}
	}
	fw := newFleetWatch(members, f, logf, true)
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--listen: %w", err)}
	}
	fmt.Fprintf(out, "ilinkdash exporter: listening on %s (/metrics, /healthz), watching contexts %s\n", ln.Addr(), strings.Join(fw.names, ", "))
	fw.printNotify(out)
	open, _ := lagOpener() // each lag.close closes what it opened
	for i, m := range fw.ms {
		lag := openLagHistory(open, rs[i], logf) // one file per context
		defer lag.close()                        // after run: the watchers have stopped
		lag.attach(m)
	}
	return fw.run(cmd.Context(), ln)
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
	ms    []*monitor
	names []string // the context labels, in the members' order
	// labelled serves the fleet's exposition and probes even for one
	// member (a hub's spokes: its probes name the spoke).
	labelled bool
}

func newFleetWatch(members []watchedCluster, f *monitorFlags, logf func(string, ...any), labelled bool) *fleetWatch {
	fw := &fleetWatch{labelled: labelled || len(members) > 1}
	for i, mb := range members {
		fw.ms = append(fw.ms, newMonitor(monitorConfig{resolved: mb.resolved, target: mb.target, health: mb.health,
			flags: f, logf: logf, read: mb.read, noRuntime: i > 0}))
		fw.names = append(fw.names, contextLabel(mb.resolved))
	}
	return fw
}

// handler serves /metrics, /healthz and /livez of every member.
func (fw *fleetWatch) handler() http.Handler {
	if !fw.labelled {
		return fw.ms[0].handler()
	}
	var exps []*metrics.Exporter
	var healthz, livez []func() (bool, string)
	for i, m := range fw.ms {
		exps = append(exps, m.exp)
		healthz = append(healthz, labelled(fw.names[i], metrics.Reached(m.w, time.Now)))
		livez = append(livez, labelled(fw.names[i], metrics.Alive(m.w, time.Now)))
	}
	return metrics.NewFleet(exps...).Handler(healthz, livez)
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
	var wg sync.WaitGroup
	for _, m := range fw.ms {
		wg.Go(func() { _ = m.run(ctx, nil) }) // the watcher and its sinks; HTTP is the fleet's
	}
	var err error
	if ln != nil {
		err = serveMetricsHTTP(ctx, ln, fw.handler())
	} else {
		<-ctx.Done()
	}
	cancel()
	wg.Wait()
	return err
}

// labelled prefixes a probe rule's text with the context it is about.
func labelled(name string, rule func() (bool, string)) func() (bool, string) {
	return func() (bool, string) {
		ok, why := rule()
		return ok, name + ": " + why
	}
}
