package topics

import (
	"strings"

	"ilinkdash/ilink/topicrules"
)

// parseRetention reads the create dialog's retention: blank = the
// cluster's default (nil), else the one rule of ilink/topicrules: forever
// (also ∞, none, 0) = topicrules.Forever, a duration (7d, 36h, 1w2d) of
// at most 36500d, or a bare number of milliseconds. The error names the
// field.
func parseRetention(s string) (*int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	ms, err := topicrules.ParseRetention(s)
	if err != nil {
		return nil, topicrules.InField(err, "Retention")
	}
	return &ms, nil
}

// parseBytes reads the create dialog's retention bytes: blank or
// unlimited = 0, else a binary size by the one unit rule (10k = 10,240,
// 1m = 1MiB = 2^20; MB and GB are refused as ambiguous).
func parseBytes(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	n, err := topicrules.ParseRetentionBytes(s)
	if err != nil {
		return 0, topicrules.InField(err, "Retention bytes")
	}
	return n, nil
}
