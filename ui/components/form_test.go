package components

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func kp(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "ctrl+s":
		return tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

// helpText is "key desc · key desc" of bindings, as the hint line shows.
func helpText(bs []key.Binding) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " · ")
}

func newForm() *Dialog {
	return &Dialog{Title: "Create topic", SubmitLabel: "create", Fields: []*Field{
		TextField("Name", "", "topic name"),
		TextField("Partitions", "3", ""),
		ChoiceField("Cleanup", "delete", "compact"),
	}}
}

// TestDialogOpensNavigating: a form dialog takes no key as text until
// enter or e edits the focused field; a `:` command or a global key typed
// at it changes nothing and says how to edit.
func TestDialogOpensNavigating(t *testing.T) {
	ctx := testCtx()
	d := newForm()
	for _, s := range []string{":", "p", "u", "b", "q", "?", "1"} {
		if out, _ := d.Update(ctx, kp(s)); out != None {
			t.Fatalf("%q while navigating: outcome %v", s, out)
		}
	}
	if d.Fields[0].Value() != "" || d.Editing() {
		t.Fatalf("typing while navigating reached the field: %q (editing %v)", d.Fields[0].Value(), d.Editing())
	}
	if !strings.Contains(d.Note(), "not editing: enter or e edits Name") {
		t.Fatalf("note %q", d.Note())
	}
	d.Update(ctx, tea.PasteMsg{Content: "pasted"})
	if d.Fields[0].Value() != "" {
		t.Fatal("a paste while navigating reached the field")
	}
	// The keys shown are those that work while navigating.
	nav := helpText(d.ShortHelp(ctx.Keys))
	for _, want := range []string{"enter/e edit field", "ctrl+s create", "tab/↓ next field", "esc cancel"} {
		if !strings.Contains(nav, want) {
			t.Fatalf("navigating help %q lacks %q", nav, want)
		}
	}
	screen := ansi.Strip(strings.Join(d.Lines(ctx, 80, 24), "\n"))
	if !strings.Contains(screen, "▸ Name") || !strings.Contains(screen, "enter/e edit field") {
		t.Fatalf("the dialog does not show the navigating focus and keys:\n%s", screen)
	}

	// enter edits: the cursor shows, typing goes in.
	d.Update(ctx, kp("enter"))
	if !d.Editing() || d.Note() != "" {
		t.Fatalf("enter did not start editing (editing %v, note %q)", d.Editing(), d.Note())
	}
	for _, r := range "NEW.T" {
		d.Update(ctx, kp(string(r)))
	}
	if d.Fields[0].Value() != "NEW.T" {
		t.Fatalf("typed %q", d.Fields[0].Value())
	}
	edit := helpText(d.ShortHelp(ctx.Keys))
	for _, want := range []string{"enter create", "esc stop editing", "tab/↓ next field"} {
		if !strings.Contains(edit, want) {
			t.Fatalf("editing help %q lacks %q", edit, want)
		}
	}
	if strings.Contains(edit, "esc cancel") {
		t.Fatalf("editing help %q offers esc cancel, but esc stops editing", edit)
	}
	if screen := ansi.Strip(strings.Join(d.Lines(ctx, 80, 24), "\n")); !strings.Contains(screen, "✎ Name") {
		t.Fatalf("editing is not marked:\n%s", screen)
	}
	// tab moves on, still editing: the default 3 is selected, 8 replaces it.
	d.Update(ctx, kp("tab"))
	d.Update(ctx, kp("8"))
	if d.Fields[1].Value() != "8" || !d.Editing() {
		t.Fatalf("partitions %q editing %v", d.Fields[1].Value(), d.Editing())
	}
	// esc stops editing (the dialog stays); the next esc cancels.
	if out, _ := d.Update(ctx, kp("esc")); out != None || d.Editing() {
		t.Fatalf("esc while editing: outcome %v, editing %v", out, d.Editing())
	}
	d.Update(ctx, kp("x"))
	if d.Fields[1].Value() != "8" {
		t.Fatal("typing after esc still edits")
	}
	// While navigating, ctrl+s submits, and enter on a choice does.
	if out, _ := d.Update(ctx, kp("ctrl+s")); out != Submit {
		t.Fatalf("ctrl+s: %v", out)
	}
	d.Update(ctx, kp("down"))
	d.Update(ctx, kp("right"))
	if d.Fields[2].Value() != "compact" {
		t.Fatalf("→ on a choice while navigating: %q", d.Fields[2].Value())
	}
	if out, _ := d.Update(ctx, kp("enter")); out != Submit {
		t.Fatalf("enter on a choice: %v", out)
	}
	// A pending review: enter confirms even on a text field.
	d.Focus(0)
	d.Review = "Create NEW.T: 8 partitions."
	if out, _ := d.Update(ctx, kp("enter")); out != Submit {
		t.Fatalf("enter with a review pending: %v", out)
	}
	if h := helpText(d.ShortHelp(ctx.Keys)); !strings.Contains(h, "enter confirm: create") || !strings.Contains(h, "e edit field") {
		t.Fatalf("review help %q", h)
	}
	if out, _ := d.Update(ctx, kp("esc")); out != Cancel {
		t.Fatalf("esc while navigating: %v", out)
	}
}

// TestFormEnterSubmitsWhileEditing: enter submits and editing goes on, so
// a refusal is fixed in place; a paste goes into the edited field.
func TestFormEnterSubmitsWhileEditing(t *testing.T) {
	ctx := testCtx()
	d := newForm()
	d.Update(ctx, kp("e"))
	d.Update(ctx, tea.PasteMsg{Content: "A.B"})
	if out, _ := d.Update(ctx, kp("enter")); out != Submit {
		t.Fatalf("enter while editing: %v", out)
	}
	if !d.Editing() || d.Fields[0].Value() != "A.B" {
		t.Fatalf("after submit: editing %v, value %q", d.Editing(), d.Fields[0].Value())
	}
	d.Err = "no spaces"
	d.Update(ctx, kp("C"))
	if d.Fields[0].Value() != "A.BC" || d.Err != "" {
		t.Fatalf("editing after a refusal: %q (err %q)", d.Fields[0].Value(), d.Err)
	}
}

// TestConfirmTextLineNavigates: the type-to-confirm line is a field like
// the others: enter on it without the name says so and starts editing.
func TestConfirmTextLineNavigates(t *testing.T) {
	ctx := testCtx()
	d := &Dialog{Title: "Delete A", ConfirmText: "A", SubmitLabel: "delete"}
	d.Update(ctx, kp("A"))
	if d.confirm.Input.Value() != "" {
		t.Fatal("the name line took a key while navigating")
	}
	if out, _ := d.Update(ctx, kp("enter")); out != None || d.Err == "" || !d.Editing() {
		t.Fatalf("enter without the name: outcome %v, err %q, editing %v", out, d.Err, d.Editing())
	}
	d.Update(ctx, kp("A"))
	if out, _ := d.Update(ctx, kp("enter")); out != Submit {
		t.Fatalf("the typed name: %v", out)
	}
}

// The result of an action that did not do exactly what its preview
// showed lists each difference, sanitized, under what was applied.
func TestAppliedWithDifferences(t *testing.T) {
	d := AppliedWithDifferences("Seek billing", "seek", []string{"ORDERS [0]: moved to 7, the preview said 5", "evil \x1b[2J [1]"})
	want := []string{"The seek was applied, but not exactly as previewed:", "", "ORDERS [0]: moved to 7, the preview said 5", "evil ␛[2J [1]"}
	if d.Title != "Seek billing — applied with differences" || d.SubmitLabel != "close" || strings.Join(d.Body, "\n") != strings.Join(want, "\n") {
		t.Fatalf("dialog %q %q %q", d.Title, d.SubmitLabel, d.Body)
	}
}
