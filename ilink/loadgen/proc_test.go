package loadgen

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestProcessFigures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	// Burn CPU until the tick-granular counter moves.
	c0 := ProcessCPU(0)
	deadline := time.Now().Add(10 * time.Second)
	x := 0
	for ProcessCPU(0) <= c0 && time.Now().Before(deadline) {
		for i := 0; i < 1e6; i++ {
			x += i
		}
	}
	if c1 := ProcessCPU(0); c1 <= c0 {
		t.Fatalf("CPU time did not move: %v then %v (%d)", c0, c1, x)
	}
	if self, byPid := ProcessCPU(0), ProcessCPU(os.Getpid()); byPid < self || byPid-self > time.Second {
		t.Fatalf("own pid CPU %v, self %v", byPid, self)
	}
	rss, peak := ProcessMemory(0, RSS), ProcessMemory(0, PeakRSS)
	if rss <= 0 || peak < rss {
		t.Fatalf("RSS %d, peak %d: want 0 < RSS <= peak", rss, peak)
	}
	if n := ProcessMemory(0, "NoSuchField"); n != 0 {
		t.Fatalf("unknown field: %d, want 0", n)
	}
	if c, m := ProcessCPU(1<<30), ProcessMemory(1<<30, RSS); c != 0 || m != 0 {
		t.Fatalf("a process that does not exist: %v, %d", c, m)
	}
}
