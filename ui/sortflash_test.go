package ui

import (
	"strings"
	"testing"
)

// hint is the hint line (the flash while it is fresh): the frame's last
// line but one.
func hint(h *harness) string {
	lines := strings.Split(h.screen(), "\n")
	return strings.TrimSpace(lines[len(lines)-2])
}

// In a read-only context a key of a mutating action flashes why it does
// nothing, on the one hint line; none opens anything.
func TestReadOnlyKeysSayWhy(t *testing.T) {
	h := newHarness(t, 120, 40, readOnly())
	h.warm(1)
	h.key("2") // topics
	for k, want := range map[string]string{
		"n": "read-only: n does nothing (creating topics is off)",
		"D": "read-only: D does nothing (deleting is off)",
		"F": "read-only: F does nothing (flushing is off)",
		"p": "read-only: publishing is off",
		"7": "read-only: publishing is off (tab 7 is absent)",
	} {
		h.key(k)
		if got := hint(h); got != want {
			t.Errorf("%s in read-only: hint %q, want %q", k, got, want)
		}
		if h.m.views[h.m.active].Capturing() || h.m.active != 1 {
			t.Fatalf("%s in read-only opened something (tab %d)", k, h.m.active)
		}
		h.key("esc")
	}
	h.key("5") // queues: P, T, M are off here too
	h.key("P")
	if got := hint(h); got != "read-only: P does nothing (changing queues is off)" {
		t.Errorf("P on queues in read-only: hint %q", got)
	}
}

// The help of a read-only context, which has six tabs, says 1-6.
func TestReadOnlyHelpSaysSixTabs(t *testing.T) {
	h := newHarness(t, 120, 40, readOnly())
	h.key("?")
	s := h.screen()
	if !strings.Contains(s, "1-6") || strings.Contains(s, "1-7") {
		t.Fatalf("read-only help:\n%s", s)
	}
	h = newHarness(t, 120, 40)
	h.key("?")
	if s := h.screen(); !strings.Contains(s, "1-7") {
		t.Fatalf("help:\n%s", s)
	}
}

// Keys that do not apply on the queue list flash why, through the root.
func TestQueueListKeysFlashOnTheHintLine(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(1)
	h.key("5", "M")
	if got := hint(h); got != "open a queue first (enter): M acts on the open queue" {
		t.Fatalf("M on the queue list: hint %q", got)
	}
}
