package ilink

import (
	"testing"
	"time"
)

// A record's timestamp from recordClock is the wall clock: never before
// the time.Now read just before it, never after the one just after, and
// it follows the base's re-read past clockRebase.
func TestRecordClockIsTheWallClock(t *testing.T) {
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
