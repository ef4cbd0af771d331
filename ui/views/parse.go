package views

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseRetention reads a retention the way operators write it: blank =
// the cluster default (0), "forever", "0" or "∞" = keep forever (-1), or
// a duration with units s, m, h, d, w ("7d", "36h", "1w2d").
func parseRetention(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "":
		return 0, nil
	case "forever", "0", "∞", "inf", "infinite":
		return -1, nil
	}
	d, err := parseDurationDays(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, errors.New("retention must be positive")
	}
	return d.Milliseconds(), nil
}

// parseDurationDays is time.ParseDuration plus d (days) and w (weeks).
func parseDurationDays(s string) (time.Duration, error) {
	var total time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("bad duration %q (e.g. 7d, 12h, 30m)", s)
		}
		j := i
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') && rest[j] != '.' {
			j++
		}
		num, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		var u time.Duration
		switch unit {
		case "ms":
			u = time.Millisecond
		case "s":
			u = time.Second
		case "m":
			u = time.Minute
		case "h":
			u = time.Hour
		case "d":
			u = 24 * time.Hour
		case "w":
			u = 7 * 24 * time.Hour
		default:
			return 0, fmt.Errorf("bad duration unit %q in %q (use s, m, h, d, w)", unit, s)
		}
		total += time.Duration(v * float64(u))
	}
	return total, nil
}

// parseBytes reads a size: blank = 0 (default), "1GiB", "500MB", "1024".
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || i == 0 {
		return 0, fmt.Errorf("bad size %q (e.g. 1GiB, 500MB)", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "kib": 1 << 10,
		"m": 1e6, "mb": 1e6, "mib": 1 << 20,
		"g": 1e9, "gb": 1e9, "gib": 1 << 30,
		"t": 1e12, "tb": 1e12, "tib": 1 << 40,
	}[strings.ToLower(strings.TrimSpace(s[i:]))]
	if mult == 0 {
		return 0, fmt.Errorf("bad size unit in %q", s)
	}
	return int64(v * mult), nil
}

// parseOptInt reads an optional integer field: blank = nil.
func parseOptInt(label, s string, lo, hi int) (*int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return nil, fmt.Errorf("%s must be a whole number from %d to %d", label, lo, hi)
	}
	return &v, nil
}
