package loadgen

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// memSender is an in-memory Sender: record n fails with fail(n) (nil:
// acknowledged), after latency; the source ends after last records
// (0: never).
type memSender struct {
	run     *Run
	latency time.Duration
	fail    func(n int64) error
	last    int64
	onSend  func(n int64) // called after each Send

	next     []int64 // the records Next was asked for, in order
	cur      int64
	wg       sync.WaitGroup
	closed   int
	stopped  bool
	closeErr error
}

func (s *memSender) Next(n int64) bool {
	s.next = append(s.next, n)
	if s.last > 0 && n >= s.last {
		return false
	}
	s.cur = n
	return true
}

func (s *memSender) Send() {
	var err error
	if s.fail != nil {
		err = s.fail(s.cur)
	}
	at := time.Now()
	if s.onSend != nil {
		defer s.onSend(s.cur)
	}
	if s.latency <= 0 {
		s.run.Done(at, err)
		return
	}
	s.wg.Add(1)
	time.AfterFunc(s.latency, func() {
		defer s.wg.Done()
		s.run.Done(at, err)
	})
}

func (s *memSender) Close(stopped bool) error {
	s.wg.Wait()
	s.closed++
	s.stopped = stopped
	return s.closeErr
}

func drive(t *testing.T, ctx context.Context, spec Spec, s *memSender) (Result, time.Duration) {
	t.Helper()
	s.run = NewRun(spec)
	t0 := time.Now()
	res := s.run.Drive(ctx, s)
	if s.closed != 1 {
		t.Fatalf("the sender was closed %d times, want once", s.closed)
	}
	if s.stopped != res.Stopped {
		t.Fatalf("Close told stopped=%v, the result says %v", s.stopped, res.Stopped)
	}
	return res, time.Since(t0)
}

// Count records at Rate: every one sent in order, the schedule kept, the
// latency of each acknowledgement measured.
func TestDrivePacedCount(t *testing.T) {
	s := &memSender{latency: 2 * time.Millisecond}
	res, took := drive(t, context.Background(), Spec{Count: 20, Rate: 200}, s)
	if res.Sent != 20 || res.Acked != 20 || res.Failed != 0 || res.Unfinished != 0 || res.Stopped || res.Err != nil {
		t.Fatalf("result %+v", res)
	}
	for i, n := range s.next {
		if n != int64(i) {
			t.Fatalf("Next asked for %v, want 0..19 in order", s.next)
		}
	}
	if len(s.next) != 20 {
		t.Fatalf("Next asked for %d records, want 20 (none past Count)", len(s.next))
	}
	// Record 19 is due 95 ms after the start.
	if took < 95*time.Millisecond {
		t.Fatalf("20 records at 200/s took %v: the rate is not applied", took)
	}
	lat := s.run.Latency()
	if lat.Count() != 20 || lat.Quantile(0.5) < 2*time.Millisecond {
		t.Fatalf("latency: %d values, p50 %v; want 20, at least 2ms", lat.Count(), lat.Quantile(0.5))
	}
	if s.run.Sent() != 20 || s.run.Acked() != 20 || s.run.Failed() != 0 {
		t.Fatalf("counts after the run: %d sent, %d acked, %d failed", s.run.Sent(), s.run.Acked(), s.run.Failed())
	}
}

// Failures are counted (and kept out of the latency); only a failure StopOn
// names ends the run.
func TestDriveFailures(t *testing.T) {
	errBusy, errGone := errors.New("busy"), errors.New("gone")
	s := &memSender{fail: func(n int64) error {
		if n%3 == 2 {
			return errBusy
		}
		return nil
	}}
	stopOn := func(err error) bool { return errors.Is(err, errGone) }
	res, _ := drive(t, context.Background(), Spec{Count: 20, StopOn: stopOn}, s)
	if res.Sent != 20 || res.Failed != 6 || res.Acked != 14 || res.Stopped {
		t.Fatalf("every third of 20 failing: %+v", res)
	}
	if n := s.run.Latency().Count(); n != 14 {
		t.Fatalf("%d latencies, want the 14 acknowledgements'", n)
	}

	// Record 5 fails with what StopOn names: nothing is sent after it.
	s = &memSender{fail: func(n int64) error {
		if n == 5 {
			return errGone
		}
		return nil
	}}
	res, _ = drive(t, context.Background(), Spec{Count: 1000, StopOn: stopOn}, s)
	if res.Sent != 6 || res.Failed != 1 || res.Acked != 5 || !res.Stopped || res.Cancelled {
		t.Fatalf("stop at record 5: %+v", res)
	}
}

// Count 0 runs until the sender has no more, or until ctx ends; the
// outcomes that never came are Unfinished, and Close's error is the
// result's.
func TestDriveEndsAndCancels(t *testing.T) {
	s := &memSender{last: 7}
	res, _ := drive(t, context.Background(), Spec{}, s)
	if res.Sent != 7 || res.Acked != 7 || res.Stopped {
		t.Fatalf("a source of 7 records: %+v", res)
	}

	// Cancelled after record 10 of a run without a limit: nothing more is
	// sent, what was sent is awaited.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s = &memSender{latency: time.Millisecond, onSend: func(n int64) {
		if n == 10 {
			cancel()
		}
	}}
	res, took := drive(t, ctx, Spec{Rate: 1000}, s)
	if !res.Cancelled || !res.Stopped || res.Sent != 11 || res.Acked != 11 || len(s.next) != 11 {
		t.Fatalf("cancelled after record 10: %+v (Next asked for %d)", res, len(s.next))
	}
	if took > 5*time.Second {
		t.Fatalf("the cancelled run took %v to return", took)
	}

	// A sender that closes with records still out: they are Unfinished.
	lost := errors.New("closing: still flushing")
	s = &memSender{closeErr: lost}
	s.run = NewRun(Spec{Count: 3})
	res = s.run.Drive(context.Background(), &dropSender{memSender: s, drop: 1})
	if res.Sent != 3 || res.Acked != 2 || res.Unfinished != 1 || !errors.Is(res.Err, lost) {
		t.Fatalf("one record never completed: %+v", res)
	}
}

// dropSender loses the outcome of record drop.
type dropSender struct {
	*memSender
	drop int64
}

func (s *dropSender) Send() {
	if s.cur == s.drop {
		return
	}
	s.memSender.Send()
}
