package e2e

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/loadgen"
	"ilinkdash/ui"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/live"
)

// The Fleet goals of issue 27, measured over ten watched clusters of
// which one hangs: nine idle one-node engines and a black hole, a
// listener that accepts and never answers (a cluster that hangs is worse
// than one that refuses: its reads wait for their timeouts).

// benchFleetSize and benchHung: ten clusters, the fourth hangs.
const benchFleetSize, benchHung = 10, 3

// benchClusters starts the nine engines and the black hole.
func benchClusters(tb testing.TB) ([]*engine.Engine, *ilinktest.BlackHole) {
	tb.Helper()
	var es []*engine.Engine
	for i := 0; i < benchFleetSize-1; i++ {
		es = append(es, startEngine(tb, engineOpts{nodes: 1}))
	}
	return es, ilinktest.NewBlackHole(tb)
}

// benchFleet is one run of a dashboard as cli builds it (one ui.New on
// its own live.Sources and its context's default intervals each; several
// under ui.NewFleet, as runFleetProgram does), in a real tea.Program
// drawing 180x40 to nowhere. ready closes on the first frame its ok
// predicate accepts.
type benchFleet struct {
	p     *tea.Program
	srcs  []*live.Sources
	ready chan struct{}
	done  chan struct{}
}

// startBenchFleet runs the Fleet over the bench clusters; ready: the nine
// reachable rows say OK.
func startBenchFleet(tb testing.TB, es []*engine.Engine, hole *ilinktest.BlackHole) *benchFleet {
	tb.Helper()
	var lcs []live.Config
	next := es
	for i := 0; i < benchFleetSize; i++ {
		lc := live.Config{AdminAddrs: []string{hole.Addr}, DataAddrs: []string{hole.Addr}, ClientName: "ilinkdash-bench"}
		if i != benchHung {
			lc.AdminAddrs, lc.DataAddrs = next[0].AdminAddrs(), next[0].DataAddrs()
			next = next[1:]
		}
		lcs = append(lcs, lc)
	}
	return startBenchDash(tb, lcs, true, reachableRowsOK)
}

// startBenchDash runs the dashboard over lcs, the contexts c0, c1, …: a
// Fleet of them (fleet), or a single dashboard over lcs[0].
func startBenchDash(tb testing.TB, lcs []live.Config, fleet bool, ok func(screen string) bool) *benchFleet {
	tb.Helper()
	bf := &benchFleet{ready: make(chan struct{}), done: make(chan struct{})}
	var models []*ui.Model
	for i, lc := range lcs {
		src, err := live.New(lc)
		if err != nil {
			tb.Fatal(err)
		}
		bf.srcs = append(bf.srcs, src)
		cfg := config.DefaultContext()
		cfg.Name = fmt.Sprintf("c%d", i)
		uctx := ui.NewContext(cfg, false, func(string) string { return "" })
		var opts []ui.Option
		if i > 0 {
			opts = append(opts, ui.WithoutLinkProbe()) // one terminal, one probe
		}
		models = append(models, ui.New(uctx, src, opts...))
	}
	var root tea.Model
	if fleet {
		fctx := ui.NewContext(config.DefaultContext(), false, func(string) string { return "" })
		fctx.Name = "fleet"
		root = ui.NewFleet(fctx, models)
	} else {
		root = models[0]
	}
	m := &readyRoot{root: root, ready: bf.ready, ok: ok}
	bf.p = tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(),
		tea.WithWindowSize(180, 40), tea.WithFPS(config.DefaultContext().FrameRate()))
	go func() { _, _ = bf.p.Run(); close(bf.done) }()
	return bf
}

// waitReady waits for the first frame ok accepts.
func (bf *benchFleet) waitReady(tb testing.TB, what string) {
	tb.Helper()
	select {
	case <-bf.ready:
	case <-time.After(deadline):
		tb.Fatalf("no frame with %s in %v", what, deadline)
	}
}

// stop quits the program and closes the adapters (the black hole's
// connections first, so its hung reads end; nil: none).
func (bf *benchFleet) stop(hole *ilinktest.BlackHole) {
	bf.p.Quit()
	<-bf.done
	if hole != nil {
		hole.Drop()
	}
	for _, s := range bf.srcs {
		_ = s.Close()
	}
}

// readyRoot is a root model that notices its first frame ok accepts.
type readyRoot struct {
	root  tea.Model
	ready chan struct{}
	ok    func(screen string) bool
	seen  atomic.Bool
}

func (r *readyRoot) Init() tea.Cmd { return r.root.Init() }

func (r *readyRoot) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := r.root.Update(msg)
	return r, cmd
}

func (r *readyRoot) View() tea.View {
	v := r.root.View()
	if !r.seen.Load() && r.ok(ansi.Strip(v.Content)) {
		r.seen.Store(true)
		close(r.ready)
	}
	return v
}

// reachableRowsOK: every reachable cluster's row says OK, the hung one's
// does not.
func reachableRowsOK(s string) bool {
	for i := 0; i < benchFleetSize; i++ {
		ok := strings.Contains(viewtest.RowOf(s, fmt.Sprintf("c%d", i)), " OK ")
		if ok != (i != benchHung) {
			return false
		}
	}
	return true
}

// BenchmarkFleetFirstFrame10 is the time from building the ten clusters'
// adapters and dashboards to the first Fleet frame with the nine
// reachable rows filled in (OK) while the tenth hangs: the hung cluster's
// reads wait in their own commands and hold none of the others. Goal
// (issue 27): 300 ms.
//
//	go test -run '^$' -bench FleetFirstFrame10 -benchtime 10x ./ui/e2e/
func BenchmarkFleetFirstFrame10(b *testing.B) {
	es, hole := benchClusters(b)
	var worst, total time.Duration
	for b.Loop() {
		start := time.Now()
		bf := startBenchFleet(b, es, hole)
		bf.waitReady(b, "the nine reachable rows OK")
		took := time.Since(start)
		worst, total = max(worst, took), total+took
		b.StopTimer()
		bf.stop(hole)
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "first-ms")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// BenchmarkFleetIdleCPU is the Fleet's CPU per watched cluster at rest:
// the process's CPU (loadgen.ProcessCPU) over a window with the Fleet
// polling the ten clusters on the default intervals, less the CPU of the
// same window with the engines alone (their own idle work). What remains
// is the dashboard's and the engines' answers to its polls, so it bounds
// the dashboard's share from above. Goal (issue 27): 1 % of a core per
// cluster.
//
//	go test -run '^$' -bench FleetIdleCPU -benchtime 1x ./ui/e2e/
func BenchmarkFleetIdleCPU(b *testing.B) {
	const window = 10 * time.Second
	es, hole := benchClusters(b)
	pid := os.Getpid()
	cpu := func() time.Duration {
		from := loadgen.ProcessCPU(pid)
		time.Sleep(window) // the measuring window: CPU over a fixed time, not a wait for a condition
		return loadgen.ProcessCPU(pid) - from
	}
	var base, with time.Duration
	for b.Loop() {
		base += cpu()
		bf := startBenchFleet(b, es, hole)
		bf.waitReady(b, "the nine reachable rows OK")
		with += cpu()
		bf.stop(hole)
	}
	pct := func(d time.Duration) float64 { return 100 * d.Seconds() / (window.Seconds() * float64(b.N)) }
	b.ReportMetric(pct(with-base)/benchFleetSize, "%core/cluster")
	b.ReportMetric(pct(with), "%core-with-fleet")
	b.ReportMetric(pct(base), "%core-engines-alone")
}
