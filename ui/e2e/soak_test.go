package e2e

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/chaos"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ui"
)

// Soak test timing: the data held is flat after the warm-up (the demo
// topics keep soakRetention of records), then the heap is sampled for
// soakMeasure, the last soakQuiet of it without faults.
const (
	soakRetention = 5 * time.Second
	soakWarmUp    = 20 * time.Second
	soakMeasure   = 90 * time.Second
	soakQuiet     = 15 * time.Second
	soakEvery     = 2 * time.Second
	// soakMaxSlope is the largest heap-live slope accepted, in bytes per
	// minute. With the leak of issue 21 (the demo consumers' buffers) this
	// test measured +3.5 MiB a minute (the bench soak's engine child about
	// 5); without it +0.04.
	soakMaxSlope = 1.5 * (1 << 20)
)

// countingWriter counts what the renderer writes and keeps nothing.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n.Add(int64(len(b)))
	return len(b), nil
}

// TestSoakHeapFlat is the short form of bench/cmd/soak (issue 21) in one
// process: the engine with the demo traffic (its topics' retention cut to
// 5 s, so the records held are flat after the warm-up) under the chaos
// fault schedule (no topic growth: more partitions are more state, not a
// leak), and the real dashboard (ui.New on ui/live, a tea.Program without
// a terminal, switching tabs every 3 s). After the warm-up it samples the
// heap live after a forced GC every 2 s for 90 s and fails when the
// Theil–Sen slope (the median of the pairwise slopes, which a fault's
// momentary buffers do not move) passes 1.5 MiB a minute. Without the
// race detector only (.ci/run's memory step): -race changes allocation.
func TestSoakHeapFlat(t *testing.T) {
	if raceEnabled {
		t.Skip("memory measure: run without -race (.ci/run's memory-bounds step)")
	}
	e, err := engine.Start(engine.Config{ElectionDelay: 500 * time.Millisecond, RetentionInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d, err := demo.Start(e, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, tp := range demo.Topics {
		if err := e.AlterTopic(tp.Name, fmt.Sprintf("retention.ms=%d", soakRetention.Milliseconds())); err != nil {
			t.Fatal(err)
		}
	}
	sched, err := chaos.NewSchedule(e, chaos.ScheduleConfig{
		Seed: 1, Topic: demo.Topics[0].Name, Group: "billing",
		GapMin: time.Second, GapMax: 4 * time.Second, MaxPartitions: len(mustPartitions(t, e, demo.Topics[0].Name)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	faultsDone := make(chan struct{})
	go func() {
		defer close(faultsDone)
		sched.Run(ctx, start.Add(soakWarmUp+soakMeasure-soakQuiet))
	}()
	defer func() { cancel(); <-faultsDone }()

	src := liveSources(t, e, false)
	defer src.Close()
	cfg := config.DefaultContext()
	cfg.Name = "soak"
	out := &countingWriter{}
	p := tea.NewProgram(ui.New(ui.NewContext(cfg, true, func(string) string { return "" }), src),
		tea.WithInput(nil), tea.WithOutput(out), tea.WithFPS(ui.FPS),
		tea.WithWindowSize(120, 40), tea.WithoutSignalHandler())
	ran := make(chan error, 1)
	go func() {
		_, err := p.Run()
		ran <- err
	}()
	defer func() {
		p.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
		<-ran
	}()

	type sample struct {
		at   time.Duration
		live uint64
	}
	var samples []sample
	measureFrom := start.Add(soakWarmUp)
	tabs := time.NewTicker(3 * time.Second)
	defer tabs.Stop()
	every := time.NewTicker(soakEvery)
	defer every.Stop()
	tab := 0
	for time.Since(start) < soakWarmUp+soakMeasure {
		select {
		case err := <-ran:
			t.Fatalf("the dashboard ended: %v", err)
		case <-tabs.C:
			tab = tab%7 + 1
			p.Send(tea.KeyPressMsg{Code: rune('0' + tab), Text: string(rune('0' + tab))})
		case now := <-every.C:
			if now.Before(measureFrom) {
				continue
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			samples = append(samples, sample{at: now.Sub(start), live: ms.HeapAlloc})
		}
	}
	if len(samples) < 20 {
		t.Fatalf("only %d heap samples", len(samples))
	}
	var slopes []float64
	for i := range samples {
		for j := i + 1; j < len(samples); j++ {
			dt := (samples[j].at - samples[i].at).Minutes()
			slopes = append(slopes, (float64(samples[j].live)-float64(samples[i].live))/dt)
		}
	}
	slices.Sort(slopes)
	slope := slopes[len(slopes)/2]
	first, last := samples[0], samples[len(samples)-1]
	t.Logf("heap live after GC: %.1f MiB at %v, %.1f MiB at %v; Theil–Sen slope %+.2f MiB/min over %d samples; %d faults; %d B rendered",
		mib(first.live), first.at.Round(time.Second), mib(last.live), last.at.Round(time.Second), slope/(1<<20), len(samples), faultCount(sched.Counts()), out.n.Load())
	if slope > soakMaxSlope {
		var b strings.Builder
		for _, s := range samples {
			fmt.Fprintf(&b, " %v:%.1f", s.at.Round(time.Second), mib(s.live))
		}
		t.Errorf("heap live grows by %.2f MiB a minute (bound %.1f): a structure is not bounded; MiB at each sample:%s", slope/(1<<20), soakMaxSlope/(1<<20), b.String())
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func faultCount(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func mustPartitions(t *testing.T, e *engine.Engine, topic string) []engine.PartitionInfo {
	t.Helper()
	ps, err := e.TopicPartitions(topic)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}
