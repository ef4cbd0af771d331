package viewtest

import (
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// Clock is the virtual clock of a test playing the root (the view rig,
// the dashboard's harness): a context put on it reads Now from it, and
// its Ticks are parked on it until the test moves it past them, instead
// of sleeping.
type Clock struct {
	Now   time.Time
	ticks []tickReq
}

type tickReq struct {
	due time.Time
	fn  func(time.Time) tea.Msg
}

// Use puts ctx on the clock: Now is c.Now, and a Tick's command returns a
// parked tick (Park takes it) instead of sleeping.
func (c *Clock) Use(ctx *common.Context) {
	ctx.Now = func() time.Time { return c.Now }
	ctx.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		due := c.Now.Add(d)
		return func() tea.Msg { return tickReq{due: due, fn: fn} }
	}
}

// Park keeps msg on the clock when it is a Tick's, and says whether it
// was.
func (c *Clock) Park(msg tea.Msg) bool {
	tk, ok := msg.(tickReq)
	if ok {
		c.ticks = append(c.ticks, tk)
	}
	return ok
}

// Drain runs cmd as the root does, breadth first: batches are expanded,
// ticks parked, and every other message goes to handle, whose command
// runs in turn.
func (c *Clock) Drain(cmd tea.Cmd, handle func(tea.Msg) tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		cm := queue[0]
		queue = queue[1:]
		if cm == nil {
			continue
		}
		switch msg := cm().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			if !c.Park(msg) {
				queue = append(queue, handle(msg))
			}
		}
	}
}

// Fire moves the clock by d, sending each tick that falls due, in order,
// at its own time.
func (c *Clock) Fire(d time.Duration, send func(tea.Msg)) {
	end := c.Now.Add(d)
	for len(c.ticks) > 0 && !c.earliest().due.After(end) {
		c.FireOne(send)
	}
	c.Now = end
}

// FireOne sends the earliest parked tick, moving the clock to it; false
// when none is parked.
func (c *Clock) FireOne(send func(tea.Msg)) bool {
	if len(c.ticks) == 0 {
		return false
	}
	tk := c.earliest()
	c.ticks = c.ticks[1:]
	if tk.due.After(c.Now) {
		c.Now = tk.due
	}
	send(tk.fn(c.Now))
	return true
}

// FireDue sends every tick due by now, in the order they were parked.
func (c *Clock) FireDue(send func(tea.Msg)) {
	var due []tickReq
	keep := c.ticks[:0]
	for _, tk := range c.ticks {
		if !tk.due.After(c.Now) {
			due = append(due, tk)
		} else {
			keep = append(keep, tk)
		}
	}
	c.ticks = keep
	for _, tk := range due {
		send(tk.fn(c.Now))
	}
}

// Pending is how many ticks are parked.
func (c *Clock) Pending() int { return len(c.ticks) }

// earliest sorts the parked ticks by time (stably: equal times keep
// their order) and returns the first.
func (c *Clock) earliest() tickReq {
	slices.SortStableFunc(c.ticks, func(a, b tickReq) int { return a.due.Compare(b.due) })
	return c.ticks[0]
}
