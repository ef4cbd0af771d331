package tab

import (
	"strconv"
	"strings"
)

// Words joins non-empty parts with " · ".
func Words(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

// Itoa formats n in decimal (strconv's, MinInt64 included).
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }
