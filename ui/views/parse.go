package views

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"ilinkdash/ilink/position"
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
	d, err := position.ParseDuration(s) // one duration syntax: 7d, 36h, 1w2d
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, errors.New("retention must be positive")
	}
	return d.Milliseconds(), nil
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
