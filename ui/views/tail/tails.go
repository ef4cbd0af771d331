package tail

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// MaxTails is how many tails one dashboard keeps at once, running or
// closed (a closed one keeps its buffer until a new tail takes its
// place). Each is bounded by tail-buffer and tail-buffer-bytes, so the
// tails of a dashboard hold at most MaxTails × tail-buffer-bytes.
const MaxTails = 4

// genShift puts each tail's generations in a range of their own (slot
// number << genShift): a reply addressed to the tail tab carries the
// generation of the tail that asked, and so finds it.
const genShift = 40

// Tabs is the tail tab: up to MaxTails tails (View), one shown. The
// others keep running in the background: their ticks still drain their
// streams (bounded as always, so a full channel never blocks the
// consumer; a paused or held tail fetches nothing), but nothing renders
// them. Leaving the tab closes nothing; x closes the tail shown, and
// quitting, :ctx or the end of a serve session close them all.
type Tabs struct {
	ctx    *common.Context
	tailer Tailer
	list   []*View // never empty; slots are reused, never removed
	cur    int
	w, h   int
}

// NewTabs returns the tail tab; t may be nil (tailing unavailable).
func NewTabs(ctx *common.Context, t Tailer) *Tabs {
	s := &Tabs{ctx: ctx, tailer: t}
	s.list = []*View{s.newSlot()}
	return s
}

func (s *Tabs) newSlot() *View {
	v := New(s.ctx, s.tailer)
	v.Gen = uint64(len(s.list)+1) << genShift
	v.open = s.OpenSpec
	v.SetSize(s.w, s.h)
	return v
}

// Active returns the tail shown.
func (s *Tabs) Active() *View { return s.list[s.cur] }

// Len is the number of tails kept (1 before the first tail).
func (s *Tabs) Len() int { return len(s.list) }

// Target returns the topic or pattern of the tail shown.
func (s *Tabs) Target() string { return s.Active().Target() }

// Open tails target from the latest records (`t` on a topic, `:tail`):
// a tail of target already running is shown as it is; otherwise the tail
// opens in a slot (OpenSpec).
func (s *Tabs) Open(target string) tea.Cmd {
	for i, v := range s.list {
		if v.spec.Target == target && v.Running() {
			s.show(i)
			return nil
		}
	}
	return s.OpenSpec(Spec{Target: target, From: fromLatest})
}

// OpenSpec starts spec in a slot: the one tailing the same target and
// group (replaced, as a new tail of it is asked for), else an empty
// slot, else a new one while fewer than MaxTails are kept, else the
// first closed one. With MaxTails running it refuses.
func (s *Tabs) OpenSpec(spec Spec) tea.Cmd {
	i := s.slotFor(spec)
	if i < 0 {
		return common.Flash(common.LevelError, "already "+strconv.Itoa(MaxTails)+" tails running (the most a dashboard keeps): x closes the one shown, [ ] switch")
	}
	s.show(i)
	return s.list[i].start(spec, false)
}

func (s *Tabs) slotFor(spec Spec) int {
	for i, v := range s.list {
		if v.spec.Target == spec.Target && v.spec.Group == spec.Group {
			return i
		}
	}
	if s.Active().spec.Target == "" {
		return s.cur
	}
	if len(s.list) < MaxTails {
		s.list = append(s.list, s.newSlot())
		return len(s.list) - 1
	}
	if !s.Active().Running() {
		return s.cur
	}
	for i, v := range s.list {
		if !v.Running() {
			return i
		}
	}
	return -1
}

func (s *Tabs) show(i int) {
	s.cur = i
	for j, v := range s.list {
		v.slot = ""
		if len(s.list) > 1 {
			v.slot = "tail " + strconv.Itoa(j+1) + " of " + strconv.Itoa(len(s.list)) + " ([ ])"
		}
	}
}

// Badge is the tab bar's mark of the tails running: "●" live, "⏸" when
// every running tail is paused or held, with their number when several
// run; "" when none runs.
func (s *Tabs) Badge() string {
	running, stopped := 0, 0
	for _, v := range s.list {
		if v.Running() {
			running++
			if v.vp.paused || v.held {
				stopped++
			}
		}
	}
	if running == 0 {
		return ""
	}
	mark := "●"
	if stopped == running {
		mark = "⏸"
	}
	if running > 1 {
		mark += strconv.Itoa(running)
	}
	return mark
}

// Shutdown implements common.Closer: every tail closes.
func (s *Tabs) Shutdown() {
	for _, v := range s.list {
		v.Shutdown()
	}
}

func (s *Tabs) ID() common.ViewID     { return common.ViewTail }
func (s *Tabs) Title() string         { return "Tail" }
func (s *Tabs) Init() tea.Cmd         { return nil }
func (s *Tabs) Wants() []common.ResID { return nil }
func (s *Tabs) Primary() common.ResID { return -1 }
func (s *Tabs) Capturing() bool       { return s.Active().Capturing() }
func (s *Tabs) Back() bool            { return s.Active().Back() }
func (s *Tabs) Status() string        { return s.Active().Status() }
func (s *Tabs) View() string          { return s.Active().View() }

// KeyHints implements common.KeyHinter (the shown tail's dialog).
func (s *Tabs) KeyHints() ([]key.Binding, bool) { return s.Active().KeyHints() }

// HelpTitles implements common.HelpTitler.
func (s *Tabs) HelpTitles() []string { return s.Active().HelpTitles() }

func (s *Tabs) FullHelp() [][]key.Binding { return s.Active().FullHelp() }

func (s *Tabs) ShortHelp() []key.Binding {
	h := s.Active().ShortHelp()
	if len(s.list) > 1 && !s.Active().vp.detail {
		h = append(h, s.ctx.Keys.TailNext)
	}
	return h
}

func (s *Tabs) SetSize(w, h int) {
	s.w, s.h = w, h
	for _, v := range s.list {
		v.SetSize(w, h)
	}
}

// Update routes a reply to the tail that asked (by its generation's
// range), polled data to every tail, and input to the one shown.
func (s *Tabs) Update(msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case common.ViewMsg:
		if i := int(m.Gen>>genShift) - 1; i >= 0 && i < len(s.list) {
			return s.list[i].Update(msg)
		}
		if st, ok := m.Msg.(tailStartedMsg); ok && st.stream != nil {
			return closeStream(st.stream) // no tail asked for it
		}
		return nil
	case common.PollErrMsg, common.DataMsg:
		var cmds []tea.Cmd
		for _, v := range s.list {
			cmds = append(cmds, v.Update(msg))
		}
		return tea.Batch(cmds...)
	case tea.KeyPressMsg:
		k := s.ctx.Keys
		if !s.Active().Capturing() && len(s.list) > 1 {
			switch {
			case key.Matches(m, k.TailNext):
				s.show((s.cur + 1) % len(s.list))
				return nil
			case key.Matches(m, k.TailPrev):
				s.show((s.cur + len(s.list) - 1) % len(s.list))
				return nil
			}
		}
	}
	return s.Active().Update(msg)
}
