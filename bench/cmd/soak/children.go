package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/chaos"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/loadgen"
	"ilinkdash/ui"
	"ilinkdash/ui/live"
)

// sampler prints a sample line every period until stop; extra fills the
// role-specific fields.
func sampler(role string, every time.Duration, stop <-chan struct{}, extra func(*sample)) {
	start := time.Now()
	enc := json.NewEncoder(os.Stdout)
	emit := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s := sample{Role: role, TMs: time.Since(start).Milliseconds(), RSS: loadgen.ProcessMemory(0, loadgen.RSS), Heap: int64(ms.HeapInuse), Goroutines: runtime.NumGoroutine()}
		if extra != nil {
			extra(&s)
		}
		_ = enc.Encode(&s)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	emit()
	for {
		select {
		case <-stop:
			emit()
			return
		case <-t.C:
			emit()
		}
	}
}

// waitStdin returns a channel closed when stdin ends: the parent's signal
// to stop.
func waitStdin() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(ch)
	}()
	return ch
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "soak: "+format+"\n", args...)
	os.Exit(2)
}

// runEngine is the engine child: engine, demo traffic, fault schedule.
func runEngine(every, faults time.Duration, seed int64) {
	stop := waitStdin()
	e, err := engine.Start(engine.Config{ElectionDelay: time.Second})
	if err != nil {
		fatal("engine: %v", err)
	}
	d, err := demo.Start(e, demo.Options{})
	if err != nil {
		fatal("demo: %v", err)
	}
	// A minute of retention: the records held are flat after the first
	// minute, so memory growth means a leak, not data.
	for _, t := range demo.Topics {
		if err := e.AlterTopic(t.Name, "retention.ms=60000"); err != nil {
			fatal("retention of %s: %v", t.Name, err)
		}
	}
	fmt.Printf("addrs %s %s\n", strings.Join(e.AdminAddrs(), ","), strings.Join(e.DataAddrs(), ","))
	var applied atomic.Int64
	sched, err := chaos.NewSchedule(e, chaos.ScheduleConfig{
		Seed: seed, Topic: demo.Topics[0].Name, Group: "billing",
		GapMin: time.Second, GapMax: 4 * time.Second, MaxPartitions: 12,
		OnFault: func(kind, detail string, parts int, windowed bool) func(time.Time) {
			applied.Add(1)
			return nil
		},
	})
	if err != nil {
		fatal("schedule: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-stop; cancel() }()
	done := make(chan struct{})
	go func() {
		sched.Run(ctx, time.Now().Add(faults))
		close(done)
	}()
	sampleStop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		sampler("engine", every, sampleStop, func(s *sample) { s.Faults = int(applied.Load()) })
		close(sampled)
	}()
	<-stop
	<-done
	close(sampleStop)
	<-sampled
	d.Close()
	e.Close()
}

// countingWriter counts what the renderer writes.
type countingWriter struct{ n atomic.Int64 }

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n.Add(int64(len(b)))
	return len(b), nil
}

// runDash is the dashboard child: the real program loop without a
// terminal, switching tabs.
func runDash(every time.Duration, admin, data []string) {
	stop := waitStdin()
	src, err := live.New(live.Config{AdminAddrs: admin, DataAddrs: data, ClientName: "soak-dash"})
	if err != nil {
		fatal("live: %v", err)
	}
	cfg := config.DefaultContext()
	cfg.Name = "soak"
	m := ui.New(ui.NewContext(cfg, true, func(string) string { return "" }), src)
	out := &countingWriter{}
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(out), tea.WithFPS(ui.FPS),
		tea.WithWindowSize(120, 40), tea.WithoutSignalHandler())
	ran := make(chan error, 1)
	go func() {
		_, err := p.Run()
		ran <- err
	}()
	sampleStop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		sampler("dash", every, sampleStop, func(s *sample) { s.Frames = out.n.Load() })
		close(sampled)
	}()
	tabs := time.NewTicker(3 * time.Second)
	defer tabs.Stop()
	tab := 0
loop:
	for {
		select {
		case <-stop:
			break loop
		case err := <-ran:
			fatal("the dashboard ended: %v", err)
		case <-tabs.C:
			tab = tab%7 + 1
			p.Send(tea.KeyPressMsg{Code: rune('0' + tab), Text: string(rune('0' + tab))})
		}
	}
	close(sampleStop)
	<-sampled
	p.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		p.Kill()
	}
	_ = src.Close()
}
