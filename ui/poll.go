package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// Polling model (docs/DESIGN.md §5.2):
//
//   - One state machine per resource (common.ResID), each with its own
//     interval from the context's refresh settings.
//   - A fetch runs in a tea.Cmd with a timeout; the next tick is armed only
//     when its reply arrives, so a slow engine delays polls instead of
//     stacking requests: at most one request per resource is ever in
//     flight.
//   - Every request and tick carries the resource's generation. A manual
//     refresh or a context switch bumps it; replies and ticks of an older
//     generation are dropped.
//   - On failure the views keep their last good data; the poller records
//     the error, when the failures started and when the data was last
//     good (the status bar shows both), and retries after two intervals
//     (one after the first failure), so a cluster that comes back is seen
//     within two intervals (issue 15: recovery within 2 poll intervals)
//     while a dead one is asked half as often.
//   - Resources nobody shows (the replication status and the leadership
//     table while the cluster tab is hidden, the stat series while the
//     overview is hidden) go idle
//     after their reply and wake up when a view that wants them is shown.
//     A Fleet's cluster keeps its stat series (its row's in/out) and,
//     while its tabs are hidden, polls nothing more (Model.wanted).

type fetchFunc = func(ctx context.Context) (any, error)

type pollTickMsg struct {
	res common.ResID
	gen uint64
}

type pollResultMsg struct {
	res  common.ResID
	gen  uint64
	data any
	err  error
	sent time.Time
	at   time.Time
}

type resState struct {
	fetch    fetchFunc
	gen      uint64
	inFlight bool // a request is running
	armed    bool // a tick for gen is pending
	again    bool // a refresh was asked while in flight
	okAt     time.Time
	err      error
	errAt    time.Time
	errSince time.Time
	fails    int
	polls    int // replies accepted (tests, diagnostics)
}

// failing reports whether the latest reply was an error.
func (s *resState) failing() bool { return s.err != nil }

// idle reports whether nothing polls the resource (no view wants it): no
// request in flight, no tick pending.
func (s *resState) idle() bool { return !s.inFlight && !s.armed }

type poller struct {
	ctx    *common.Context
	res    []*resState // indexed by common.ResID: the declared resources (tab.Fetchers)
	base   context.Context
	cancel context.CancelFunc
	// wanted reports whether a resource should keep polling.
	wanted func(common.ResID) bool
}

// pollTimeout bounds one request; a hung engine turns into an error.
func pollTimeout(interval time.Duration) time.Duration { return 10*time.Second + interval }

func newPoller(ctx *common.Context, fetch []fetchFunc, wanted func(common.ResID) bool) *poller {
	p := &poller{ctx: ctx, wanted: wanted}
	p.base, p.cancel = context.WithCancel(context.Background())
	p.res = states(fetch, nil)
	return p
}

// states are the state machines of the resources fetch declares, at
// least every common.ResID, one generation past old's (nil: the first).
func states(fetch []fetchFunc, old []*resState) []*resState {
	res := make([]*resState, max(len(fetch), len(old), int(common.NumRes)))
	for id := range res {
		res[id] = &resState{}
		if id < len(fetch) {
			res[id].fetch = fetch[id]
		}
		if id < len(old) {
			res[id].gen = old[id].gen + 1
		}
	}
	return res
}

// start fetches every wanted resource now.
func (p *poller) start() tea.Cmd {
	var cmds []tea.Cmd
	for id := range p.res {
		if p.wanted(common.ResID(id)) {
			cmds = append(cmds, p.fetch(common.ResID(id)))
		}
	}
	return tea.Batch(cmds...)
}

// reset forgets everything (a context switch): in-flight replies and
// pending ticks become stale, and the new fetchers start now.
func (p *poller) reset(fetch []fetchFunc) tea.Cmd {
	p.cancel()
	p.base, p.cancel = context.WithCancel(context.Background())
	p.res = states(fetch, p.res)
	return p.start()
}

// stop cancels every request in flight.
func (p *poller) stop() { p.cancel() }

func (p *poller) fetch(id common.ResID) tea.Cmd {
	s := p.res[id]
	if s.fetch == nil || s.inFlight {
		return nil
	}
	s.inFlight, s.armed = true, false
	gen, fetch, base, now := s.gen, s.fetch, p.base, p.ctx.Now
	timeout := pollTimeout(p.ctx.Interval(id))
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, timeout)
		defer cancel()
		sent := now()
		data, err := fetch(ctx)
		return pollResultMsg{res: id, gen: gen, data: data, err: err, sent: sent, at: now()}
	}
}

func (p *poller) arm(id common.ResID) tea.Cmd {
	s := p.res[id]
	s.armed = true
	d := p.ctx.Interval(id)
	if s.fails > 0 {
		back := d << min(s.fails-1, 1)
		d = max(d, min(back, 30*time.Second))
	}
	gen := s.gen
	return p.ctx.Tick(d, func(time.Time) tea.Msg { return pollTickMsg{res: id, gen: gen} })
}

// onTick starts the next fetch of a resource, unless the tick is stale or
// nobody wants the resource any more (it then goes idle).
func (p *poller) onTick(m pollTickMsg) tea.Cmd {
	s := p.res[m.res]
	if m.gen != s.gen || !s.armed {
		return nil
	}
	s.armed = false
	if !p.wanted(m.res) {
		return nil
	}
	return p.fetch(m.res)
}

// onResult records a reply. It returns the message to fan out to the views
// (nil for a stale reply) and the command that continues the polling.
func (p *poller) onResult(m pollResultMsg) (tea.Msg, tea.Cmd) {
	s := p.res[m.res]
	if m.gen != s.gen || !s.inFlight {
		return nil, nil // stale: a refresh or a context switch superseded it
	}
	s.inFlight = false
	s.polls++
	var out tea.Msg
	if m.err != nil {
		if s.err == nil {
			s.errSince = m.at
		}
		s.err, s.errAt = m.err, m.at
		s.fails++
		out = common.PollErrMsg{Res: m.res, At: m.at, Err: m.err}
	} else {
		s.err, s.fails, s.okAt = nil, 0, m.at
		out = common.DataMsg{Res: m.res, Sent: m.sent, At: m.at, Data: m.data}
	}
	switch {
	case s.again:
		s.again = false
		return out, p.fetch(m.res)
	case p.wanted(m.res):
		return out, p.arm(m.res)
	}
	return out, nil // idle until a view wants it again
}

// refresh polls a resource now. With a request in flight it only asks for
// another one when the reply arrives (still never two at once); with a
// tick pending it invalidates the tick.
func (p *poller) refresh(id common.ResID) tea.Cmd {
	s := p.res[id]
	if s.fetch == nil {
		return nil
	}
	if s.inFlight {
		s.again = true
		return nil
	}
	s.gen++
	return p.fetch(id)
}

// wake fetches the wanted resources that went idle (after a tab switch).
func (p *poller) wake() tea.Cmd {
	var cmds []tea.Cmd
	for id, s := range p.res {
		if s.idle() && p.wanted(common.ResID(id)) {
			cmds = append(cmds, p.fetch(common.ResID(id)))
		}
	}
	return tea.Batch(cmds...)
}
