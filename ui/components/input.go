package components

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// Input is a one-line text editor for the filter, the command line and
// dialog fields. It is deliberately small: bubbles' textinput pulls in a
// local-clipboard package that shells out to xclip/pbpaste (useless over
// SSH, and a child process writing to the TTY under the TUI), and its
// blinking cursor would redraw an idle dashboard twice a second. Paste
// arrives as tea.PasteMsg (bracketed paste, on by default in v2).
//
// Keys: printable text inserts; ←/→ (ctrl+b/ctrl+f) move; home/ctrl+a and
// end/ctrl+e jump; backspace/ctrl+h and delete/ctrl+d erase; ctrl+w erases
// a word; ctrl+u erases to the start, ctrl+k to the end.
//
// A value present when the input gains focus (a dialog's default, the
// filter in force) is selected: typing or pasting replaces it, backspace
// or delete clears it, and a movement key keeps it for editing. So a
// default "3" and a typed 6 make 6, not 36.
type Input struct {
	Prompt      string
	Placeholder string
	CharLimit   int

	value    []rune
	pos      int
	focused  bool
	selected bool // the whole value is selected (see above)
	width    int
}

// NewInput returns an input with a prompt and a placeholder.
func NewInput(prompt, placeholder string) Input {
	return Input{Prompt: prompt, Placeholder: placeholder, CharLimit: 512}
}

// Value returns the text.
func (in *Input) Value() string { return string(in.value) }

// SetValue replaces the text and puts the cursor at its end.
func (in *Input) SetValue(s string) {
	in.value = []rune(clean(s))
	in.pos = len(in.value)
	in.selected = false
}

// Reset empties the input.
func (in *Input) Reset() { in.value, in.pos, in.selected = nil, 0, false }

// Focus shows the cursor; a value already there becomes selected when the
// input was not focused before. Blur hides the cursor and the selection.
func (in *Input) Focus() {
	if !in.focused {
		in.selected = len(in.value) > 0
	}
	in.focused = true
}
func (in *Input) Blur()         { in.focused, in.selected = false, false }
func (in *Input) Focused() bool { return in.focused }

// Selected reports whether the whole value is selected.
func (in *Input) Selected() bool { return in.selected }

// SetWidth sets the width of the whole input, prompt included.
func (in *Input) SetWidth(w int) { in.width = w }

// clean drops control and format characters from typed or pasted text and
// turns line breaks and tabs into spaces.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || sanitize.Escaped(r) || r == 0xfffd:
			return -1
		}
		return r
	}, s)
}

// replaceSelection empties a selected value before new text goes in.
func (in *Input) replaceSelection() {
	if in.selected {
		in.Reset()
	}
}

func (in *Input) insert(s string) {
	rs := []rune(clean(s))
	if in.CharLimit > 0 && len(in.value)+len(rs) > in.CharLimit {
		rs = rs[:max(0, in.CharLimit-len(in.value))]
	}
	v := make([]rune, 0, len(in.value)+len(rs))
	v = append(v, in.value[:in.pos]...)
	v = append(v, rs...)
	v = append(v, in.value[in.pos:]...)
	in.value = v
	in.pos += len(rs)
}

// Update edits the text; it reports whether the message changed anything.
func (in *Input) Update(msg tea.Msg) bool {
	if !in.focused {
		return false
	}
	switch msg := msg.(type) {
	case tea.PasteMsg:
		in.replaceSelection()
		in.insert(msg.Content)
		return true
	case tea.KeyPressMsg:
		if in.selected {
			switch msg.String() {
			case "backspace", "ctrl+h", "delete", "ctrl+d", "ctrl+w", "alt+backspace", "ctrl+u", "ctrl+k":
				in.Reset()
				return true
			case "left", "ctrl+b", "right", "ctrl+f", "home", "ctrl+a", "end", "ctrl+e":
				in.selected = false // edit the value instead of replacing it
			case "space":
				in.replaceSelection()
			default:
				if msg.Text != "" && !msg.Mod.Contains(tea.ModCtrl) && !msg.Mod.Contains(tea.ModAlt) {
					in.replaceSelection()
				}
			}
		}
		switch msg.String() {
		case "left", "ctrl+b":
			in.pos = max(0, in.pos-1)
		case "right", "ctrl+f":
			in.pos = min(len(in.value), in.pos+1)
		case "home", "ctrl+a":
			in.pos = 0
		case "end", "ctrl+e":
			in.pos = len(in.value)
		case "backspace", "ctrl+h":
			if in.pos > 0 {
				in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
				in.pos--
			}
		case "delete", "ctrl+d":
			if in.pos < len(in.value) {
				in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
			}
		case "ctrl+w", "alt+backspace":
			i := in.pos
			for i > 0 && in.value[i-1] == ' ' {
				i--
			}
			for i > 0 && in.value[i-1] != ' ' {
				i--
			}
			in.value = append(in.value[:i], in.value[in.pos:]...)
			in.pos = i
		case "ctrl+u":
			in.value = in.value[in.pos:]
			in.pos = 0
		case "ctrl+k":
			in.value = in.value[:in.pos]
		case "space":
			in.insert(" ")
		default:
			if msg.Text == "" || msg.Mod.Contains(tea.ModCtrl) || msg.Mod.Contains(tea.ModAlt) {
				return false
			}
			in.insert(msg.Text)
		}
		return true
	}
	return false
}

// View renders prompt, text and cursor within the input's width,
// scrolling horizontally to keep the cursor visible.
func (in *Input) View(st *common.Styles) string {
	w := in.width
	if w <= 0 {
		w = 40
	}
	pw := common.Width(in.Prompt)
	avail := max(w-pw, 1)
	if len(in.value) == 0 {
		cur := ""
		if in.focused {
			cur = st.Selected.Render(" ")
			if st.Textual() {
				cur = "_"
			}
			avail--
		}
		return in.Prompt + cur + st.Faint.Render(common.Trunc(in.Placeholder, max(avail, 0)))
	}
	// Window of runes around the cursor that fits in avail-1 cells (one
	// for the cursor at the end).
	start := 0
	for start < in.pos && widthOf(in.value[start:in.pos])+1 > avail {
		start++
	}
	end := start
	used := 0
	for end < len(in.value) {
		rw := common.Width(string(in.value[end]))
		if used+rw > avail-1 && end >= in.pos {
			break
		}
		used += rw
		end++
	}
	var b strings.Builder
	b.WriteString(in.Prompt)
	if in.focused && in.selected {
		// The selection: the value in the cursor style ([value] without
		// styling), the cursor after it.
		sel := string(in.value[start:end])
		if st.Textual() {
			b.WriteString("[" + sel + "]")
		} else {
			b.WriteString(st.Selected.Render(sel))
		}
		return common.ClipStyled(b.String(), w)
	}
	b.WriteString(string(in.value[start:in.pos]))
	if in.focused {
		under := " "
		if in.pos < len(in.value) {
			under = string(in.value[in.pos])
		}
		if st.Textual() {
			b.WriteString("_")
			if in.pos < len(in.value) {
				b.WriteString(under)
			}
		} else {
			b.WriteString(st.Selected.Render(under))
		}
		if in.pos < end {
			b.WriteString(string(in.value[in.pos+1 : end]))
		}
	} else {
		b.WriteString(string(in.value[in.pos:end]))
	}
	return common.ClipStyled(b.String(), w)
}

func widthOf(rs []rune) int { return common.Width(string(rs)) }
