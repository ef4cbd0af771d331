package components

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
	"ilinkdash/ui/common"
)

func TestSparkline(t *testing.T) {
	if got := Sparkline([]float64{0, 1, 2, 3, 4, 5, 6, 7}, 8); got != "▁▂▃▄▅▆▇█" {
		t.Fatalf("ramp = %q", got)
	}
	if got := Sparkline([]float64{1, 2}, 4); got != "  ▅█" {
		t.Fatalf("short = %q", got)
	}
	if got := Sparkline([]float64{0, 0, 0}, 3); got != "▁▁▁" {
		t.Fatalf("zeros = %q", got)
	}
	if got := Sparkline([]float64{-1, 4}, 2); got != " █" {
		t.Fatalf("no data = %q", got)
	}
	if got := Sparkline([]float64{1, 2, 3, 4, 5}, 2); got != "▇█" {
		t.Fatalf("window = %q", got)
	}
	if Sparkline(nil, 0) != "" {
		t.Fatal("zero width")
	}
}

type row struct {
	name string
	n    int
}

func testCtx() *common.Context {
	c := common.NewContext(config.DefaultContext(), false, nil)
	c.Mode = common.Plain
	c.Rebuild()
	return c
}

func newTestTable(ctx *common.Context) *Table[row] {
	return NewTable(ctx, func(r row) string { return r.name },
		Column[row]{Title: "NAME", Width: 12, Min: 6, Flex: true, Text: func(r row) string { return r.name },
			Cmp: func(a, b row) int { return strings.Compare(a.name, b.name) }},
		Column[row]{Title: "N", Width: 5, Right: true, Text: func(r row) string { return itoa(r.n) },
			Cmp: func(a, b row) int { return a.n - b.n }},
		Column[row]{Title: "EXTRA", Width: 20, Drop: 1, Text: func(r row) string { return "extra-" + r.name }},
	)
}

func itoa(n int) string { return string(rune('0' + n%10)) }

func TestTableLayoutSortFilterCursor(t *testing.T) {
	ctx := testCtx()
	tb := newTestTable(ctx)
	tb.SetSize(60, 6)
	tb.SetItems([]row{{"charlie", 3}, {"alpha", 1}, {"bravo", 2}, {"delta", 4}, {"echo", 5}, {"foxtrot", 6}})
	lines := tb.Lines()
	if !strings.Contains(lines[0], "EXTRA") {
		t.Fatalf("wide table lost a column: %q", lines[0])
	}
	tb.SetSize(24, 6)
	if strings.Contains(strings.Join(tb.Lines(), "\n"), "EXTRA") {
		t.Fatal("narrow table kept the optional column")
	}
	for _, l := range tb.Lines() {
		if ansi.StringWidthWc(l) > 24 {
			t.Fatalf("line too wide: %q", l)
		}
	}
	tb.SetCursor(0) // an explicit choice of charlie: it follows its row from now on
	tb.SetSort(0, false)
	if r, _ := tb.Selected(); r.name != "charlie" {
		t.Fatalf("cursor moved with the sort: %v", r)
	}
	tb.SetCursor(0)
	if r, _ := tb.Selected(); r.name != "alpha" {
		t.Fatalf("first row after sort: %v", r)
	}
	// New data keeps the cursor on the same key.
	tb.SetCursor(2) // charlie
	tb.SetItems([]row{{"aaa", 0}, {"charlie", 3}, {"alpha", 1}, {"bravo", 2}})
	if r, _ := tb.Selected(); r.name != "charlie" {
		t.Fatalf("cursor lost its row: %v", r)
	}
	tb.ReverseSort()
	if tb.SortInfo() != "name ↓" {
		t.Fatalf("sort info %q", tb.SortInfo())
	}
	tb.SetFilter("AL")
	if tb.Len() != 1 || tb.Position() != "1/1 of 4" {
		t.Fatalf("filter: %d rows, %q", tb.Len(), tb.Position())
	}
	tb.SetFilter("!al")
	if tb.Len() != 3 {
		t.Fatalf("negated filter: %d rows", tb.Len())
	}
	tb.ClearFilter()
	// Keys and mouse.
	tb.SetCursor(0)
	tb.Update(tea.KeyPressMsg{Code: 'G', Text: "G", ShiftedCode: 'G', Mod: tea.ModShift})
	if tb.Cursor() != 3 {
		t.Fatalf("G → %d", tb.Cursor())
	}
	tb.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	if hit, again := tb.Click(2); !hit || again || tb.Cursor() != 1 {
		t.Fatalf("click: %v %v %d", hit, again, tb.Cursor())
	}
	if _, again := tb.Click(2); !again {
		t.Fatal("second click not reported")
	}
	if hit, _ := tb.Click(0); hit {
		t.Fatal("a click on the header hit a row")
	}
	tb.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if tb.Cursor() != 3 {
		t.Fatalf("wheel → %d", tb.Cursor())
	}
	// Empty states.
	tb.SetItems(nil)
	if !strings.Contains(strings.Join(tb.Lines(), ""), "nothing to show") {
		t.Fatal("empty message")
	}
}

// TestTableCursorStaysOnTopUntilMoved: before any explicit move the cursor
// is on the first row whatever arrives, even when the first list held only
// rows that later sort below new ones (the groups tab once opened on row 3
// because its first list arrived before the other groups existed).
func TestTableCursorStaysOnTopUntilMoved(t *testing.T) {
	ctx := testCtx()
	tb := newTestTable(ctx)
	tb.SetSize(40, 8)
	tb.SetSort(0, false)
	tb.SetItems([]row{{"delta", 4}})
	tb.SetItems([]row{{"delta", 4}, {"bravo", 2}, {"alpha", 1}, {"charlie", 3}})
	if r, _ := tb.Selected(); tb.Cursor() != 0 || r.name != "alpha" {
		t.Fatalf("rows inserted above moved the cursor to %d (%v)", tb.Cursor(), r)
	}
	tb.SetItems([]row{{"delta", 4}, {"aaa", 0}, {"bravo", 2}, {"alpha", 1}})
	if r, _ := tb.Selected(); r.name != "aaa" {
		t.Fatalf("cursor left the top row: %v", r)
	}
	tb.ReverseSort()
	if r, _ := tb.Selected(); r.name != "delta" {
		t.Fatalf("unmoved cursor after reversing the sort: %v, want the top row", r)
	}
	tb.ReverseSort()
	// The first move by the user pins the row: new rows above it no
	// longer matter.
	tb.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if r, _ := tb.Selected(); r.name != "alpha" {
		t.Fatalf("j → %v", r)
	}
	tb.SetItems([]row{{"delta", 4}, {"aaa", 0}, {"a", 9}, {"bravo", 2}, {"alpha", 1}})
	if r, _ := tb.Selected(); r.name != "alpha" || tb.Cursor() != 2 {
		t.Fatalf("moved cursor lost its row: %d %v", tb.Cursor(), r)
	}
}

func TestTableFilterInput(t *testing.T) {
	ctx := testCtx()
	tb := newTestTable(ctx)
	tb.SetSize(40, 8)
	tb.SetItems([]row{{"alpha", 1}, {"bravo", 2}})
	tb.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
	if !tb.Filtering() {
		t.Fatal("/ did not start the filter")
	}
	tb.Update(tea.PasteMsg{Content: "br\x1b[2J\nav"})
	if tb.Filter() != "br[2J av" {
		t.Fatalf("pasted filter %q", tb.Filter())
	}
	tb.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if tb.Filtering() || tb.Filter() != "" {
		t.Fatal("esc did not clear")
	}
}

func TestInputEditing(t *testing.T) {
	in := NewInput(":", "")
	in.Focus()
	for _, r := range "hello world" {
		in.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	in.Update(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	if in.Value() != "hello " {
		t.Fatalf("ctrl+w → %q", in.Value())
	}
	in.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	in.Update(tea.KeyPressMsg{Code: 'X', Text: "X"})
	if in.Value() != "Xhello " {
		t.Fatalf("home+X → %q", in.Value())
	}
	in.Update(tea.KeyPressMsg{Code: 'k', Mod: tea.ModCtrl})
	if in.Value() != "X" {
		t.Fatalf("ctrl+k → %q", in.Value())
	}
	in.SetWidth(6)
	in.SetValue(strings.Repeat("東", 20))
	st := common.NewStyles(common.DarkTheme(), common.FullColor)
	if w := ansi.StringWidthWc(in.View(st)); w > 6 {
		t.Fatalf("input view %d wide", w)
	}
}

func TestDialogConfirmAndFields(t *testing.T) {
	ctx := testCtx()
	d := &Dialog{Title: "Delete x", ConfirmText: "x", SubmitLabel: "delete", Body: []string{strings.Repeat("word ", 60)}}
	if out, _ := d.Update(ctx, tea.KeyPressMsg{Code: tea.KeyEnter}); out != None || d.Err == "" {
		t.Fatal("submitted without the confirmation text")
	}
	d.Update(ctx, tea.KeyPressMsg{Code: 'x', Text: "x"})
	if out, _ := d.Update(ctx, tea.KeyPressMsg{Code: tea.KeyEnter}); out != Submit {
		t.Fatal("typed confirmation not accepted")
	}
	for _, size := range [][2]int{{80, 24}, {40, 12}, {20, 6}, {5, 3}} {
		for _, l := range d.Lines(ctx, size[0], size[1]) {
			if ansi.StringWidthWc(l) > size[0] {
				t.Fatalf("%v: dialog line %q too wide", size, l)
			}
		}
	}
	f := &Dialog{Title: "F", SubmitLabel: "go", Fields: []*Field{ChoiceField("To", "a", "b", "c"), TextField("V", "", "")}}
	f.Update(ctx, tea.KeyPressMsg{Code: tea.KeyRight})
	f.Update(ctx, tea.KeyPressMsg{Code: tea.KeyRight})
	if f.Fields[0].Value() != "c" {
		t.Fatalf("choice = %q", f.Fields[0].Value())
	}
	f.Update(ctx, tea.KeyPressMsg{Code: tea.KeyTab})
	f.Update(ctx, tea.KeyPressMsg{Code: tea.KeyEnter})   // edit V: the dialog opens navigating
	f.Update(ctx, tea.KeyPressMsg{Code: 'y', Text: "y"}) // typed, not "yes"
	if f.Fields[1].Value() != "y" {
		t.Fatalf("text = %q", f.Fields[1].Value())
	}
	f.Update(ctx, tea.KeyPressMsg{Code: tea.KeyEscape}) // stops editing
	if out, _ := f.Update(ctx, tea.KeyPressMsg{Code: tea.KeyEscape}); out != Cancel {
		t.Fatal("esc does not cancel")
	}
	c := &Dialog{Title: "C", SubmitLabel: "ok", Actions: []Action{{Key: ctx.Keys.Resend, ID: 7}}}
	if out, id := c.Update(ctx, tea.KeyPressMsg{Code: 'r', Text: "r"}); out != Acted || id != 7 {
		t.Fatal("action key")
	}
	if out, _ := c.Update(ctx, tea.KeyPressMsg{Code: 'y', Text: "y"}); out != Submit {
		t.Fatal("y on a plain confirmation")
	}
	c.Busy = "working…"
	if out, _ := c.Update(ctx, tea.KeyPressMsg{Code: 'y', Text: "y"}); out != None {
		t.Fatal("busy dialog accepted a key")
	}
}

func press(in *Input, keys ...string) {
	for _, k := range keys {
		var m tea.KeyPressMsg
		switch k {
		case "backspace":
			m = tea.KeyPressMsg{Code: tea.KeyBackspace}
		case "left":
			m = tea.KeyPressMsg{Code: tea.KeyLeft}
		case "end":
			m = tea.KeyPressMsg{Code: tea.KeyEnd}
		default:
			m = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		in.Update(m)
	}
}

// A pre-filled value is selected when the input gains focus: typing
// replaces it (a default "3" and a typed 6 make 6, not 36), backspace
// clears it, a movement key keeps it for editing.
func TestInputSelectsPrefilledValueOnFocus(t *testing.T) {
	st := testCtx().Styles
	mk := func() *Input {
		in := NewInput("", "")
		in.SetValue("3")
		in.Focus()
		return &in
	}
	in := mk()
	if !in.Selected() || in.View(st) != "[3]" {
		t.Fatalf("focused default: selected %v, view %q", in.Selected(), in.View(st))
	}
	press(in, "6")
	if in.Value() != "6" || in.Selected() {
		t.Fatalf("typing over the default gave %q (selected %v), want 6", in.Value(), in.Selected())
	}
	in = mk()
	press(in, "backspace")
	if in.Value() != "" {
		t.Fatalf("backspace on the selection left %q", in.Value())
	}
	in = mk()
	press(in, "end", "6")
	if in.Value() != "36" {
		t.Fatalf("end then 6 gave %q, want 36 (editing)", in.Value())
	}
	in = mk()
	in.Update(tea.PasteMsg{Content: "12"})
	if in.Value() != "12" {
		t.Fatalf("paste over the selection gave %q", in.Value())
	}
	// Focus again without a blur does not reselect what is being edited.
	press(in, "4")
	in.Focus()
	press(in, "5")
	if in.Value() != "1245" {
		t.Fatalf("refocus reselected: %q", in.Value())
	}
	// An empty input has nothing to select.
	e := NewInput("", "ph")
	e.Focus()
	if e.Selected() {
		t.Fatal("empty input selected")
	}
}

// A dialog's footer that does not fit the box is wrapped between its
// hints, the last lines above the bottom border: at 60 columns the tail's
// search dialog said "… esc ┘" (at 57, "esc c ┘"). One that fits is the
// bottom border as before.
func TestDialogFooterFitsNarrow(t *testing.T) {
	ctx := testCtx()
	d := &Dialog{Title: "Search", SubmitLabel: "search", Body: []string{"Scans the topic."},
		Fields: []*Field{TextField("Key", "", ""), TextField("Value", "", "")}}
	var hints []string
	for _, b := range d.ShortHelp(ctx.Keys) {
		hints = append(hints, b.Help().Key+" "+b.Help().Desc)
	}
	full := strings.Join(hints, "  ")
	if len(hints) < 3 || ansi.StringWidthWc(full) <= 56 {
		t.Fatalf("footer %q: fits 60 columns, the test shows nothing", full)
	}
	for _, w := range []int{60, 57, 40, 30} {
		lines := d.Lines(ctx, w, 24)
		var box []string
		for _, l := range lines {
			if l = strings.TrimSpace(ansi.Strip(l)); l != "" {
				box = append(box, l)
			}
		}
		bw := ansi.StringWidthWc(box[0])
		for _, l := range box {
			if ansi.StringWidthWc(l) != bw || ansi.StringWidthWc(l) > w {
				t.Fatalf("at %d columns a line of the box is %d wide (box %d):\n%s", w, ansi.StringWidthWc(l), bw, strings.Join(box, "\n"))
			}
		}
		last := box[len(box)-1]
		if !strings.HasPrefix(last, "└ ") || !strings.HasSuffix(last, "┘") || !strings.Contains(last, "esc cancel") {
			t.Fatalf("at %d columns the bottom border is %q, want esc cancel on it", w, last)
		}
		all := strings.Join(box, "\n")
		for _, h := range hints {
			if !strings.Contains(all, h) {
				t.Fatalf("at %d columns the footer lost %q:\n%s", w, h, all)
			}
		}
	}
	// A busy text longer than the box is wrapped, not cut.
	b := &Dialog{Title: "Search", Busy: "searching ORDER.EVENT from earliest to the end now: 1,234 of 56,789 records"}
	var box []string
	for _, l := range b.Lines(ctx, 40, 24) {
		if l = strings.TrimSpace(ansi.Strip(l)); l != "" {
			box = append(box, l)
		}
	}
	if all := strings.Join(box, " "); !strings.Contains(all, "1,234 of 56,789") || !strings.HasPrefix(box[len(box)-1], "└ records  esc close ─") {
		t.Fatalf("a busy dialog at 40 columns:\n%s", strings.Join(box, "\n"))
	}
	// Wide enough: the footer is the bottom border, on one line.
	lines := d.Lines(ctx, 120, 24)
	var last string
	for _, l := range lines {
		if l = strings.TrimSpace(ansi.Strip(l)); l != "" {
			last = l
		}
	}
	if !strings.HasPrefix(last, "└ "+full+" ─") {
		t.Fatalf("at 120 columns the bottom border is %q, want %q on it", last, full)
	}
}
