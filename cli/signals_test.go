package cli

import (
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// GNU timeout (`timeout -s INT 60 ilinkdash tail T`) signals the command
// and then its process group: one interrupt arrives twice within
// microseconds. That is the first interrupt, not a second one that exits
// at once (with 130, before tail leaves its group); a second interrupt
// later than sameInterrupt still exits at once.
func TestSignalDeliveredTwiceIsOneInterrupt(t *testing.T) {
	a := newRootCommand()
	a.headless.Store(true)
	sigs := make(chan os.Signal) // unbuffered: each send returns once the loop took it
	done := make(chan struct{})
	defer close(done)
	var cancels atomic.Int32
	exited := make(chan int, 1)
	// The clock, read once per signal: the first interrupt, the same one
	// again 50µs later, a second interrupt 300ms after the first.
	t0 := time.Now()
	times := []time.Time{t0, t0.Add(50 * time.Microsecond), t0.Add(300 * time.Millisecond)}
	var reads atomic.Int32
	now := func() time.Time { return times[min(int(reads.Add(1))-1, len(times)-1)] }
	go a.signalLoop(sigs, done, func(error) { cancels.Add(1) }, now, func(code int) { exited <- code })

	for _, what := range []string{"the first interrupt", "the same interrupt delivered again", "a second interrupt"} {
		select {
		case sigs <- syscall.SIGINT:
		case code := <-exited:
			t.Fatalf("exited with %d before %s", code, what)
		}
	}
	if code := <-exited; code != exitInterrupted {
		t.Fatalf("second interrupt: exit %d, want %d", code, exitInterrupted)
	}
	if n := cancels.Load(); n != 1 {
		t.Fatalf("run cancelled %d times, want once", n)
	}
}
