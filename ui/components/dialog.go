package components

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// FieldKind is a dialog field's kind.
type FieldKind int

// Field kinds.
const (
	FieldText   FieldKind = iota // free text
	FieldChoice                  // one of Choices, cycled with ←/→/space
)

// Field is one labelled input of a dialog.
type Field struct {
	Label   string
	Kind    FieldKind
	Input   Input
	Choices []string
	Choice  int
	Hint    string // shown dimmed after the value
}

// TextField returns a text field with a placeholder (shown when empty).
func TextField(label, value, placeholder string) *Field {
	f := &Field{Label: label, Kind: FieldText, Input: NewInput("", placeholder)}
	f.Input.SetValue(value)
	return f
}

// ChoiceField returns a choice field.
func ChoiceField(label string, choices ...string) *Field {
	return &Field{Label: label, Kind: FieldChoice, Choices: choices}
}

// Value is the field's text or chosen option.
func (f *Field) Value() string {
	if f.Kind == FieldChoice {
		if f.Choice >= 0 && f.Choice < len(f.Choices) {
			return f.Choices[f.Choice]
		}
		return ""
	}
	return strings.TrimSpace(f.Input.Value())
}

// Action is an extra key a dialog offers (e.g. "r resend").
type Action struct {
	Key key.Binding
	ID  int
}

// Outcome is what a key did to a dialog.
type Outcome int

// Outcomes.
const (
	None   Outcome = iota
	Submit         // enter (or y on a plain confirmation)
	Cancel         // esc (or n on a plain confirmation)
	Acted          // one of Actions; see the returned ID
)

// Dialog is a modal box: a title, explanatory paragraphs, optional fields,
// an optional type-to-confirm line, and key hints. Forms, confirmations,
// previews and error explanations are all Dialogs. A view that has one open
// reports Capturing, so every key reaches it.
type Dialog struct {
	Title  string
	Danger bool     // destructive: title in the error style
	Body   []string // paragraphs; may be styled; wrapped to the box
	Fields []*Field
	// ConfirmText, when set, must be typed before Submit is accepted.
	ConfirmText string
	Actions     []Action
	SubmitLabel string // "create", "delete"...; "" hides the enter hint
	CancelLabel string // default "cancel"
	Busy        string // a request is running: only esc works
	Err         string // sanitized error text, shown in the error style
	// Review, when set, is what a second enter will do (a form's review
	// step); shown below the fields. Editing a field clears it, so what is
	// sent is always what was reviewed.
	Review string

	focus   int
	confirm Input
	scroll  int
}

func (d *Dialog) hasText() bool {
	if d.ConfirmText != "" {
		return true
	}
	for _, f := range d.Fields {
		if f.Kind == FieldText {
			return true
		}
	}
	return false
}

// focusables: fields, then the confirm input.
func (d *Dialog) nFocus() int {
	n := len(d.Fields)
	if d.ConfirmText != "" {
		n++
	}
	return n
}

func (d *Dialog) syncFocus() {
	for i, f := range d.Fields {
		if i == d.focus {
			f.Input.Focus()
		} else {
			f.Input.Blur()
		}
	}
	if d.ConfirmText != "" && d.focus == len(d.Fields) {
		d.confirm.Focus()
	} else {
		d.confirm.Blur()
	}
}

// Update handles a key or paste. It returns the outcome and, for Acted,
// the action's ID.
func (d *Dialog) Update(ctx *common.Context, msg tea.Msg) (Outcome, int) {
	k := ctx.Keys
	d.syncFocus()
	switch msg := msg.(type) {
	case tea.PasteMsg:
		if d.focused().Update(msg) {
			d.Err, d.Review = "", ""
		}
		return None, 0
	case tea.KeyPressMsg:
		s := msg.String()
		if s == "esc" {
			return Cancel, 0
		}
		if d.Busy != "" {
			return None, 0
		}
		if !d.hasText() {
			for _, a := range d.Actions {
				if key.Matches(msg, a.Key) {
					return Acted, a.ID
				}
			}
			switch s {
			case "y":
				if d.SubmitLabel != "" {
					return Submit, 0
				}
			case "n":
				return Cancel, 0
			}
		}
		switch {
		case s == "enter":
			if d.SubmitLabel == "" {
				return Cancel, 0
			}
			if d.ConfirmText != "" && strings.TrimSpace(d.confirm.Value()) != d.ConfirmText {
				d.Err = "type the name exactly to confirm"
				d.focus = len(d.Fields)
				return None, 0
			}
			return Submit, 0
		case d.nFocus() > 0 && key.Matches(msg, k.NextField):
			d.focus = (d.focus + 1) % d.nFocus()
			return None, 0
		case d.nFocus() > 0 && key.Matches(msg, k.PrevField):
			d.focus = (d.focus - 1 + d.nFocus()) % d.nFocus()
			return None, 0
		case s == "pgdown" || (d.nFocus() == 0 && key.Matches(msg, k.Down)):
			d.scroll++
			return None, 0
		case s == "pgup" || (d.nFocus() == 0 && key.Matches(msg, k.Up)):
			d.scroll = max(0, d.scroll-1)
			return None, 0
		}
		if d.focus < len(d.Fields) {
			if f := d.Fields[d.focus]; f.Kind == FieldChoice {
				switch {
				case key.Matches(msg, k.Left):
					f.Choice = (f.Choice - 1 + len(f.Choices)) % len(f.Choices)
					d.Review = ""
				case key.Matches(msg, k.Right):
					f.Choice = (f.Choice + 1) % len(f.Choices)
					d.Review = ""
				}
				return None, 0
			}
		}
		if in := d.focused(); in != nil && in.Update(msg) {
			d.Err, d.Review = "", ""
		}
	}
	return None, 0
}

func (d *Dialog) focused() *Input {
	if d.focus < len(d.Fields) {
		if f := d.Fields[d.focus]; f.Kind == FieldText {
			return &f.Input
		}
		return &Input{}
	}
	if d.ConfirmText != "" {
		return &d.confirm
	}
	return &Input{}
}

// Focus moves the focus to field i.
func (d *Dialog) Focus(i int) { d.focus = i }

// View renders the dialog centred in a w×h area.
func (d *Dialog) View(ctx *common.Context, w, h int) string {
	return common.Frame(d.Lines(ctx, w, h), w, h)
}

// Lines renders the dialog's lines, centred in a w×h area.
func (d *Dialog) Lines(ctx *common.Context, w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	d.syncFocus()
	st := ctx.Styles
	bw := min(w, 78)
	inner := max(bw-4, 1)

	var body []string
	for _, p := range d.Body {
		body = append(body, common.Wrap(p, inner)...)
	}
	var fields []string
	labelW := 0
	for _, f := range d.Fields {
		labelW = max(labelW, common.Width(f.Label))
	}
	labelW = min(labelW, inner/3)
	for i, f := range d.Fields {
		marker := "  "
		if i == d.focus {
			marker = st.DialogKey.Render("▸ ")
		}
		label := marker + st.DialogLabel.Render(common.Fit(f.Label, labelW)) + " "
		vw := max(inner-labelW-3, 1)
		var val string
		switch f.Kind {
		case FieldChoice:
			v := "‹ " + f.Value() + " ›"
			if i == d.focus {
				val = st.DialogFocus.Render(v)
			} else {
				val = v
			}
		default:
			f.Input.SetWidth(vw)
			val = f.Input.View(st)
		}
		line := label + val
		if f.Hint != "" && common.Width(line)+2+common.Width(f.Hint) <= inner {
			line += "  " + st.Faint.Render(f.Hint)
		}
		fields = append(fields, line)
	}
	if d.ConfirmText != "" {
		fields = append(fields, common.Trunc("Type "+d.ConfirmText+" to confirm:", inner))
		d.confirm.SetWidth(inner)
		fields = append(fields, d.confirm.View(st))
	}
	if d.Review != "" {
		for _, l := range common.Wrap(d.Review, inner) {
			fields = append(fields, st.Info.Render(l))
		}
	}
	if d.Err != "" {
		for _, l := range common.Wrap(d.Err, inner) {
			fields = append(fields, st.Err.Render(l))
		}
	}
	footer := d.footer(ctx)
	// Fit: borders (2) + body + blank + fields + footer.
	fixed := 2 + len(fields) + 1
	if len(fields) > 0 && len(body) > 0 {
		fixed++
	}
	room := h - fixed
	if room < 0 {
		room = 0
	}
	if len(body) > room {
		d.scroll = min(d.scroll, len(body)-room)
		if room > 0 {
			end := d.scroll + room
			clipped := append([]string(nil), body[d.scroll:end]...)
			if end < len(body) && len(clipped) > 1 {
				clipped[len(clipped)-1] = st.Faint.Render(common.Trunc("… more (pgdn)", inner))
			}
			body = clipped
		} else {
			body = nil
		}
	} else {
		d.scroll = 0
	}
	content := append([]string(nil), body...)
	if len(fields) > 0 && len(body) > 0 {
		content = append(content, "")
	}
	content = append(content, fields...)

	border := st.DialogBorder
	titleSt := st.DialogTitle
	if d.Danger {
		titleSt = st.DialogDanger
	}
	title := common.Trunc(d.Title, max(bw-6, 1))
	topFill := max(bw-4-common.Width(title), 0)
	lines := make([]string, 0, len(content)+3)
	lines = append(lines, border.Render("┌ ")+titleSt.Render(title)+border.Render(" "+strings.Repeat("─", topFill)+"┐"))
	for _, c := range content {
		c = common.PadStyled(common.ClipStyled(c, inner), inner)
		lines = append(lines, border.Render("│ ")+c+border.Render(" │"))
	}
	fw := common.Width(footer)
	if fw > bw-4 {
		footer = common.ClipStyled(footer, bw-4)
		fw = common.Width(footer)
	}
	lines = append(lines, border.Render("└ ")+footer+border.Render(" "+strings.Repeat("─", max(bw-4-fw, 0))+"┘"))
	if bw < 6 {
		// Too narrow for a box: just the text.
		lines = append([]string{title}, content...)
	}
	// Centre.
	padL := (w - bw) / 2
	padT := max((h-len(lines))/2, 0)
	out := make([]string, 0, h)
	for i := 0; i < padT; i++ {
		out = append(out, "")
	}
	pad := strings.Repeat(" ", max(padL, 0))
	for _, l := range lines {
		out = append(out, pad+l)
	}
	return out
}

func (d *Dialog) footer(ctx *common.Context) string {
	st := ctx.Styles
	var parts []string
	hint := func(k, desc string) { parts = append(parts, st.DialogKey.Render(k)+" "+desc) }
	if d.Busy != "" {
		return st.Muted.Render(d.Busy) + "  " + st.DialogKey.Render("esc") + " close"
	}
	if d.SubmitLabel != "" {
		if d.Review != "" {
			hint("enter", "confirm: "+d.SubmitLabel)
		} else if d.hasText() {
			hint("enter", d.SubmitLabel)
		} else {
			hint("enter/y", d.SubmitLabel)
		}
	}
	if !d.hasText() {
		for _, a := range d.Actions {
			if a.Key.Enabled() {
				hint(a.Key.Help().Key, a.Key.Help().Desc)
			}
		}
	}
	if d.nFocus() > 1 {
		hint("tab", "next")
	}
	cancel := d.CancelLabel
	if cancel == "" {
		cancel = "cancel"
		if d.SubmitLabel == "" {
			cancel = "close"
		}
	}
	hint("esc", cancel)
	return strings.Join(parts, "  ")
}
