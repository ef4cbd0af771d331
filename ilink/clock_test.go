package ilink

import (
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
)

// A record's timestamp from recordClock is the wall clock: never before
// the time.Now read just before it, never after the one just after, and
// it follows the base's re-read past clockRebase.
func TestRecordClockIsTheWallClock(t *testing.T) {
	t.Parallel()
	var c recordClock
	for i := range 2000 {
		before := time.Now().UnixNano()
		got := c.nowNano()
		after := time.Now().UnixNano()
		// A millisecond of slack: the monotonic and wall clocks may be
		// slewed apart by NTP between two rebases, never by that much.
		if got < before-int64(time.Millisecond) || got > after+int64(time.Millisecond) {
			t.Fatalf("read %d: %d outside [%d, %d]", i, got, before, after)
		}
	}
	c.base.Store(&clockBase{at: time.Now().Add(-2 * clockRebase), wall: 42})
	if got := c.nowNano(); got < time.Now().Add(-time.Second).UnixNano() {
		t.Fatalf("a base older than clockRebase was kept: %d", got)
	}
}

// Records stamped in a burst share a clock read, never one taken before
// the burst's first Send nor after the record's own Send, for at most
// clockShareUses records; after clockShare without a record the next one
// reads the clock again.
func TestRecordClockStampSharesABurstsRead(t *testing.T) {
	t.Parallel()
	var c recordClock
	start := time.Now().UnixNano()
	first := c.stamp()
	reads := map[int64]int{first: 1}
	for i := 1; i < 4*clockShareUses; i++ {
		got := c.stamp()
		if after := time.Now().UnixNano(); got < start-int64(time.Millisecond) || got > after+int64(time.Millisecond) {
			t.Fatalf("stamp %d: %d outside [%d, %d]", i, got, start, after)
		}
		reads[got]++
	}
	for v, n := range reads {
		if n > clockShareUses {
			t.Fatalf("read %d shared by %d records, want at most %d", v, n, clockShareUses)
		}
	}
	if len(reads) >= 4*clockShareUses {
		t.Fatalf("%d records took %d clock reads: none was shared", 4*clockShareUses, len(reads))
	}
	last := c.stamp()
	before := time.Now().UnixNano()
	ilinktest.WaitFor(t, time.Second, "the shared read cleared after clockShare", func() bool { return c.shared.Load() == 0 })
	if got := c.stamp(); got < before || got <= last {
		t.Fatalf("after the shared read expired: stamp %d, want >= %d (the time before the wait) and > %d", got, before, last)
	}
}
