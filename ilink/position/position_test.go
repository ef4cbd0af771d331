package position

import (
	"strings"
	"testing"
	"time"
)

func TestParseForms(t *testing.T) {
	loc := time.FixedZone("KST", 9*3600)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, loc)
	cases := []struct {
		in   string
		want Position
	}{
		{"earliest", Position{Kind: Earliest, Partition: -1}},
		{" Beginning ", Position{Kind: Earliest, Partition: -1}},
		{"latest", Position{Kind: Latest, Partition: -1}},
		{"END", Position{Kind: Latest, Partition: -1}},
		{"0", Position{Kind: Offset, Partition: -1, Offset: 0}},
		{"1234", Position{Kind: Offset, Partition: -1, Offset: 1234}},
		{"3@1234", Position{Kind: Offset, Partition: 3, Offset: 1234}},
		{"3 @ 7", Position{Kind: Offset, Partition: 3, Offset: 7}},
		{"2026-11-30T01:02:03Z", Position{Kind: Time, Partition: -1, Time: time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)}},
		{"2026-11-30T01:02:03.5+09:00", Position{Kind: Time, Partition: -1, Time: time.Date(2026, 11, 30, 1, 2, 3, 5e8, loc)}},
		{"2026-11-29 10:00", Position{Kind: Time, Partition: -1, Time: time.Date(2026, 11, 29, 10, 0, 0, 0, loc)}},
		{"2026-11-29 10:00:05", Position{Kind: Time, Partition: -1, Time: time.Date(2026, 11, 29, 10, 0, 5, 0, loc)}},
		{"2026-11-29", Position{Kind: Time, Partition: -1, Time: time.Date(2026, 11, 29, 0, 0, 0, 0, loc)}},
		{"10:00", Position{Kind: Time, Partition: -1, Time: time.Date(2026, 11, 30, 10, 0, 0, 0, loc)}},
		{"10:00:30", Position{Kind: Time, Partition: -1, Time: time.Date(2026, 11, 30, 10, 0, 30, 0, loc)}},
		{"-5m", Position{Kind: Time, Partition: -1, Time: now.Add(-5 * time.Minute)}},
		{"5m ago", Position{Kind: Time, Partition: -1, Time: now.Add(-5 * time.Minute)}},
		{"-2h", Position{Kind: Time, Partition: -1, Time: now.Add(-2 * time.Hour)}},
		{"-1d", Position{Kind: Time, Partition: -1, Time: now.Add(-24 * time.Hour)}},
		{"1w2d ago", Position{Kind: Time, Partition: -1, Time: now.Add(-9 * 24 * time.Hour)}},
		{"90s", Position{Kind: Time, Partition: -1, Time: now.Add(-90 * time.Second)}},
	}
	for _, c := range cases {
		got, err := Parse(c.in, now)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got.Kind != c.want.Kind || got.Partition != c.want.Partition || got.Offset != c.want.Offset || !got.Time.Equal(c.want.Time) {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
		// The canonical text reads back to the same position.
		back, err := Parse(got.String(), now)
		if err != nil || back.Kind != got.Kind || back.Offset != got.Offset || back.Partition != got.Partition || !back.Time.Equal(got.Time) {
			t.Errorf("Parse(%q).String() = %q reads back as %+v, %v", c.in, got.String(), back, err)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, in := range []string{"", "  ", "-5", "x@3", "3@-1", "-1@3", "soon", "5q", "99999999999999999999", "10:61", "2026-13-01"} {
		_, err := Parse(in, now)
		if err == nil {
			t.Errorf("Parse(%q) accepted", in)
			continue
		}
		if in != "" && strings.TrimSpace(in) != "" && !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q) error %q does not name the input", in, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "1w2d": 9 * 24 * time.Hour,
		"1h30m": 90 * time.Minute, "500ms": 500 * time.Millisecond, "1.5h": 90 * time.Minute,
	} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "7x", "h7"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

func TestLabel(t *testing.T) {
	if got := (Position{Kind: Offset, Partition: 3, Offset: 1234567}).Label(); got != "offset 1,234,567 of partition 3" {
		t.Errorf("label %q", got)
	}
	if got := (Position{Kind: Offset, Partition: -1, Offset: 12}).Label(); got != "offset 12" {
		t.Errorf("label %q", got)
	}
}
