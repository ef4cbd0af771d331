// Package tab is what the dashboard's tabs share, so that every tab (the
// packages under ui/views: overview, topics, groups, cluster, queues, tail
// and publish) is built the same way without importing another: the Base
// every tab embeds (its context, size, generation and dialog), the
// timeout of a call a tab makes itself, the small interfaces the tabs read
// through (sources.go), the one HealthTracker (tracker.go), the node rows
// the overview and the cluster tab both show (nodes.go), the create-topic
// spec the topics and publish tabs both ask for, and small text and row
// helpers. The list-plus-detail scaffold of the topics, groups and queues
// tabs is package ui/views/listdetail.
package tab

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

// Base is what every tab embeds: the shared context, its size, its
// generation counter and the dialog it may have open.
type Base struct {
	Ctx  *common.Context
	id   common.ViewID
	W, H int

	// Gen is bumped whenever the tab's asynchronous context changes (a
	// detail opened or closed, a stream replaced); replies carrying
	// another Gen are stale and dropped.
	Gen uint64
	// DlgGen identifies the open dialog, so a late action reply only
	// updates the dialog that sent it.
	DlgGen uint64
	Dlg    *components.Dialog
}

// New returns the Base of tab id.
func New(ctx *common.Context, id common.ViewID) Base { return Base{Ctx: ctx, id: id} }

func (b *Base) ID() common.ViewID     { return b.id }
func (b *Base) Init() tea.Cmd         { return nil }
func (b *Base) Wants() []common.ResID { return nil }

// Address runs fn in a command and brings its result back to this tab,
// tagged with gen.
func (b *Base) Address(gen uint64, fn func() any) tea.Cmd {
	return common.Address(b.id, gen, fn)
}

// After delivers msg to this tab after d, tagged with gen.
func (b *Base) After(d time.Duration, gen uint64, msg any) tea.Cmd {
	to := b.id
	return b.Ctx.Tick(d, func(time.Time) tea.Msg { return common.ViewMsg{To: to, Gen: gen, Msg: msg} })
}

// OpenDialog shows d (replacing any dialog open).
func (b *Base) OpenDialog(d *components.Dialog) {
	b.DlgGen++
	b.Dlg = d
}

// CloseDialog closes the open dialog.
func (b *Base) CloseDialog() {
	b.DlgGen++
	b.Dlg = nil
}

// DialogOpen reports whether the dialog of generation gen (the DlgGen a
// reply carries back) is still the one open.
func (b *Base) DialogOpen(gen uint64) bool { return b.Dlg != nil && b.DlgGen == gen }

// ActionFailed says the error of an action the dialog of generation
// dlgGen started: in that dialog, its busy line cleared, as inDialog and
// the error while it is still open; else in a flash, as flashed and the
// error.
func (b *Base) ActionFailed(dlgGen uint64, err error, inDialog, flashed string) tea.Cmd {
	why := common.S(err.Error())
	if b.DialogOpen(dlgGen) {
		b.Dlg.Busy, b.Dlg.Err = "", inDialog+why
		return nil
	}
	return common.Flash(common.LevelError, flashed+why)
}

// DialogFlow passes a key to the open dialog of a multi-step flow. Esc
// ends the flow: the dialog closes and reset (when not nil) starts the
// flow over. Enter runs submit, the flow's next step, which ends the flow
// the same way by calling end (after its last step). act, when not nil,
// handles a dialog's action key.
func (b *Base) DialogFlow(msg tea.KeyPressMsg, reset func(), submit func(end func()) tea.Cmd, act func(id int) tea.Cmd) tea.Cmd {
	end := func() {
		b.CloseDialog()
		if reset != nil {
			reset()
		}
	}
	switch out, id := b.Dlg.Update(b.Ctx, msg); out {
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

// KeyHints implements common.KeyHinter: while a dialog is open, the hint
// line shows the dialog's keys in its current mode.
func (b *Base) KeyHints() ([]key.Binding, bool) {
	if b.Dlg == nil {
		return nil, false
	}
	return b.Dlg.ShortHelp(b.Ctx.Keys), true
}

// DialogInput gives paste to the open dialog, and takes the mouse while
// one is open (the dialog has no use for it, the tab under it must not
// move); false leaves msg to the tab.
func (b *Base) DialogInput(msg tea.Msg) bool {
	if b.Dlg == nil {
		return false
	}
	switch msg := msg.(type) {
	case tea.PasteMsg:
		b.Dlg.Update(b.Ctx, msg)
		return true
	case tea.MouseWheelMsg, tea.MouseClickMsg:
		return true
	}
	return false
}

// DialogView renders the open dialog in the tab's box.
func (b *Base) DialogView() string {
	return b.Dlg.View(b.Ctx, b.W, b.H)
}

// Fetch is a view's one-at-a-time read (a detail's browse, a pane's list):
// at most one in flight, and one asked for meanwhile (after a change the
// view made) is not dropped but made when the one in flight answers,
// whose answer may have been read before the change.
type Fetch struct{ pending, again bool }

// Start reports whether a read may go now; false while one is in flight,
// which then owes another.
func (f *Fetch) Start() bool {
	if f.pending {
		f.again = true
		return false
	}
	f.pending = true
	return true
}

// Done records the answer of the read in flight and reports whether
// another is owed.
func (f *Fetch) Done() (again bool) {
	again, f.pending, f.again = f.again, false, false
	return again
}

// Pending reports whether a read is in flight.
func (f *Fetch) Pending() bool { return f.pending }
