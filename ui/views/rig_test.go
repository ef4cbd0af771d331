package views_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/fakes"
	"ilinkdash/ui/views"
)

type tickReq struct {
	due time.Time
	fn  func(time.Time) tea.Msg
}

// rig drives one view with the fake: it plays the root's part (polls the
// lists, routes addressed replies back, parks ticks on a virtual clock).
type rig struct {
	t     *testing.T
	ctx   *common.Context
	src   *fakes.Source
	now   time.Time
	v     common.View
	out   []tea.Msg
	ticks []tickReq
}

func newRig(t *testing.T, readOnly bool, mk func(*common.Context, *fakes.Source) common.View) *rig {
	t.Helper()
	src := fakes.NewDemo()
	r := &rig{t: t, src: src, now: src.Now()}
	cfg := config.DefaultContext()
	cfg.ReadOnly = readOnly
	ctx := common.NewContext(cfg, true, nil)
	ctx.Mode = common.Plain
	ctx.Rebuild()
	ctx.Width, ctx.Height = 120, 40
	ctx.Now = func() time.Time { return r.now }
	ctx.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		due := r.now.Add(d)
		return func() tea.Msg { return tickReq{due: due, fn: fn} }
	}
	r.ctx = ctx
	r.v = mk(ctx, src)
	r.v.SetSize(120, 37)
	r.run(r.v.Init())
	return r
}

func (r *rig) run(cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tickReq:
			r.ticks = append(r.ticks, msg)
		case common.ViewMsg:
			if msg.To == r.v.ID() {
				queue = append(queue, r.v.Update(msg))
			}
		default:
			r.out = append(r.out, msg)
		}
	}
}

func (r *rig) send(msg tea.Msg) { r.run(r.v.Update(msg)) }

// poll fetches every list from the fake and fans it out, like the root.
func (r *rig) poll() {
	ctx := context.Background()
	at := r.now
	sum, _ := r.src.ClusterSummary(ctx)
	stats, _ := r.src.StatSeries(ctx, "")
	ts, _ := r.src.ListTopics(ctx)
	gs, _ := r.src.ListGroups(ctx)
	qs, _ := r.src.ListQueues(ctx)
	cp, _ := r.src.ClusterProperty(ctx)
	rs, _ := r.src.ReplicationStatus(ctx)
	lt, _ := r.src.ClusterLeadTable(ctx)
	for _, m := range []common.DataMsg{
		{Res: common.ResSummary, At: at, Data: sum},
		{Res: common.ResStats, At: at, Data: stats},
		{Res: common.ResTopics, At: at, Data: ts},
		{Res: common.ResGroups, At: at, Data: gs},
		{Res: common.ResQueues, At: at, Data: qs},
		{Res: common.ResCluster, At: at, Data: cp},
		{Res: common.ResReplication, At: at, Data: rs},
		{Res: common.ResLeaders, At: at, Data: lt},
	} {
		m.Sent = at
		r.send(m)
	}
}

// step advances the fake and the clock by 2 s, fires due ticks and polls.
func (r *rig) step(n int) {
	for i := 0; i < n; i++ {
		r.src.Advance(2 * time.Second)
		r.now = r.now.Add(2 * time.Second)
		var due []tickReq
		keep := r.ticks[:0]
		for _, tk := range r.ticks {
			if !tk.due.After(r.now) {
				due = append(due, tk)
			} else {
				keep = append(keep, tk)
			}
		}
		r.ticks = keep
		for _, tk := range due {
			r.send(tk.fn(r.now))
		}
		r.poll()
	}
}

// key sends keys as the root would: esc goes to Back unless the view
// captures input.
func (r *rig) key(keys ...string) {
	for _, k := range keys {
		if k == "esc" && !r.v.Capturing() {
			r.v.Back()
			continue
		}
		r.send(keyMsg(k))
	}
}

func (r *rig) typeText(s string) {
	for _, c := range s {
		r.send(keyMsg(string(c)))
	}
}

func (r *rig) screen() string { return ansi.Strip(r.v.View()) }

func (r *rig) mustShow(parts ...string) {
	r.t.Helper()
	s := r.screen()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			r.t.Fatalf("screen lacks %q:\n%s", p, s)
		}
	}
}

func (r *rig) mustNotShow(parts ...string) {
	r.t.Helper()
	s := r.screen()
	for _, p := range parts {
		if strings.Contains(s, p) {
			r.t.Fatalf("screen shows %q:\n%s", p, s)
		}
	}
}

// took returns and forgets the emitted messages of type T.
func took[T any](r *rig) []T {
	var got []T
	keep := r.out[:0]
	for _, m := range r.out {
		if x, ok := m.(T); ok {
			got = append(got, x)
		} else {
			keep = append(keep, m)
		}
	}
	r.out = keep
	return got
}

func keyMsg(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	r := []rune(s)[0]
	k := tea.KeyPressMsg{Code: r, Text: s}
	if r >= 'A' && r <= 'Z' {
		k.Code, k.ShiftedCode, k.Mod = r+'a'-'A', r, tea.ModShift
	}
	return k
}

func topicsView(ctx *common.Context, s *fakes.Source) common.View { return views.NewTopics(ctx, s) }
func groupsView(ctx *common.Context, s *fakes.Source) common.View {
	return views.NewGroups(ctx, s, nil)
}
func clusterView(ctx *common.Context, s *fakes.Source) common.View { return views.NewCluster(ctx, s) }
func queuesView(ctx *common.Context, s *fakes.Source) common.View  { return views.NewQueues(ctx, s) }
func overviewView(ctx *common.Context, _ *fakes.Source) common.View {
	return views.NewOverview(ctx, nil)
}

// advance moves the clock by d, firing due ticks in order (without
// polling or moving the fake cluster).
func (r *rig) advance(d time.Duration) {
	end := r.now.Add(d)
	for {
		sort.SliceStable(r.ticks, func(i, j int) bool { return r.ticks[i].due.Before(r.ticks[j].due) })
		if len(r.ticks) == 0 || r.ticks[0].due.After(end) {
			break
		}
		tk := r.ticks[0]
		r.ticks = r.ticks[1:]
		if tk.due.After(r.now) {
			r.now = tk.due
		}
		r.send(tk.fn(r.now))
	}
	r.now = end
}

// fireOne fires the earliest pending tick (moving the clock to it).
func (r *rig) fireOne() {
	r.t.Helper()
	if len(r.ticks) == 0 {
		r.t.Fatal("no pending tick")
	}
	sort.SliceStable(r.ticks, func(i, j int) bool { return r.ticks[i].due.Before(r.ticks[j].due) })
	tk := r.ticks[0]
	r.ticks = r.ticks[1:]
	if tk.due.After(r.now) {
		r.now = tk.due
	}
	r.send(tk.fn(r.now))
}
