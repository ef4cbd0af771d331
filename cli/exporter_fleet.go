package cli

import (
	"context"
	"fmt"
	"log"
	"net"
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
// --all-contexts): one watcher, client and notification sinks per cluster,
// each on its own intervals, so an unreachable cluster slows none of the
// others; one /metrics with every cluster's series (their context label),
// /healthz holding while every cluster was reached.
func (a *app) runFleetExporter(cmd *cobra.Command, listen string, f *monitorFlags, rs []config.Resolved) error {
	out := cmd.ErrOrStderr()
	logf := log.New(out, "", log.LstdFlags).Printf
	var ms []*monitor
	var exps []*metrics.Exporter
	var healthz, livez []func() (bool, string)
	var names []string
	for i, r := range rs {
		hcfg := health.Config(r.Context.Health)
		if err := hcfg.Validate(); err != nil {
			return &exitError{code: 2, err: fmt.Errorf("context %s: %w", r.Context.Name, err)}
		}
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
		m := newMonitor(monitorConfig{resolved: r, target: src.Target(), health: hcfg, flags: f, logf: logf, noRuntime: i > 0,
			read: func(ctx context.Context, id common.ResID) (any, error) { return fetch[id](ctx) }})
		ms, exps = append(ms, m), append(exps, m.exp)
		name := contextLabel(r)
		healthz = append(healthz, labelled(name, metrics.Reached(m.w, time.Now)))
		livez = append(livez, labelled(name, metrics.Alive(m.w, time.Now)))
		names = append(names, name)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--listen: %w", err)}
	}
	fmt.Fprintf(out, "ilinkdash exporter: listening on %s (/metrics, /healthz), watching contexts %s\n", ln.Addr(), strings.Join(names, ", "))
	ms[0].printNotify(out)
	open, _ := lagOpener() // each lag.close closes what it opened
	for i, m := range ms {
		lag := openLagHistory(open, rs[i], logf) // one file per context
		defer lag.close()                        // after wg.Wait: the watchers have stopped
		lag.attach(m)
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() { _ = m.run(ctx, nil) }) // the watcher and its sinks; HTTP is the fleet's
	}
	err = serveMetricsHTTP(ctx, ln, metrics.NewFleet(exps...).Handler(healthz, livez))
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
