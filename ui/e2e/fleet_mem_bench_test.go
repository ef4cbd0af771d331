package e2e

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/live"
)

// heapFleetSize is the fleet BenchmarkFleetHeapPerCluster measures.
const heapFleetSize = 10

// heapSteady is how long a dashboard polls, once it shows every cluster's
// data, before its heap is read: every list polled twice more on the
// default intervals (2 s); the heap is then read
// heapSamples times a second apart and the median taken (a poll's reply
// being decoded, a group list's short connection closing, are live at
// some instants and not at others).
const (
	heapSteady  = 4 * time.Second
	heapSamples = 5
)

// BenchmarkFleetHeapPerCluster is the live heap (after GC,
// runtime.ReadMemStats' HeapAlloc) a Fleet adds per watched cluster,
// against what one single-cluster dashboard adds, at steady state on the
// default intervals over idle engines seeded with the demo's still data
// (demo.Snapshot: three topics, two queues, a quarantined message), each
// dashboard as cli builds it (ui.New on its own live.Sources; the fleet's
// under ui.NewFleet) in a real tea.Program drawing 180x40 to nowhere.
// Each run's figure is the heap while it runs less the heap of the engines
// alone just before, so it holds the engines' side of its connections too
// (the same for both). The terminal's part (Bubble Tea's cell buffers,
// about 1.6 MB at 180x40, one per program whatever it watches) is the run
// of a Fleet over no cluster, taken off both: fleet-KB/cluster is (the
// fleet of ten less the terminal) / 10, single-KB what one dashboard adds
// beyond the terminal. Goal (issue 27 point 3): a fleet cluster costs what
// a single dashboard costs.
//
//	go test -run '^$' -bench FleetHeapPerCluster -benchtime 1x ./ui/e2e/
func BenchmarkFleetHeapPerCluster(b *testing.B) {
	settle(b)
	var es []*engine.Engine
	for range heapFleetSize {
		e := startEngine(b, engineOpts{nodes: 2}) // AUDIT.LOG has two replicas
		if _, err := demo.Seed(e, demo.Snapshot); err != nil {
			b.Fatal(err)
		}
		es = append(es, e)
	}
	// A first run, not counted, pays what the first dashboard of a process
	// or the first reader of an engine allocates once.
	runSteady(b, es, true)
	var fleet, single, term int64
	for b.Loop() {
		for _, r := range []struct {
			sum   *int64
			es    []*engine.Engine
			fleet bool
		}{{&term, nil, true}, {&single, es[:1], false}, {&fleet, es, true}} {
			base := heapAt(1)
			*r.sum += runSteady(b, r.es, r.fleet) - base
		}
	}
	n := float64(b.N) * 1024
	b.ReportMetric(float64(fleet-term)/heapFleetSize/n, "fleet-KB/cluster")
	b.ReportMetric(float64(single-term)/n, "single-KB")
	b.ReportMetric(float64(term)/n, "terminal-KB")
}

// settle waits until the process's goroutine count holds for 3 s: what a
// benchmark run before this one left winding down (its dashboards' pending
// ticks, its engines' connections) would otherwise be freed during a run
// and taken off its figure.
func settle(b *testing.B) {
	n, since := runtime.NumGoroutine(), time.Now()
	ilinktest.WaitFor(b, 30*time.Second, "the goroutine count to hold for 3 s", func() bool {
		if m := runtime.NumGoroutine(); m != n {
			n, since = m, time.Now()
		}
		return time.Since(since) >= 3*time.Second
	})
}

// heapAt is the median of n readings, a second apart, of the live heap
// after a full collection.
func heapAt(n int) int64 {
	hs := make([]int64, n)
	for i := range hs {
		if i > 0 {
			time.Sleep(time.Second) // readings a second apart: a median over time, not a wait for a condition
		}
		hs[i] = int64(viewtest.LiveHeap())
	}
	slices.Sort(hs)
	return hs[n/2]
}

// runSteady runs a dashboard over es (a Fleet of them, or a single one
// over es[0]) until every cluster's data shows, then heapSteady more, and
// returns the live heap then.
func runSteady(b *testing.B, es []*engine.Engine, fleet bool) int64 {
	b.Helper()
	var lcs []live.Config
	for _, e := range es {
		lcs = append(lcs, live.Config{AdminAddrs: e.AdminAddrs(), DataAddrs: e.DataAddrs(), ClientName: "ilinkdash-bench"})
	}
	shown := func(s string) bool { return strings.Contains(s, "3 topics · 2 queues") } // the demo's, on the Overview
	if fleet {
		shown = func(s string) bool {
			for i := range es {
				if !strings.Contains(viewtest.RowOf(s, fmt.Sprintf("c%d", i)), " OK ") {
					return false
				}
			}
			return true
		}
	}
	goroutines := runtime.NumGoroutine()
	bf := startBenchDash(b, lcs, fleet, shown)
	bf.waitReady(b, "every cluster's data")
	time.Sleep(heapSteady) // the dashboard runs on for heapSteady: the heap measured is its steady state
	heap := heapAt(heapSamples)
	bf.stop(nil)
	// What the dashboard's connections leave winding down (here and in the
	// engines) is gone before the next baseline.
	ilinktest.WaitFor(b, deadline, "the dashboard's goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
	return heap
}
