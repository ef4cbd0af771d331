package publish_test

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ui/internal/fakes"
)

// A run whose every record failed draws no acknowledged bar: the failed
// share is marked ✗, the bar fills (█) for acknowledged records only.
func TestPublishFailedRunDrawsNoFullBar(t *testing.T) {
	pub := &fakes.Publisher{Manual: true, FailEvery: 1}
	r := newPubRig(t, false, pub)
	r.send("PAYMENT.RESULT", "100")
	pub.Last().Step(100)
	r.Advance(250 * time.Millisecond)
	r.MustShow("0/100 acknowledged", "100 failed")
	for _, l := range strings.Split(r.Screen(), "\n") {
		if strings.Contains(l, "0/100 acknowledged") {
			if strings.Contains(l, "█") || !strings.Contains(l, "✗✗✗✗✗✗✗✗") {
				t.Fatalf("bar of an all-failed run: %q", l)
			}
			return
		}
	}
}
