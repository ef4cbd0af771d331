package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"ilinkdash/ui/common"
)

// withHistory gives the harness's model a history file and loads it.
func withHistory(h *harness, path string) {
	h.m.hist = newHistory(path)
	h.run(h.m.hist.load())
}

// ↑/↓ walk the commands run, stop at the ends (never wrap around), and
// the quit commands are not kept: `:` ↑ enter never quits. The history is
// kept in its file, bounded, and read back by the next run.
func TestCommandHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "ilinkdash", "history")
	h := newHarness(t, 120, 40)
	withHistory(h, path)

	// With no history, ↑ then enter does nothing (it used to wrap the
	// completions to quit).
	h.key(":", "up", "enter")
	if h.quit {
		t.Fatal("`:` ↑ enter quit the dashboard")
	}
	for _, c := range []string{"topics", "groups", "groups", "cluster"} {
		h.command(c)
	}
	if got := strings.Join(h.m.hist.Lines(), ","); got != "topics,groups,cluster" {
		t.Fatalf("history %q (consecutive repeats are kept once)", got)
	}
	h.key(":")
	h.typeText("q")
	h.key("esc") // not run: not kept
	h.key(":", "up")
	if v := h.m.cmd.Value(); v != "cluster" {
		t.Fatalf("↑ = %q, want the last command", v)
	}
	h.key("up", "up", "up", "up")
	if v := h.m.cmd.Value(); v != "topics" {
		t.Fatalf("↑ past the oldest = %q, want it to stay on topics", v)
	}
	h.key("down", "down", "down")
	if v := h.m.cmd.Value(); v != "" {
		t.Fatalf("↓ past the newest = %q, want the empty draft", v)
	}
	h.key("up", "enter")
	if h.m.active != common.ViewCluster || h.quit {
		t.Fatalf("↑ enter ran %v (quit %v), want the cluster tab", h.m.active, h.quit)
	}
	// The file holds the history; quit commands never reach it.
	h.command("quit")
	h.mustQuit(":quit")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "topics\ngroups\ncluster\n" {
		t.Fatalf("history file %q", b)
	}

	// The next run reads it back.
	h2 := newHarness(t, 120, 40)
	withHistory(h2, path)
	h2.key(":", "up")
	if v := h2.m.cmd.Value(); v != "cluster" {
		t.Fatalf("next run: ↑ = %q, want cluster", v)
	}

	// Bounded: only the last maxHistory lines are kept.
	var lines []string
	for i := 0; i < maxHistory+50; i++ {
		lines = append(lines, "tail T"+strings.Repeat("x", i%7)+string(rune('a'+i%26)))
	}
	h3 := newHarness(t, 120, 40)
	h3.m.hist = newHistory(path)
	h3.m.hist.loaded(lines)
	if n := len(h3.m.hist.Lines()); n != maxHistory {
		t.Fatalf("%d lines kept, want %d", n, maxHistory)
	}
}

// The Cluster tab's help does not list r: it only resends inside the
// not-committed dialog, which shows it itself.
func TestClusterHelpHasNoResend(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.key("4", "?")
	s := h.screen()
	if !strings.Contains(s, "edit properties") || strings.Contains(s, "resend") {
		t.Fatalf("cluster help:\n%s", s)
	}
}

// TERM=dumb strips every attribute, so the cursor row and the active tab
// are marked in text instead.
func TestDumbTerminalMarksTheCursorRow(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.setMode(common.FullColor)
	h.send(tea.ColorProfileMsg{Profile: colorprofile.NoTTY})
	if h.ctx.Mode != common.Dumb {
		t.Fatalf("mode %v after a NoTTY profile, want Dumb", h.ctx.Mode)
	}
	h.warm(1)
	h.key("2")
	s := h.screen()
	if strings.Contains(s, "\x1b[") {
		t.Fatal("escape sequences in dumb mode")
	}
	lines := strings.Split(s, "\n")
	if !strings.HasPrefix(lines[0], "[2 Topics]") && !strings.Contains(lines[0], "[2 Topics]") {
		t.Fatalf("active tab not marked: %q", lines[0])
	}
	cursor := 0
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, ">") {
			cursor++
		}
	}
	if cursor != 1 {
		t.Fatalf("%d rows marked as the cursor row, want 1:\n%s", cursor, s)
	}
	h.key("j")
	if s2 := h.screen(); s2 == s {
		t.Fatal("moving the cursor did not move the mark")
	}
}
