package components

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// Form is the keyboard state of a column of fields: which one has the
// focus and whether it is being edited. Dialogs and the publish form share
// it, so every form behaves the same.
//
// A form opens navigating: keys move the focus (FormKeys.Next/Prev) and
// change a choice (←/→/space), and no key is text, so a `:` command or a
// global key is never typed into a field by accident (a printable key
// leaves a Note saying how to edit instead). Enter or e on a text field
// starts editing it: its cursor shows and its value is selected, so typing
// replaces it. While editing, tab and ↑/↓ move to the next field still
// editing, esc stops editing, and enter submits (editing goes on, so an
// error the submit shows is fixed in place). Enter while navigating
// submits on a choice field, on a form without text fields, and when a
// review is pending; FormKeys.Submit submits in either mode.
type Form struct {
	Focus   int
	editing bool
	// Note says why the last key did nothing ("not editing: …"); the
	// next key clears it.
	Note string
}

// FormKeys are the keys a form moves and submits with.
type FormKeys struct {
	Next, Prev []key.Binding // move the focus while navigating
	Submit     key.Binding   // submits in either mode
}

// FormEvent is what a key did to a form.
type FormEvent int

// Form events.
const (
	FormNone      FormEvent = iota // handled; nothing for the caller
	FormChanged                    // a value or a text cursor changed
	FormSubmit                     // submit (see Form)
	FormUnhandled                  // not the form's key: the caller may use it
)

// Editing reports whether the focused field is being edited.
func (f *Form) Editing() bool { return f.editing }

// StopEditing returns the form to navigating.
func (f *Form) StopEditing() { f.editing = false }

// Edit starts editing the focused field when it is a text field.
func (f *Form) Edit(fields []*Field) {
	if f.Focus >= 0 && f.Focus < len(fields) && fields[f.Focus].Kind == FieldText {
		f.editing = true
	}
}

// focusedText reports whether the focused field is a text field.
func (f *Form) focusedText(fields []*Field) bool {
	return f.Focus >= 0 && f.Focus < len(fields) && fields[f.Focus].Kind == FieldText
}

// Sync gives the text cursor to the edited field only.
func (f *Form) Sync(fields []*Field) {
	for i, fl := range fields {
		if f.editing && i == f.Focus && fl.Kind == FieldText {
			fl.Input.Focus()
		} else {
			fl.Input.Blur()
		}
	}
}

func (f *Form) move(fields []*Field, d int) {
	if n := len(fields); n > 0 {
		f.Focus = (f.Focus + d + n) % n
	}
}

func printable(msg tea.KeyPressMsg) bool {
	return msg.Text != "" && !msg.Mod.Contains(tea.ModCtrl) && !msg.Mod.Contains(tea.ModAlt)
}

// Key handles a key; reviewPending makes enter submit while navigating
// (the second enter of a form's review step).
func (f *Form) Key(k *common.KeyMap, fields []*Field, fk FormKeys, reviewPending bool, msg tea.KeyPressMsg) FormEvent {
	f.Note = ""
	defer f.Sync(fields)
	if key.Matches(msg, fk.Submit) {
		return FormSubmit
	}
	var fl *Field
	if f.Focus >= 0 && f.Focus < len(fields) {
		fl = fields[f.Focus]
	}
	if f.editing {
		switch {
		case key.Matches(msg, k.FieldDone):
			f.editing = false
			return FormNone
		case msg.String() == "enter":
			// Still editing: a refusal (the error below the fields) or a
			// review is answered by editing on or by enter again.
			return FormSubmit
		case key.Matches(msg, k.NextField):
			f.move(fields, 1)
			return FormNone
		case key.Matches(msg, k.PrevField):
			f.move(fields, -1)
			return FormNone
		}
		if fl != nil && fl.Kind == FieldChoice {
			if f.choose(k, fl, msg) {
				return FormChanged
			}
			if printable(msg) {
				f.Note = fl.Label + " is a choice: ←/→ changes it"
				return FormNone
			}
			return FormUnhandled
		}
		if fl != nil {
			f.Sync(fields)
			if fl.Input.Update(msg) {
				return FormChanged
			}
		}
		return FormUnhandled
	}
	for _, b := range fk.Next {
		if key.Matches(msg, b) {
			f.move(fields, 1)
			return FormNone
		}
	}
	for _, b := range fk.Prev {
		if key.Matches(msg, b) {
			f.move(fields, -1)
			return FormNone
		}
	}
	switch {
	case msg.String() == "enter":
		if reviewPending || !f.focusedText(fields) {
			return FormSubmit
		}
		f.editing = true
		return FormNone
	case key.Matches(msg, k.FieldEdit) && f.focusedText(fields):
		f.editing = true
		return FormNone
	}
	if fl != nil && fl.Kind == FieldChoice && f.choose(k, fl, msg) {
		return FormChanged
	}
	return FormUnhandled
}

// NoteNotEditing leaves the note for a printable key typed while
// navigating; it reports whether msg was one.
func (f *Form) NoteNotEditing(fields []*Field, msg tea.KeyPressMsg) bool {
	if f.editing || !printable(msg) || !hasTextField(fields) {
		return false
	}
	if f.focusedText(fields) {
		f.Note = "not editing: enter or e edits " + fieldName(fields[f.Focus])
	} else {
		f.Note = "not editing: move to a text field, then enter or e edits it"
	}
	return true
}

func fieldName(fl *Field) string {
	if fl.Label == "" {
		return "the field"
	}
	return fl.Label
}

func (f *Form) choose(k *common.KeyMap, fl *Field, msg tea.KeyPressMsg) bool {
	if len(fl.Choices) == 0 {
		return false
	}
	switch {
	case key.Matches(msg, k.Left):
		fl.Choice = (fl.Choice - 1 + len(fl.Choices)) % len(fl.Choices)
	case key.Matches(msg, k.Right):
		fl.Choice = (fl.Choice + 1) % len(fl.Choices)
	default:
		return false
	}
	return true
}

// Paste goes into the edited field; while navigating it is refused with a
// note, like typing.
func (f *Form) Paste(fields []*Field, msg tea.PasteMsg) FormEvent {
	f.Note = ""
	if !f.editing || !f.focusedText(fields) {
		if f.focusedText(fields) {
			f.Note = "not editing: enter or e edits " + fieldName(fields[f.Focus]) + ", then paste"
		}
		return FormNone
	}
	f.Sync(fields)
	if fields[f.Focus].Input.Update(msg) {
		return FormChanged
	}
	return FormNone
}

// Help is the bindings that work in the form's current mode: enter is
// what enter does when it submits (its help names the action: "create",
// "confirm: delete"), and FormKeys.Submit is shown with the same words.
func (f *Form) Help(k *common.KeyMap, fields []*Field, fk FormKeys, enter key.Binding, reviewPending bool) []key.Binding {
	submit := fk.Submit
	submit.SetHelp(submit.Help().Key, enter.Help().Desc)
	change := key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "change"))
	var out []key.Binding
	choice := f.Focus >= 0 && f.Focus < len(fields) && fields[f.Focus].Kind == FieldChoice
	if f.editing {
		enter.SetHelp("enter", enter.Help().Desc)
		out = append(out, enter, k.FieldDone, k.NextField)
		if choice {
			out = append(out, change)
		}
		return out
	}
	switch {
	case reviewPending || !f.focusedText(fields):
		out = append(out, enter)
		if f.focusedText(fields) {
			out = append(out, key.NewBinding(key.WithKeys("e"), key.WithHelp("e", k.FieldEdit.Help().Desc)))
		}
	default:
		out = append(out, k.FieldEdit, submit)
	}
	if choice {
		out = append(out, change)
	}
	if len(fields) > 1 && len(fk.Next) > 0 {
		out = append(out, fk.Next[0])
	}
	return out
}

func hasTextField(fields []*Field) bool {
	for _, fl := range fields {
		if fl.Kind == FieldText {
			return true
		}
	}
	return false
}
