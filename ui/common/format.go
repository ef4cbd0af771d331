package common

import (
	"math"
	"strconv"
	"time"

	"ilinkdash/ilink/numfmt"
)

// Count formats a non-negative count compactly with three significant
// digits: 999, 1.23k, 45.6M. Negative values (the admin API's "none") give
// "-".
func Count(n int64) string {
	if n < 0 {
		return "-"
	}
	return compact(float64(n), "")
}

// Rate formats a per-second rate: 0, 12.5, 1.23k.
func Rate(v float64) string {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return compact(v, "")
}

func compact(v float64, unit string) string {
	if v < 1000 {
		return strconv.FormatInt(int64(math.Round(v)), 10) + unit
	}
	suffixes := []string{"k", "M", "G", "T", "P", "E"}
	i := -1
	for v >= 999.5 && i < len(suffixes)-1 {
		v /= 1000
		i++
	}
	var s string
	switch {
	case v < 9.995:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	case v < 99.95:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	default:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	}
	return s + suffixes[i] + unit
}

// Thousands formats an integer exactly with comma grouping: 12,345,678;
// -1 (the admin API's "none") gives "-".
func Thousands(n int64) string {
	if n == -1 {
		return "-"
	}
	return numfmt.Thousands(n)
}

// Bytes formats a byte count in binary units: 512B, 1.5KiB, 20MiB.
func Bytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	v := float64(n)
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64) + units[i]
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + units[i]
}

// Dur formats a duration in its two largest units: 45s, 3m20s, 2h5m, 7d,
// 1d12h; under a second in milliseconds (800ms). Zero gives "0s". The
// duration is rounded (half away from zero) to the smallest unit shown,
// never truncated: 3.99s is "4s", 59m59.7s is "1h", 1d11h59m is "1d12h".
func Dur(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	if d == 0 {
		return "0s"
	}
	// Round to the precision the result will have: milliseconds below a
	// second, then seconds below an hour (…m…s), minutes below a day
	// (…h…m), hours beyond. Rounding may carry into the next range (59.6s
	// → 1m0s), which only ever moves to a coarser unit, so a second pass
	// settles it.
	for _, p := range []struct{ below, unit time.Duration }{
		{time.Second, time.Millisecond},
		{time.Hour, time.Second},
		{24 * time.Hour, time.Minute},
		{1 << 62, time.Hour},
	} {
		if d < p.below {
			if r := d.Round(p.unit); r < p.below || p.unit == time.Hour {
				d = r
				break
			}
		}
	}
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	s := int64(d / time.Second)
	days, s := s/86400, s%86400
	h, s := s/3600, s%3600
	m, s := s/60, s%60
	two := func(a int64, au string, b int64, bu string) string {
		out := strconv.FormatInt(a, 10) + au
		if b != 0 {
			out += strconv.FormatInt(b, 10) + bu
		}
		return out
	}
	switch {
	case days > 0:
		return two(days, "d", h, "h")
	case h > 0:
		return two(h, "h", m, "m")
	case m > 0:
		return two(m, "m", s, "s")
	}
	return strconv.FormatInt(s, 10) + "s"
}

// Ago formats the age of t at now: "now", "3s ago", "2m10s ago"; zero t
// gives "never".
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	if d < time.Second {
		return "now"
	}
	return Dur(d) + " ago"
}

// Clock formats a time of day for alert lists and events.
func Clock(t time.Time) string { return t.Format("15:04:05") }

// Integer is any integer type a count comes in.
type Integer = numfmt.Integer

// Plural formats a count (with Thousands) and its noun, singular for
// exactly one: "1 topic", "0 topics", "3 redeliveries" (numfmt.Plural, the
// one the CLI and the health rules use too).
func Plural[N Integer](n N, noun string) string { return numfmt.Plural(n, noun) }

// PluralOf is Plural with an explicit plural form: PluralOf(n, "it", "them").
func PluralOf[N Integer](n N, one, many string) string { return numfmt.PluralOf(n, one, many) }

// Agree returns one when n is exactly 1, else many; for the words that
// follow a count: "1 group needs attention", "2 groups need attention".
func Agree[N Integer](n N, one, many string) string { return numfmt.Agree(n, one, many) }
