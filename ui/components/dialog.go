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

// AppliedWithDifferences is the result of an action that did not do
// exactly what its preview showed (what: "seek", "rebalance"), reported
// against the preview: one line per difference, sanitized.
func AppliedWithDifferences(title, what string, diffs []string) *Dialog {
	body := []string{"The " + what + " was applied, but not exactly as previewed:", ""}
	for _, d := range diffs {
		body = append(body, common.S(d))
	}
	return &Dialog{Title: title + " — applied with differences", Body: body, SubmitLabel: "close"}
}

// Dialog is a modal box: a title, explanatory paragraphs, optional fields,
// an optional type-to-confirm line, and key hints. Forms, confirmations,
// previews and error explanations are all Dialogs. A view that has one open
// reports Capturing, so every key reaches it. Its fields and the
// type-to-confirm line are a Form: the dialog opens navigating, and no key
// is text until enter or e edits the focused field.
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

	form    Form
	confirm *Field // the type-to-confirm line, once ConfirmText is set
	scroll  int
}

func (d *Dialog) hasText() bool {
	return d.ConfirmText != "" || hasTextField(d.Fields)
}

// focusables: the fields, then the type-to-confirm line.
func (d *Dialog) focusables() []*Field {
	if d.ConfirmText == "" {
		return d.Fields
	}
	if d.confirm == nil {
		d.confirm = TextField("", "", "")
	}
	return append(d.Fields[:len(d.Fields):len(d.Fields)], d.confirm)
}

func (d *Dialog) formKeys(k *common.KeyMap) FormKeys {
	return FormKeys{Next: []key.Binding{k.NextField, k.FieldDown}, Prev: []key.Binding{k.PrevField, k.FieldUp}, Submit: k.FormSubmit}
}

// Editing reports whether a field of the dialog is being edited.
func (d *Dialog) Editing() bool { return d.form.Editing() }

// Note is what the dialog says about the last key when it did nothing
// (typing while navigating).
func (d *Dialog) Note() string { return d.form.Note }

// Update handles a key or paste. It returns the outcome and, for Acted,
// the action's ID.
func (d *Dialog) Update(ctx *common.Context, msg tea.Msg) (Outcome, int) {
	k := ctx.Keys
	fs := d.focusables()
	switch msg := msg.(type) {
	case tea.PasteMsg:
		if d.Busy == "" && d.form.Paste(fs, msg) == FormChanged {
			d.Err, d.Review = "", ""
		}
		return None, 0
	case tea.KeyPressMsg:
		s := msg.String()
		if d.Busy != "" {
			if s == "esc" {
				return Cancel, 0
			}
			return None, 0
		}
		if s == "esc" && !d.form.Editing() {
			return Cancel, 0
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
		case s == "pgdown" || (len(fs) == 0 && key.Matches(msg, k.Down)):
			d.scroll++
			return None, 0
		case s == "pgup" || (len(fs) == 0 && key.Matches(msg, k.Up)):
			d.scroll = max(0, d.scroll-1)
			return None, 0
		case len(fs) == 0:
			if s == "enter" || key.Matches(msg, k.FormSubmit) {
				return d.submit()
			}
			return None, 0
		case s == "enter" && !d.form.Editing() && d.confirm != nil && d.form.Focus == len(d.Fields):
			// Enter on the name line checks it (and starts editing it
			// when it does not match).
			return d.submit()
		}
		switch d.form.Key(k, fs, d.formKeys(k), d.Review != "", msg) {
		case FormChanged:
			d.Err, d.Review = "", ""
		case FormSubmit:
			return d.submit()
		case FormUnhandled:
			d.form.NoteNotEditing(fs, msg)
		}
	}
	return None, 0
}

func (d *Dialog) submit() (Outcome, int) {
	if d.SubmitLabel == "" {
		return Cancel, 0
	}
	if d.ConfirmText != "" && strings.TrimSpace(d.confirm.Input.Value()) != d.ConfirmText {
		d.Err = "type the name exactly to confirm"
		d.form.Focus = len(d.Fields)
		d.form.Edit(d.focusables())
		d.form.Sync(d.focusables())
		return None, 0
	}
	return Submit, 0
}

// Focus moves the focus to field i (editing it if a field was being
// edited: a view moves to the field its error is about).
func (d *Dialog) Focus(i int) { d.form.Focus = i }

// View renders the dialog centred in a w×h area.
func (d *Dialog) View(ctx *common.Context, w, h int) string {
	return common.Frame(d.Lines(ctx, w, h), w, h)
}

// Lines renders the dialog's lines, centred in a w×h area.
func (d *Dialog) Lines(ctx *common.Context, w, h int) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	d.form.Sync(d.focusables())
	st := ctx.Styles
	bw := min(w, 78)
	inner := max(bw-4, 1)

	var body []string
	for _, p := range d.Body {
		body = append(body, common.Wrap(p, inner)...)
	}
	fields := append(d.fieldLines(st, inner), d.noteLines(st, inner)...)
	var foot []string
	if bw >= 6 { // narrower, box draws no border, no footer
		foot = d.footerLines(ctx, bw-4)
	}
	// Fit: borders (2) + body + blank + fields + footer (the lines of a
	// footer wrapped above the bottom border).
	fixed := 2 + len(fields) + 1 + max(len(foot)-1, 0)
	if len(fields) > 0 && len(body) > 0 {
		fixed++
	}
	body = d.clipBody(st, body, max(h-fixed, 0), inner)
	content := append([]string(nil), body...)
	if len(fields) > 0 && len(body) > 0 {
		content = append(content, "")
	}
	content = append(content, fields...)
	return centre(d.box(ctx, content, foot, bw, inner), w, h, bw)
}

// fieldLines are the fields, one line each, then the typed confirmation.
func (d *Dialog) fieldLines(st *common.Styles, inner int) []string {
	var fields []string
	labelW := 0
	for _, f := range d.Fields {
		labelW = max(labelW, common.Width(f.Label))
	}
	labelW = min(labelW, inner/3)
	for i, f := range d.Fields {
		marker := "  "
		if i == d.form.Focus {
			marker = st.DialogKey.Render(focusMarker(&d.form))
		}
		label := marker + st.DialogLabel.Render(common.Fit(f.Label, labelW)) + " "
		vw := max(inner-labelW-3, 1)
		var val string
		switch f.Kind {
		case FieldChoice:
			v := "‹ " + f.Value() + " ›"
			if i == d.form.Focus {
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
		marker := "  "
		if d.form.Focus == len(d.Fields) {
			marker = st.DialogKey.Render(focusMarker(&d.form))
		}
		d.confirm.Input.Placeholder = ""
		if !d.form.Editing() {
			d.confirm.Input.Placeholder = "enter, then type the name"
		}
		d.confirm.Input.SetWidth(max(inner-2, 1))
		fields = append(fields, marker+d.confirm.Input.View(st))
	}
	return fields
}

// noteLines are the review, the error and the form's note, wrapped.
func (d *Dialog) noteLines(st *common.Styles, inner int) []string {
	var out []string
	for _, n := range []struct {
		text  string
		style common.Style
	}{{d.Review, st.Info}, {d.Err, st.Err}, {d.form.Note, st.Warn}} {
		if n.text == "" {
			continue
		}
		for _, l := range common.Wrap(n.text, inner) {
			out = append(out, n.style.Render(l))
		}
	}
	return out
}

// clipBody keeps the body within room lines, scrolled by d.scroll, the
// last line saying there is more.
func (d *Dialog) clipBody(st *common.Styles, body []string, room, inner int) []string {
	if len(body) <= room {
		d.scroll = 0
		return body
	}
	d.scroll = min(d.scroll, len(body)-room)
	if room == 0 {
		return nil
	}
	end := d.scroll + room
	clipped := append([]string(nil), body[d.scroll:end]...)
	if end < len(body) && len(clipped) > 1 {
		clipped[len(clipped)-1] = st.Faint.Render(common.Trunc("… more (pgdn)", inner))
	}
	return clipped
}

// box draws content in the dialog's border, bw wide, the title on top and
// the footer (footerLines) at the bottom: its last line on the border, the
// others above it; too narrow for a box, just the text.
func (d *Dialog) box(ctx *common.Context, content, foot []string, bw, inner int) []string {
	st := ctx.Styles
	border := st.DialogBorder
	titleSt := st.DialogTitle
	if d.Danger {
		titleSt = st.DialogDanger
	}
	title := common.Trunc(d.Title, max(bw-6, 1))
	if bw < 6 {
		return append([]string{title}, content...)
	}
	topFill := max(bw-4-common.Width(title), 0)
	footer := ""
	if n := len(foot); n > 0 {
		content = append(content[:len(content):len(content)], foot[:n-1]...)
		footer = foot[n-1]
	}
	lines := make([]string, 0, len(content)+3)
	lines = append(lines, border.Render("┌ ")+titleSt.Render(title)+border.Render(" "+strings.Repeat("─", topFill)+"┐"))
	for _, c := range content {
		c = common.PadStyled(common.ClipStyled(c, inner), inner)
		lines = append(lines, border.Render("│ ")+c+border.Render(" │"))
	}
	fw := common.Width(footer)
	return append(lines, border.Render("└ ")+footer+border.Render(" "+strings.Repeat("─", max(bw-4-fw, 0))+"┘"))
}

// centre places lines, bw wide, in the middle of a w×h area.
func centre(lines []string, w, h, bw int) []string {
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

// footerLines are the footer's hints in width: on one line when they fit;
// else wrapped between hints (a hint wider than width, such as a long Busy
// text, wrapped itself), so that no hint is cut, the last one (esc) on the
// last line.
func (d *Dialog) footerLines(ctx *common.Context, width int) []string {
	parts := d.footerParts(ctx)
	if full := strings.Join(parts, "  "); common.Width(full) <= width || width <= 0 {
		return []string{full}
	}
	var lines []string
	cur, cw := "", 0
	for _, p := range parts {
		if common.Width(p) > width {
			wrapped := common.Wrap(p, width)
			if cw > 0 {
				lines = append(lines, cur)
			}
			lines = append(lines, wrapped[:len(wrapped)-1]...)
			p, cur, cw = wrapped[len(wrapped)-1], "", 0
		}
		pw := common.Width(p)
		if cw > 0 && cw+2+pw > width {
			lines = append(lines, cur)
			cur, cw = "", 0
		}
		if cw > 0 {
			cur += "  "
			cw += 2
		}
		cur += p
		cw += pw
	}
	return append(lines, cur)
}

// footerParts are the footer's hints: "esc cancel", "enter/y copy"…
func (d *Dialog) footerParts(ctx *common.Context) []string {
	st := ctx.Styles
	if d.Busy != "" {
		return []string{st.Muted.Render(d.Busy), st.DialogKey.Render("esc") + " close"}
	}
	var parts []string
	for _, b := range d.ShortHelp(ctx.Keys) {
		if b.Enabled() && b.Help().Key != "" {
			parts = append(parts, st.DialogKey.Render(b.Help().Key)+" "+b.Help().Desc)
		}
	}
	return parts
}

// ShortHelp is the keys that work in the dialog now: navigating its
// fields, editing one, or confirming. The dialog's footer and the
// dashboard's hint line both show them.
func (d *Dialog) ShortHelp(k *common.KeyMap) []key.Binding {
	cancel := d.CancelLabel
	if cancel == "" {
		cancel = "cancel"
		if d.SubmitLabel == "" {
			cancel = "close"
		}
	}
	esc := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", cancel))
	if d.Busy != "" {
		esc.SetHelp("esc", "close")
		return []key.Binding{esc}
	}
	var out []key.Binding
	fs := d.focusables()
	var enter key.Binding
	if d.SubmitLabel != "" {
		enter = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", d.SubmitLabel))
		switch {
		case d.Review != "":
			enter.SetHelp("enter", "confirm: "+d.SubmitLabel)
		case !d.hasText():
			enter.SetHelp("enter/y", d.SubmitLabel)
		}
	}
	if len(fs) == 0 {
		if d.SubmitLabel != "" {
			out = append(out, enter)
		}
	} else {
		if d.SubmitLabel == "" {
			enter = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", cancel))
		}
		out = append(out, d.form.Help(k, fs, d.formKeys(k), enter, d.Review != "")...)
	}
	if !d.hasText() {
		for _, a := range d.Actions {
			if a.Key.Enabled() {
				out = append(out, a.Key)
			}
		}
	}
	if !d.form.Editing() {
		out = append(out, esc)
	}
	return out
}

// focusMarker marks the focused field: ▸ navigating, ✎ editing.
func focusMarker(f *Form) string {
	if f.Editing() {
		return "✎ "
	}
	return "▸ "
}
