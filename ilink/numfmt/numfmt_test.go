package numfmt

import "testing"

func TestThousandsAndPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {-123, "-123"}, {-1234, "-1,234"}, {123456, "123,456"}, {-1234567, "-1,234,567"}} {
		if got := Thousands(c.n); got != c.want {
			t.Errorf("Thousands(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		n          int
		noun, want string
	}{{3, "redelivery", "3 redeliveries"}, {1, "redelivery", "1 redelivery"}, {1, "active member", "1 active member"},
		{2, "active member", "2 active members"}, {9, "partition", "9 partitions"}, {2, "day", "2 days"}, {1200, "entry", "1,200 entries"}} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
