package tab

import "testing"

func TestRetentionInTheInputForms(t *testing.T) {
	for _, c := range []struct {
		ms, bytes int64
		want      string
	}{{0, 0, "forever"}, {604_800_000, 0, "7d"}, {129_600_000, 0, "36h"}, {30 * 86_400_000, 1 << 30, "30d/1GiB"}, {0, 32 << 20, "32MiB"}} {
		if got := Retention(c.ms, c.bytes); got != c.want {
			t.Errorf("Retention(%d, %d) = %q, want %q", c.ms, c.bytes, got, c.want)
		}
	}
}
