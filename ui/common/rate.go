package common

import "time"

// RateWindow estimates a rate per second over the last few seconds from
// (time, running total) samples, taken at most every 250 ms (the tail's
// records/s, a publish run's acknowledgements/s).
type RateWindow struct {
	ts []time.Time
	ns []int64
}

// Add samples the running total at now.
func (r *RateWindow) Add(now time.Time, total int64) {
	if n := len(r.ts); n > 0 && now.Sub(r.ts[n-1]) < 250*time.Millisecond {
		return
	}
	r.ts = append(r.ts, now)
	r.ns = append(r.ns, total)
	drop := 0
	for len(r.ts)-drop > 2 && now.Sub(r.ts[drop]) > 3*time.Second {
		drop++
	}
	if drop > 0 {
		r.ts = append(r.ts[:0], r.ts[drop:]...)
		r.ns = append(r.ns[:0], r.ns[drop:]...)
	}
}

// Rate is the rate from the oldest kept sample to (now, total); 0 over
// less than 100 ms.
func (r *RateWindow) Rate(now time.Time, total int64) float64 {
	if len(r.ts) == 0 {
		return 0
	}
	dt := now.Sub(r.ts[0]).Seconds()
	if dt < 0.1 {
		return 0
	}
	return float64(total-r.ns[0]) / dt
}
