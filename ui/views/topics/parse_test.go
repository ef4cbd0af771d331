package topics

import (
	"testing"
)

func TestParsers(t *testing.T) {
	if got, err := parseRetention(""); err != nil || got != nil {
		t.Errorf("parseRetention(\"\") = %v, %v; want nil (the cluster's default)", got, err)
	}
	for in, want := range map[string]int64{"forever": 0, "7d": 7 * 86_400_000, "1w2d": 9 * 86_400_000, "90m": 5_400_000} {
		if got, err := parseRetention(in); err != nil || got == nil || *got != want {
			t.Errorf("parseRetention(%q) = %v, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseRetention("7x"); err == nil {
		t.Error("bad unit accepted")
	}
	for in, want := range map[string]int64{"": 0, "1GiB": 1 << 30, "500m": 500 << 20, "1024": 1024} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
