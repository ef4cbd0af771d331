package views

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

// base is what every view embeds: the shared context, its size, its
// generation counter and the dialog it may have open.
type base struct {
	ctx  *common.Context
	id   common.ViewID
	w, h int

	// gen is bumped whenever the view's asynchronous context changes
	// (a detail opened or closed); replies carrying another gen are stale
	// and dropped.
	gen uint64
	// dlgGen identifies the open dialog, so a late action reply only
	// updates the dialog that sent it.
	dlgGen uint64
	dlg    *components.Dialog
}

func (b *base) ID() common.ViewID     { return b.id }
func (b *base) Init() tea.Cmd         { return nil }
func (b *base) Wants() []common.ResID { return nil }

// address runs fn in a command and brings its result back to this view,
// tagged with gen.
func (b *base) address(gen uint64, fn func() any) tea.Cmd {
	return common.Address(b.id, gen, fn)
}

// after delivers msg to this view after d, tagged with gen.
func (b *base) after(d time.Duration, gen uint64, msg any) tea.Cmd {
	to := b.id
	return b.ctx.Tick(d, func(time.Time) tea.Msg { return common.ViewMsg{To: to, Gen: gen, Msg: msg} })
}

func (b *base) openDialog(d *components.Dialog) {
	b.dlgGen++
	b.dlg = d
}

func (b *base) closeDialog() {
	b.dlgGen++
	b.dlg = nil
}

// dialogFlow passes a key to the open dialog of a multi-step flow. Esc
// ends the flow: the dialog closes and reset (when not nil) starts the
// flow over. Enter runs submit, the flow's next step, which ends the flow
// the same way by calling end (after its last step). act, when not nil,
// handles a dialog's action key.
func (b *base) dialogFlow(msg tea.KeyPressMsg, reset func(), submit func(end func()) tea.Cmd, act func(id int) tea.Cmd) tea.Cmd {
	end := func() {
		b.closeDialog()
		if reset != nil {
			reset()
		}
	}
	switch out, id := b.dlg.Update(b.ctx, msg); out {
	case components.Cancel:
		end()
	case components.Submit:
		return submit(end)
	case components.Acted:
		if act != nil {
			return act(id)
		}
	}
	return nil
}

// dialogView renders the open dialog in the view's box.
func (b *base) dialogView() string {
	return b.dlg.View(b.ctx, b.w, b.h)
}

// words joins non-empty parts with " · ".
func words(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

// ints formats a list of node numbers: "1,2,3".
func ints(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(itoa(int64(x)))
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// sectionTitle renders a section heading line.
func sectionTitle(st *common.Styles, s string) string { return st.Title.Render(s) }

// stateStyle colours a group state.
func stateStyle(st *common.Styles, s admin.GroupState) common.Style {
	switch s {
	case admin.GroupStable:
		return st.OK
	case admin.GroupPreparingRebalance, admin.GroupCompletingRebalance:
		return st.Info
	case admin.GroupDead:
		return st.Err
	}
	return st.Muted
}

// sparkline is components.Sparkline (kept here so row builders need no
// extra import).
func sparkline(vals []float64, w int) string { return components.Sparkline(vals, w) }

// titled puts a title before wrapped "label value" lines: on the first
// line when it fits, else on its own line. At most three lines.
func titled(title string, pairs []string, w int) []string {
	var out []string
	if len(pairs) > 0 && common.Width(title)+2+common.Width(pairs[0]) <= w {
		out = append(out, title+"  "+pairs[0])
		pairs = pairs[1:]
	} else {
		out = append(out, title)
	}
	out = append(out, pairs...)
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}
