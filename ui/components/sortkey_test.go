package components

import (
	"cmp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func shiftKey(r rune) tea.KeyPressMsg {
	return tea.KeyPressMsg{Code: r + 'a' - 'A', ShiftedCode: r, Mod: tea.ModShift, Text: string(r)}
}

// Every sortable column gets a shift+letter that no binding of the KeyMap
// uses; pressing it sorts by the column (numbers largest first), pressing
// it again reverses.
func TestTableShiftLetterSort(t *testing.T) {
	ctx := testCtx()
	tb := NewTable(ctx, func(r row) string { return r.name },
		Column[row]{Title: "NAME", Width: 12, Flex: true, Text: func(r row) string { return r.name },
			Cmp: func(a, b row) int { return strings.Compare(a.name, b.name) }},
		Column[row]{Title: "IN/s", Width: 6, Right: true, Text: func(r row) string { return itoa(r.n) },
			Cmp: func(a, b row) int { return cmp.Compare(a.n, b.n) }},
		Column[row]{Title: "STATE", Width: 6, Text: func(r row) string { return "x" },
			Cmp: func(a, b row) int { return 0 }},
		Column[row]{Title: "NOTE", Width: 6, Text: func(r row) string { return "" }},
	)
	tb.SetSize(60, 10)
	tb.SetItems([]row{{"b", 1}, {"a", 3}, {"c", 2}})
	if got := tb.SortLegend(); got != "sort: N name · I in/s · A state" {
		t.Fatalf("legend %q (S reverses and T takes a message, so STATE takes A)", got)
	}
	first := func() string { r, _ := tb.Selected(); return r.name }
	tb.SetCursor(0)
	if ok, _ := tb.Update(shiftKey('I')); !ok {
		t.Fatal("I was not taken by the table")
	}
	if tb.SortInfo() != "in/s ↓" {
		t.Fatalf("after I: %q, want in/s ↓ (numbers largest first)", tb.SortInfo())
	}
	tb.SetCursor(0)
	if first() != "a" {
		t.Fatalf("largest IN/s first: got %q", first())
	}
	tb.Update(shiftKey('I'))
	tb.SetCursor(0)
	if tb.SortInfo() != "in/s ↑" || first() != "b" {
		t.Fatalf("I again: %q first %q, want reversed", tb.SortInfo(), first())
	}
	tb.Update(shiftKey('N'))
	tb.SetCursor(0)
	if tb.SortInfo() != "name ↑" || first() != "a" {
		t.Fatalf("N: %q first %q", tb.SortInfo(), first())
	}
	if ok, _ := tb.Update(shiftKey('X')); ok {
		t.Fatal("a letter of no column was taken")
	}
	// s still cycles.
	tb.Update(tea.KeyPressMsg{Code: 's', Text: "s"})
	if tb.SortInfo() != "in/s ↑" {
		t.Fatalf("s after name: %q", tb.SortInfo())
	}
	var keys []string
	for _, b := range tb.SortKeys() {
		keys = append(keys, b.Help().Key+"="+b.Help().Desc)
	}
	if strings.Join(keys, ",") != "N=sort by name,I=sort by in/s,A=sort by state" {
		t.Fatalf("sort keys %v", keys)
	}
}

// A narrow sorted column shows its whole title and the mark: "PART↑", not
// "PA…↑".
func TestTableSortedNarrowColumnKeepsTitle(t *testing.T) {
	ctx := testCtx()
	tb := NewTable(ctx, func(r row) string { return r.name },
		Column[row]{Title: "NAME", Width: 12, Flex: true, Text: func(r row) string { return r.name },
			Cmp: func(a, b row) int { return strings.Compare(a.name, b.name) }},
		Column[row]{Title: "PART", Width: 4, Right: true, Text: func(r row) string { return itoa(r.n) },
			Cmp: func(a, b row) int { return cmp.Compare(a.n, b.n) }},
	)
	tb.SetSize(40, 5)
	tb.SetItems([]row{{"a", 1}})
	tb.SetSort(1, false)
	head := ansi.Strip(tb.Lines()[0])
	if !strings.Contains(head, "PART↑") || strings.Contains(head, "…") {
		t.Fatalf("header %q", head)
	}
}
