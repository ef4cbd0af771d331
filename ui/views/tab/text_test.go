package tab

import (
	"math"
	"testing"
)

func TestItoaEveryInt64(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {7, "7"}, {-12, "-12"}, {math.MaxInt64, "9223372036854775807"}, {math.MinInt64, "-9223372036854775808"}} {
		if got := Itoa(c.n); got != c.want {
			t.Errorf("Itoa(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
