package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
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

// heapLive is the heap marked live by the last GC
// (/gc/heap/live:bytes): what the program holds, without the garbage
// waiting for the next cycle, and without forcing one.
func heapLive() int64 {
	m := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(m)
	if m[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(m[0].Value.Uint64())
}

// profiles, when dir is set, writes a heap profile of this child
// (role-SECONDSs.pb.gz, after a GC) at every multiple of every, for
// `go tool pprof -inuse_space -base old new`, and its goroutines
// (role-SECONDSs.goroutines.txt).
type profiles struct {
	dir   string
	every time.Duration
	next  time.Duration
}

func (p *profiles) maybe(role string, elapsed time.Duration) {
	if p == nil || p.dir == "" || p.every <= 0 || elapsed < p.next {
		return
	}
	p.next = (elapsed/p.every + 1) * p.every
	runtime.GC()
	name := filepath.Join(p.dir, fmt.Sprintf("%s-%04ds.pb.gz", role, int(elapsed.Round(time.Second)/time.Second)))
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak: heap profile:", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "soak: heap profile:", err)
	}
	// The goroutines beside it, as text (debug=1 groups identical stacks).
	g, err := os.Create(strings.TrimSuffix(name, ".pb.gz") + ".goroutines.txt")
	if err != nil {
		return
	}
	defer g.Close()
	_ = pprof.Lookup("goroutine").WriteTo(g, 1)
}

// sampler prints a sample line every period until stop; extra fills the
// role-specific fields. prof, if not nil, writes heap profiles.
func sampler(role string, every time.Duration, stop <-chan struct{}, prof *profiles, extra func(*sample)) {
	start := time.Now()
	enc := json.NewEncoder(os.Stdout)
	emit := func() {
		prof.maybe(role, time.Since(start))
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s := sample{Role: role, TMs: time.Since(start).Milliseconds(), RSS: loadgen.ProcessMemory(0, loadgen.RSS), Heap: int64(ms.HeapInuse), HeapLive: heapLive(), Goroutines: runtime.NumGoroutine()}
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
func runEngine(every, faults time.Duration, seed int64, prof *profiles) {
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
		sampler("engine", every, sampleStop, prof, func(s *sample) {
			s.Faults = int(applied.Load())
			if ps, err := e.TopicPartitions(demo.Topics[0].Name); err == nil {
				s.Partitions = len(ps)
			}
		})
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
func runDash(every time.Duration, admin, data []string, prof *profiles) {
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
		sampler("dash", every, sampleStop, prof, func(s *sample) { s.Frames = out.n.Load() })
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
