package publish

import (
	"testing"
	"time"
)

// TestFmtLatencyRounds: latencies are rounded to the precision shown.
func TestFmtLatencyRounds(t *testing.T) {
	for in, want := range map[time.Duration]string{
		850 * time.Microsecond:     "850µs",
		999_700 * time.Nanosecond:  "1.0ms",
		4_260 * time.Microsecond:   "4.3ms",
		9_960 * time.Microsecond:   "10ms",
		37_800 * time.Microsecond:  "38ms",
		999_600 * time.Microsecond: "1.00s",
		1_254 * time.Millisecond:   "1.25s",
		1_700 * time.Nanosecond:    "2µs",
	} {
		if got := fmtLatency(in); got != want {
			t.Errorf("fmtLatency(%v) = %q, want %q", in, got, want)
		}
	}
}
