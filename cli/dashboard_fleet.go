package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui"
	"ilinkdash/ui/common"
	"ilinkdash/ui/live"
	"ilinkdash/ui/sanitize"
)

// DemoFleet is the --demo value that starts the fleet demo.
const DemoFleet = "fleet"

// fleetMember is one cluster of a fleet dashboard: the context it is
// shown as, where its adapters connect, its compiled decode rules, whether
// it is an in-process demo.
type fleetMember struct {
	r    config.Resolved
	live live.Config
	set  *schema.Set
	demo bool
}

// runFleet is the dashboard over several contexts (--context a,b,c or
// --all-contexts): one cluster dashboard each, on its own adapters and
// its own context's intervals, under the Fleet tab.
func (a *app) runFleet(cmd *cobra.Command, rs []config.Resolved) error {
	// Every context's schemas compile before the terminal check, as the
	// single dashboard's do.
	sets := make([]*schema.Set, len(rs))
	for i, r := range rs {
		set, err := schemas(r, nil)
		if err != nil {
			return err
		}
		sets[i] = set
	}
	if err := needTerminal(); err != nil {
		return err
	}
	logf, logCloser, err := debugLogger(rs[0])
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer logCloser.Close()
	ms, hubs, err := fleetTargets(cmd.Context(), rs, sets, logf)
	if err != nil {
		return err
	}
	return a.runFleetProgram(cmd.Context(), ms, hubs...)
}

// fleetTargets are the clusters a fleet over rs watches: a member each,
// and each `spokes: all` context's hub followed (sets: rs's schemas).
func fleetTargets(ctx context.Context, rs []config.Resolved, sets []*schema.Set, logf func(string, ...any)) ([]fleetMember, []fleetHub, error) {
	var ms []fleetMember
	var hubs []fleetHub
	for i, r := range rs {
		switch {
		case r.Context.AllSpokes:
			h, err := followHub(ctx, r, sets[i], logf)
			if err != nil && len(rs) == 1 {
				return nil, nil, &exitError{code: 2, err: err}
			}
			if err != nil {
				// One hub not answering at start keeps none of the other
				// clusters from view: the title says why it has no rows,
				// and its list is read again as a listed hub's is.
				h = fleetHub{r: r, set: sets[i], logf: logf, err: errors.Unwrap(err)} // the title names the hub
			}
			hubs = append(hubs, h)
		case r.Embedded || (r.Context.Admin == "" && r.Context.Hub == ""):
			return nil, nil, &exitError{code: 2, err: fmt.Errorf("context %q has no admin address: a fleet watches configured clusters (or run --demo fleet)", r.Context.Name)}
		default:
			ms = append(ms, fleetMember{r: r, live: contextLive(r.Context, logf), set: sets[i]})
		}
	}
	return ms, hubs, nil
}

// fleetHub is a `spokes: all` context: its hub's spokes as listed at
// start, each watched as a spoke context named CONTEXT/SPOKE (running or
// not: a stopped one's row says what the hub says), and the list read
// again on the context's node-list interval, so spokes that link later
// get their rows (ui.SpokeFollow).
type fleetHub struct {
	r     config.Resolved
	set   *schema.Set
	known []admin.SpokeProperty
	logf  func(string, ...any)
	demo  bool
	err   error // the list could not be read at start (known is empty)
}

// followHub lists r's hub's spokes once, so a hub that cannot be asked is
// said before the terminal is taken.
func followHub(ctx context.Context, r config.Resolved, set *schema.Set, logf func(string, ...any)) (fleetHub, error) {
	spokes, err := listSpokes(ctx, r.Context)
	if err != nil {
		return fleetHub{}, fmt.Errorf("context %s: the spokes of hub %s: %w", r.Context.Name, r.Context.Hub, err)
	}
	return fleetHub{r: r, set: set, known: spokes, logf: logf}, nil
}

// member is spoke's fleet member: the hub's context switched to it.
func (h fleetHub) member(spoke string) fleetMember {
	mr := h.r
	mr.Context.Name, mr.Context.Spoke, mr.Context.AllSpokes = h.r.Context.Name+"/"+spoke, spoke, false
	return fleetMember{r: mr, live: contextLive(mr.Context, h.logf), set: h.set, demo: h.demo}
}

// listSpokes asks a hub context's hub for its spokes (read-only). A
// spoke's name becomes a context name, a tab, log and audit lines and a
// file name: one the sanitizer would change (control bytes, escapes) or
// longer than maxSpokeName is left out, whatever the hub says.
func listSpokes(ctx context.Context, c config.Context) ([]admin.SpokeProperty, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	spokes, err := admin.ListSpokes(cctx, c.Hub, admin.Options{ClientName: c.ClientName})
	return plainSpokes(spokes), err
}

// plainSpokes are the spokes whose names can be shown and used as they
// are: not empty, at most maxSpokeName bytes, nothing the sanitizer
// would escape. Our engine refuses other names at registration; another
// hub may not.
func plainSpokes(spokes []admin.SpokeProperty) []admin.SpokeProperty {
	return slices.DeleteFunc(spokes, func(sp admin.SpokeProperty) bool {
		return sp.Name == "" || len(sp.Name) > maxSpokeName || sanitize.String(sp.Name) != sp.Name
	})
}

// maxSpokeName bounds a spoke name taken from a hub (bytes).
const maxSpokeName = 64

// runFleetProgram runs the Fleet dashboard on ms, and on the spokes of
// hubs as they come, until the user quits.
func (a *app) runFleetProgram(ctx context.Context, ms []fleetMember, hubs ...fleetHub) error {
	out, meter := ui.NewMeter(os.Stdout)
	pace := func(c *ui.Context) {
		c.Pace.SlowTerminal = meter.Slow
		c.Pace.Budget = common.NewBudget(meter.Bytes)
	}
	// Spokes' models are built in the program's Update as they link, so
	// their adapters are closed after the program, under a lock.
	var mu sync.Mutex
	var srcs []*live.Sources
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range srcs {
			s.Close()
		}
	}()
	model := func(m fleetMember) (*ui.Model, error) {
		src, err := live.New(m.live)
		if err != nil {
			return nil, fmt.Errorf("context %s: %w", m.r.Context.Name, err)
		}
		mu.Lock()
		defer mu.Unlock()
		srcs = append(srcs, src)
		uctx := ui.NewContext(m.r.Context, m.demo, a.getenv)
		uctx.Schemas = m.set
		pace(uctx)
		// One link probe is enough for one terminal: the first cluster's.
		opts := []ui.Option{ui.WithHistoryFile(config.HistoryFile(a.getenv))}
		if len(srcs) > 1 {
			opts = append(opts, ui.WithoutLinkProbe())
		}
		return ui.New(uctx, src, opts...), nil
	}
	models := make([]*ui.Model, 0, len(ms))
	for _, m := range ms {
		um, err := model(m)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		models = append(models, um)
	}
	var opts []ui.FleetOption
	for _, h := range hubs {
		rc := h.r.Context
		opts = append(opts, ui.WithSpokes(ui.SpokeFollow{Hub: rc.Name, Every: rc.Refresh.Cluster, Known: h.known, Err: h.err,
			List: func(ctx context.Context) ([]admin.SpokeProperty, error) { return listSpokes(ctx, rc) },
			New:  func(spoke string) (*ui.Model, error) { return model(h.member(spoke)) }}))
	}
	fcfg := config.DefaultContext()
	demo := false
	if len(ms) > 0 {
		fcfg, demo = ms[0].r.Context, ms[0].demo
	} else if len(hubs) > 0 {
		fcfg = hubs[0].r.Context
	}
	fcfg.Name = "fleet"
	fctx := ui.NewContext(fcfg, demo, a.getenv)
	pace(fctx)
	_, err := tea.NewProgram(ui.NewFleet(fctx, models, opts...), tea.WithContext(ctx), tea.WithFPS(fcfg.FrameRate()), tea.WithOutput(out)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // SIGINT/SIGTERM
	}
	return err
}

// runFleetDemo is --demo fleet: in-process clusters in different states,
// watched as a fleet. "prod" runs the demo traffic (its groups show every
// health word); "dr" is a healthy standby (the demo's still data, every
// node up, nothing lagging), the row that sorts last; "hub" is a
// `spokes: all` context of a hub with two
// spokes, each watched through the hub: "hub/plant-1" (three nodes) has a
// node down, "hub/plant-2" a stopped group (billing, committed at 1 on
// each of ORDER.EVENT's partitions, no member).
func (a *app) runFleetDemo(cmd *cobra.Command) error {
	if err := needTerminal(); err != nil {
		return err
	}
	r, err := a.resolve(cmd)
	if err != nil {
		return err
	}
	logf, logCloser, err := debugLogger(r)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	defer logCloser.Close()
	ms, hub, stop, err := startFleetDemo(cmd.Context(), r, logf)
	if err != nil {
		return err
	}
	defer stop()
	return a.runFleetProgram(cmd.Context(), ms, hub)
}

// Fleet demo names: the hub's context and its spokes.
const (
	demoHub        = "hub"
	demoSpokeNodes = "plant-1" // three nodes, one down
	demoSpokeGroup = "plant-2" // a stopped group
)

// startFleetDemo starts the fleet demo's engines (stop closes them) and
// says how to watch each: prod and dr as members, the hub's spokes
// followed.
func startFleetDemo(ctx context.Context, r config.Resolved, logf func(string, ...any)) ([]fleetMember, fleetHub, func(), error) {
	var closers []func()
	stop := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	start := func(name string) (*engine.Engine, fleetMember, error) {
		e, err := engine.Start(engine.Config{ElectionDelay: 500 * time.Millisecond, Logf: logf})
		if err != nil {
			return nil, fleetMember{}, fmt.Errorf("demo cluster %s: %w", name, err)
		}
		closers = append(closers, func() { e.Close() })
		mr := r
		mr.Context.Name, mr.Context.Admin, mr.Context.Addresses = name, e.AdminAddrs()[0], e.DataAddrs()
		mr.Embedded = name == "prod" // its topics decode with the demo's built-in rules
		set, err := schemas(mr, nil)
		if err != nil {
			return nil, fleetMember{}, err
		}
		lc := live.Config{AdminAddrs: e.AdminAddrs(), DataAddrs: e.DataAddrs(), ClientName: r.Context.ClientName, ReadOnly: r.Context.ReadOnly, Logf: logf}
		return e, fleetMember{r: mr, live: lc, set: set, demo: true}, nil
	}
	var ms []fleetMember
	var fh fleetHub
	err := func() error {
		prod, m, err := start("prod")
		if err != nil {
			return err
		}
		d, err := demo.Start(prod, demo.Options{Logf: logf})
		if err != nil {
			return err
		}
		closers = append(closers, d.Close)
		ms = append(ms, m)
		dr, m, err := start("dr")
		if err != nil {
			return err
		}
		if _, err := demo.Seed(dr, demo.Snapshot); err != nil {
			return fmt.Errorf("demo cluster dr: %w", err)
		}
		ms = append(ms, m)
		hub, err := engine.Start(engine.Config{Nodes: 1, ElectionDelay: 500 * time.Millisecond, Logf: logf, Spokes: []engine.SpokeConfig{
			{Name: demoSpokeNodes, Config: engine.Config{Nodes: 3}}, {Name: demoSpokeGroup, Config: engine.Config{Nodes: 3}}}})
		if err != nil {
			return fmt.Errorf("demo hub: %w", err)
		}
		closers = append(closers, func() { hub.Close() })
		if err := seedNodeDown(ctx, hub.SpokeEngine(demoSpokeNodes)); err != nil {
			return err
		}
		if err := seedStoppedGroup(ctx, hub.SpokeEngine(demoSpokeGroup)); err != nil {
			return err
		}
		hr := r
		hr.Context.Name, hr.Context.Hub, hr.Context.AllSpokes = demoHub, hub.AdminAddrs()[0], true
		fh, err = followHub(ctx, hr, ms[0].set, logf)
		fh.demo = true
		return err
	}()
	if err != nil {
		stop()
		return nil, fleetHub{}, nil, err
	}
	return ms, fh, stop, nil
}

// seedNodeDown gives e the demo's still data and kills a node that is not
// the leader.
func seedNodeDown(ctx context.Context, e *engine.Engine) error {
	if _, err := demo.Seed(e, demo.Snapshot); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	leader, err := e.WaitLeader(wctx)
	if err != nil {
		return fmt.Errorf("demo spoke %s: %w", demoSpokeNodes, err)
	}
	for _, n := range e.Nodes() {
		if n.ID != leader {
			return e.KillNode(n.ID)
		}
	}
	return nil
}

// seedStoppedGroup gives e the demo's still data and a group committed
// on ORDER.EVENT with no member: STOPPED, lag 9 (12 records over 3 partitions, each committed at 1).
func seedStoppedGroup(ctx context.Context, e *engine.Engine) error {
	if _, err := demo.Seed(e, demo.Snapshot); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	svc, err := admin.Connect(cctx, e.AdminAddrs()[0], admin.Options{ClientName: "ilinkdash-demo"})
	if err != nil {
		return fmt.Errorf("demo spoke %s: %w", demoSpokeGroup, err)
	}
	defer svc.Close()
	q := svc.AccessAdminQmgr(svc.QueueManager())
	_, err = q.SeekGroup(cctx, "billing", "ORDER.EVENT", admin.SeekTarget{Offset: 1})
	return err
}

// fleetFlags are the dashboard's flags of a fleet.
type fleetFlags struct {
	allContexts bool
	demo        string
}

func (a *app) registerFleet(fs *pflag.FlagSet) {
	fs.BoolVar(&a.fleet.allContexts, "all-contexts", false, "watch every context of the config file at once (as --context a,b,c names some): the Fleet tab first, one row per cluster")
	fs.StringVar(&a.fleet.demo, "demo", "", "start in-process demo clusters instead: "+DemoFleet+" (a healthy cluster with traffic, and a hub's two spokes, one with a node down, one with a stopped group, on the Fleet tab)")
}

// fleetArgs runs the fleet dashboard when the flags ask for one (more than
// one context, --all-contexts, --demo fleet) and reports whether they did;
// one context is the single dashboard, as without them.
func (a *app) fleetArgs(cmd *cobra.Command) (bool, error) {
	if cmd.Flags().Changed("demo") {
		if a.fleet.demo != DemoFleet {
			return true, &usageError{err: fmt.Errorf("--demo %q: the only demo is %q", a.fleet.demo, DemoFleet)}
		}
		if a.fleet.allContexts || cmd.Flags().Changed(config.FlagContext) {
			return true, &usageError{err: errors.New("--demo fleet starts its own clusters: drop --context and --all-contexts")}
		}
		return true, a.runFleetDemo(cmd)
	}
	rs, err := config.ResolveMany(cmd.Flags(), &a.flags, a.getenv, a.fleet.allContexts)
	if err != nil {
		return true, &exitError{code: 2, err: err}
	}
	if len(rs) < 2 && !rs[0].Context.AllSpokes {
		return false, nil
	}
	return true, a.runFleet(cmd, rs)
}
