package views

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// Placeholder stands in for the tail and publish views until they land
// (part B). It remembers what it was asked to open, so the navigation
// (`t`, `p`, `:tail`, `:publish`) is already wired end to end.
type Placeholder struct {
	base
	title  string
	target string
}

// NewPlaceholder returns a placeholder tab.
func NewPlaceholder(ctx *common.Context, id common.ViewID, title string) *Placeholder {
	return &Placeholder{base: base{ctx: ctx, id: id}, title: title}
}

// SetTarget records the topic or pattern the tab was opened for.
func (v *Placeholder) SetTarget(s string) { v.target = s }

// Target returns it.
func (v *Placeholder) Target() string { return v.target }

func (v *Placeholder) Title() string             { return v.title }
func (v *Placeholder) Primary() common.ResID     { return -1 }
func (v *Placeholder) Capturing() bool           { return false }
func (v *Placeholder) Back() bool                { return false }
func (v *Placeholder) SetSize(w, h int)          { v.w, v.h = w, h }
func (v *Placeholder) Update(tea.Msg) tea.Cmd    { return nil }
func (v *Placeholder) ShortHelp() []key.Binding  { return nil }
func (v *Placeholder) FullHelp() [][]key.Binding { return nil }
func (v *Placeholder) Status() string            { return common.S(v.target) }

// View implements common.View.
func (v *Placeholder) View() string {
	st := v.ctx.Styles
	lines := []string{st.Title.Render(v.title)}
	if v.target != "" {
		lines = append(lines, "target: "+common.S(v.target))
	}
	lines = append(lines, "", st.Muted.Render("This view is not built yet."))
	return common.Frame(lines, v.w, v.h)
}
