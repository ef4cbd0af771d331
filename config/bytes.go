package config

import (
	"fmt"
	"strconv"
	"strings"
)

// byteUnits are the suffixes ParseBytes takes, binary multiples only: a
// memory bound is meant in the units memory is counted in.
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}

// ParseBytes reads a byte count: a whole number, optionally with one of
// the suffixes B, KiB, MiB, GiB ("16MiB", "512KiB", "1048576").
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	shift := uint(0)
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, shift = strings.TrimSpace(num), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("invalid size %q (want bytes, or a whole number of KiB, MiB or GiB, e.g. 16MiB)", s)
	}
	return n << shift, nil
}

// FormatBytes writes n in the largest unit of byteUnits that divides it
// ("16MiB"), the form ParseBytes reads.
func FormatBytes(n int64) string {
	for _, u := range byteUnits {
		if m := int64(1) << u.shift; n != 0 && n%m == 0 {
			return strconv.FormatInt(n/m, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
