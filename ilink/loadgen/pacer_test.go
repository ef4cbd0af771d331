package loadgen

import (
	"context"
	"testing"
	"time"
)

// The benchmarks' 1 ms ticks at 1,500 rec/s: ticks alternate 1 and 2
// records; 1,000 ticks (one second) hold 1,500.
func TestPacerTicks(t *testing.T) {
	start := time.Unix(1000, 0)
	p := NewPacer(1500, start).WithTick(time.Millisecond)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	if n := p.Due(at(1000)) - p.Due(at(0)); n != 1500 {
		t.Fatalf("ticks 1..1000 hold %d records, want 1500", n)
	}
	if a, b := p.Due(at(1))-p.Due(at(0)), p.Due(at(2))-p.Due(at(1)); a+b != 3 || a == b {
		t.Fatalf("ticks 1, 2: %d + %d records", a, b)
	}
	if p.Due(at(0)) != 1 || p.Due(start.Add(-time.Millisecond)) != 0 {
		t.Fatalf("due at the start %d, before it %d; want 1, 0", p.Due(at(0)), p.Due(start.Add(-time.Millisecond)))
	}
	// Each record is due at the end of its tick, and Due agrees with At.
	for n := int64(0); n < 3000; n++ {
		a := p.At(n)
		if a.Sub(start)%time.Millisecond != 0 {
			t.Fatalf("record %d due at %v, not on a tick", n, a.Sub(start))
		}
		if p.Due(a) <= n || p.Due(a.Add(-time.Nanosecond)) > n {
			t.Fatalf("record %d: At %v, Due there %d, a ns before %d", n, a.Sub(start), p.Due(a), p.Due(a.Add(-time.Nanosecond)))
		}
	}
}

func TestPacerSchedule(t *testing.T) {
	start := time.Unix(1000, 0)
	p := NewPacer(4, start)
	for n, want := range []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Second} {
		if got := p.At(int64(n)).Sub(start); got != want {
			t.Errorf("record %d due at %v, want %v", n, got, want)
		}
	}
	if p.Due(start.Add(499*time.Millisecond)) != 2 || p.Due(start.Add(500*time.Millisecond)) != 3 {
		t.Errorf("due at 499 ms %d, at 500 ms %d; want 2, 3", p.Due(start.Add(499*time.Millisecond)), p.Due(start.Add(500*time.Millisecond)))
	}
	free := NewPacer(0, start)
	if free.Paced() || free.Due(start) < 1<<40 || !free.At(1_000_000).Equal(start) {
		t.Error("a pacer without a rate holds records back")
	}
}

// Run sends at the rate (60 records at 600/s take at least the 98 ms the
// schedule spans), stops where send says, and stops when ctx ends.
func TestPacerRun(t *testing.T) {
	start := time.Now()
	var at []time.Duration
	n := NewPacer(600, start).Run(context.Background(), func(n int64) bool {
		if n == 60 {
			return false
		}
		at = append(at, time.Since(start))
		return true
	})
	if n != 60 || len(at) != 60 {
		t.Fatalf("sent %d (%d calls), want 60", n, len(at))
	}
	for i, d := range at {
		if due := time.Duration(i) * time.Second / 600; d < due {
			t.Fatalf("record %d sent at %v, before it was due (%v)", i, d, due)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	got := NewPacer(1000, time.Now()).Run(ctx, func(n int64) bool {
		if n == 20 {
			cancel()
		}
		return true
	})
	if got != 21 {
		t.Fatalf("cancelled at record 20: Run sent %d, want 21", got)
	}

	// Without a rate Run never sleeps.
	if n := NewPacer(0, time.Now()).Run(context.Background(), func(n int64) bool { return n < 100_000 }); n != 100_000 {
		t.Fatalf("unpaced run sent %d", n)
	}
}

func TestPacerWaitEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := NewPacer(0.001, time.Now()) // record 1 due in 1,000 s
	done := make(chan bool)
	go func() { done <- p.Wait(ctx, 1) }()
	cancel()
	if <-done {
		t.Fatal("Wait reported the record due after ctx ended")
	}
	if !p.Wait(context.Background(), 0) {
		t.Fatal("record 0 is due at once")
	}
}
