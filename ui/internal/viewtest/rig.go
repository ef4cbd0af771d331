// Package viewtest drives one dashboard tab in tests, playing the root's
// part: it polls the lists from the fake (ui/internal/fakes), routes the tab's
// addressed replies back to it and parks ticks on a virtual clock, so a
// test steps time and sees exactly what the tab renders. Only tests import
// it.
package viewtest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tab"
)

// Rig drives one view with the fake: it plays the root's part (polls the
// lists, routes addressed replies back, parks ticks on a virtual clock).
type Rig struct {
	T     *testing.T
	Ctx   *common.Context
	Src   *fakes.Source
	Clock // the virtual clock (Now is the view's Ctx.Now)
	V     common.View
	// Out are the messages the view emitted that are not its own replies
	// or ticks (flashes, refreshes, tab switches); Took takes them.
	Out []tea.Msg
	// Tracker, when set, is fed every polled list before the view gets
	// it, as the root feeds the dashboard's one health tracker.
	Tracker *tab.HealthTracker
	// Resources are declarations Poll reads beside the dashboard's own
	// (a test's, such as WidgetList).
	Resources []tab.Resource
}

// New makes the view with mk over a fresh demo fake, 120×37, read-only
// or not, and runs its Init.
func New(t *testing.T, readOnly bool, mk func(*common.Context, *fakes.Source) common.View) *Rig {
	t.Helper()
	src := fakes.NewDemo()
	r := &Rig{T: t, Src: src, Clock: Clock{Now: src.Now()}}
	cfg := config.DefaultContext()
	cfg.ReadOnly = readOnly
	ctx := common.NewContext(cfg, true, nil)
	ctx.Mode = common.Plain
	ctx.Rebuild()
	ctx.Width, ctx.Height = 120, 40
	r.Use(ctx)
	r.Ctx = ctx
	r.V = mk(ctx, src)
	r.V.SetSize(120, 37)
	r.Run(r.V.Init())
	return r
}

// Run runs cmd as the root would: batches are expanded, the view's own
// replies go back to it, ticks wait on the virtual clock, anything else
// is kept in Out.
func (r *Rig) Run(cmd tea.Cmd) {
	r.Drain(cmd, func(msg tea.Msg) tea.Cmd {
		if m, ok := msg.(common.ViewMsg); ok {
			if m.To == r.V.ID() {
				return r.V.Update(m)
			}
			return nil
		}
		r.Out = append(r.Out, msg)
		return nil
	})
}

// Send gives msg to the view and runs what it returns (a polled list
// feeds the Tracker first, when there is one).
func (r *Rig) Send(msg tea.Msg) {
	if d, ok := msg.(common.DataMsg); ok && r.Tracker != nil {
		r.Tracker.Observe(d)
	}
	r.Run(r.V.Update(msg))
}

// Poll fetches every polled list from the fake (tab.Fetchers, the root's
// own table) and fans it out in ResID order, like the root.
func (r *Rig) Poll() {
	ctx := context.Background()
	at := r.Now
	for id, fetch := range tab.Fetchers(r.Src, r.Resources...) {
		if fetch == nil {
			continue // an ID no declaration takes
		}
		data, _ := fetch(ctx)
		r.Send(common.DataMsg{Res: common.ResID(id), Sent: at, At: at, Data: data})
	}
}

// Step advances the fake and the clock by 2 s, fires due ticks and polls.
func (r *Rig) Step(n int) {
	for i := 0; i < n; i++ {
		r.Src.Advance(2 * time.Second)
		r.Now = r.Now.Add(2 * time.Second)
		r.FireDue(r.Send)
		r.Poll()
	}
}

// Key sends keys as the root would: esc goes to Back unless the view
// captures input.
func (r *Rig) Key(keys ...string) {
	for _, k := range keys {
		if k == "esc" && !r.V.Capturing() {
			r.V.Back()
			continue
		}
		r.Send(KeyMsg(k))
	}
}

// TypeText types s, one key per character.
func (r *Rig) TypeText(s string) {
	for _, c := range s {
		r.Send(KeyMsg(string(c)))
	}
}

// Filter narrows the table shown to the rows matching text (`/`, the
// text, enter).
func (r *Rig) Filter(text string) {
	r.Key("/")
	r.TypeText(text)
	r.Key("enter")
}

// OpenRow filters the table shown to text and opens the row the cursor is
// then on (enter).
func (r *Rig) OpenRow(text string) {
	r.Filter(text)
	r.Key("enter")
}

// Screen is the view's text without escapes.
func (r *Rig) Screen() string { return ansi.Strip(r.V.View()) }

// MustShow fails the test unless the screen holds every part.
func (r *Rig) MustShow(parts ...string) {
	r.T.Helper()
	MustShow(r.T, r.Screen(), parts...)
}

// MustNotShow fails the test if the screen holds any part.
func (r *Rig) MustNotShow(parts ...string) {
	r.T.Helper()
	MustNotShow(r.T, r.Screen(), parts...)
}

// MustShow fails t unless screen holds every part.
func MustShow(t testing.TB, screen string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(screen, p) {
			t.Fatalf("screen lacks %q:\n%s", p, screen)
		}
	}
}

// MustNotShow fails t if screen holds any part.
func MustNotShow(t testing.TB, screen string, parts ...string) {
	t.Helper()
	if i := slices.IndexFunc(parts, func(p string) bool { return strings.Contains(screen, p) }); i >= 0 {
		t.Fatalf("screen shows %q:\n%s", parts[i], screen)
	}
}

// Took returns and forgets the emitted messages of type T.
func Took[T any](r *Rig) []T {
	var got []T
	keep := r.Out[:0]
	for _, m := range r.Out {
		if x, ok := m.(T); ok {
			got = append(got, x)
		} else {
			keep = append(keep, m)
		}
	}
	r.Out = keep
	return got
}

var namedKeys = map[string]tea.KeyPressMsg{
	"enter":     {Code: tea.KeyEnter},
	"esc":       {Code: tea.KeyEscape},
	"tab":       {Code: tea.KeyTab},
	"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
	"up":        {Code: tea.KeyUp},
	"down":      {Code: tea.KeyDown},
	"left":      {Code: tea.KeyLeft},
	"right":     {Code: tea.KeyRight},
	"backspace": {Code: tea.KeyBackspace},
	"space":     {Code: tea.KeySpace, Text: " "},
	"pgdown":    {Code: tea.KeyPgDown},
}

// KeyMsg is the key press of a key name ("enter", "esc", "shift+tab",
// "space", "ctrl+u", "down", …) or of one character (an upper-case letter
// comes with shift).
func KeyMsg(s string) tea.KeyPressMsg {
	if k, ok := namedKeys[s]; ok {
		return k
	}
	if rest, ok := strings.CutPrefix(s, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(rest[0]), Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	k := tea.KeyPressMsg{Code: r, Text: s}
	if r >= 'A' && r <= 'Z' {
		k.Code, k.ShiftedCode, k.Mod = r+'a'-'A', r, tea.ModShift
	}
	return k
}

// Advance moves the clock by d, firing due ticks in order (without
// polling or moving the fake cluster).
func (r *Rig) Advance(d time.Duration) { r.Fire(d, r.Send) }

// FireOne fires the earliest pending tick (moving the clock to it).
func (r *Rig) FireOne() {
	r.T.Helper()
	if !r.Clock.FireOne(r.Send) {
		r.T.Fatal("no pending tick")
	}
}

// BenchContext is the context of a view benchmark, or of a test that
// drives views by hand (PollAt, FeedLists): 120×40 in colour mode mode,
// the clock stopped at fakes.Epoch.
func BenchContext(mode common.ColorMode) *common.Context {
	ctx := common.NewContext(config.DefaultContext(), false, nil)
	ctx.Mode = mode
	ctx.Rebuild()
	ctx.Width, ctx.Height = 120, 40
	ctx.Now = func() time.Time { return fakes.Epoch }
	return ctx
}
