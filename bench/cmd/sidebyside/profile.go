package main

// SIDEBYSIDE_CPUPROFILE=PREFIX makes every measuring process write a CPU
// profile of each phase to PREFIX.<label>.<phase>.run<N>.pprof, sampled at
// 1 kHz (a phase lasts about 0.1 s: the default 100 Hz gives too few
// samples; the runtime then warns that it cannot set the rate, harmlessly).
// Merge runs with `go tool pprof -top FILES...`. SIDEBYSIDE_TRACE=PREFIX
// writes an execution trace of each phase instead (`go tool trace`).

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
)

const (
	profileEnv = "SIDEBYSIDE_CPUPROFILE"
	traceEnv   = "SIDEBYSIDE_TRACE"
)

// profilePhase starts the phase's CPU profile or trace when asked and
// returns what stops it (a no-op otherwise).
func profilePhase(s *spec, phase string) func() {
	env, ext := profileEnv, "pprof"
	start, stop := func(f *os.File) error {
		runtime.SetCPUProfileRate(1000)
		return pprof.StartCPUProfile(f)
	}, pprof.StopCPUProfile
	if os.Getenv(traceEnv) != "" {
		env, ext, start, stop = traceEnv, "trace", func(f *os.File) error { return trace.Start(f) }, trace.Stop
	}
	prefix := os.Getenv(env)
	if prefix == "" {
		return func() {}
	}
	label := strings.NewReplacer(" ", "_", "/", "_", "=", "").Replace(s.Label)
	f, err := os.Create(fmt.Sprintf("%s.%s.%s.run%d.%s", prefix, label, phase, s.Run, ext))
	if err == nil {
		if err = start(f); err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", env, err)
		return func() {}
	}
	return func() {
		stop()
		_ = f.Close()
	}
}
