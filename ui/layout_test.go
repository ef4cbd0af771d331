package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// TestLayoutDegrades renders every screen of the golden set at sizes from
// 120×40 down to 40×12, resizing the same program (as a user dragging the
// window would), and checks that every frame has exactly the terminal's
// height and no line wider than its width.
func TestLayoutDegrades(t *testing.T) {
	widths := []int{120, 100, 80, 64, 52, 40}
	heights := []int{40, 30, 24, 16, 12}
	for _, c := range screenCases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, 120, 40, c.opts...)
			h.warm(12)
			c.steps(h)
			for _, w := range widths {
				for _, hh := range heights {
					h.send(tea.WindowSizeMsg{Width: w, Height: hh})
					assertFrame(t, h.m.View().Content, w, hh)
				}
			}
		})
	}
}

// TestLayoutColorFrames checks the geometry with colours on (SGR
// sequences must not count) and that nothing but SGR reaches the frame.
func TestLayoutColorFrames(t *testing.T) {
	for _, mode := range []common.ColorMode{common.FullColor, common.NoColor} {
		for _, c := range screenCases {
			t.Run(fmt.Sprintf("%d/%s", mode, c.name), func(t *testing.T) {
				h := newHarness(t, 80, 24, c.opts...)
				h.setMode(mode)
				h.warm(6)
				c.steps(h)
				for _, size := range [][2]int{{120, 40}, {80, 24}, {40, 12}} {
					h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
					content := h.m.View().Content
					assertFrame(t, content, size[0], size[1])
					assertOnlySGR(t, content)
					if mode == common.NoColor {
						assertNoColour(t, content)
					}
				}
			})
		}
	}
}

// TestTinyTerminals: nothing panics, whatever the size.
func TestTinyTerminals(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.warm(3)
	for _, size := range [][2]int{{39, 11}, {30, 8}, {20, 5}, {19, 4}, {10, 3}, {1, 1}, {0, 0}} {
		for _, tab := range []string{"1", "2", "3", "4", "5", "6"} {
			h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			h.key(tab, "enter")
			v := h.m.View()
			if size[0] > 0 && size[1] > 0 {
				assertFrame(t, v.Content, size[0], size[1])
			}
			h.key("esc")
		}
	}
	_ = time.Second
}

// assertNoColour fails when an SGR sequence of the frame sets a colour
// (38;…, 48;…, 30–37, 40–47, 90–97, 100–107). Only real escape sequences
// count: a payload's sanitized "␛[38;5;46m" is text.
func assertNoColour(t *testing.T, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) || s[i+1] != '[' {
			continue
		}
		j := i + 2
		for j < len(s) && s[j] != 'm' {
			j++
		}
		for _, p := range strings.FieldsFunc(s[i+2:j], func(r rune) bool { return r == ';' || r == ':' }) {
			n := 0
			fmt.Sscan(p, &n)
			if n == 38 || n == 48 || n >= 30 && n <= 37 || n >= 40 && n <= 47 || n >= 90 && n <= 97 || n >= 100 && n <= 107 {
				t.Fatalf("NO_COLOR frame holds a colour: %q", s[i:j+1])
			}
		}
		i = j
	}
}

// assertOnlySGR fails when the frame holds an escape sequence other than
// SGR (ESC [ params m).
func assertOnlySGR(t *testing.T, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b {
			continue
		}
		if i+1 >= len(s) || s[i+1] != '[' {
			t.Fatalf("non-CSI escape at %d: %q", i, s[i:min(len(s), i+20)])
		}
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
			j++
		}
		if j >= len(s) || s[j] != 'm' {
			t.Fatalf("non-SGR sequence at %d: %q", i, s[i:min(len(s), j+1)])
		}
		i = j
	}
}
