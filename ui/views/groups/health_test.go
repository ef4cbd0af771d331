package groups

import (
	"testing"

	"ilinkdash/ilink/admin"
)

func TestDrainText(t *testing.T) {
	tests := []struct {
		lag        int64
		rate, prod float64
		want       string
	}{
		{-1, 10, 0, "-"}, // unknown, never -1
		{0, 10, 10, "caught up"},
		{100, -1, -1, "…"},
		{100, 0, 5, "not draining"},
		{100, 10, 10, "steady"},
		{100, 10, 20, "falling behind"},
		{1000, 20, 10, "≈ 1m40s"},
		{1 << 50, 1, 0, "> 30d"},
	}
	for _, tt := range tests {
		l := admin.PartLag{Records: tt.lag, Unknown: tt.lag < 0}
		if got := drainText(l, tt.rate, tt.prod); got != tt.want {
			t.Errorf("drainText(%d, %v, %v) = %q, want %q", tt.lag, tt.rate, tt.prod, got, tt.want)
		}
	}
}
