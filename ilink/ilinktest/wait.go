// Package ilinktest holds what the tests of every package share, as
// net/http/httptest does for net/http: the one wait-until helper, so a
// wait has one poll interval, one deadline rule and one failure message.
// Only tests import it (docs/DESIGN.md §1.3 rule 7).
package ilinktest

import (
	"testing"
	"time"
)

// interval is how often a wait looks at its condition: short next to
// any wait's timeout, long enough that a condition taking the locks of
// the code under test does not starve it on two loaded cores.
const interval = 10 * time.Millisecond

// WaitFor polls cond until it holds. If it still does not after timeout,
// the test fails with "timed out after <timeout> waiting for <what>", so
// what reads as the awaited state ("the follower to catch up").
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Poll polls cond until it holds or timeout passes and says whether it
// held: for a test that reports the failure itself, with what it saw.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
	return true
}
