package ilink

import (
	"sync"
	"sync/atomic"
	"time"
)

// clockRebase is how often recordClock re-reads the wall clock, so a
// stepped wall clock shows in record timestamps within this time.
const clockRebase = 100 * time.Millisecond

// Records sent close together share one clock read (recordClock.stamp):
// a read is reused for at most clockShareUses records and clears
// clockShare after it was taken (a timer; later when the runtime runs
// timers late on a saturated machine, when the use count bounds it). A
// record is stamped at Send, as Kafka clients do, within about a
// millisecond; the wire carries milliseconds anyway.
const (
	clockShare     = time.Millisecond
	clockShareUses = 64
)

// recordClock gives records their timestamps at the cost of one
// monotonic clock read instead of time.Now's wall and monotonic reads
// (about half, 26 against 49 ns on the benchmark machine; a record's
// clock read was a tenth of the producer's CPU): the wall time of a base
// plus the monotonic time elapsed since it, the base re-read every
// clockRebase. stamp shares one read among the records of a burst.
type recordClock struct {
	base atomic.Pointer[clockBase]

	shared atomic.Int64  // the read records share; 0 = none (read the clock)
	uses   atomic.Uint32 // stamps since shared was read
	armed  atomic.Bool   // the timer that clears shared is set
	expire *time.Timer   // clears shared; made at the first stamp
	once   sync.Once
}

type clockBase struct {
	at   time.Time // carries the monotonic reading
	wall int64     // at.UnixNano()
}

// nowNano is the wall clock in Unix nanoseconds.
func (c *recordClock) nowNano() int64 {
	if b := c.base.Load(); b != nil {
		if d := time.Since(b.at); d >= 0 && d < clockRebase {
			return b.wall + int64(d)
		}
	}
	now := time.Now()
	c.base.Store(&clockBase{at: now, wall: now.UnixNano()})
	return now.UnixNano()
}

// stamp is a record's timestamp in Unix nanoseconds: a clock read shared
// with the records stamped just before it (clockShare, clockShareUses).
func (c *recordClock) stamp() int64 {
	if v := c.shared.Load(); v != 0 && c.uses.Add(1) < clockShareUses {
		return v
	}
	v := c.nowNano()
	c.uses.Store(0)
	c.shared.Store(v)
	if c.armed.CompareAndSwap(false, true) {
		c.once.Do(func() { c.expire = time.AfterFunc(time.Hour, c.unshare) })
		c.expire.Reset(clockShare)
	}
	return v
}

// unshare ends the shared read: disarmed first, so a read shared after
// it arms the timer again (or is cleared here).
func (c *recordClock) unshare() {
	c.armed.Store(false)
	c.shared.Store(0)
}
