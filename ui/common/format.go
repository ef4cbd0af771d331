package common

import (
	"math"
	"strconv"
	"strings"
	"time"
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

// Thousands formats an integer exactly with thin grouping: 12,345,678.
func Thousands(n int64) string {
	if n < 0 {
		if n == -1 {
			return "-"
		}
		return "-" + Thousands(-n)
	}
	s := strconv.FormatInt(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
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
// 1d12h. Zero gives "0s".
func Dur(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	if d < time.Second {
		if d == 0 {
			return "0s"
		}
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
	return Dur(d.Truncate(time.Second)) + " ago"
}

// Retention formats a topic's retention: "7d", "forever", "7d/1GiB".
func Retention(ms, bytes int64) string {
	var parts []string
	if ms > 0 {
		parts = append(parts, Dur(time.Duration(ms)*time.Millisecond))
	}
	if bytes > 0 {
		parts = append(parts, Bytes(bytes))
	}
	if len(parts) == 0 {
		return "forever"
	}
	return strings.Join(parts, "/")
}

// Clock formats a time of day for alert lists and events.
func Clock(t time.Time) string { return t.Format("15:04:05") }
