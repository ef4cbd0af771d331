package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"ilinkdash/ui/common"
)

// A sixteen-colour terminal (TERM=linux) gets the palette made for it:
// colours by number, never the 24-bit ones the renderer would downsample
// into one grey.
func TestSixteenColourTerminalTakesItsPalette(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.setMode(common.FullColor)
	h.warm(1)
	h.key("2")
	if s := h.m.View().Content; !strings.Contains(s, "38;2;") {
		t.Fatalf("the default palette draws no 24-bit colour:\n%q", s)
	}
	h.send(tea.ColorProfileMsg{Profile: colorprofile.ANSI})
	if !h.ctx.ANSI16 {
		t.Fatal("an ANSI profile did not select the 16-colour palette")
	}
	s := h.m.View().Content
	if strings.Contains(s, "38;2;") || strings.Contains(s, "48;2;") || strings.Contains(s, "38;5;") || strings.Contains(s, "48;5;") {
		t.Fatalf("a 16-colour terminal is sent 256- or 24-bit colours:\n%q", s)
	}
	if !strings.Contains(s, "\x1b[") {
		t.Fatal("the 16-colour palette draws no colour at all")
	}
	// A terminal that says it has more colours gets the full palette back.
	h.send(tea.ColorProfileMsg{Profile: colorprofile.TrueColor})
	if h.ctx.ANSI16 || !strings.Contains(h.m.View().Content, "38;2;") {
		t.Fatal("a true-colour profile kept the 16-colour palette")
	}
}
