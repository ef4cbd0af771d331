package ilinktest

import (
	"fmt"
	"testing"
	"time"
)

// recorder is a testing.TB that records Fatalf instead of ending the
// goroutine; any other method of the embedded nil TB panics, so a call
// WaitFor should not make shows.
type recorder struct {
	testing.TB
	helpers int
	fatals  []string
}

func (r *recorder) Helper() { r.helpers++ }

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

// countdown is a condition that holds from its n-th call on.
func countdown(n int) (cond func() bool, calls *int) {
	calls = new(int)
	return func() bool { *calls++; return *calls >= n }, calls
}

// A condition that never holds fails the test once, after the timeout,
// with the message naming what was awaited and the timeout.
func TestWaitForFailsOnTimeout(t *testing.T) {
	rec := &recorder{}
	const timeout = 50 * time.Millisecond
	start := time.Now()
	WaitFor(rec, timeout, "the follower to catch up", func() bool { return false })
	if took := time.Since(start); took < timeout {
		t.Errorf("gave up after %v, before the %v timeout", took, timeout)
	}
	if len(rec.fatals) != 1 {
		t.Fatalf("Fatalf called %d times, want 1: %q", len(rec.fatals), rec.fatals)
	}
	if want := "timed out after 50ms waiting for the follower to catch up"; rec.fatals[0] != want {
		t.Errorf("failure %q, want %q", rec.fatals[0], want)
	}
	if rec.helpers == 0 {
		t.Error("WaitFor did not call t.Helper: a failure would name wait.go, not the caller")
	}
}

// A condition that comes to hold ends the wait at once, long before the
// timeout, without failing; one that holds at first is called once.
func TestWaitForReturnsWhenCondHolds(t *testing.T) {
	for _, n := range []int{1, 3} {
		rec := &recorder{}
		cond, calls := countdown(n)
		const timeout = time.Minute
		start := time.Now()
		WaitFor(rec, timeout, "the condition", cond)
		if len(rec.fatals) != 0 {
			t.Errorf("n=%d: failed: %q", n, rec.fatals)
		}
		if *calls != n {
			t.Errorf("n=%d: cond called %d times, want %d (polling past the first true)", n, *calls, n)
		}
		if took := time.Since(start); took > timeout/2 {
			t.Errorf("n=%d: returned after %v, not early", n, took)
		}
	}
}

// Poll says whether the condition came to hold within the timeout.
func TestPoll(t *testing.T) {
	start := time.Now()
	if Poll(30*time.Millisecond, func() bool { return false }) {
		t.Error("Poll of a condition that never holds said true")
	}
	if took := time.Since(start); took < 30*time.Millisecond {
		t.Errorf("Poll gave up after %v, before its timeout", took)
	}
	cond, calls := countdown(2)
	if !Poll(time.Minute, cond) {
		t.Error("Poll of a condition that holds on the second call said false")
	}
	if *calls != 2 {
		t.Errorf("cond called %d times, want 2", *calls)
	}
	// A zero timeout still looks once.
	if !Poll(0, func() bool { return true }) {
		t.Error("Poll(0) of a condition that holds said false")
	}
	if Poll(0, func() bool { return false }) {
		t.Error("Poll(0) of a condition that does not hold said true")
	}
}
