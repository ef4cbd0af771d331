package ui

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
)

// tickReq is a tick the pollRig recorded.
type tickReq struct {
	due time.Time
	fn  func(time.Time) tea.Msg
}

// pollRig drives a poller by hand: ticks are recorded, not slept on.
type pollRig struct {
	p     *poller
	ctx   *Context
	now   time.Time
	ticks []tickReq
	calls atomic.Int32
	err   error
	want  map[common.ResID]bool
}

func newPollRig() *pollRig {
	r := &pollRig{now: fakes.Epoch, want: map[common.ResID]bool{common.ResTopics: true}}
	r.ctx = NewContext(config.DefaultContext(), false, nil)
	r.ctx.Now = func() time.Time { return r.now }
	r.ctx.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		r.ticks = append(r.ticks, tickReq{due: r.now.Add(d), fn: fn})
		return nil
	}
	fetch := []fetchFunc{
		common.ResTopics: func(context.Context) (any, error) {
			r.calls.Add(1)
			return "data", r.err
		},
	}
	r.p = newPoller(r.ctx, fetch, func(id common.ResID) bool { return r.want[id] })
	return r
}

// exec runs a fetch command and returns its reply.
func exec(t *testing.T, cmd tea.Cmd) pollResultMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("expected a fetch command, got none")
	}
	msg, ok := cmd().(pollResultMsg)
	if !ok {
		t.Fatalf("command returned %T, want pollResultMsg", cmd())
	}
	return msg
}

func (r *pollRig) popTick(t *testing.T) pollTickMsg {
	t.Helper()
	if len(r.ticks) != 1 {
		t.Fatalf("%d ticks armed, want exactly 1", len(r.ticks))
	}
	tk := r.ticks[0]
	r.ticks = nil
	r.now = tk.due
	return tk.fn(r.now).(pollTickMsg)
}

func TestPollReArmsOnlyWhenTheReplyArrives(t *testing.T) {
	r := newPollRig()
	fetch := r.p.start()
	if len(r.ticks) != 0 {
		t.Fatal("a tick was armed before any reply")
	}
	reply := exec(t, fetch)
	out, next := r.p.onResult(reply)
	if _, ok := out.(common.DataMsg); !ok {
		t.Fatalf("reply fanned out as %T, want DataMsg", out)
	}
	_ = next
	tick := r.popTick(t)
	if got := r.now.Sub(fakes.Epoch); got != r.ctx.Interval(common.ResTopics) {
		t.Errorf("tick armed for %v, want the topics interval", got)
	}
	// The tick starts exactly one fetch; until it answers, no tick exists.
	fetch = r.p.onTick(tick)
	if fetch == nil || !r.p.res[common.ResTopics].inFlight {
		t.Fatal("tick did not start a fetch")
	}
	if len(r.ticks) != 0 {
		t.Fatal("a tick was armed while a request is in flight")
	}
	// A slow engine: many intervals pass, nothing else is sent.
	r.now = r.now.Add(time.Minute)
	if cmd := r.p.refresh(common.ResTopics); cmd != nil {
		t.Fatal("refresh sent a second request while one is in flight")
	}
	if r.calls.Load() != 1 {
		t.Fatalf("%d calls so far, want 1 (the second is not executed yet)", r.calls.Load())
	}
	// The reply arrives: because a refresh was asked meanwhile, the next
	// fetch goes immediately (still one at a time), without a tick.
	reply = exec(t, fetch)
	_, next = r.p.onResult(reply)
	if next == nil || len(r.ticks) != 0 {
		t.Fatal("the refresh asked during the request did not fetch again")
	}
	exec(t, next)
	if r.calls.Load() != 3 {
		t.Fatalf("%d calls, want 3", r.calls.Load())
	}
}

func TestPollDropsStaleRepliesAndTicks(t *testing.T) {
	r := newPollRig()
	_, _ = r.p.onResult(exec(t, r.p.start()))
	tick := r.popTick(t)
	// A manual refresh while the tick is pending: the tick becomes stale.
	fresh := r.p.refresh(common.ResTopics)
	if fresh == nil {
		t.Fatal("refresh did not fetch")
	}
	if cmd := r.p.onTick(tick); cmd != nil {
		t.Fatal("a stale tick started a fetch")
	}
	reply := exec(t, fresh)
	// A reply of an older generation is dropped.
	stale := reply
	stale.gen--
	if out, cmd := r.p.onResult(stale); out != nil || cmd != nil {
		t.Fatal("a stale reply was delivered")
	}
	if out, _ := r.p.onResult(reply); out == nil {
		t.Fatal("the current reply was dropped")
	}
	// A context switch makes the in-flight reply stale.
	tick = r.popTick(t)
	inflight := r.p.onTick(tick)
	reply = exec(t, inflight)
	restart := r.p.reset([]fetchFunc{common.ResTopics: func(context.Context) (any, error) { return "new", nil }})
	if out, _ := r.p.onResult(reply); out != nil {
		t.Fatal("a reply from the old context was delivered after the switch")
	}
	out, _ := r.p.onResult(exec(t, restart))
	if d, ok := out.(common.DataMsg); !ok || d.Data != "new" {
		t.Fatalf("after the switch got %#v", out)
	}
}

func TestPollFailureKeepsDataAndBacksOff(t *testing.T) {
	r := newPollRig()
	r.p.onResult(exec(t, r.p.start()))
	okAt := r.now
	r.err = errors.New("MIMQE_CONNECTION_LOST (reset by peer)")
	var intervals []time.Duration
	for i := 0; i < 5; i++ {
		tick := r.popTick(t)
		out, _ := r.p.onResult(exec(t, r.p.onTick(tick)))
		if _, ok := out.(common.PollErrMsg); !ok {
			t.Fatalf("failure fanned out as %T", out)
		}
		intervals = append(intervals, r.ticks[0].due.Sub(r.now))
	}
	s := r.p.res[common.ResTopics]
	if !s.okAt.Equal(okAt) || s.err == nil || s.errSince.IsZero() {
		t.Fatalf("state after failures: okAt %v err %v since %v", s.okAt, s.err, s.errSince)
	}
	base := r.ctx.Interval(common.ResTopics)
	// At most two intervals: a cluster back is seen within two (issue 15).
	want := []time.Duration{base, 2 * base, 2 * base, 2 * base, 2 * base}
	for i := range want {
		want[i] = min(want[i], 30*time.Second)
		if intervals[i] != want[i] {
			t.Errorf("retry %d after %v, want %v", i+1, intervals[i], want[i])
		}
	}
	// Recovery resets the backoff.
	r.err = nil
	tick := r.popTick(t)
	r.p.onResult(exec(t, r.p.onTick(tick)))
	if s.err != nil || s.fails != 0 || r.ticks[0].due.Sub(r.now) != base {
		t.Fatal("recovery did not clear the error and the backoff")
	}
}

func TestPollIdleUntilWanted(t *testing.T) {
	r := newPollRig()
	r.want = map[common.ResID]bool{} // nobody shows topics
	if cmd := r.p.start(); cmd != nil {
		t.Fatal("an unwanted resource was fetched at start")
	}
	r.want[common.ResTopics] = true
	_, next := r.p.onResult(exec(t, r.p.wake()))
	_ = next
	// Unwanted again: the pending tick fires and the resource goes idle.
	r.want[common.ResTopics] = false
	if cmd := r.p.onTick(r.popTick(t)); cmd != nil {
		t.Fatal("an unwanted resource kept polling")
	}
	if cmd := r.p.wake(); cmd != nil {
		t.Fatal("wake fetched an unwanted resource")
	}
	r.want[common.ResTopics] = true
	if cmd := r.p.wake(); cmd == nil {
		t.Fatal("wake did not fetch the idle resource")
	}
}

// TestSlowEngineNeverStacksRequests runs the real model against a fake
// whose topic list hangs: ticks keep coming for other resources, but only
// one ListTopics is ever outstanding.
func TestSlowEngineNeverStacksRequests(t *testing.T) {
	src := fakes.NewDemo()
	release := src.Block("ListTopics")
	defer release()
	h := &harness{t: t, src: src, Clock: viewtest.Clock{Now: src.Now()}}
	ctx := NewContext(config.DefaultContext(), true, nil)
	h.useClock(ctx)
	h.ctx, h.m = ctx, New(ctx, src)
	// Run Init's commands except the blocked fetch, which runs in a
	// goroutine and reports through a channel.
	replies := make(chan tea.Msg, 4)
	queue := []tea.Cmd{h.m.Init()}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		select {
		case msg := <-done:
			switch msg := msg.(type) {
			case tea.BatchMsg:
				queue = append(queue, msg...)
			case nil:
			default:
				if !h.Park(msg) {
					_, next := h.m.Update(msg)
					queue = append(queue, next)
				}
			}
		case <-time.After(200 * time.Millisecond):
			// This is the blocked ListTopics: leave it running.
			go func() { replies <- <-done }()
		}
	}
	// A minute of virtual time: the other resources poll many times.
	h.warm(30)
	if n := src.Calls("ListTopics"); n != 1 {
		t.Fatalf("ListTopics called %d times while the first call hangs, want 1", n)
	}
	if n := src.Calls("ListGroups"); n < 20 {
		t.Fatalf("ListGroups called %d times: the other resources should keep polling", n)
	}
	// The engine answers: polling of topics resumes.
	release()
	msg := <-replies
	h.send(msg)
	h.advance(2 * time.Second)
	if n := src.Calls("ListTopics"); n != 2 {
		t.Fatalf("after the reply, ListTopics called %d times, want 2", n)
	}
}
