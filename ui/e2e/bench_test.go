package e2e

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
)

// overviewWithNodes reports a frame of the overview with its node rows:
// the cluster line and a running row for each of the three nodes.
func overviewWithNodes(s string) bool {
	if !strings.Contains(s, "leader node 1 (QM1)") {
		return false
	}
	for _, id := range []string{"1", "2", "3"} {
		if nodeState(s, id) != "running" {
			return false
		}
	}
	return true
}

// BenchmarkStartToFirstFrame is the dashboard's start on the embedded demo
// as `ilinkdash` does it (cli/dashboard.go startSources: engine.Start,
// demo.Start, live.New; then ui.New and the program): the time from the
// engine's start until the first frame showing the overview with its node
// rows. Target: under 1 s.
func BenchmarkStartToFirstFrame(b *testing.B) {
	var worst time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		e, err := engine.Start(engine.Config{ElectionDelay: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		dm, err := demo.Start(e, demo.Options{})
		if err != nil {
			b.Fatal(err)
		}
		d := startDash(b, e, dashOpts{refresh: 2 * time.Second, demo: true})
		if _, ok := d.tryWait(deadline, overviewWithNodes); !ok {
			b.Fatalf("no overview with node rows; last frame:\n%s", d.fr.latest().plain)
		}
		took := time.Since(start)
		worst = max(worst, took)
		b.StopTimer()
		d.quit()
		dm.Close()
		_ = e.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
