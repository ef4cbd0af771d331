package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink/admin/history"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ui"
	"ilinkdash/ui/common"
	"ilinkdash/ui/live"
)

// resolve applies flags > environment > config file > default.
func (a *app) resolve(cmd *cobra.Command) (config.Resolved, error) {
	r, err := config.Resolve(cmd.Flags(), &a.flags, a.getenv)
	if err != nil {
		return r, &exitError{code: 2, err: err}
	}
	return r, nil
}

// debugLogger returns a logger writing to the debug log file, or nil when
// --debug is off. Nothing may write to the terminal while the TUI runs, so
// the file is the only sink; it is bounded (maxLogBytes, one older file).
func debugLogger(r config.Resolved) (func(string, ...any), io.Closer, error) {
	if !r.Debug {
		return nil, io.NopCloser(nil), nil
	}
	if err := os.MkdirAll(filepath.Dir(r.LogFile), 0o700); err != nil {
		return nil, nil, fmt.Errorf("debug log: %w", err)
	}
	f, err := openRotating(r.LogFile, maxLogBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("debug log: %w", err)
	}
	l := log.New(f, "", log.LstdFlags|log.Lmicroseconds)
	return l.Printf, f, nil
}

// runDashboard is the default command: the TUI on the configured context,
// or on an in-process demo cluster when none is configured.
func (a *app) runDashboard(cmd *cobra.Command, _ []string) error {
	if fleet, err := a.fleetArgs(cmd); fleet || err != nil {
		return err
	}
	r, err := a.resolve(cmd)
	if err != nil {
		return err
	}
	// Schemas are compiled before anything starts, the terminal check
	// included: one that does not compile is an error naming its file and
	// line, not a dashboard showing hex.
	set, err := schemas(r, nil)
	if err != nil {
		return err
	}
	if err := needTerminal(); err != nil {
		return err
	}
	logf, logCloser, err := debugLogger(r)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer logCloser.Close()

	src, cleanup, err := startSources(cmd.Context(), r, logf)
	if err != nil {
		return err
	}
	defer cleanup()

	uctx := ui.NewContext(r.Context, r.Embedded, a.getenv)
	uctx.Schemas = set
	// The meter counts what reaches the terminal and notices blocking
	// writes (a slow link): the dashboard then keeps to the low-bandwidth
	// budget until they stop.
	out, meter := ui.NewMeter(os.Stdout)
	uctx.Pace.SlowTerminal = meter.Slow
	uctx.Pace.Budget = common.NewBudget(meter.Bytes)
	// The lag history, per context, beside the `:` history. A file that
	// is not one is set aside (a warning); one that cannot be opened (in
	// use by another dashboard) leaves the charts without history.
	openLag, closeLag := a.lagOpener()
	defer closeLag()
	lag, warn, err := openLag(lagContext(r))
	if err != nil {
		warn = fmt.Errorf("no lag history this run: %w", err)
	}
	opts := []ui.Option{ui.WithHistoryFile(config.HistoryFile(a.getenv)), ui.WithLagHistory(lag, warn), ui.WithLagHistoryOpener(openLag)}
	if r.File != nil {
		uctx.Contexts = r.File.Names()
		opts = append(opts, ui.WithSwitcher(a.switcher(r, logf)))
	}
	m := ui.New(uctx, src, opts...)
	_, err = tea.NewProgram(m, tea.WithContext(cmd.Context()), tea.WithFPS(r.Context.FrameRate()), tea.WithOutput(out)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && cmd.Context().Err() != nil {
		return nil // SIGINT/SIGTERM
	}
	return err
}

// needTerminal refuses to start the dashboard without a terminal.
func needTerminal() error {
	if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
		return &exitError{code: 2, err: errors.New("the dashboard needs a terminal (stdin and stdout); for scripts use the headless commands: get, describe, tail, publish, group, node")}
	}
	return nil
}

// lagOpener opens a context's lag history file,
// $XDG_STATE_HOME/ilinkdash/history-<context>.db (for the start and for
// each :ctx), and closeAll closes every one it opened.
func (a *app) lagOpener() (open ui.LagOpener, closeAll func()) {
	dir := config.StateDir(a.getenv)
	var mu sync.Mutex
	var opened []*history.Store
	open = func(name string) (*history.Store, error, error) {
		st, warn, err := history.Open(filepath.Join(dir, history.FileName(name)), history.Options{})
		if st != nil {
			mu.Lock()
			opened = append(opened, st)
			mu.Unlock()
		}
		return st, warn, err
	}
	return open, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, st := range opened {
			_ = st.Close()
		}
	}
}

// startSources connects the dashboard's adapters: to the context's cluster,
// or to a fresh in-process engine with demo traffic (the embedded default).
func startSources(ctx context.Context, r config.Resolved, logf func(string, ...any)) (*live.Sources, func(), error) {
	cfg, stop, err := startCluster(ctx, r, logf)
	if err != nil {
		return nil, nil, err
	}
	src, err := live.New(cfg)
	if err != nil {
		stop()
		return nil, nil, &exitError{code: 2, err: err}
	}
	return src, func() { src.Close(); stop() }, nil
}

// startCluster says where the adapters connect: the context's cluster, or
// a fresh in-process engine with demo traffic (the embedded default),
// which stop closes.
func startCluster(_ context.Context, r config.Resolved, logf func(string, ...any)) (live.Config, func(), error) {
	c := r.Context
	if !r.Embedded {
		return contextLive(c, logf), func() {}, nil
	}
	e, err := engine.Start(engine.Config{ElectionDelay: 5 * time.Second, Logf: logf})
	if err != nil {
		return live.Config{}, nil, err
	}
	d, err := demo.Start(e, demo.Options{Logf: logf})
	if err != nil {
		e.Close()
		return live.Config{}, nil, err
	}
	cfg := live.Config{AdminAddrs: e.AdminAddrs(), DataAddrs: e.DataAddrs(), ClientName: c.ClientName, ReadOnly: c.ReadOnly, Logf: logf}
	return cfg, func() { d.Close(); e.Close() }, nil
}

// contextLive says where a configured context's adapters connect: its
// admin and data addresses, or its spoke through the hub.
func contextLive(c config.Context, logf func(string, ...any)) live.Config {
	admins := []string{}
	if c.Admin != "" {
		admins = append(admins, c.Admin)
	}
	return live.Config{AdminAddrs: admins, DataAddrs: c.Addresses, QueueManager: c.QueueManager, ClientName: c.ClientName,
		ReadOnly: c.ReadOnly, Hub: c.Hub, Spoke: c.Spoke, SpokeKey: c.SpokeKey, Logf: logf}
}

// switcher connects `:ctx NAME` to another context of the config file.
// Its errors do not name the context: the dashboard shows them as
// "context NAME: <error>" (naming it here too printed "context dead:
// context dead: ...").
func (a *app) switcher(r config.Resolved, logf func(string, ...any)) ui.Switcher {
	var current *live.Sources
	return func(ctx context.Context, name string) (ui.Sources, config.Context, error) {
		c, ok := r.File.Lookup(name)
		if !ok {
			return nil, config.Context{}, fmt.Errorf("not in %s", r.File.Path)
		}
		if r.Sources.ReadOnly == config.FromFlag || r.Sources.ReadOnly == config.FromEnv {
			c.ReadOnly = c.ReadOnly || r.Context.ReadOnly // --read-only holds for every context
		}
		if r.Sources.LowBandwidth == config.FromFlag || r.Sources.LowBandwidth == config.FromEnv {
			c.LowBandwidth = r.Context.LowBandwidth // so does --low-bandwidth (the link is the same)
		}
		src, err := live.New(contextLive(c, logf))
		if err != nil {
			return nil, config.Context{}, err
		}
		if _, err := src.ClusterSummary(ctx); err != nil {
			src.Close()
			return nil, config.Context{}, err
		}
		if current != nil {
			current.Close()
		}
		current = src
		return src, c, nil
	}
}
